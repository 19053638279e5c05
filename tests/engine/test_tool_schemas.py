"""The tools a model is offered carry real schemas: every argument typed and described, and
set_plan's plan in the shape the engine validates."""

from __future__ import annotations

import pytest

from forgetui.engine.folder.catalog import ACTIONS
from forgetui.engine.folder.task_spec import Plan
from forgetui.engine.llm.parse import tool_schemas

pytestmark = pytest.mark.timeout(30)


def test_every_argument_of_every_action_is_typed_and_described() -> None:
    tools = tool_schemas(list(ACTIONS.values()))
    assert {tool["function"]["name"] for tool in tools} == set(ACTIONS)
    for tool in tools:
        for name, schema in tool["function"]["parameters"]["properties"].items():
            assert schema.get("description"), (tool["function"]["name"], name)
            assert "type" in schema or "anyOf" in schema, (tool["function"]["name"], name)


def test_set_plan_offers_the_plan_shape_the_engine_accepts() -> None:
    (tool,) = tool_schemas([ACTIONS["set_plan"]])
    plan = tool["function"]["parameters"]["properties"]["plan"]
    task = plan["properties"]["tasks"]["items"]
    subtask = task["properties"]["subtasks"]["items"]
    assert plan["required"] == ["goal", "tasks"] and subtask["required"] == ["title"]
    # a plan written to the schema validates as the engine's Plan
    written = {"goal": "ship", "tasks": [{"title": "write", "subtasks": [{"title": "a.py"}]}]}
    assert Plan.model_validate(written).tasks[0].subtasks[0].title == "a.py"
    assert set(task["properties"]) == {"title", "subtasks"}
    assert set(plan["properties"]) <= set(Plan.model_fields)
