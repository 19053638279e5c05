"""The escape suite: what an agent's allowed `python -c` tried, through the real
`execute("run_cmd", ...)` path, in both sandbox modes.

Each attempt is one test per mode. An attempt that the sandbox stops passes; one that succeeds
fails, unless it is a known gap of allow-list mode (no mount, PID or network namespace there):
then the test checks that it really did succeed and skips with "allow-list mode cannot stop
this: ...", so `pytest -rs` counts the escapes each mode lets through."""

from __future__ import annotations

import base64
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from forgetui.engine.actions import ActionEnv, ActionOutcome, execute
from forgetui.engine.executor import Executor
from forgetui.engine.task import TaskSpec
from tests.engine.helpers import act, make_task, replay
from tests.engine.sandbox_helpers import (
    BWRAP,
    MODES,
    NO_BWRAP,
    kill_all,
    processes_with,
    use_mode,
    wait_until,
)

SECRET = "sk-escape-suite-0123456789abcdef"  # what the operator's environment must not give away
TASK_YAML = "id: t\ngoal: the operator's goal\n"
ACTIONS_YAML = "- {kind: intent, step: 1, at: t, action: note}\n"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    task = root / ".agentforge" / "tasks" / "t"
    task.mkdir(parents=True)
    (task / "task.yaml").write_text(TASK_YAML)
    (task / "actions.yaml").write_text(ACTIONS_YAML)
    return root


