"""A large write through the real command: over the task's write cap it is refused and the task
goes on; under it, it lands, yet state.yaml, the checkpoints, the log and the contexts stay
small (the content is kept once, by reference), a rewind puts the old bytes back and an
exported replay script rebuilds the same file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from tests.engine.helpers import act, last_results, make_task

SMALL = 64 * 1024  # what a state file, a checkpoint or a log line of these steps stays under
MB = 1024 * 1024


def _task_files(folder: Path) -> dict[str, int]:
    """Size of every file forgetui reads back whole or line by line, by relative path."""
    found = {
        path.relative_to(folder).as_posix(): path.stat().st_size
        for path in folder.rglob("*")
        if path.is_file()
        and path.suffix in (".yaml", ".json")
        and path.name != "replay.yaml"  # the test's own script
    }
    assert "state.yaml" in found and "actions.yaml" in found
    return found


def _run(cli: Any, task: Path, script: Path, steps: int) -> Any:
    return cli("run", task, "--model", f"replay:{script}", "--max-steps", str(steps))


def test_a_write_over_the_cap_is_refused_and_the_task_goes_on(cli: Any, tmp_path: Path) -> None:
    huge = "y" * (10 * 1000 * 1000)
    script = [
        act("write_file", path="huge.txt", content=huge),
        act("write_file", path="out.txt", content="small\n"),
        act("complete", summary="wrote out.txt"),
    ]
    folder = make_task(tmp_path, script)
    replay = f"replay:{folder.path / 'replay.yaml'}"
    first = cli("run", folder.path, "--model", replay, "--max-steps", "1", "--json")
    assert first.code == 0, first.err
    result = last_results(folder.log, 1)[0]
    assert (result.action, result.result) == ("write_file", "failure")
    assert "10,000,000 bytes" in (result.error or "") and "max_write_bytes" in (result.error or "")
    assert not (tmp_path / "ws" / "huge.txt").exists()
    sizes = _task_files(folder.path)
    assert max(sizes.values()) < SMALL, sizes
    for command in (("status", folder.path), ("repair", folder.path), ("log", folder.path)):
        done = cli(*command)
        assert done.code == 0, (command, done.err)
    rest = cli("run", folder.path, "--model", replay, "--until", "complete")
    assert rest.code == 0, rest.err
    assert folder.load_state().status == "complete"
    assert (tmp_path / "ws" / "out.txt").read_text() == "small\n"


def test_a_cap_set_in_task_yaml_applies(cli: Any, tmp_path: Path) -> None:
    script = [act("write_file", path="a.txt", content="z" * 2000)]
    folder = make_task(tmp_path, script, limits={"max_write_bytes": 1000}, checks=[])
    done = _run(cli, folder.path, folder.path / "replay.yaml", 1)
    assert done.code == 0, done.err
    result = last_results(folder.log, 1)[0]
    assert result.result == "failure" and "1,000 bytes" in (result.error or "")
    assert not (tmp_path / "ws" / "a.txt").exists()


def test_a_large_write_lands_stays_small_rewinds_and_replays(cli: Any, tmp_path: Path) -> None:
    old = "".join(f"line {n} with trailing spaces   \n" for n in range(20_000)) + "ünï\n"
    new = "".join(f"row {n}: {'é' * 4}{'x' * 40}\n" for n in range(62_000))
    script = [
        act("write_file", path="data/big.txt", content=new),
        act("note", text="wrote the big file"),
    ]
    folder = make_task(tmp_path, script, checks=[])
    target = tmp_path / "ws" / "data" / "big.txt"
    target.parent.mkdir()
    target.write_text(old)
    old_bytes = target.read_bytes()
    done = _run(cli, folder.path, folder.path / "replay.yaml", 2)
    assert done.code == 0, done.err
    assert target.read_text() == new
    assert 3 * MB < len(target.read_bytes()) < 4 * MB  # under the default cap of 4 MiB

    sizes = _task_files(folder.path)
    assert max(sizes.values()) < SMALL, sizes
    assert sizes["artifacts/checkpoints/step-000001.yaml"] < SMALL
    assert any(name.startswith("artifacts/contexts/") for name in sizes)
    log = (folder.path / "actions.yaml").read_text()
    assert "bytes: see artifacts/args/" in log  # the content is referenced, not copied

    # export-replay rebuilds the content from where it was kept, and a fresh copy replays it
    script_path = tmp_path / "exported.yaml"
    exported = cli("export-replay", folder.path, "--to", script_path)
    assert exported.code == 0, exported.err
    (tmp_path / "copy").mkdir()
    copy = make_task(tmp_path / "copy", [], checks=[])
    (tmp_path / "copy" / "ws" / "data").mkdir()
    (tmp_path / "copy" / "ws" / "data" / "big.txt").write_bytes(old_bytes)
    again = _run(cli, copy.path, script_path, 2)
    assert again.code == 0, again.err
    assert (tmp_path / "copy" / "ws" / "data" / "big.txt").read_bytes() == target.read_bytes()

    # a fork keeps what its records refer to: its own export holds the content whole
    fork = cli("rewind", folder.path, "--to", "1", "--fork", tmp_path / "fork")
    assert fork.code == 0, fork.err
    forked = tmp_path / "fork" / ".agentforge" / "tasks" / "t1"
    from_fork = cli("export-replay", forked, "--to", tmp_path / "fork.yaml")
    assert from_fork.code == 0, from_fork.err
    [written] = yaml.safe_load((tmp_path / "fork.yaml").read_text())
    assert written == {"action": "write_file", "args": {"path": "data/big.txt", "content": new}}

    # a rewind over the write puts the old bytes back, byte for byte
    back = cli("rewind", folder.path, "--to", "0")
    assert back.code == 0, back.err
    assert target.read_bytes() == old_bytes
    assert cli("status", folder.path).code == 0
