"""Reads against a directory swapped for a symlink to outside the workspace while they run:
read_file, list_dir, search and load_context check a path and then open it, and whatever
happens in between, no byte and no name from outside ever reaches a result. File actions run
in forgetui's own process, not in the command sandbox, so the sandbox mode plays no part."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from forgetui.engine.actions import ActionEnv, ActionOutcome, execute
from forgetui.engine.actions import files as file_actions
from forgetui.engine.folder.task_spec import TaskSpec
from forgetui.engine.workspace import confined_open
from tests.engine.test_file_escapes import SWAPPER

SECRET = "outside secret 7f3a"
INSIDE = "inside copy\n"
OUTSIDE_ONLY = "outside-only-name.txt"  # a name only the outside directory holds
READS: list[tuple[str, dict[str, Any]]] = [
    ("read_file", {"path": "sub/secret.txt"}),
    ("read_file", {"path": "sub/secret.txt", "max_bytes": 100}),
    ("list_dir", {"path": "sub"}),
    ("search", {"pattern": "secret", "path": "sub"}),
    ("search", {"pattern": "secret"}),
    ("load_context", {"item": "full_file:sub/secret.txt"}),
]
IDS = [f"{action}-{index}" for index, (action, _) in enumerate(READS)]
ROUNDS = 150  # of all the reads above: 900 reads


@pytest.fixture
def layout(tmp_path: Path) -> tuple[Path, Path]:
    """ws/sub/secret.txt (harmless) and ws/swap -> outside/, which holds secret.txt (the
    secret) and a file name the workspace does not have."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text(SECRET + "\n")
    (outside / OUTSIDE_ONLY).write_text(SECRET + "\n")
    ws = tmp_path / "ws"
    (ws / "sub").mkdir(parents=True)
    (ws / "sub" / "secret.txt").write_text(INSIDE)
    (ws / "swap").symlink_to(outside, target_is_directory=True)
    return ws, outside


def make_env(ws: Path) -> ActionEnv:
    spec = TaskSpec.model_validate({"id": "t1", "goal": "g"})
    return ActionEnv(workspace=ws, spec=spec, step=1, snapshot=lambda *a: [])


def shown(outcome: ActionOutcome) -> str:
    """Everything of an outcome the model or the operator can see."""
    memory = outcome.memory_item.content if outcome.memory_item is not None else ""
    return "\n".join((outcome.summary or "", outcome.output or "", outcome.error or "", memory))


def assert_nothing_from_outside(outcome: ActionOutcome) -> None:
    text = shown(outcome)
    assert SECRET not in text, text
    assert OUTSIDE_ONLY not in text, text


def test_reads_racing_a_swapped_directory_never_leave_the_workspace(
    layout: tuple[Path, Path], tmp_path: Path
) -> None:
    """A separate process trades ws/sub and ws/swap (a symlink to outside) as fast as it can,
    atomically, while 900 reads run; each reads the inside copy or is refused."""
    ws, outside = layout
    env = make_env(ws)
    stop = tmp_path / "stop"
    swapper = subprocess.Popen(
        [sys.executable, "-c", SWAPPER, ws / "sub", ws / "swap", stop],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    results: Counter[str] = Counter()
    saw_inside = 0
    caught_at_open = 0  # refused by the open itself: the swap fell between check and open
    try:
        assert swapper.stdout is not None
        assert swapper.stdout.readline() == "ready\n", swapper.stderr
        for _ in range(ROUNDS):
            for action, args in READS:
                outcome = execute(action, args, env)
                assert_nothing_from_outside(outcome)
                results[f"{action} {outcome.result}"] += 1
                saw_inside += "inside copy" in shown(outcome)
                caught_at_open += "while it was" in shown(outcome)
    finally:
        stop.touch()
        out, err = swapper.communicate(timeout=30)
    assert swapper.returncode == 0, err
    swaps = int(out.strip())
    print(
        f"\nread race: {sum(results.values())} reads, {swaps} swaps, {caught_at_open} caught "
        f"between check and open: {dict(results)}"
    )
    assert sum(results.values()) == ROUNDS * len(READS)
    # the reads really met both states of the directory: the race was run, not missed
    assert swaps > 0 and saw_inside > 0
    assert any(key.endswith(("refused", "failure")) for key in results), results
    assert (outside / "secret.txt").read_text() == SECRET + "\n"


def _swap_in_link(ws: Path, outside: Path) -> None:
    """ws/sub becomes a symlink to outside/ (the real directory moved aside)."""
    (ws / "sub").rename(ws / "sub-real")
    (ws / "sub").symlink_to(outside, target_is_directory=True)


@pytest.mark.parametrize(("action", "args"), READS, ids=IDS)
def test_a_swap_between_the_sandbox_check_and_the_open_is_refused(
    layout: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch, action: str, args: dict[str, Any]
) -> None:
    """The sandbox's check passes on the real directory; the swap comes right after it."""
    ws, outside = layout
    checked = file_actions.resolve_path
    from forgetui.engine.actions import load_context

    def check_then_swap(workspace: Path, rel: str, **kwargs: Any) -> Path:
        path = checked(workspace, rel, **kwargs)
        if not (ws / "sub").is_symlink():
            _swap_in_link(ws, outside)
        return path

    monkeypatch.setattr(file_actions, "resolve_path", check_then_swap)
    monkeypatch.setattr(load_context, "resolve_path", check_then_swap)
    outcome = execute(action, args, make_env(ws))
    assert (ws / "sub").is_symlink()  # the swap happened, after the check
    assert_nothing_from_outside(outcome)


@pytest.mark.parametrize(("action", "args"), READS, ids=IDS)
def test_a_swap_after_the_last_resolution_is_refused_by_the_open_itself(
    layout: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch, action: str, args: dict[str, Any]
) -> None:
    """The worst moment: after the last look at the path by name, before the open. Only
    opening each component without following a link stops it, and the model is told."""
    ws, outside = layout
    resolve = confined_open.resolved
    swapped: list[Path] = []

    def resolve_then_swap(root: Path, path: Path) -> Path:
        real = resolve(root, path)
        if real != root and not swapped:
            _swap_in_link(ws, outside)
            swapped.append(real)
        return real

    monkeypatch.setattr(confined_open, "resolved", resolve_then_swap)
    outcome = execute(action, args, make_env(ws))
    assert swapped and swapped[0].is_relative_to(ws.resolve() / "sub")  # it ran, between the two
    assert_nothing_from_outside(outcome)
    if action == "search":  # a walk skips the directory and says so
        assert outcome.result == "success"
        assert "sub (swapped for a symlink while it was read)" in shown(outcome), shown(outcome)
    else:
        assert outcome.result == "refused", shown(outcome)
        assert "changed while it was opened" in (outcome.error or ""), outcome.error
        assert "sub is now a symlink" in (outcome.error or "")
