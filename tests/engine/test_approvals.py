"""Approvals under `confirm_writes`: routine approvals cost the context nothing; decisions are
summarised, and when they outgrow their budget the oldest fold into a file the context names."""

from __future__ import annotations

from pathlib import Path

import yaml

from forgetui.engine.api import preview_context
from forgetui.engine.folder.task_folder import TaskFolder
from forgetui.engine.operator.verbs import DECISIONS_FILE, answer
from forgetui.engine.step.executor import Executor
from tests.engine.helpers import act, make_task, replay

MODULE = "".join(f"def f{n}(x):\n    return x + {n}\n\n" for n in range(20))


def _writes(count: int) -> list[dict]:
    return [
        act("write_file", path=f"pkg/m{n:03d}.py", content=f"# module {n}\n{MODULE}")
        for n in range(count)
    ]


def _step_through(folder: TaskFolder, verdicts: list[str]) -> list[int]:
    """Each write waits, is answered with the next verdict, then runs; returns the next
    step's context size after each answer."""
    sizes = []
    with Executor(folder, replay(folder)) as ex:
        for verdict in verdicts:
            waiting = ex.step()
            assert waiting.status == "escalated", waiting.summary
            # the question names the target, not the arguments: no file content
            question = folder.load_state().pending_escalation.question
            assert question.startswith("Approve write_file pkg/m") and "def f" not in question
            answer(folder, verdict)
            ex.step()
            sizes.append(preview_context(folder).total_tokens)
    return sizes


def test_sixty_five_approved_writes_leave_the_context_flat(tmp_path: Path) -> None:
    folder = make_task(tmp_path, _writes(65), approval="confirm_writes")
    sizes = _step_through(folder, ["approve"] * 65)
    after_10, after_65 = sizes[9], sizes[-1]
    assert abs(after_65 - after_10) <= 0.10 * after_10, (after_10, after_65)
    state = folder.load_state()
    assert state.decisions == [] and state.pending_escalation is None
    approvals = [r for r in folder.log.iter_records() if r.kind == "operator"]
    assert [r.op for r in approvals] == ["approve"] * 65
    assert len(list((folder.workspace / "pkg").iterdir())) == 65


def test_decisions_past_their_budget_fold_into_a_file_the_context_names(tmp_path: Path) -> None:
    reasons = [
        f"reject {n}: " + "keep the public interface exactly as it is; " * 3 + "thanks"
        for n in range(40)
    ]
    folder = make_task(tmp_path, _writes(40), approval="confirm_writes")
    sizes = _step_through(folder, reasons)
    state = folder.load_state()
    folded = state.folded_decisions
    assert folded is not None and folded.file == DECISIONS_FILE
    # never dropped: every answer is either shown in full or in the file
    on_file = yaml.safe_load((folder.path / DECISIONS_FILE).read_text())
    assert folded.count == len(on_file)
    answers = [d["answer"] for d in on_file] + [d.answer for d in state.decisions]
    assert answers == reasons
    # the context says how many and where, and stays bounded
    user = preview_context(folder).messages[1]["content"]
    assert f"{folded.count} earlier decisions" in user and DECISIONS_FILE in user
    assert max(sizes[20:]) <= 1.10 * sizes[19], sizes
    # the fold is recorded
    folds = [
        r for r in folder.log.iter_records() if r.kind == "operator" and r.op == "fold_decisions"
    ]
    assert folds and sum(r.detail["folded"] for r in folds) == folded.count
