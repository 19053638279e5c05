"""The replay model: scripted answers, a position that survives restarts, clear script errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from forgetui.engine.base.errors import StateFileError
from forgetui.engine.base.yamlio import atomic_write_text, dump_model
from forgetui.engine.folder.action_log import ActionLog
from forgetui.engine.folder.catalog import actions_of
from forgetui.engine.folder.records import IntentRecord
from forgetui.engine.folder.task_state import Decision, TaskState
from forgetui.engine.llm import EXHAUSTED, ReplayModel, load_script

TOOLS = actions_of("execution")
MESSAGES = [{"role": "system", "content": "s"}, {"role": "user", "content": "u"}]
SCRIPT = """\
- action: list_dir
  args: {path: .}
- text: |
    The test expects a greeting.

    ```yaml
    action: write_file
    args:
      path: hello.py
      content: |
        print("Hello")
    ```
- action: read_file
  args: {path: hello.py, start_line: 1}
- text: I am not sure.
"""


@pytest.fixture
def task_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "task"
    folder.mkdir()
    (folder / "replay.yaml").write_text(SCRIPT)
    return folder


def replay(task_dir: Path) -> ReplayModel:
    return ReplayModel(task_dir / "replay.yaml", task_dir)


def test_structured_and_text_responses_are_parsed(task_dir: Path) -> None:
    model = replay(task_dir)
    first = model.complete(MESSAGES, TOOLS)
    assert (first.action, first.args, first.error) == ("list_dir", {"path": "."}, None)
    second = model.complete(MESSAGES, TOOLS)
    assert second.action == "write_file"
    assert second.args == {"path": "hello.py", "content": 'print("Hello")\n'}
    assert second.raw.startswith("The test expects a greeting.")
    assert (second.model, second.cost, second.transport_failed) == ("replay", 0.0, False)


def test_position_survives_a_new_model_instance(task_dir: Path) -> None:
    model = replay(task_dir)
    model.complete(MESSAGES, TOOLS)
    model.complete(MESSAGES, TOOLS)
    assert (task_dir / "replay.pos").read_text().strip() == "2"

    restarted = replay(task_dir)
    assert restarted.position == 2
    reply = restarted.complete(MESSAGES, TOOLS)
    assert (reply.action, reply.args) == ("read_file", {"path": "hello.py", "start_line": 1})


def test_set_position_re_aligns_with_the_log_after_a_crash(task_dir: Path) -> None:
    """Reply 3 was handed out but the step never recorded: the executor rewinds to its log."""
    model = replay(task_dir)
    for _ in range(3):
        model.complete(MESSAGES, TOOLS)
    replay(task_dir).set_position(2)
    resumed = replay(task_dir)
    assert resumed.position == 2
    assert resumed.complete(MESSAGES, TOOLS).action == "read_file"
    with pytest.raises(ValueError, match=r"outside 0\.\.4"):
        resumed.set_position(5)


def test_unparseable_text_is_an_error_and_the_end_is_a_transport_failure(task_dir: Path) -> None:
    model = replay(task_dir)
    model.set_position(3)
    vague = model.complete(MESSAGES, TOOLS)
    assert vague.action is None and not vague.transport_failed
    assert vague.error is not None and "no action block found" in vague.error
    done = model.complete(MESSAGES, TOOLS)
    assert (done.error, done.transport_failed) == (EXHAUSTED.format(step=5), True)
    assert done.error == (
        "the replay script has no step 5; another model must take over"
        " (a litellm model, or the human model: you type the actions)"
    )
    assert not done.retry_helps  # no "Retry?" that can never succeed
    assert model.position == 4 and model.remaining == 0


def test_action_not_offered_in_the_phase_is_an_error(task_dir: Path) -> None:
    model = replay(task_dir)
    model.set_position(1)
    reply = model.complete(MESSAGES, actions_of("planning"))
    assert reply.error is not None and "'write_file' is not available now" in reply.error


def test_without_a_task_dir_the_position_is_in_memory(task_dir: Path) -> None:
    model = ReplayModel(task_dir / "replay.yaml")
    model.complete(MESSAGES, TOOLS)
    assert model.position == 1 and not (task_dir / "replay.pos").exists()


def test_match_follows_the_latest_decision(task_dir: Path) -> None:
    (task_dir / "replay.yaml").write_text(
        "- match:\n"
        "    - when: French\n"
        "      action: note\n"
        "      args: {text: bonjour}\n"
        "    - action: note\n"
        "      args: {text: hello}\n"
    )
    assert replay(task_dir).complete(MESSAGES, TOOLS).args == {"text": "hello"}  # no state yet
    state = TaskState(
        task_id="t",
        phase="execution",
        step=1,
        decisions=[Decision(step=1, question="Which language?", answer="french, please", at="x")],
    )
    atomic_write_text(task_dir / "state.yaml", dump_model(state))
    model = replay(task_dir)
    model.set_position(0)
    assert model.complete(MESSAGES, TOOLS).args == {"text": "bonjour"}


@pytest.mark.parametrize(
    ("script", "line", "field", "problem"),
    [
        ("- action: list_dir\n  args: {path: .}\n- action: fly\n", 3, "1.action", "unknown action"),
        ("- action: read_file\n  args:\n    colour: red\n", 2, "0.args", "unknown argument"),
        ("- action: read_file\n", 1, "0.args", "missing required argument(s) 'path'"),
        ("- text: hi\n  action: note\n", 1, "0", "exactly one of"),
        ("- {}\n", 1, "0", "exactly one of"),
        ("- txt: hi\n", 1, "0.txt", "Extra inputs"),
        ("- text: hi\n- action: [\n", 3, None, "does not parse"),
        ("action: note\n", 1, None, "a list of responses"),
    ],
)
def test_bad_script_names_file_line_and_field(
    tmp_path: Path, script: str, line: int, field: str | None, problem: str
) -> None:
    path = tmp_path / "replay.yaml"
    path.write_text(script)
    with pytest.raises(StateFileError) as caught:
        load_script(path)
    error = caught.value
    assert (error.path, error.line, error.field) == (path, line, field)
    assert problem in str(error) and str(error).startswith(f"{path}:{line}: ")


def test_corrupt_position_file_is_a_state_file_error(task_dir: Path) -> None:
    (task_dir / "replay.pos").write_text("two\n")
    with pytest.raises(StateFileError, match=r"replay\.pos:1: not a replay position"):
        replay(task_dir)


@pytest.mark.parametrize(
    "script", sorted(Path(__file__).parents[2].glob("sample_tasks/*/replay.yaml")), ids=str
)
def test_bundled_sample_scripts_load(script: Path) -> None:
    assert load_script(script)


def test_sync_to_log_hands_out_again_a_reply_the_log_never_recorded(task_dir: Path) -> None:
    """The executor opens the task after a crash: three replies were handed out, two logged."""
    model = replay(task_dir)
    log = ActionLog(task_dir / "actions.yaml")
    for step in (1, 2):
        reply = model.complete(MESSAGES, TOOLS)
        log.append(IntentRecord(step=step, at="t", action=reply.action or "", model=reply.model))
    log.append(IntentRecord(step=3, at="t", action="note", model="human"))  # operator's step
    model.complete(MESSAGES, TOOLS)  # crash before this one is recorded
    assert model.position == 3

    reopened = replay(task_dir)
    reopened.sync_to_log(log)
    assert reopened.position == 2
    assert reopened.complete(MESSAGES, TOOLS).action == "read_file"
