"""The compiled messages are the last look before a context is sent: a secret value taken in by
any section (a target file's excerpt, a memory item, a recent action, the goal) is cut there,
in either rendering, and the context still validates (sections recounted)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from forgetui.engine.context import compile_context, validate_context
from forgetui.engine.sandbox import secrets_of
from tests.engine.test_context import TARGET, loaded, make_inputs, make_spec, result
from tests.engine.test_context import workspace as workspace  # the fixture

SECRET = "sk-test-0123456789abcdefCONTEXT"


@pytest.mark.parametrize("fmt", ["yaml", "xml"])
def test_no_section_sends_a_secret_value(
    workspace: Path, fmt: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    (workspace / TARGET).write_text(f"import click\nKEY = {SECRET}\n@click.command()\n")
    inputs = make_inputs(
        workspace,
        spec=make_spec(context_format=fmt, goal=f"Give commands help; never print {SECRET}"),
        items=[loaded("env", f"OPENAI_API_KEY={SECRET}")],
        recent=[result(7, summary=f'wrote "{SECRET}"')],
    )
    ctx = compile_context(inputs)
    sent = "".join(message["content"] for message in ctx.messages)
    assert SECRET not in sent
    assert sent.count("(redacted $OPENAI_API_KEY)") >= 4  # the file, memory, recent, goal
    assert "KEY = (redacted $OPENAI_API_KEY)" in ctx.section("current_state").text
    assert "secret values cut (OPENAI_API_KEY)" in ctx.section("current_state").compressions
    assert validate_context(ctx, inputs) == []


def test_nothing_changes_without_secrets(workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in secrets_of(os.environ):
        monkeypatch.delenv(name)
    ctx = compile_context(make_inputs(workspace))
    assert "redacted" not in "".join(message["content"] for message in ctx.messages)
