"""A refused fork says what to do where the user is: the command line names its flags, the
workbench (through the service) its field and keys; the rule refusing it is the same."""

from __future__ import annotations

from pathlib import Path

import pytest

from forgetui.engine.api import ForgeError, TaskService
from forgetui.engine.history.fork import fork_task
from forgetui.engine.operator.verbs import answer
from forgetui.engine.start.samples import init_sample
from forgetui.engine.step.executor import Executor
from forgetui.engine.step.runner import model_for


def test_a_non_empty_fork_directory_is_named_in_each_front_ends_terms(tmp_path: Path) -> None:
    folder = init_sample("hello_world", into=tmp_path / "ws")
    full = tmp_path / "full"
    full.mkdir()
    (full / "kept.txt").write_text("mine\n")
    with pytest.raises(ForgeError) as cli:
        fork_task(folder, 0, full)
    assert cli.value.message.startswith(f"--fork {full}: not empty")
    with pytest.raises(ForgeError) as workbench:
        TaskService(folder.path).fork(0, str(full))
    assert workbench.value.message.startswith(f"the fork's directory {full}: not empty")
    assert "--" not in workbench.value.message
    assert [p.name for p in full.iterdir()] == ["kept.txt"]  # nothing made


def test_a_refused_adoption_says_how_to_fork_in_the_workbench(tmp_path: Path) -> None:
    """Step 2 ran on the answer to step 1's question: a fork at step 1 would wait on it."""
    folder = init_sample("escalation", into=tmp_path / "ws")
    with Executor(folder, model_for(folder, None, None)) as executor:
        executor.step()
        answer(folder, "French")
        executor.step()
    service = TaskService(folder.path)
    rerun = service.rerun(2, "replay")
    with pytest.raises(ForgeError) as cli:
        service.adopt_rerun(rerun, str(tmp_path / "fork"))
    assert "`forgetui rewind TASK --to 1 --fork DIR`" in cli.value.message
    with pytest.raises(ForgeError) as workbench:
        service.adopt_rerun(rerun, str(tmp_path / "fork"), True)
    said = workbench.value.message
    assert "--" not in said and "forgetui rewind" not in said
    assert "step 1's row: r, then f" in said and "then step it" in said
    assert not (tmp_path / "fork").exists()
