"""actions.yaml: append-only JSON lines that stay a YAML stream; torn tails; tail, index, merge."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from forgetui.engine.base.errors import ForgeError, StateFileError
from forgetui.engine.folder.action_log import ActionLog, AnyRecord, encode_record
from forgetui.engine.folder.log_entries import merge_steps
from forgetui.engine.folder.records import IntentRecord, OperatorRecord, ResultRecord

AT = "2025-01-01T00:00:00Z"
MERGED_KEYS = [
    "step", "action", "args", "result", "summary", "context_tokens", "prompt_tokens",
    "prompt_tokens_by", "completion_tokens", "cost", "model", "tool_tokens", "system_role",
    "finish_reason", "model_ms", "raw_response",
]  # fmt: skip


def intent(step: int, action: str = "read_file", **extra: object) -> IntentRecord:
    return IntentRecord.model_validate(
        {"step": step, "at": AT, "action": action, "args": {"path": f"f{step}.py"}, **extra}
    )


def result(step: int, action: str = "read_file", **extra: object) -> ResultRecord:
    fields = {"result": "success", "summary": f"did step {step}", **extra}
    return ResultRecord.model_validate({"step": step, "at": AT, "action": action, **fields})


def operator(step: int, op: str = "note", text: str = "look at x") -> OperatorRecord:
    return OperatorRecord(step=step, at=AT, op=op, text=text)


def writer(path: Path) -> ActionLog:
    return ActionLog(path, can_write=lambda: True)


def reader(path: Path) -> ActionLog:
    return ActionLog(path, can_write=lambda: False)


def write_log(path: Path, records: Sequence[AnyRecord]) -> None:
    """Fast setup: the bytes append() would write, without an fsync per record."""
    path.write_bytes(b"".join(encode_record(record) for record in records))


def steps_log(count: int) -> list[AnyRecord]:
    records: list[AnyRecord] = []
    for step in range(1, count + 1):
        records += [intent(step, prompt_tokens=step), result(step)]
    return records


def dumped(record: AnyRecord) -> dict[str, object]:
    return record.model_dump(mode="json", exclude_none=True)


@pytest.fixture
def log_path(tmp_path: Path) -> Path:
    return tmp_path / "actions.yaml"


# -- encoding ---------------------------------------------------------------------------------


def test_each_line_is_json_and_the_file_is_a_yaml_stream(log_path: Path) -> None:
    tricky = "line\nbreak \u2028 sep \u2029 nel \x85 del \x7f bell \x07 tab\t é ✓ 🚀 \ufeff \ufffe"
    records: list[AnyRecord] = [
        intent(1, raw_response=tricky, args={"content": tricky, "n": [1, 2, {"deep": None}]}),
        result(1, output=tricky),
        operator(1, text="surrogate \udc80 kept"),
    ]
    log = writer(log_path)
    offsets = [log.append(record) for record in records]
    data = log_path.read_bytes()
    lines = data.split(b"\n")
    assert lines[-1] == b"" and len(lines) == 4  # one line per record, newline-terminated
    assert offsets == [0, len(lines[0]) + 1, len(lines[0]) + len(lines[1]) + 2]
    for line, record in zip(lines, records, strict=False):
        assert line.startswith(b"--- ")
        assert json.loads(line[4:]) == dumped(record)
    documents = list(yaml.safe_load_all(data.decode("utf-8")))
    assert documents == [dumped(record) for record in records]
    assert [r.model_dump() for r in log.records()] == [r.model_dump() for r in records]


def test_append_needs_the_writer(log_path: Path) -> None:
    with pytest.raises(ForgeError, match="read-only"):
        reader(log_path).append(intent(1))
    assert not log_path.exists()


# -- torn tails -------------------------------------------------------------------------------


def test_writer_moves_a_torn_tail_aside(log_path: Path) -> None:
    write_log(log_path, steps_log(2))
    good = log_path.read_bytes()
    half = encode_record(intent(3))[:37]
    with open(log_path, "ab") as handle:
        handle.write(half)

    log = writer(log_path)
    torn = log.repair()

    assert torn is not None
    assert (torn.offset, torn.bytes, torn.preview) == (len(good), len(half), half.decode())
    assert "offset" in torn.describe() and "actions.yaml.torn" in torn.describe()
    assert log_path.read_bytes() == good
    moved = log.torn_path.read_bytes()
    assert moved.startswith(b"# ") and half + b"\n" in moved
    assert [r.step for r in log.records()] == [1, 1, 2, 2]
    assert log.repair() is None  # nothing left to repair
    log.append(intent(3))
    assert [r.step for r in log.tail(2, kinds=None)] == [2, 3]


@pytest.mark.parametrize(
    ("last_line", "reason"),
    [
        (b'--- {"step": 3, "at": "x", "kind": "intent", "action": "a"\n', "not JSON"),
        (b'--- {"step": "three", "at": "x", "kind": "intent", "action": "a"}\n', "integer"),
        (b"step: 3\n", "must start with '--- '"),
    ],
)
def test_writer_moves_a_complete_but_invalid_last_line(
    log_path: Path, last_line: bytes, reason: str
) -> None:
    write_log(log_path, steps_log(1))
    good = log_path.read_bytes()
    log_path.write_bytes(good + last_line)
    torn = writer(log_path).repair()
    assert torn is not None and reason in torn.reason
    assert log_path.read_bytes() == good


def test_reader_ignores_a_torn_tail_and_changes_nothing(log_path: Path) -> None:
    write_log(log_path, steps_log(3))
    with open(log_path, "ab") as handle:
        handle.write(encode_record(result(4))[:-20])
    before = log_path.read_bytes()

    log = reader(log_path)
    assert len(log) == 6
    assert [r.step for r in log.tail(2)] == [2, 3]
    assert log.record_at(-1).step == 3
    assert [e["step"] for e in log.merged(tail=1)] == [3]
    with pytest.raises(ForgeError, match="read-only"):
        log.repair()
    assert log_path.read_bytes() == before
    assert not log.torn_path.exists()


def test_sigkill_while_appending_leaves_only_whole_records(tmp_path: Path, log_path: Path) -> None:
    script = textwrap.dedent(
        f"""
        import sys
        from pathlib import Path
        from forgetui.engine.folder.action_log import ActionLog
        from forgetui.engine.folder.records import IntentRecord, ResultRecord
        log = ActionLog(Path({str(log_path)!r}))
        step = 0
        while True:
            step += 1
            log.append(IntentRecord(step=step, at="t", action="run", raw_response="x" * 3000))
            log.append(ResultRecord(step=step, at="t", action="run", result="success",
                                    summary="ok", output="y" * (step % 7) * 1000))
        """
    )
    proc = subprocess.Popen([sys.executable, "-c", script])
    try:
        deadline = time.monotonic() + 30
        while (not log_path.exists() or log_path.stat().st_size < 50_000) and proc.poll() is None:
            assert time.monotonic() < deadline, "the appending process made no progress"
            time.sleep(0.01)
        assert proc.poll() is None, "the appending process died on its own"
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()

    log = writer(log_path)
    log.repair()
    data = log_path.read_bytes()
    assert data.endswith(b"\n")
    for line in data.splitlines():
        json.loads(line[4:])
    records = log.records()
    assert len(records) >= 10
    assert [r.step for r in records] == [i // 2 + 1 for i in range(len(records))]


# -- malformed lines in the middle ------------------------------------------------------------


def test_a_malformed_middle_line_names_file_and_line(log_path: Path) -> None:
    lines = [encode_record(r) for r in steps_log(3)]
    lines[2] = b'--- {"step": 2, "at": "x", "kind": "intent", "action": }\n'
    log_path.write_bytes(b"".join(lines))
    log = reader(log_path)
    with pytest.raises(StateFileError) as caught:
        log.records()
    assert caught.value.line == 3
    assert f"{log_path}:3: not JSON" in str(caught.value)
    with pytest.raises(StateFileError, match=":3:"):
        log.tail(10, kinds=None)
    assert [r.step for r in log.tail(2)] == [2, 3]  # lines after it still read


def test_an_invalid_field_names_the_field(log_path: Path) -> None:
    lines = [encode_record(r) for r in steps_log(2)]
    lines[1] = b'--- {"step": 1, "at": "x", "kind": "result", "action": "a", "result": "meh"}\n'
    log_path.write_bytes(b"".join(lines))
    with pytest.raises(StateFileError) as caught:
        reader(log_path).record_at(1)
    assert (caught.value.line, caught.value.field) == (2, "result")


def test_blank_lines_are_not_records(log_path: Path) -> None:
    lines = [encode_record(r) for r in steps_log(2)]
    log_path.write_bytes(lines[0] + b"\n" + lines[1] + b"  \n" + lines[2] + lines[3] + b"\n")
    log = reader(log_path)
    assert len(log) == 4
    assert [r.kind for r in log.tail(4, kinds=None)] == ["intent", "result"] * 2
    assert writer(log_path).repair() is None


# -- tail, index, slices ----------------------------------------------------------------------


def test_ten_thousand_records_tail_and_len(log_path: Path) -> None:
    write_log(log_path, steps_log(5000))
    log = reader(log_path)
    assert len(log) == 10_000
    assert [r.step for r in log.tail(3)] == [4998, 4999, 5000]
    assert all(isinstance(r, ResultRecord) for r in log.tail(3))
    assert [r.step for r in log.tail(2, kinds=("intent",))] == [4999, 5000]
    assert [(r.kind, r.step) for r in log.tail(3, kinds=None)] == [
        ("result", 4999),
        ("intent", 5000),
        ("result", 5000),
    ]
    assert log.record_at(0).step == 1
    assert log.record_at(7001).step == 3501
    assert log.record_at(-1).kind == "result"
    assert [r.step for r in log.records(9000, 9004)] == [4501, 4501, 4502, 4502]
    assert [e["step"] for e in log.merged(tail=3)] == [4998, 4999, 5000]
    status = log.last_step_status()
    assert status is not None and status.step == 5000 and status.complete


def test_tail_reads_records_larger_than_a_block(log_path: Path) -> None:
    sizes = [10, 70_000, 5, 200_000, 64 * 1024 - 40, 1]
    records = [result(i + 1, output="z" * size) for i, size in enumerate(sizes)]
    write_log(log_path, records)
    log = reader(log_path)
    for n in range(1, len(records) + 2):
        assert [len(getattr(r, "output", "")) for r in log.tail(n)] == sizes[-n:]
    assert [len(getattr(r, "output", "")) for r in log.records()] == sizes


def test_tail_edges(log_path: Path) -> None:
    log = reader(log_path)
    assert log.tail(3) == [] and len(log) == 0 and log.last_step_status() is None
    assert list(log.merged()) == [] and list(log.merged(tail=5)) == []
    write_log(log_path, [intent(1), operator(1)])
    assert log.tail(3) == []
    assert log.tail(0, kinds=None) == []
    assert [r.kind for r in log.tail(9, kinds=("operator", "intent"))] == ["intent", "operator"]


def test_slices_follow_python_semantics(log_path: Path) -> None:
    write_log(log_path, steps_log(10))
    log = reader(log_path)
    every = [r.model_dump() for r in log.records()]
    for start, stop in [(None, None), (3, 7), (-4, None), (5, 2), (0, 100), (-100, 3)]:
        assert [r.model_dump() for r in log.records(start, stop)] == every[start:stop]
    assert [r.model_dump() for r in log.iter_records(batch=3)] == every
    with pytest.raises(IndexError):
        log.record_at(20)


def test_the_index_follows_appends_truncation_and_replacement(log_path: Path) -> None:
    write_log(log_path, steps_log(3))
    log_writer, log_reader = writer(log_path), reader(log_path)
    assert len(log_reader) == 6
    log_writer.append(intent(4))
    with open(log_path, "ab") as handle:  # a record half written by the writer, seen mid-write
        handle.write(encode_record(result(4))[:30])
    assert len(log_reader) == 7
    assert log_writer.repair() is not None
    log_writer.append(result(4, summary="after the repair"))
    assert len(log_reader) == 8
    assert log_reader.record_at(-1).summary == "after the repair"  # type: ignore[union-attr]

    replacement = log_path.with_name("new.yaml")
    write_log(replacement, steps_log(1))
    os.replace(replacement, log_path)  # hand-edited: a new file
    assert len(log_reader) == 2
    assert [r.step for r in log_reader.records()] == [1, 1]


def test_writer_index_stays_in_step_with_its_own_appends(log_path: Path) -> None:
    log = writer(log_path)
    assert len(log) == 0
    for step in range(1, 4):
        log.append(intent(step))
        assert len(log) == 2 * step - 1
        assert log.record_at(-1).step == step
        log.append(result(step))
    assert [r.step for r in log.records()] == [1, 1, 2, 2, 3, 3]


# -- resume and the `log --json` shape --------------------------------------------------------


def test_last_step_status(log_path: Path) -> None:
    log = writer(log_path)
    log.append(intent(1))
    status = log.last_step_status()
    assert status is not None and (status.step, status.complete) == (1, False)
    log.append(operator(1))
    log.append(result(1))
    log.append(operator(1, "pin"))
    status = log.last_step_status()
    assert status is not None and status.complete and status.result is not None
    intent_record, result_record = status  # a tuple too
    assert (intent_record.step, result_record and result_record.summary) == (1, "did step 1")
    log.append(intent(2))
    status = log.last_step_status()
    assert status is not None and (status.step, status.result) == (2, None)


def test_merged_shape(log_path: Path) -> None:
    write_log(
        log_path,
        [
            intent(
                1, model="m", context_tokens=900, prompt_tokens=950, completion_tokens=40, cost=0.25
            ),
            result(1),
            operator(1, "pin", "x"),
            intent(2, action="run_command"),  # crashed: no result
            intent(2, action="run_command"),  # re-run
            operator(2, "approve", "ok"),  # written while the intent waited
            result(2, action="run_command", result="failure", summary="exit 1"),
            result(3, action="escalate", result="escalated", summary="asked"),
        ],
    )
    entries = list(reader(log_path).merged())
    assert [list(e) for e in entries if "action" in e] == [MERGED_KEYS] * 4
    assert entries[0] == {
        "step": 1, "action": "read_file", "args": {"path": "f1.py"}, "result": "success",
        "summary": "did step 1", "context_tokens": 900, "prompt_tokens": 950,
        "prompt_tokens_by": None, "completion_tokens": 40, "cost": 0.25, "model": "m",
        "tool_tokens": 0, "system_role": None, "finish_reason": None, "model_ms": 0.0,
        "raw_response": None,
    }  # fmt: skip
    assert entries[1] == {"operator": "pin", "step": 1, "text": "x", "at": AT}
    assert (entries[2]["step"], entries[2]["result"]) == (2, "interrupted")
    assert (entries[3]["result"], entries[3]["summary"]) == ("failure", "exit 1")
    assert entries[4]["operator"] == "approve"
    assert entries[5]["result"] == "escalated" and entries[5]["context_tokens"] == 0
    assert len(entries) == 6


_RECORD_KIND = st.sampled_from(["intent", "result", "operator"])


@settings(
    max_examples=60,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    plan=st.lists(st.tuples(_RECORD_KIND, st.integers(1, 4)), max_size=40),
    n=st.integers(1, 12),
)
# Operators written while step 1 waited, then its result: a window that cuts step 1's intent off
# must not show that result alone.
@example(
    plan=[("intent", 1), *[("operator", 1)] * 4, ("result", 1), ("intent", 2), ("result", 2)], n=2
)
def test_merged_tail_equals_the_end_of_the_full_merge(
    tmp_path: Path, plan: list[tuple[str, int]], n: int
) -> None:
    factory: dict[str, Callable[[int], AnyRecord]] = {
        "intent": intent,
        "result": result,
        "operator": operator,
    }
    records: list[AnyRecord] = [factory[kind](step) for kind, step in plan]
    path = tmp_path / "actions.yaml"  # rewritten for each example
    write_log(path, records)
    full = list(merge_steps(records))
    assert list(reader(path).merged()) == full
    assert list(reader(path).merged(tail=n)) == full[-n:]
