"""The single-writer task lock: refused while a live process holds it, taken over when stale."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from forgetui.engine.base.errors import LockHeldError
from forgetui.engine.folder.lock import LockInfo, TaskLock


def _holder_script(folder: Path) -> str:
    """A process that tries to take the lock, says what happened, then holds it until stdin
    closes."""
    return textwrap.dedent(
        f"""
        import sys
        from pathlib import Path
        from forgetui.engine.base.errors import LockHeldError
        from forgetui.engine.folder.lock import TaskLock
        lock = TaskLock(Path({str(folder)!r}))
        try:
            lock.acquire(command="forgetui run demo")
        except LockHeldError as exc:
            print("held", exc, flush=True)
            sys.exit(0)
        print("got", flush=True)
        sys.stdin.read()
        lock.release()
        """
    )


def _start_holder(folder: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", _holder_script(folder)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    task = tmp_path / "demo-task"
    task.mkdir()
    return task


@pytest.fixture
def holder(folder: Path) -> Iterator[subprocess.Popen[str]]:
    proc = _start_holder(folder)
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "got"
    yield proc
    if proc.poll() is None:
        proc.kill()
    proc.wait()


def dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def write_lock(folder: Path, pid: int, host: str | None = None) -> Path:
    path = folder / "lock"
    info = {
        "pid": pid,
        "host": host or socket.gethostname(),
        "started_at": "2025-01-01T00:00:00Z",
        "command": "forgetui run old",
    }
    path.write_text(json.dumps(info))
    return path


def test_acquire_writes_who_holds_it_and_release_removes_it(folder: Path) -> None:
    lock = TaskLock(folder)
    info = lock.acquire(command="forgetui run demo")
    on_disk = json.loads((folder / "lock").read_text())
    assert on_disk["pid"] == os.getpid() == info.pid
    assert on_disk["host"] == socket.gethostname()
    assert on_disk["command"] == "forgetui run demo"
    assert on_disk["started_at"].endswith("Z")
    assert lock.held_by_me()
    assert lock.holder() == info
    lock.release()
    assert not (folder / "lock").exists()
    assert not lock.held_by_me() and lock.holder() is None
    assert sorted(p.name for p in folder.iterdir()) == []  # no temporary files left


def test_a_second_process_is_refused_with_the_holders_pid(
    folder: Path, holder: subprocess.Popen[str]
) -> None:
    with pytest.raises(LockHeldError) as caught:
        TaskLock(folder).acquire()
    message = str(caught.value)
    assert f"task demo-task is locked by pid {holder.pid} (forgetui run demo, since " in message
    assert message.endswith("wait for it to finish or open the task read-only")
    assert "forgetui unlock" not in message  # its flock goes with it: nothing to unlock

    info = TaskLock(folder).holder()  # what a read-only TUI shows
    assert info is not None and info.pid == holder.pid and not info.is_mine

    assert holder.stdin is not None
    holder.stdin.close()
    assert holder.wait(timeout=30) == 0
    assert not (folder / "lock").exists()
    with TaskLock(folder) as lock:
        assert lock.held_by_me()


def test_this_process_refuses_another_process(folder: Path) -> None:
    with TaskLock(folder):
        proc = _start_holder(folder)
        out, _ = proc.communicate(timeout=30)
    assert out.startswith("held task demo-task is locked by pid " + str(os.getpid()))


def test_a_killed_holder_leaves_a_stale_lock_that_is_taken_over(
    folder: Path, holder: subprocess.Popen[str]
) -> None:
    holder.kill()
    holder.wait()
    assert json.loads((folder / "lock").read_text())["pid"] == holder.pid
    lock = TaskLock(folder)
    assert lock.holder() is None  # nobody live writes the task
    info = lock.acquire()
    assert info.pid == os.getpid()
    assert json.loads((folder / "lock").read_text())["pid"] == os.getpid()
    lock.release()


@pytest.mark.parametrize("content", ["", "{not json", '{"pid": "x"}'])
def test_an_unreadable_lock_is_taken_over(folder: Path, content: str) -> None:
    (folder / "lock").write_text(content)
    with TaskLock(folder) as lock:
        assert lock.held_by_me()
        assert json.loads((folder / "lock").read_text())["pid"] == os.getpid()


def test_a_lock_from_another_host_is_not_taken(folder: Path) -> None:
    write_lock(folder, dead_pid(), host="build-box-7")
    with pytest.raises(LockHeldError, match="on build-box-7"):
        TaskLock(folder).acquire()
    assert json.loads((folder / "lock").read_text())["host"] == "build-box-7"


def test_reentrant_within_a_process(folder: Path) -> None:
    first, second = TaskLock(folder), TaskLock(folder)
    info = first.acquire()
    assert first.acquire() == info
    assert second.acquire() == info  # another object on the same folder, same process
    first.release()
    first.release()
    assert (folder / "lock").exists()  # `second` still holds it
    assert not first.held_by_me() and second.held_by_me()
    second.release()
    assert not (folder / "lock").exists()


def test_a_lock_left_by_this_pid_is_reused(folder: Path) -> None:
    write_lock(folder, os.getpid())
    with TaskLock(folder) as lock:
        assert lock.held_by_me()
    assert not (folder / "lock").exists()


def test_release_never_removes_someone_elses_lock(
    folder: Path, holder: subprocess.Popen[str]
) -> None:
    lock = TaskLock(folder)
    lock.release()  # never acquired: nothing to do
    assert json.loads((folder / "lock").read_text())["pid"] == holder.pid

    theirs = (folder / "lock").read_bytes()
    (folder / "lock").unlink()  # deleted by hand...
    lock.acquire()
    (folder / "lock").write_bytes(theirs)  # ...and written again by the other process
    lock.release()
    assert json.loads((folder / "lock").read_text())["pid"] == holder.pid


@pytest.mark.parametrize("racers", [6, 8, 10])
def test_racing_for_a_stale_lock_exactly_one_wins(folder: Path, racers: int) -> None:
    """Removers of a stale lock take turns: without that, one could move aside the lock
    another had just taken, a third take it meanwhile, and two processes write."""
    write_lock(folder, dead_pid())
    procs = [_start_holder(folder) for _ in range(racers)]
    try:
        answers = []
        for proc in procs:
            assert proc.stdout is not None
            answers.append(proc.stdout.readline().split()[0])
        assert answers.count("got") == 1, answers
        assert answers.count("held") == racers - 1
        winner = procs[answers.index("got")]
        assert json.loads((folder / "lock").read_text())["pid"] == winner.pid
    finally:
        for proc in procs:
            if proc.stdin is not None:
                proc.stdin.close()
            proc.wait(timeout=30)
    assert not (folder / "lock").exists()
    assert [p.name for p in folder.iterdir()] == []


def test_lock_info_liveness() -> None:
    here = socket.gethostname()
    assert LockInfo(pid=os.getpid(), host=here, started_at="t").is_mine
    assert not LockInfo(pid=dead_pid(), host=here, started_at="t").is_alive()
    assert LockInfo(pid=dead_pid(), host="elsewhere", started_at="t").is_alive()


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_forked_child_does_not_inherit_the_lock(folder: Path) -> None:
    with TaskLock(folder) as lock:
        pid = os.fork()
        if pid == 0:  # the child: report through the exit code, never return into pytest
            code = 1
            try:
                if not lock.held_by_me():
                    try:
                        TaskLock(folder).acquire()
                    except LockHeldError:
                        code = 0
                    lock.release()  # a no-op in the child
            finally:
                os._exit(code)
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0
        assert lock.held_by_me()
        assert json.loads((folder / "lock").read_text())["pid"] == os.getpid()


# -- the kernel, not the pid, says whether the holder lives ---------------------------------


def test_a_lock_naming_a_live_unrelated_process_is_taken_over(
    folder: Path, unrelated: subprocess.Popen[bytes]
) -> None:
    write_lock(folder, unrelated.pid)
    lock = TaskLock(folder)
    assert lock.holder() is None  # nobody writes the task
    info = lock.acquire(command="forgetui run demo")
    assert info.pid == os.getpid()
    assert lock.taken_over is not None and lock.taken_over.pid == unrelated.pid
    assert json.loads((folder / "lock").read_text())["pid"] == os.getpid()
    lock.release()
    assert unrelated.poll() is None  # left alone
    assert sorted(p.name for p in folder.iterdir()) == []


def test_unlock_removes_a_lock_whose_pid_names_another_program(
    folder: Path, unrelated: subprocess.Popen[bytes]
) -> None:
    write_lock(folder, unrelated.pid)
    gone = TaskLock(folder).unlock()
    assert gone.removed and gone.info is not None and gone.info.pid == unrelated.pid
    assert not (folder / "lock").exists()


def test_unlock_refuses_a_live_holder(folder: Path, holder: subprocess.Popen[str]) -> None:
    with pytest.raises(LockHeldError, match=f"pid {holder.pid} .* holds the lock on this host"):
        TaskLock(folder).unlock()
    assert json.loads((folder / "lock").read_text())["pid"] == holder.pid


_HOLDER_WITH_CHILDREN = textwrap.dedent(
    """
    import os, subprocess, sys, time
    from pathlib import Path
    from forgetui.engine.folder.lock import TaskLock
    TaskLock(Path(sys.argv[1])).acquire(command="forgetui run demo")
    command = subprocess.Popen(["sleep", "300"])  # a command the writer started
    forked = os.fork()
    if forked == 0:  # the fork hook has run once fork() returns here: say so
        Path(sys.argv[1], "forked").touch()
        time.sleep(300)
        os._exit(0)
    while not Path(sys.argv[1], "forked").exists():
        time.sleep(0.01)
    print(command.pid, forked, flush=True)
    time.sleep(300)
    """
)


def test_a_holder_killed_with_sigkill_frees_the_lock_though_its_children_live(
    folder: Path,
) -> None:
    """Neither a command the writer started nor a forked copy of it keeps the lock: it goes
    with the writer, even when the writer's pid is then reused by one of them."""
    proc = subprocess.Popen(
        [sys.executable, "-c", _HOLDER_WITH_CHILDREN, str(folder)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    children = [int(pid) for pid in proc.stdout.readline().split()]
    try:
        assert TaskLock(folder).holder() is not None
        with pytest.raises(LockHeldError, match=f"locked by pid {proc.pid} "):
            TaskLock(folder).acquire()
        proc.kill()
        proc.wait()
        assert all(os.path.exists(f"/proc/{pid}") for pid in children)  # still running
        write_lock(folder, children[0])  # the holder's pid reused by a live process
        lock = TaskLock(folder)
        assert lock.holder() is None
        lock.acquire()
        assert lock.held_by_me()
        lock.release()
    finally:
        for pid in children:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)  # orphans now: init reaps them


def test_holder_asked_by_the_holding_process_keeps_its_lock(folder: Path) -> None:
    """A test of the lock by its own holder must not let it go (locks belong to an open file,
    and some file systems drop them at any close)."""
    with TaskLock(folder) as lock:
        for _ in range(3):
            assert lock.holder() is not None and TaskLock(folder).holder() is not None
        proc = _start_holder(folder)
        out, _ = proc.communicate(timeout=30)
        assert out.startswith("held task demo-task is locked by pid " + str(os.getpid()))


def test_readers_asking_never_refuse_a_writer(folder: Path) -> None:
    """A reader's test takes a shared lock for an instant; a writer arriving then waits it
    out instead of taking it for a live writer."""
    reader = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys\nfrom pathlib import Path\n"
            "from forgetui.engine.folder.lock import TaskLock\n"
            "lock = TaskLock(Path(sys.argv[1]))\nprint('reading', flush=True)\n"
            "while True:\n    lock.holder()\n",
            str(folder),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert reader.stdout is not None and reader.stdout.readline().strip() == "reading"
        stale = dead_pid()
        for turn in range(200):  # each take meets the reader's test now and then
            if turn % 2:
                write_lock(folder, stale)  # taken over, else created
            with TaskLock(folder) as lock:
                assert lock.held_by_me()
    finally:
        reader.kill()
        reader.wait()


@pytest.mark.parametrize("target", ["/nonexistent/x", "outside-file", "outside-dir"])
def test_a_symlink_where_the_lock_goes_never_traps_the_task(
    folder: Path, tmp_path: Path, target: str
) -> None:
    """A writer's lock is never a symlink: one there (dangling, to a file, to a directory) is
    taken over by a writer and removed by unlock, and what it points at is left alone."""
    outside_file = tmp_path / "outside-file"
    outside_file.write_text("victim\n")
    (tmp_path / "outside-dir").mkdir()
    link = target if target.startswith("/") else str(tmp_path / target)
    (folder / "lock").symlink_to(link)
    lock = TaskLock(folder)
    assert lock.holder() is None
    lock.acquire()
    assert not (folder / "lock").is_symlink()
    assert json.loads((folder / "lock").read_text())["pid"] == os.getpid()
    lock.release()
    assert outside_file.read_text() == "victim\n"
    (folder / "lock").symlink_to(link)
    gone = TaskLock(folder).unlock()
    assert gone.removed and not (folder / "lock").is_symlink()
    assert not (folder / "lock").exists() and outside_file.read_text() == "victim\n"
    assert (tmp_path / "outside-dir").is_dir()
