"""A failed adopt leaves nothing behind: wherever it stops (copying the workspace, laying out the
task folder, writing the files back, running the adopted step after it wrote), the fork's
directories are gone (an empty directory given stays, empty), and the task and its workspace
are byte for byte as they were."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from forgetui.engine import api
from forgetui.engine.base.errors import ForgeError
from forgetui.engine.folder.task_folder import TaskFolder
from forgetui.engine.history import fork
from forgetui.engine.history.rerun import Rerun, adopt_rerun, rerun_step
from forgetui.engine.step.executor import Executor
from tests.cli.stepped_sample import files_of

WRITE = {"path": "hello.py", "content": 'print("Hello, world!")\n'}


@pytest.fixture
def rerun(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[TaskFolder, Rerun]:
    """hello_world after two steps, and a re-run of step 2 that answers write_file."""
    monkeypatch.setenv("FORGETUI_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    folder = api.init_sample("hello_world", into=tmp_path / "ws")
    api.run(folder.path, max_steps=2)
    script = tmp_path / "other.yaml"
    script.write_text(yaml.safe_dump([{"action": "list_dir", "args": {"path": "."}},
                                      {"action": "write_file", "args": WRITE}]))  # fmt: skip
    folder = TaskFolder.open(folder.path)
    return folder, rerun_step(folder, 2, f"replay:{script}")


def _after(real: Callable[..., Any], error: BaseException) -> Callable[..., Any]:
    """`real` runs (what it makes is made), then `error` is raised: a failure midway."""

    def failing(*args: Any, **kwargs: Any) -> Any:
        real(*args, **kwargs)
        raise error

    return failing


FAILURES = {
    "copying the workspace": ("_copy_workspace", OSError(28, "No space left on device")),
    "laying out the task folder": ("_copy_artifacts", RuntimeError("the disk went away")),
    "writing the files back": ("write_back", KeyboardInterrupt()),
}


@pytest.mark.parametrize("where", FAILURES)
@pytest.mark.parametrize("into", ["new", "empty"])
def test_a_fork_failing_midway_leaves_no_fork(
    rerun: tuple[TaskFolder, Rerun], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    where: str, into: str,
) -> None:  # fmt: skip
    folder, answer = rerun
    name, error = FAILURES[where]
    monkeypatch.setattr(fork, name, _after(getattr(fork, name), error))
    before = files_of(folder.workspace)
    dest = tmp_path / "new" / "deep" / "fork"
    if into == "empty":
        dest.mkdir(parents=True)
    with pytest.raises((ForgeError, RuntimeError, KeyboardInterrupt)):
        adopt_rerun(folder, answer, dest)
    if into == "new":
        assert not (tmp_path / "new").exists()
    else:
        assert list(dest.iterdir()) == []  # an empty directory given stays, empty
    assert files_of(folder.workspace) == before  # the task and its workspace, byte for byte
    assert not (folder.workspace / "hello.py").exists()


def test_a_step_failing_after_it_wrote_leaves_no_fork(
    rerun: tuple[TaskFolder, Rerun], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder, answer = rerun
    wrote: list[bool] = []
    real = Executor.step

    def step_then_fail(self: Executor, *args: Any, **kwargs: Any) -> Any:
        real(self, *args, **kwargs)
        wrote.append((self.folder.workspace / "hello.py").is_file())  # the step wrote
        raise ForgeError("verification crashed")

    monkeypatch.setattr(Executor, "step", step_then_fail)
    before = files_of(folder.workspace)
    dest = tmp_path / "forks" / "fork"
    with pytest.raises(ForgeError, match="verification crashed"):
        adopt_rerun(folder, answer, dest)
    assert wrote == [True]
    assert not (tmp_path / "forks").exists()
    assert files_of(folder.workspace) == before
    assert TaskFolder.open(folder.path).load_state().step == 2
    monkeypatch.setattr(Executor, "step", real)
    adopted = adopt_rerun(folder, answer, dest)  # the same place, once the step works
    assert adopted.result == "success" and (dest / "hello.py").read_text() == WRITE["content"]
