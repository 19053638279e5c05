"""The workspace tree current_state carries: two levels, the noise left out, held to its share
of the budget, never following a link out of the workspace, bounded on a huge directory, and
the first thing to go (before any memory item) when current_state is squeezed."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from forgetui.engine.base.tokens import counter_for
from forgetui.engine.context import compile_context
from forgetui.engine.context.workspace_tree import (
    CHILDREN_SHOWN,
    TREE_SHARE,
    tree_lines,
    workspace_tree,
)
from forgetui.engine.folder.memory import MemoryItem

from .test_context import make_inputs, make_spec, make_state, user_message


def touch(ws: Path, *names: str) -> None:
    for name in names:
        path = ws / name
        if name.endswith("/"):
            path.mkdir(parents=True, exist_ok=True)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("x\n")


def shown_tree(ctx_user: str) -> list[str]:
    state = yaml.safe_load(ctx_user)["current_state"]
    return list(state.get("workspace_tree") or [])


def test_two_levels_directories_first(tmp_path: Path) -> None:
    touch(
        tmp_path,
        "README.md", "pyproject.toml", ".gitignore", "empty/",
        "src/app/__init__.py", "src/app/deep/more.py", "src/main.py",
        "tests/test_app.py", "tests/conftest.py", ".github/workflows/ci.yml",
    )  # fmt: skip
    assert tree_lines(tmp_path) == [
        "empty/ (empty)",
        "src/ (app/, main.py)",  # depth 2: app/'s own contents are not listed
        "tests/ (conftest.py, test_app.py)",
        ".github/ (workflows/)",
        "pyproject.toml",
        "README.md",
        ".gitignore",
    ]


def test_noise_is_left_out(tmp_path: Path) -> None:
    touch(
        tmp_path,
        "app.py", ".git/HEAD", ".venv/pyvenv.cfg", "venv/bin/python", "node_modules/x/index.js",
        "__pycache__/app.cpython-311.pyc", ".mypy_cache/x", ".pytest_cache/x", ".ruff_cache/x",
        ".tox/py/x", "dist/x.whl", "build/lib/x", "x.egg-info/PKG-INFO",
        ".agentforge/tasks/t/task.yaml", "env/pyvenv.cfg", "env/lib/site.py",
        "pkg/__pycache__/m.pyc", "pkg/mod.py", "pkg/node_modules/x",
    )  # fmt: skip
    assert tree_lines(tmp_path) == ["pkg/ (mod.py)", "app.py"]


def test_a_directory_lists_its_first_entries_then_how_many_more(tmp_path: Path) -> None:
    touch(tmp_path, *(f"data/f{i:03d}.txt" for i in range(CHILDREN_SHOWN + 5)))
    (line,) = tree_lines(tmp_path)
    assert line.startswith("data/ (f000.txt, f001.txt,") and line.endswith(", ... and 5 more)")


def test_links_are_listed_never_followed(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    touch(outside, "secret_plans/", "passwords.txt")
    ws = tmp_path / "ws"
    touch(ws, "src/app.py")
    (ws / "escape").symlink_to(outside)
    (ws / "src" / "back_out").symlink_to(outside)
    (ws / "root").symlink_to("/")
    lines = tree_lines(ws)
    assert lines == ["src/ (app.py, back_out@)", "escape@", "root@"]
    assert not any("secret" in line or "passwords" in line for line in lines)


def test_a_huge_directory_is_read_only_so_far(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from forgetui.engine.context import workspace_tree as wt

    monkeypatch.setattr(wt, "MAX_READ", 50)
    touch(tmp_path / "deep", *(f"big/g{i:03d}" for i in range(200)))
    (line,) = tree_lines(tmp_path / "deep")
    assert line.startswith("big/ (") and line.endswith(", ... more not read)")
    touch(tmp_path / "wide", *(f"f{i:04d}.txt" for i in range(200)))
    lines = tree_lines(tmp_path / "wide")
    assert len(lines) == 50 + 1  # the entries read, and a line saying there are more
    assert lines[-1] == "... more entries not read (only the first 50 were)"


def test_names_stay_on_their_line(tmp_path: Path) -> None:
    touch(tmp_path, "bad\nname.py", "x" * 200 + ".py")
    lines = tree_lines(tmp_path)
    assert "bad name.py" in lines and all("\n" not in line for line in lines)
    assert max(len(line) for line in lines) <= 80


def test_held_to_its_share_of_current_state(tmp_path: Path) -> None:
    touch(tmp_path, *(f"module_{i:03d}/" for i in range(300)))
    counter = counter_for(None)
    tree = workspace_tree(tmp_path, 4500 // TREE_SHARE, counter)
    assert tree is not None and 0 < tree.fit < 300
    shown = tree.shown()
    assert shown[-1] == f"... and {300 - tree.fit} more"
    assert sum(counter.count(line) + 3 for line in shown) <= 4500 // TREE_SHARE
    ctx = compile_context(make_inputs(tmp_path, spec=make_spec(target_files=[])))
    assert shown_tree(user_message(ctx)) == shown
    assert ctx.section("current_state").compressions == ()  # its own share is not a squeeze


def test_the_tree_goes_before_memory_items(tmp_path: Path) -> None:
    touch(tmp_path, *(f"pkg_{i}/mod.py" for i in range(8)))
    notes = [MemoryItem(type="note", key=f"n{i}", step=1, content="fact " * 60) for i in range(2)]
    # room for both notes, or for the tree and one note (measured: the tree costs ~22 tokens)
    spec = make_spec(target_files=[], limits={"token_budget": {"current_state": 216}})
    ctx = compile_context(make_inputs(tmp_path, spec=spec, state=make_state(), items=notes))
    labels = ctx.section("current_state").compressions
    assert "workspace tree dropped" in labels
    assert not any(label.endswith("memory item omitted") for label in labels)
    assert shown_tree(user_message(ctx)) == []
    assert set(ctx.memory_refs) == {"n0", "n1"}


def test_every_step_carries_it_as_the_workspace_is_now(tmp_path: Path) -> None:
    touch(tmp_path, "app.py")
    spec = make_spec(target_files=[])
    first = compile_context(make_inputs(tmp_path, spec=spec, state=make_state(step=0)))
    assert shown_tree(user_message(first)) == ["app.py"]
    touch(tmp_path, "tests/test_app.py")
    later = compile_context(make_inputs(tmp_path, spec=spec, state=make_state(step=500)))
    assert shown_tree(user_message(later)) == ["tests/ (test_app.py)", "app.py"]
