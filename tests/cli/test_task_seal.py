"""task.yaml is sealed when the task is laid out: an edit (by hand, or by an agent rewriting its
own allow-list) stops the next run with one line until `forgetui accept-task-change`, which the
log records."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from forgetui.engine.folder.task_folder import TaskFolder
from forgetui.engine.start.samples import init_sample


def _widen_allow_list(task: Path) -> bytes:
    spec = yaml.safe_load((task / "task.yaml").read_text())
    spec["allowed_commands"] = [*spec["allowed_commands"], "bash"]
    (task / "task.yaml").write_text(yaml.safe_dump(spec, sort_keys=False))
    return (task / "task.yaml").read_bytes()


def test_an_edited_task_yaml_stops_the_run_until_accepted(cli: Any, tmp_path: Path) -> None:
    task = init_sample("hello_world", into=tmp_path / "ws").path
    state_before = (task / "state.yaml").read_bytes()
    edited = _widen_allow_list(task)

    refused = cli("run", task)
    assert refused.code == 2
    lines = refused.err.strip().splitlines()
    assert len(lines) == 1
    assert "task.yaml changed (allowed_commands) since it was accepted" in lines[0]
    assert "forgetui accept-task-change" in lines[0]
    assert not (task / "lock").exists()
    assert (task / "state.yaml").read_bytes() == state_before  # nothing ran, nothing written
    assert (task / "task.yaml").read_bytes() == edited

    status = cli("status", task, "--json").json()
    assert status["task_changed"]["changed_keys"] == ["allowed_commands"]

    accepted = cli("accept-task-change", task)
    assert accepted.code == 0
    assert "+- bash" in accepted.out  # the diff of what was accepted
    assert accepted.out.strip().endswith("accepted: task.yaml changed (allowed_commands)")
    assert cli("status", task, "--json").json()["task_changed"] is None

    done = cli("run", task, "--json")
    assert done.code == 0, done.err
    first = cli("log", task, "--json").json_lines()[0]
    assert first["operator"] == "accept_task_change"
    assert first["detail"]["changed_keys"] == ["allowed_commands"]


def test_accepting_twice_or_a_broken_task_yaml_changes_nothing(cli: Any, tmp_path: Path) -> None:
    task = init_sample("hello_world", into=tmp_path / "ws").path
    same = cli("accept-task-change", task)
    assert same.code == 0 and "nothing to accept" in same.out

    (task / "task.yaml").write_text((task / "task.yaml").read_text() + "limits: [oops\n")
    state_before = (task / "state.yaml").read_bytes()
    broken = cli("accept-task-change", task)
    assert broken.code == 2
    assert "task.yaml:" in broken.err and len(broken.err.strip().splitlines()) == 1
    assert (task / "state.yaml").read_bytes() == state_before
    assert not (task / "lock").exists()


def test_a_task_laid_out_before_sealing_is_sealed_at_its_next_run(cli: Any, tmp_path: Path) -> None:
    task = init_sample("hello_world", into=tmp_path / "ws").path
    state = yaml.safe_load((task / "state.yaml").read_text())
    del state["task_sha256"]
    (task / "state.yaml").write_text(yaml.safe_dump(state))
    ran = cli("run", task, "--max-steps", "1")
    assert ran.code == 0, ran.err
    assert "task.yaml sealed" in ran.err
    assert TaskFolder.open(task).load_state().task_sha256 is not None
    _widen_allow_list(task)
    assert cli("run", task).code == 2


def test_a_task_yaml_changed_mid_run_stops_the_next_step(tmp_path: Path) -> None:
    """What an agent in allow-list mode could do: rewrite its own task.yaml between steps."""
    from forgetui.engine.folder.seal import TaskChangedError
    from forgetui.engine.step.executor import Executor
    from forgetui.engine.step.runner import model_for

    task = init_sample("hello_world", into=tmp_path / "ws").path
    folder = TaskFolder.open(task)
    with Executor(folder, model_for(folder, None, None)) as executor:
        executor.step()
        _widen_allow_list(task)
        try:
            executor.step()
        except TaskChangedError as exc:
            assert "allowed_commands" in exc.message
        else:
            raise AssertionError("a step ran on an unaccepted task.yaml")
    assert folder.load_state().step == 1


def test_a_damaged_seal_in_state_yaml_names_state_yaml(cli: Any, tmp_path: Path) -> None:
    """task.yaml is its accepted copy, but state.yaml's digest of it was damaged: the refusal
    names state.yaml (what differs), not task.yaml; accepting again seals it."""
    task = init_sample("hello_world", into=tmp_path / "ws").path
    state = yaml.safe_load((task / "state.yaml").read_text())
    sealed = state["task_sha256"]
    broken = ("0" if sealed[0] != "0" else "1") + sealed[1:]
    text = (task / "state.yaml").read_text().replace(sealed, broken)
    (task / "state.yaml").write_text(text)
    state_before = (task / "state.yaml").read_bytes()

    refused = cli("run", task)
    assert refused.code == 2
    lines = refused.err.strip().splitlines()
    assert len(lines) == 1 and "state.yaml: task_sha256 matches neither" in lines[0]
    assert "forgetui accept-task-change" in lines[0]
    assert not (task / "lock").exists()
    assert (task / "state.yaml").read_bytes() == state_before

    assert cli("accept-task-change", task).code == 0
    assert yaml.safe_load((task / "state.yaml").read_text())["task_sha256"] == sealed
    assert cli("run", task, "--json").code == 0
