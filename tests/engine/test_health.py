"""Context health (health.py): the context against its cap and each section against its
budget, warn from 70%, critical from 90%, and the section that is the pressure."""

from __future__ import annotations

from pathlib import Path

import pytest

from forgetui.engine.api import context_health, preview_context
from forgetui.engine.api.reads import status, task_health
from forgetui.engine.context.health import ContextHealth, SectionHealth, saved_health
from forgetui.engine.step.executor import Executor
from tests.engine.helpers import act, make_task, replay


@pytest.mark.parametrize(
    ("tokens", "level"),
    [(0, "ok"), (699, "ok"), (700, "warn"), (899, "warn"), (900, "critical"), (1200, "critical")],
)
def test_levels_at_the_thresholds(tokens: int, level: str) -> None:
    section = SectionHealth("current_state", tokens, 1000)
    assert section.level == level
    health = ContextHealth(1, "preview", tokens, 1000, (section,))
    assert health.level == level
    assert (health.pressure is not None) == (level != "ok")


def test_the_pressure_is_the_fullest_section_against_its_budget() -> None:
    sections = (
        SectionHealth("system_prompt", 800, 1000),  # 80%: warn
        SectionHealth("current_state", 4000, 4500),  # 88.89%: the fullest
        SectionHealth("verification_status", 20, 200),
    )
    health = ContextHealth(3, "preview", 4820, 8000, sections)
    assert health.to_json()["pressure"] == {
        "name": "current_state", "percent": 88.8, "level": "warn"  # rounded down
    }  # fmt: skip
    assert health.to_json()["level"] == "ok"  # 60% of the cap
    calm = ContextHealth(3, "preview", 900, 8000, (SectionHealth("task_frame", 300, 500),))
    assert calm.pressure is None and calm.to_json()["pressure"] is None


def test_a_section_squeezed_to_its_budget_is_the_pressure(tmp_path: Path) -> None:
    folder = make_task(
        tmp_path,
        [],
        target_files=["big.py"],
        limits={"token_budget": {"current_state": 300}},
    )
    (folder.workspace / "big.py").write_text(
        "".join(f"def function_{n}(value):\n    return value * {n}\n\n" for n in range(400))
    )
    health = context_health(preview_context(folder)).to_json()
    current = next(s for s in health["sections"] if s["name"] == "current_state")
    assert current["budget"] == 300 and current["level"] == "critical", current
    assert health["pressure"]["name"] == "current_state"
    assert health["level"] == "ok" and health["cap"] == 8000
    assert health["total"] == sum(s["tokens"] for s in health["sections"])


def test_the_whole_context_against_a_small_cap(tmp_path: Path) -> None:
    """max_tokens under the sections' budgets: the compiler cuts budgets to fit, and the
    total runs close to the cap."""
    folder = make_task(tmp_path, [], limits={"max_tokens": 1000})
    health = context_health(preview_context(folder))
    assert health.cap == 1000
    assert health.level in ("warn", "critical") and health.percent >= 70


def test_saved_health_reads_what_was_sent_and_status_carries_it(tmp_path: Path) -> None:
    folder = make_task(tmp_path, [act("write_file", path="out.txt", content="hi\n")])
    before = context_health(preview_context(folder))
    assert status(folder)["health"] is None  # status tells what was sent: nothing yet
    with Executor(folder, replay(folder)) as executor:
        executor.step()
    limits = folder.spec.limits
    sent = saved_health(folder.load_saved_context(1), limits.budgets(), limits.max_tokens)
    assert sent.source == "saved" and sent.step == 1
    assert (sent.total, sent.cap) == (before.total, before.cap)
    assert [(s.name, s.tokens, s.budget) for s in sent.sections] == [
        (s.name, s.tokens, s.budget) for s in before.sections
    ]
    # status: the last context sent; task_health (stats, the header): the next step's preview
    # while the task goes on, the last context sent once it is over
    assert status(folder)["health"] == sent.to_json()
    preview = task_health(folder)
    assert preview is not None and (preview.step, preview.source) == (2, "preview")
    with folder.lock:
        state = folder.load_state()
        folder.save_state(state.model_copy(update={"status": "complete"}))
    finished = task_health(folder)
    assert finished is not None and finished.to_json() == sent.to_json()
    assert status(folder)["health"] == sent.to_json()