@pytest.fixture(params=MODES)
def mode(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    name: str = request.param
    use_mode(monkeypatch, name)
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    return name


def run_python(workspace: Path, code: str, *argv: str, **spec: Any) -> ActionOutcome:
    """One run_cmd step as the executor runs it: `python -c code argv...`."""
    task = TaskSpec.model_validate({"id": "t", "goal": "g", "allowed_commands": ["python"], **spec})
    env = ActionEnv(workspace=workspace, spec=task, step=1, snapshot=lambda *_: [])
    return execute("run_cmd", {"cmd": ["python", "-c", code, *argv]}, env)


def verdict(mode: str, escaped: bool, attempt: str, allow_list_gap: str | None = None) -> None:
    """Pass if the sandbox stopped the attempt; skip if it is a known allow-list gap that did
    succeed; fail otherwise."""
    if not escaped:
        return
    if mode == "allow-list" and allow_list_gap:
        pytest.skip(f"allow-list mode cannot stop this: {allow_list_gap}")
    pytest.fail(f"escape succeeded in {mode} mode: {attempt}")


# ----------------------------------------------------------------------------- filesystem

NO_MOUNTS = "the command runs with the operator's file permissions, no mount namespace"


@pytest.fixture
def var_tmp_target() -> Iterator[Path]:
    """A path outside the workspace and outside /tmp (which bwrap replaces with its own)."""
    target = Path("/var/tmp") / f"forgetui-escaped-{uuid.uuid4().hex}.txt"
    yield target
    target.unlink(missing_ok=True)


def test_write_outside_the_workspace(workspace: Path, mode: str) -> None:
    target = workspace.parent / f"escaped-{uuid.uuid4().hex}.txt"
    code = "import sys; open(sys.argv[1], 'w').write('pwned')"
    run_python(workspace, code, str(target))
    verdict(mode, target.exists(), f"wrote {target}", NO_MOUNTS)


def test_write_into_the_system(workspace: Path, mode: str, var_tmp_target: Path) -> None:
    code = "import sys; open(sys.argv[1], 'w').write('pwned')"
    outcome = run_python(workspace, code, str(var_tmp_target))
    verdict(mode, var_tmp_target.exists(), f"wrote {var_tmp_target}", NO_MOUNTS)
    assert "Read-only file system" in (outcome.output or "")


def test_rewrite_the_tasks_own_task_yaml(workspace: Path, mode: str) -> None:
    task_yaml = workspace / ".agentforge" / "tasks" / "t" / "task.yaml"
    code = "open('.agentforge/tasks/t/task.yaml', 'w').write('id: t\\ngoal: do evil\\n')"
    run_python(workspace, code)
    verdict(mode, task_yaml.read_text() != TASK_YAML, "rewrote task.yaml", NO_MOUNTS)


def test_append_a_forged_record_to_the_task_log(workspace: Path, mode: str) -> None:
    log = workspace / ".agentforge" / "tasks" / "t" / "actions.yaml"
    forged = "- {kind: result, step: 1, at: t, action: note, result: success, summary: forged}\n"
    code = f"open('.agentforge/tasks/t/actions.yaml', 'a').write({forged!r})"
    run_python(workspace, code)
    verdict(mode, log.read_text() != ACTIONS_YAML, "appended to actions.yaml", NO_MOUNTS)


def test_the_workspace_itself_stays_writable(workspace: Path, mode: str) -> None:
    """Not an escape: the control that the attempts above fail for the right reason."""
    outcome = run_python(workspace, "open('made.txt', 'w').write('ok')")
    assert outcome.result == "success", outcome.output
    assert (workspace / "made.txt").read_text() == "ok"


REMOUNT = """\
import ctypes, sys
def write():
    try:
        open(sys.argv[1], 'w').write('pwned')
        return True
    except OSError as exc:
        print(exc)
        return False
if not write():  # read-only: try to make it writable, as root with CAP_SYS_ADMIN could
    libc = ctypes.CDLL(None, use_errno=True)
    MS_REMOUNT, MS_BIND = 32, 4096
    for where in ('/', sys.argv[2]):
        libc.mount(None, where.encode(), None, MS_REMOUNT | MS_BIND, None)
        libc.umount2(where.encode(), 2)  # MNT_DETACH: the read-only bind over the task folder
        print(where, ctypes.get_errno())
    write()
"""


def test_remount_read_write_or_unmount_the_task_folder(
    workspace: Path, mode: str, var_tmp_target: Path
) -> None:
    outside = var_tmp_target
    run_python(workspace, REMOUNT, str(outside), str(workspace / ".agentforge"))
    task_yaml = workspace / ".agentforge" / "tasks" / "t" / "task.yaml"
    run_python(workspace, REMOUNT, str(task_yaml), str(workspace / ".agentforge"))
    escaped = outside.exists() or task_yaml.read_text() != TASK_YAML
    verdict(mode, escaped, "remounted or unmounted a read-only mount", NO_MOUNTS)


@pytest.fixture
def fake_home(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A HOME outside /tmp (which bwrap hides anyway), so only the home's own hiding counts."""
    home = Path(tempfile.mkdtemp(prefix="forgetui-home-", dir="/var/tmp"))
    (home / ".ssh").mkdir()
    (home / ".ssh" / "id_ed25519").write_text("-----BEGIN OPENSSH PRIVATE KEY----- fake\n")
    monkeypatch.setenv("HOME", str(home))
    yield home
    shutil.rmtree(home, ignore_errors=True)


def test_read_a_key_in_the_operators_home(workspace: Path, mode: str, fake_home: Path) -> None:
    key = fake_home / ".ssh" / "id_ed25519"
    code = "import sys; print(open(sys.argv[1]).read())"
    outcome = run_python(workspace, code, str(key))
    escaped = "OPENSSH PRIVATE KEY" in (outcome.output or "")
    verdict(mode, escaped, f"read {key}", "the operator's home is not hidden")


@pytest.mark.skipif(not BWRAP, reason=NO_BWRAP)
def test_home_inside_is_an_empty_writable_directory(
    workspace: Path, monkeypatch: pytest.MonkeyPatch, fake_home: Path
) -> None:
    """Not an escape: tools that write ~/.cache still work, in a home that is thrown away."""
    use_mode(monkeypatch, "bwrap")
    code = (
        "import os; home = os.path.expanduser('~'); open(home + '/.cache', 'w'); "
        "print(os.listdir(home))"
    )
    outcome = run_python(workspace, code)
    assert outcome.result == "success", outcome.output
    assert (outcome.output or "").strip() == "['.cache']"
    assert not (fake_home / ".cache").exists()


# ----------------------------------------------------------------------------- secrets

NO_PID_NAMESPACE = "the engine's /proc/<pid>/environ is readable without a PID namespace"

# /proc/<pid>/environ shows a process's environment as it was exec'd: a key set with
# monkeypatch is not in it. So the engine runs the step in a process of its own, started with
# the key, as an operator starts forgetui with OPENAI_API_KEY exported.
ENGINE_STEP = """\
import json, sys
from pathlib import Path
from forgetui.engine.actions import ActionEnv, execute
from forgetui.engine.task import TaskSpec
task = TaskSpec.model_validate({"id": "t", "goal": "g", "allowed_commands": ["python"]})
env = ActionEnv(workspace=Path(sys.argv[1]), spec=task, step=1, snapshot=lambda *_: [])
outcome = execute("run_cmd", {"cmd": ["python", "-c", sys.argv[2]]}, env)
print(json.dumps({"output": outcome.output or "", "summary": outcome.summary,
                  "redacted": outcome.redacted}))
"""


def run_in_engine(workspace: Path, code: str) -> dict[str, Any]:
    """run_cmd in an engine process whose own environment (from exec) holds the key."""
    done = subprocess.run(
        [sys.executable, "-c", ENGINE_STEP, str(workspace), code],
        env=dict(os.environ),
        capture_output=True,
        text=True,
        check=True,
    )
    result: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
    return result


PARENT_KEY = """\
import os
for entry in open(f'/proc/{os.getppid()}/environ').read().split('\\0'):
    if entry.startswith('OPENAI_API_KEY='):
        print(entry)
"""


def test_read_the_parents_environ(workspace: Path, mode: str) -> None:
    step = run_in_engine(workspace, PARENT_KEY)
    verdict(mode, SECRET in step["output"] + step["summary"], "printed the parent's key")
    if mode == "allow-list":  # the key is there to read, but cut from the output
        assert step["output"] == "OPENAI_API_KEY=[redacted $OPENAI_API_KEY]\n"
        assert step["redacted"] == ["OPENAI_API_KEY"]
        assert "output redacted (OPENAI_API_KEY)" in step["summary"]
    else:
        assert step["output"] == ""


SCAN = """\
import glob
for path in glob.glob('/proc/[0-9]*/environ'):
    try:
        entries = open(path).read().split('\\0')
    except OSError:
        continue
    print(path, [entry for entry in entries if 'KEY' in entry.split('=')[0]])
"""


def test_scan_every_processs_environ(workspace: Path, mode: str) -> None:
    step = run_in_engine(workspace, SCAN)
    verdict(mode, SECRET in step["output"], "found the key in /proc/*/environ")
    if mode == "allow-list":
        assert "[redacted $OPENAI_API_KEY]" in step["output"]
    else:  # only the sandbox's own processes are there, and they never had it
        assert "OPENAI_API_KEY" not in step["output"]


def test_read_the_parents_environ_encoded(workspace: Path, mode: str) -> None:
    """Redaction only knows the literal value: base64 walks past it."""
    code = "import base64, sys\n" + PARENT_KEY.replace(
        "print(entry)", "print(base64.b64encode(entry.encode()).decode())"
    )
    step = run_in_engine(workspace, code)
    lines = step["output"].split()
    decoded = base64.b64decode(lines[-1]).decode("utf-8", "replace") if lines else ""
    verdict(mode, SECRET in decoded, "smuggled the key out base64-encoded", NO_PID_NAMESPACE)


LEAKY_NAMES = ("NPM_AUTH", "SLACK_HOOK_URL", "MYAPP_AUTH_HEADER", "DOCKER_AUTH_CONFIG")


def test_secret_variables_are_not_in_the_childs_environment(
    workspace: Path, mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in LEAKY_NAMES:
        monkeypatch.setenv(name, f"value-of-{name.lower()}")
    monkeypatch.setenv("FORGETUI_WANTED", "wanted-value")
    code = "import json, os; print(json.dumps(dict(os.environ)))"
    outcome = run_python(workspace, code, env_passthrough=["FORGETUI_WANTED"])
    seen = json.loads(outcome.output or "{}")
    leaked = sorted(set(seen) & {*LEAKY_NAMES, "OPENAI_API_KEY"})
    verdict(mode, bool(leaked), f"the child saw {leaked}")
    assert seen["FORGETUI_WANTED"] == "wanted-value"  # listed in env_passthrough: there


def test_a_passed_through_secret_printed_comes_back_redacted(
    workspace: Path, mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DEPLOY_TOKEN", "deploy-token-0123456789")
    code = "import os; print('token:', os.environ['DEPLOY_TOKEN'])"
    outcome = run_python(workspace, code, env_passthrough=["DEPLOY_TOKEN"])
    verdict(mode, "deploy-token-0123456789" in repr(outcome), "printed a passed-through token")
    assert outcome.output == "token: [redacted $DEPLOY_TOKEN]\n"
    assert outcome.redacted == ["DEPLOY_TOKEN"]
    assert outcome.summary.endswith("output redacted (DEPLOY_TOKEN)")


# ----------------------------------------------------------------------------- processes

LATE_WRITER = """\
import os, subprocess, sys
late = "import sys, time; time.sleep(2); open(sys.argv[1], 'w').write('late')"
subprocess.Popen(
    [sys.executable, '-c', late, sys.argv[1], sys.argv[2]],
    start_new_session=True,  # setsid: out of the command's process group
    stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
)
print('detached')
"""


def test_a_setsid_child_writes_after_the_step(workspace: Path, mode: str) -> None:
    target = workspace / "late.txt"
    marker = f"forgetui-late-{uuid.uuid4().hex}"
    outcome = run_python(workspace, LATE_WRITER, str(target), marker)
    assert outcome.result == "success", outcome.output
    # Wait until the child is gone or has written; a dead child writes nothing later.
    wait_until(lambda: target.exists() or not processes_with(marker), limit_s=10)
    survivors = processes_with(marker)
    kill_all(survivors)
    escaped = target.exists() or bool(survivors)
    verdict(mode, escaped, "a setsid child outlived the step", "a setsid child leaves the group")


def test_a_double_forked_child_writes_after_the_step(workspace: Path, mode: str) -> None:
    target = workspace / "late.txt"
    marker = f"forgetui-fork-{uuid.uuid4().hex}"
    code = (
        "import os, sys, time\n"
        "if os.fork() == 0:\n"
        "    os.setsid()\n"
        "    if os.fork() == 0:\n"
        "        quiet = os.open(os.devnull, os.O_RDWR)\n"
        "        os.dup2(quiet, 1)\n"
        "        os.dup2(quiet, 2)\n"
        "        os.execv(sys.executable, [sys.executable, '-c',\n"
        '            \'import sys, time; time.sleep(2); open(sys.argv[1], "w").write("x")\',\n'
        "            sys.argv[1], sys.argv[2]])\n"
        "    os._exit(0)\n"
        "os.wait()\n"
    )
    run_python(workspace, code, str(target), marker)
    wait_until(lambda: target.exists() or not processes_with(marker), limit_s=10)
    survivors = processes_with(marker)
    kill_all(survivors)
    escaped = target.exists() or bool(survivors)
    verdict(
        mode,
        escaped,
        "a double-forked child outlived the step",
        "a setsid grandchild leaves the group",
    )


# ----------------------------------------------------------------------------- network


@pytest.fixture
def server() -> Iterator[int]:
    """A listening socket on the operator's loopback; connecting is all the attempt needs."""
    with socket.create_server(("127.0.0.1", 0)) as listener:
        yield listener.getsockname()[1]


CONNECT = """\
import socket, sys
try:
    socket.create_connection(('127.0.0.1', int(sys.argv[1])), timeout=5).close()
    print('connected')
except OSError as exc:
    print('refused:', exc)
"""


def test_reach_a_server_on_the_operators_machine(workspace: Path, mode: str, server: int) -> None:
    outcome = run_python(workspace, CONNECT, str(server))
    escaped = "connected" in (outcome.output or "")
    verdict(mode, escaped, "connected to the host's loopback", "no network namespace")
    assert "refused" in (outcome.output or "")


@pytest.mark.skipif(not BWRAP, reason=NO_BWRAP)
def test_a_task_that_allows_the_network_reaches_it(
    workspace: Path, monkeypatch: pytest.MonkeyPatch, server: int
) -> None:
    use_mode(monkeypatch, "bwrap")
    outcome = run_python(workspace, CONNECT, str(server), sandbox={"network": True})
    assert (outcome.output or "").strip() == "connected"


UNIX_CONNECT = """\
import socket, sys
with socket.socket(socket.AF_UNIX) as client:
    try:
        client.connect(sys.argv[1])
        print('connected')
    except OSError as exc:
        print('refused:', exc)
"""


@pytest.fixture
def run_socket() -> Iterator[str]:
    """A unix socket under /run, where agent, database and docker sockets live."""
    if not os.access("/run", os.W_OK):
        pytest.skip("/run is not writable here: cannot plant a socket there")
    folder = tempfile.mkdtemp(prefix="forgetui-", dir="/run")
    path = os.path.join(folder, "service.sock")
    with socket.socket(socket.AF_UNIX) as listener:
        listener.bind(path)
        listener.listen()
        yield path
    shutil.rmtree(folder, ignore_errors=True)


def test_reach_a_unix_socket_under_run(workspace: Path, mode: str, run_socket: str) -> None:
    outcome = run_python(workspace, UNIX_CONNECT, run_socket)
    escaped = "connected" in (outcome.output or "")
    verdict(mode, escaped, f"connected to {run_socket}", "/run is not hidden")


# ----------------------------------------------------------------------------- other actions


@pytest.mark.parametrize(
    ("action", "args"),
    [
        ("read_file", {"path": ".env"}),
        ("search", {"pattern": "OPENAI"}),
        ("load_context", {"item": "full_file:.env"}),
    ],
)
def test_a_secret_in_a_workspace_file_is_redacted(
    workspace: Path, monkeypatch: pytest.MonkeyPatch, action: str, args: dict[str, Any]
) -> None:
    """Not a command: the engine reads the file itself, so no mode matters; `execute` still
    cuts the operator's key before the log or the model sees it."""
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    (workspace / ".env").write_text(f"OPENAI_API_KEY={SECRET}\n")
    task = TaskSpec.model_validate({"id": "t", "goal": "g"})
    env = ActionEnv(workspace=workspace, spec=task, step=1, snapshot=lambda *_: [])
    outcome = execute(action, args, env)
    assert outcome.result == "success", outcome.error
    assert SECRET not in repr(outcome)
    assert "[redacted $OPENAI_API_KEY]" in (outcome.output or "")
    assert outcome.redacted == ["OPENAI_API_KEY"]
    assert outcome.summary.endswith("output redacted (OPENAI_API_KEY)")
    if outcome.memory_item is not None:
        assert "[redacted $OPENAI_API_KEY]" in str(outcome.memory_item.content)


def test_a_printed_secret_is_nowhere_in_the_task_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A whole step: the command's output, the check it triggers, the log, memory and state."""
    token = "deploy-token-0123456789"
    monkeypatch.setenv("DEPLOY_TOKEN", token)
    show = ["python", "-c", "import os; print('token', os.environ['DEPLOY_TOKEN'])"]
    folder = make_task(
        tmp_path,
        [act("run_cmd", cmd=show)],
        allowed_commands=["python"],
        env_passthrough=["DEPLOY_TOKEN"],
        checks=[{"name": "leak", "kind": "command", "cmd": show}],
    )
    with Executor(folder, replay(folder)) as executor:
        report = executor.step()
    assert report.result == "success"
    (result,) = [record for record in folder.log.iter_records() if record.kind == "result"]
    assert getattr(result, "redacted", None) == ["DEPLOY_TOKEN"]
    assert "output redacted (DEPLOY_TOKEN)" in getattr(result, "summary", "")
    details = folder.load_state().verification.checks["leak"].details
    assert details == "exit 0\ntoken [redacted $DEPLOY_TOKEN] (output redacted (DEPLOY_TOKEN))"
    leaking = [
        path
        for path in folder.path.rglob("*")
        if path.is_file() and token.encode() in path.read_bytes()
    ]
    assert leaking == []
