"""The counterfactual meter (stats.py): per step, the tokens sent beside what a run keeping the
whole conversation would have sent, checked against figures computed here by hand."""

from __future__ import annotations

from itertools import pairwise
from pathlib import Path

from forgetui.engine.api import token_series
from forgetui.engine.api.reads import task_stats
from forgetui.engine.base.clock import now_iso
from forgetui.engine.base.tokens import counter_for
from forgetui.engine.folder.action_log import ActionLog
from forgetui.engine.folder.records import IntentRecord, ResultRecord
from forgetui.engine.folder.task_folder import TaskFolder
from forgetui.engine.folder.task_state import RewindMark
from forgetui.engine.step.executor import Executor
from tests.engine.helpers import make_task, replay

ANSWERS = [
    "Let me see what is there.\n\n```yaml\naction: list_dir\nargs: {path: .}\n```\n",
    "Writing it now.\n\n```yaml\naction: write_file\nargs:\n  path: out.txt\n  content: |\n"
    "    hello\n```\n",
    "I think we are done, but I forgot the block.",  # parses to nothing: a failed step
]


def _three_steps(tmp_path: Path) -> TaskFolder:
    folder = make_task(tmp_path, [{"text": text} for text in ANSWERS])
    (folder.workspace / "notes.md").write_text("# notes\n" + "a line of notes\n" * 40)
    with Executor(folder, replay(folder)) as executor:
        reports = [executor.step() for _ in ANSWERS]
    assert [r.action for r in reports] == ["list_dir", "write_file", None]
    return folder


def test_three_steps_match_the_hand_computed_figures(tmp_path: Path) -> None:
    folder = _three_steps(tmp_path)
    count = counter_for(None).count  # replay steps count with cl100k_base
    results = [r for r in folder.log.iter_records() if isinstance(r, ResultRecord)]
    # the tool messages: list_dir's listing, write_file's summary (no output), the parse error
    assert results[0].output == "notes.md"
    assert results[1].output is None and results[1].summary.startswith("wrote out.txt")
    tool_messages = [results[0].output, results[1].summary]
    first = folder.load_saved_context(1)["messages"]
    start = count(first[0]["content"]) + count(first[1]["content"])
    naive = [
        start,
        start + count(ANSWERS[0]) + count(tool_messages[0]),
        start + count(ANSWERS[0]) + count(tool_messages[0]) + count(ANSWERS[1])
        + count(tool_messages[1]),
    ]  # fmt: skip
    sent = []
    for step in (1, 2, 3):
        messages = folder.load_saved_context(step)["messages"]
        sent.append(sum(count(m["content"]) for m in messages))

    stats = task_stats(folder)
    assert stats["steps"] == [
        {"step": step, "sent": sent[step - 1], "naive": naive[step - 1]} for step in (1, 2, 3)
    ]
    summary = stats["summary"]
    assert summary["steps"] == 3 and summary["last_step"] == 3
    assert summary["sent_total"] == sum(sent) and summary["naive_total"] == sum(naive)
    assert summary["ratio_last"] == round(naive[2] / sent[2], 1)
    assert summary["naive_over_cap_from"] is None and summary["encoding"] == "cl100k_base"
    assert stats["health"]["source"] == "preview" and stats["health"]["step"] == 4


def _append(log: ActionLog, step: int, raw: str, output: str, transport: bool = False) -> None:
    at = now_iso()
    log.append(
        IntentRecord(
            step=step, at=at, action="note", args={"text": "x"}, model="replay",
            raw_response=raw, context_tokens=1000, tool_tokens=50,
        )
    )  # fmt: skip
    log.append(
        ResultRecord(
            step=step, at=at, action="note", args={"text": "x"},
            result="error" if transport else "success", summary="s", output=output,
            transport=transport or None,
        )
    )  # fmt: skip


def test_failed_calls_and_superseded_steps_add_nothing(tmp_path: Path) -> None:
    """Step 2's call failed (no answer reached the agent); steps 3-4 were rewound away. The
    tool schemas count on both sides; without a saved context the first step's own count is
    the start."""
    folder = make_task(tmp_path, [])
    count = counter_for(None).count
    with folder.lock:
        _append(folder.log, 1, "answer one", "output one")
        _append(folder.log, 2, "", "", transport=True)
        _append(folder.log, 3, "answer three", "output three")
        _append(folder.log, 4, "answer four", "output four")
        _append(folder.log, 5, "answer five", "output five")
        state = folder.load_state()
        mark = RewindMark(to=2, first=3, last=4, at=now_iso())
        folder.save_state(state.model_copy(update={"step": 5, "rewinds": [mark]}))
    grown = count("answer one") + count("output one")
    points, done = token_series(folder)
    assert done
    assert [(p.step, p.sent, p.naive) for p in points] == [
        (1, 1050, 1050),
        (2, 1050, 1050 + grown),
        (5, 1050, 1050 + grown),
    ]


def test_the_series_reads_on_and_starts_again_after_a_rewind(tmp_path: Path) -> None:
    folder = _three_steps(tmp_path)
    points, done = token_series(folder, max_records=3)
    assert not done and [p.step for p in points] == [1, 2]
    points, done = token_series(folder)
    assert done and points == _fresh(folder)
    with folder.lock:
        state = folder.load_state()
        mark = RewindMark(to=1, first=2, last=3, at=now_iso())
        folder.save_state(state.model_copy(update={"rewinds": [mark]}))
    points, _ = token_series(folder)
    assert [p.step for p in points] == [1] and points == _fresh(folder)


def _fresh(folder: TaskFolder) -> list:
    return token_series(TaskFolder.open(folder.path))[0]


def test_long_run_grows_naive_while_sent_stays_flat(tmp_path: Path) -> None:
    """long_run's first 16 steps: the whole conversation grows with every step; the context
    levels off once its memory is full (step 6's is its largest)."""
    from forgetui.engine.start.samples import init_sample
    from forgetui.engine.step.runner import run

    folder = init_sample("long_run", into=tmp_path / "lr")
    run(folder.path, max_steps=16)
    steps = task_stats(folder)["steps"]
    assert len(steps) == 16 and steps[0]["naive"] == steps[0]["sent"]
    assert all(later["naive"] > earlier["naive"] for earlier, later in pairwise(steps))
    assert max(s["sent"] for s in steps[6:]) < max(s["sent"] for s in steps[:6])
    assert steps[-1]["naive"] > steps[-1]["sent"]
