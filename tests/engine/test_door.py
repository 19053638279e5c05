"""The engine's door imports each name the first time it is asked for: every name it lists is
there, and asking for one loads only the module that holds it."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from forgetui.engine import api


def test_every_name_of_the_door_is_there_and_only_those() -> None:
    for name in api.__all__:
        assert getattr(api, name) is not None, name
    assert set(api._MODULE_OF) == set(api.__all__)
    with pytest.raises(AttributeError, match="no attribute 'not_a_name'"):
        api.not_a_name  # noqa: B018


IMPORTED = """
import json, sys
{code}
print(json.dumps(sorted(m for m in sys.modules if m.startswith("forgetui.engine."))
                 + ["pydantic"] * ("pydantic" in sys.modules)))
"""


def _engine_modules_after(code: str) -> list[str]:
    out = subprocess.run(
        [sys.executable, "-c", IMPORTED.format(code=code)], capture_output=True, text=True,
        check=True,
    ).stdout  # fmt: skip
    modules: list[str] = json.loads(out)
    return modules


# what the door itself is made of: the names it lends load from their modules when asked for
DOOR = ["forgetui.engine.api", "forgetui.engine.base", "forgetui.engine.base.lazy_names"]


def test_importing_the_door_loads_nothing_behind_it() -> None:
    assert _engine_modules_after("import forgetui.engine.api") == DOOR


def test_a_name_loads_only_its_module() -> None:
    loaded = _engine_modules_after("from forgetui.engine.api import ForgeError")
    assert loaded == sorted([*DOOR, "forgetui.engine.base.errors"])
