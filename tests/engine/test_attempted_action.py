"""An answer that names a real action with bad arguments is logged under that action's name,
with the reason, not as "(unparsed)": the operator reading the log sees what the model tried."""

from __future__ import annotations

from pathlib import Path

from forgetui.engine.folder.records import IntentRecord, ResultRecord
from forgetui.engine.llm.parse import parse_text
from forgetui.engine.step.executor import Executor
from tests.engine.helpers import act, make_task, replay


def test_parse_keeps_the_name_of_an_action_with_bad_arguments() -> None:
    parsed = parse_text("```yaml\naction: read_file\nargs: {bogus: 1}\n```")
    assert parsed.action is None and parsed.error
    assert parsed.attempted == "read_file"
    assert parse_text("no block at all").attempted is None


def test_the_log_names_the_attempted_action(tmp_path: Path) -> None:
    bad = {"text": "```yaml\naction: read_file\nargs: {bogus: 1}\n```"}
    folder = make_task(tmp_path, [bad, act("note", text="next")], checks=[])
    with Executor(folder, replay(folder)) as executor:
        executor.step()
    intent, result = folder.log.records(0, 2)
    assert isinstance(intent, IntentRecord) and isinstance(result, ResultRecord)
    assert intent.action == result.action == "read_file"
    assert result.result == "failure"
    assert "bogus" in (result.error or "")
    assert result.summary.startswith("invalid read_file: unknown argument")
