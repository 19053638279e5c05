"""Long arguments are kept once, by reference, and given back whole where a step needs them;
read_file reads the start of a file too large to read whole; no writer leaves a file forgetui
would refuse to read back."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from forgetui.engine.actions.args import MAX_ARG_CHARS
from forgetui.engine.base.clock import now_iso
from forgetui.engine.base.yamlio import TooLargeToWrite, atomic_write_text
from forgetui.engine.folder.records import IntentRecord
from forgetui.engine.folder.stored_args import MissingArgument, expanded
from forgetui.engine.operator.verbs import answer
from forgetui.engine.step.executor import Executor
from tests.engine.helpers import act, last_results, make_task, replay

BIG = "".join(f"{n:07d} the same line, numbered\n" for n in range(40_000))  # ~1.3 MB


def test_an_interrupted_large_write_is_re_run_whole(tmp_path: Path) -> None:
    """The intent in the log holds a reference; a re-run after a crash writes the content the
    model gave, byte for byte."""
    script = [act("note", text="one"), act("write_file", path="big.txt", content=BIG)]
    folder = make_task(tmp_path, [*script, act("note", text="after")], checks=[])
    with Executor(folder, replay(folder)) as executor:
        executor.step()
    with folder.lock:  # step 2's intent reached the log, then the process died
        folder.log.append(
            IntentRecord(step=2, at=now_iso(), action="write_file", args=script[1]["args"])
        )
    line = (folder.path / "actions.yaml").read_bytes().splitlines()[-1]
    assert len(line) < 2000 and b"bytes: see artifacts/args/" in line
    with Executor(folder, replay(folder)) as executor:
        assert folder.load_state().pending_escalation is not None  # interrupted: asked
        answer(folder, "re-run")
        report = executor.step()
    assert (report.step, report.result) == (2, "success")
    assert (folder.workspace / "big.txt").read_text() == BIG
    assert (folder.path / "state.yaml").stat().st_size < 16_000


def test_a_reference_whose_file_is_gone_is_one_clear_error(tmp_path: Path) -> None:
    folder = make_task(tmp_path, [act("write_file", path="big.txt", content=BIG)], checks=[])
    with Executor(folder, replay(folder)) as executor:
        executor.step()
    intent = folder.log.last_intents(1)[0]
    assert expanded(intent.args, folder.path) == {"path": "big.txt", "content": BIG}
    for kept in (folder.path / "artifacts" / "args").iterdir():
        kept.write_text("changed by hand")
    with pytest.raises(MissingArgument, match="does not hold the argument"):
        expanded(intent.args, folder.path)


def test_an_argument_that_only_looks_like_a_reference_is_kept_as_written(tmp_path: Path) -> None:
    fake = f"<12 bytes: see artifacts/args/{'0' * 64}.txt>"
    folder = make_task(tmp_path, [act("write_file", path="ref.txt", content=fake)], checks=[])
    with Executor(folder, replay(folder)) as executor:
        assert executor.step().result == "success"
    assert (folder.workspace / "ref.txt").read_text() == fake
    assert folder.log.last_intents(1)[0].args["content"] == fake


def test_read_file_reads_the_start_of_a_large_file(tmp_path: Path) -> None:
    huge = BIG * 2  # ~2.6 MB: over what read_file reads whole
    script = [
        act("read_file", path="huge.txt"),
        act("read_file", path="huge.txt", max_bytes=1000, start_line=2),
        {"text": "```yaml\naction: read_file\nargs: {path: huge.txt, max_bytes: 0}\n```"},
        act("read_file", path="small.txt", max_bytes=10**9),
    ]
    folder = make_task(tmp_path, script, checks=[], guards={"failed_approaches": 10})
    (folder.workspace / "huge.txt").write_text(huge)
    (folder.workspace / "small.txt").write_text("a\nb\n")
    with Executor(folder, replay(folder)) as executor:
        whole, head, zero, small = (executor.step() for _ in script)
    assert whole.result == "failure" and "max_bytes" in whole.summary
    assert head.result == "success"
    assert "lines 2-31 of 31 (the first 992 of 2,560,000 bytes)" in head.summary
    output = last_results(folder.log, 3)[0].output or ""
    assert output.splitlines()[0].endswith("2| 0000001 the same line, numbered")
    assert zero.result == "failure" and "max_bytes" in zero.summary and "1 or more" in zero.summary
    assert small.result == "success" and small.summary == "read small.txt lines 1-2 of 2"


def test_no_writer_leaves_a_file_too_large_to_read_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from forgetui.engine.base import yamlio

    target = tmp_path / "state.yaml"
    target.write_text("step: 1\n")
    monkeypatch.setattr(yamlio, "MAX_YAML_BYTES", 1024)
    with pytest.raises(TooLargeToWrite, match="2,048 bytes is over the 1,024 bytes forgetui"):
        atomic_write_text(target, "x" * 2048)
    assert target.read_text() == "step: 1\n"
    assert [path.name for path in tmp_path.iterdir()] == ["state.yaml"]  # no temporary left


def test_an_argument_copied_into_state_is_bounded(tmp_path: Path) -> None:
    """A note goes to the scratchpad, a command to the commands run: one too long to keep in
    state.yaml is refused like any bad argument, and nothing of it is kept there."""
    script = [act("note", text="n" * (MAX_ARG_CHARS + 1)), act("note", text="short")]
    folder = make_task(tmp_path, [], checks=[])
    (folder.path / "replay.yaml").write_text(
        "\n".join(f"- text: '```yaml\n\n  {json.dumps(entry)}\n\n  ```'" for entry in script)
    )
    with Executor(folder, replay(folder)) as executor:
        long, short = executor.step(), executor.step()
    assert long.result == "failure" and "at most 65,536 are accepted" in long.summary
    assert short.result == "success"
    state = folder.load_state()
    assert state.scratchpad == ["short"]
    assert (folder.path / "state.yaml").stat().st_size < 16_000
