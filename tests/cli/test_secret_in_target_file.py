"""A secret the agent copies into a target file: the next context shows that file's excerpt,
so the value would reach the model and artifacts/contexts/ if nothing cut it. Through a real
run on a litellm model at the loopback fake server, in both sandbox modes: no request body,
no file forgetui wrote (contexts, state, log, checkpoints, memory, the exported replay
script) and nothing printed holds the value. The workspace snapshots are the exception, on
purpose: they are byte-exact copies of the workspace file a rewind restores."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.engine.helpers import make_task
from tests.engine.sandbox_helpers import MODES
from tests.fake_openai import tool_call_reply

SECRET = "sk-test-0123456789abcdefTARGETFILE"


@pytest.mark.parametrize("mode", MODES)
def test_a_secret_copied_into_a_target_file_goes_nowhere(
    cli_in_process: Any, tmp_path: Path, fake_openai: Any, mode: str
) -> None:
    folder = make_task(tmp_path, [], checks=[], target_files=["notes.txt"])
    fake_openai.queue(
        tool_call_reply(
            ("write_file", {"path": "notes.txt", "content": f"# config\napi_key = {SECRET}\n"})
        ),
        tool_call_reply(("run_cmd", {"cmd": ["python", "-c", "print(open('notes.txt').read())"]})),
        tool_call_reply(("note", {"text": "the key is in notes.txt"})),
    )
    env = {"OPENAI_API_KEY": SECRET, "FORGETUI_SANDBOX": mode}
    model = ("--model", "openai/gpt-4o-mini", "--api-base", fake_openai.url)
    run = cli_in_process("run", folder.path, *model, "--max-steps", "3", "--json", extra_env=env)
    assert run.code == 0, run.err
    assert (tmp_path / "ws" / "notes.txt").read_text().count(SECRET) == 1  # the agent's write

    ran = [r for r in folder.log.iter_records() if r.kind == "result" and r.action == "run_cmd"]
    assert [(r.result, r.redacted) for r in ran] == [("success", ["OPENAI_API_KEY"])]  # it ran

    # what the model got: three requests, the later two with the file's excerpt, cut
    assert len(fake_openai.requests) == 3
    for body in fake_openai.requests:
        assert SECRET not in json.dumps(body)
    second = fake_openai.requests[1]["messages"][-1]["content"]
    assert "notes.txt" in second and "api_key = (redacted $OPENAI_API_KEY)" in second

    exported = tmp_path / "exported.yaml"
    export = cli_in_process("export-replay", folder.path, "--to", exported, extra_env=env)
    assert export.code == 0, export.err
    shown = [cli_in_process(*command, extra_env=env) for command in (
        ("log", folder.path, "--json"),
        ("status", folder.path, "--json"),
        ("context", folder.path, "--step", "2"),
    )]  # fmt: skip
    for printed in (run, export, *shown):
        assert SECRET not in printed.out + printed.err

    snapshots = folder.path / "artifacts" / "snapshots"
    kept = [path for path in folder.path.rglob("*") if path.is_file()]
    leaked = [
        str(path)
        for path in [*kept, exported]
        if SECRET.encode() in path.read_bytes() and not path.is_relative_to(snapshots)
    ]
    assert leaked == []
    written = {path.relative_to(folder.path).parts[1] for path in kept if "artifacts" in path.parts}
    assert {"contexts", "checkpoints", "snapshots"} <= written
    after = snapshots / "step-000001" / "notes.txt.after"
    assert after.read_bytes() == (tmp_path / "ws" / "notes.txt").read_bytes()
