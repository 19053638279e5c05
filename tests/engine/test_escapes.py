"""The escape suite: what an agent's allowed `python -c` tried, through the real
`execute("run_cmd", ...)` path, in both sandbox modes.

Each attempt is one test per mode, and each first proves the attempt ran: the command prints
`attempting` before it tries (and whatever it found after), so a command that never started,
or was refused before it ran, fails the test instead of passing as "nothing escaped". Then the
test asserts the attempt was stopped and how: the step's exit code as forgetui reports it, the
file untouched, the output redacted, the child gone.

A known gap of allow-list mode (no mount, PID or network namespace there) is
`xfail(strict=True, raises=Escaped)`: it xfails only because the attempt got through, so
`pytest -rx` lists what allow-list mode lets by, and the day allow-list mode stops one the
XPASS fails the run until the mark goes."""

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
from forgetui.engine.folder.task_spec import TaskSpec
from forgetui.engine.step.executor import Executor
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


class Escaped(AssertionError):
    """The attempt got through: a failure, or the xfail of a known allow-list gap."""


def held(mode: str, escaped: bool, attempt: str) -> None:
    if escaped:
        raise Escaped(f"escape succeeded in {mode} mode: {attempt}")


def gap(why: str) -> pytest.MarkDecorator:
    """Both modes, allow-list's a known gap: it must escape (strict), and only by escaping."""
    allow_list = pytest.param(
        "allow-list",
        marks=pytest.mark.xfail(
            strict=True, raises=Escaped, reason=f"allow-list mode cannot stop this: {why}"
        ),
    )
    return pytest.mark.parametrize("mode", [MODES[0], allow_list], indirect=True)


ATTEMPTING = "attempting\n"  # what every attempt prints, flushed, before it tries


def ran(outcome: ActionOutcome) -> str:
    """The attempt's output, once it shows the command ran (not refused) and reached it."""
    assert outcome.command is not None and outcome.command.exit_code is not None, outcome
    output = outcome.output or ""
    assert output.startswith(ATTEMPTING), output
    return output


def failed_on_the_attempt(outcome: ActionOutcome) -> None:
    """The attempt raised inside the sandbox: forgetui reports the step failed, exit code 1."""
    assert (outcome.result, outcome.error) == ("failure", "exit code 1"), outcome.output


# ----------------------------------------------------------------------------- filesystem

NO_MOUNTS = "the command runs with the operator's file permissions, no mount namespace"


@pytest.fixture
def var_tmp_target() -> Iterator[Path]:
    """A path outside the workspace and outside /tmp (which bwrap replaces with its own)."""
    target = Path("/var/tmp") / f"forgetui-escaped-{uuid.uuid4().hex}.txt"
    yield target
    target.unlink(missing_ok=True)


WRITE = "import sys; print('attempting', flush=True); open(sys.argv[1], 'w').write('pwned')"


@gap(NO_MOUNTS)
def test_write_outside_the_workspace(workspace: Path, mode: str) -> None:
    """Under bwrap the workspace's parent is in the sandbox's own /tmp: the write lands there,
    is read back inside, and is gone with the sandbox."""
    target = workspace.parent / f"escaped-{uuid.uuid4().hex}.txt"
    code = WRITE + "; print('read back:', open(sys.argv[1]).read())"
    outcome = run_python(workspace, code, str(target))
    assert ran(outcome) == ATTEMPTING + "read back: pwned\n"
    held(mode, target.exists(), f"wrote {target}")
    assert outcome.result == "success"


@gap(NO_MOUNTS)
def test_write_into_the_system(workspace: Path, mode: str, var_tmp_target: Path) -> None:
    outcome = run_python(workspace, WRITE, str(var_tmp_target))
    ran(outcome)
    held(mode, var_tmp_target.exists(), f"wrote {var_tmp_target}")
    failed_on_the_attempt(outcome)  # a read-only mount: the open raised


def stopped_in_the_task_folder(mode: str, outcome: ActionOutcome, rel: str) -> None:
    """bwrap: the read-only mount made the write raise. allow-list: the write landed and was
    put back once the command ended, and the step failed saying so."""
    if mode == "bwrap":
        failed_on_the_attempt(outcome)
        return
    assert outcome.result == "failure", outcome.output
    assert f"{rel}: changed by the command, put back" in (outcome.error or ""), outcome.error


def test_rewrite_the_tasks_own_task_yaml(workspace: Path, mode: str) -> None:
    task_yaml = workspace / ".agentforge" / "tasks" / "t" / "task.yaml"
    outcome = run_python(workspace, WRITE, ".agentforge/tasks/t/task.yaml")
    ran(outcome)
    held(mode, task_yaml.read_text() != TASK_YAML, "rewrote task.yaml")
    stopped_in_the_task_folder(mode, outcome, ".agentforge/tasks/t/task.yaml")


def test_append_a_forged_record_to_the_task_log(workspace: Path, mode: str) -> None:
    log = workspace / ".agentforge" / "tasks" / "t" / "actions.yaml"
    forged = "- {kind: result, step: 1, at: t, action: note, result: success, summary: forged}\n"
    code = WRITE.replace("'w').write('pwned')", "'a').write(sys.argv[2])")
    outcome = run_python(workspace, code, ".agentforge/tasks/t/actions.yaml", forged)
    ran(outcome)
    held(mode, log.read_text() != ACTIONS_YAML, "appended to actions.yaml")
    stopped_in_the_task_folder(mode, outcome, ".agentforge/tasks/t/actions.yaml")


def test_the_workspace_itself_stays_writable(workspace: Path, mode: str) -> None:
    """Not an escape: the control that the attempts above fail for the right reason."""
    outcome = run_python(workspace, "open('made.txt', 'w').write('ok')")
    assert outcome.result == "success", outcome.output
    assert (workspace / "made.txt").read_text() == "ok"


REMOUNT = """\
import ctypes, sys
print('attempting', flush=True)
def write():
    try:
        open(sys.argv[1], 'w').write('pwned')
        return True
    except OSError:
        return False
if write():
    print('written at once')
else:  # read-only: try to make it writable, as root with CAP_SYS_ADMIN could
    libc = ctypes.CDLL(None, use_errno=True)
    MS_REMOUNT, MS_BIND = 32, 4096
    for where in ('/', sys.argv[2]):
        libc.mount(None, where.encode(), None, MS_REMOUNT | MS_BIND, None)
        libc.umount2(where.encode(), 2)  # MNT_DETACH: the read-only bind over the task folder
        print('tried', where, flush=True)
    open(sys.argv[1], 'w').write('pwned')  # raises if still read-only
    print('written after the remount')
"""


@gap(NO_MOUNTS)
def test_remount_read_write_or_unmount_the_task_folder(
    workspace: Path, mode: str, var_tmp_target: Path
) -> None:
    task_folder = str(workspace / ".agentforge")
    task_yaml = workspace / ".agentforge" / "tasks" / "t" / "task.yaml"
    outcomes = [
        run_python(workspace, REMOUNT, str(target), task_folder)
        for target in (var_tmp_target, task_yaml)
    ]
    outputs = [ran(outcome) for outcome in outcomes]
    escaped = var_tmp_target.exists() or task_yaml.read_text() != TASK_YAML
    held(mode, escaped, f"remounted or unmounted a read-only mount: {outputs}")
    for outcome, output in zip(outcomes, outputs, strict=True):
        # both remounts and unmounts were tried, and the write after them still raised
        assert f"tried /\ntried {task_folder}\n" in output and "written" not in output, output
        failed_on_the_attempt(outcome)


@pytest.fixture
def fake_home(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A HOME outside /tmp (which bwrap hides anyway), so only the home's own hiding counts."""
    home = Path(tempfile.mkdtemp(prefix="forgetui-home-", dir="/var/tmp"))
    (home / ".ssh").mkdir()
    (home / ".ssh" / "id_ed25519").write_text("-----BEGIN OPENSSH PRIVATE KEY----- fake\n")
    monkeypatch.setenv("HOME", str(home))
    yield home
    shutil.rmtree(home, ignore_errors=True)


@gap("the operator's home is not hidden")
def test_read_a_key_in_the_operators_home(workspace: Path, mode: str, fake_home: Path) -> None:
    key = fake_home / ".ssh" / "id_ed25519"
    code = "import sys; print('attempting', flush=True); print(open(sys.argv[1]).read())"
    outcome = run_python(workspace, code, str(key))
    held(mode, "OPENSSH PRIVATE KEY" in ran(outcome), f"read {key}")
    failed_on_the_attempt(outcome)  # hidden: there is no such file inside


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
from forgetui.engine.folder.task_spec import TaskSpec
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
print('attempting', flush=True)
entries = open(f'/proc/{os.getppid()}/environ').read().split('\\0')
print('entries read:', len(entries))
for entry in entries:
    if entry.startswith('OPENAI_API_KEY='):
        print(entry)
"""


def entries_read(output: str) -> int:
    """How many environment entries the attempt read: it opened the file, and it had some."""
    counts = [int(line.split(":")[1]) for line in output.splitlines() if "entries read:" in line]
    assert len(counts) == 1, output
    return counts[0]


def test_read_the_parents_environ(workspace: Path, mode: str) -> None:
    step = run_in_engine(workspace, PARENT_KEY)
    assert step["output"].startswith(ATTEMPTING) and entries_read(step["output"]) >= 1, step
    held(mode, SECRET in step["output"] + step["summary"], "printed the parent's key")
    if mode == "allow-list":  # the key is there to read, but cut from the output
        assert step["output"].endswith("\nOPENAI_API_KEY=[redacted $OPENAI_API_KEY]\n"), step
        assert step["redacted"] == ["OPENAI_API_KEY"]
        assert "output redacted (OPENAI_API_KEY)" in step["summary"]
    else:  # the parent is the sandbox's own init, which never had the key
        assert "OPENAI_API_KEY" not in step["output"] and step["redacted"] == [], step


SCAN = """\
import glob
print('attempting', flush=True)
read = 0
for path in glob.glob('/proc/[0-9]*/environ'):
    try:
        entries = open(path).read().split('\\0')
    except OSError:
        continue
    read += 1
    print(path, [entry for entry in entries if 'KEY' in entry.split('=')[0]])
print('environ files read:', read)
"""


def test_scan_every_processs_environ(workspace: Path, mode: str) -> None:
    step = run_in_engine(workspace, SCAN)
    assert step["output"].startswith(ATTEMPTING), step
    assert int(step["output"].rsplit("environ files read:", 1)[1]) >= 1, step  # its own at least
    held(mode, SECRET in step["output"], "found the key in /proc/*/environ")
    if mode == "allow-list":
        assert "[redacted $OPENAI_API_KEY]" in step["output"]
    else:  # only the sandbox's own processes are there, and they never had it
        assert "OPENAI_API_KEY" not in step["output"]


@gap(NO_PID_NAMESPACE)
def test_read_the_parents_environ_encoded(workspace: Path, mode: str) -> None:
    """Redaction only knows the literal value: base64 walks past it."""
    code = "import base64, sys\n" + PARENT_KEY.replace(
        "print(entry)", "print('b64', base64.b64encode(entry.encode()).decode())"
    )
    step = run_in_engine(workspace, code)
    assert step["output"].startswith(ATTEMPTING) and entries_read(step["output"]) >= 1, step
    decoded = [
        base64.b64decode(line.split()[1]).decode("utf-8", "replace")
        for line in step["output"].splitlines()
        if line.startswith("b64 ")
    ]
    held(mode, any(SECRET in text for text in decoded), "smuggled the key out base64-encoded")
    assert decoded == [], step  # under bwrap the parent never had it


LEAKY_NAMES = ("NPM_AUTH", "SLACK_HOOK_URL", "MYAPP_AUTH_HEADER", "DOCKER_AUTH_CONFIG")


def test_secret_variables_are_not_in_the_childs_environment(
    workspace: Path, mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in LEAKY_NAMES:
        monkeypatch.setenv(name, f"value-of-{name.lower()}")
    monkeypatch.setenv("FORGETUI_WANTED", "wanted-value")
    code = "import json, os; print(json.dumps(dict(os.environ)))"
    outcome = run_python(workspace, code, env_passthrough=["FORGETUI_WANTED"])
    assert outcome.result == "success", outcome.output
    seen = json.loads(outcome.output or "{}")
    assert seen["FORGETUI_WANTED"] == "wanted-value"  # it ran: the listed variable is there
    leaked = sorted(set(seen) & {*LEAKY_NAMES, "OPENAI_API_KEY"})
    held(mode, bool(leaked), f"the child saw {leaked}")


def test_a_passed_through_secret_printed_comes_back_redacted(
    workspace: Path, mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DEPLOY_TOKEN", "deploy-token-0123456789")
    code = "import os; print('token:', os.environ['DEPLOY_TOKEN'])"
    outcome = run_python(workspace, code, env_passthrough=["DEPLOY_TOKEN"])
    held(mode, "deploy-token-0123456789" in repr(outcome), "printed a passed-through token")
    assert outcome.output == "token: [redacted $DEPLOY_TOKEN]\n"
    assert outcome.redacted == ["DEPLOY_TOKEN"]
    assert outcome.summary.endswith("output redacted (DEPLOY_TOKEN)")


# ----------------------------------------------------------------------------- processes

# A child that says it started (a file in the workspace, which both modes share with the host)
# and then, 2 s later, writes `late.txt`; the command waits for the start before it returns.
LATE = (
    "import pathlib, sys, time; ws = pathlib.Path(sys.argv[1]); "
    "(ws / 'started.txt').write_text('started'); time.sleep(2); "
    "(ws / 'late.txt').write_text('late')"
)
WAIT_FOR_START = """\
import pathlib, time
for _ in range(200):
    if pathlib.Path('started.txt').exists():
        break
    time.sleep(0.05)
print('detached')
"""

LATE_WRITER = f"""\
import os, subprocess, sys
print('attempting', flush=True)
subprocess.Popen(
    [sys.executable, '-c', {LATE!r}, os.getcwd(), sys.argv[1]],
    start_new_session=True,  # setsid: out of the command's process group
    stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
)
{WAIT_FOR_START}"""

DOUBLE_FORK = f"""\
import os, sys
print('attempting', flush=True)
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        quiet = os.open(os.devnull, os.O_RDWR)
        os.dup2(quiet, 1)
        os.dup2(quiet, 2)
        os.execv(sys.executable, [sys.executable, '-c', {LATE!r}, os.getcwd(), sys.argv[1]])
    os._exit(0)
os.wait()
{WAIT_FOR_START}"""


def outlived_the_step(workspace: Path, code: str) -> bool:
    """Run `code` with a marker the child carries; once the child has started (proved by its
    file) and the step is over, whether it is still alive or wrote after the step."""
    marker = f"forgetui-late-{uuid.uuid4().hex}"
    outcome = run_python(workspace, code, marker)
    assert ran(outcome) == ATTEMPTING + "detached\n"
    assert outcome.result == "success"
    assert (workspace / "started.txt").read_text() == "started"  # the child ran
    late = workspace / "late.txt"
    # Wait until the child is gone or has written; a dead child writes nothing later.
    wait_until(lambda: late.exists() or not processes_with(marker), limit_s=10)
    survivors = processes_with(marker)
    kill_all(survivors)
    return late.exists() or bool(survivors)


@gap("a setsid child leaves the group")
def test_a_setsid_child_writes_after_the_step(workspace: Path, mode: str) -> None:
    held(mode, outlived_the_step(workspace, LATE_WRITER), "a setsid child outlived the step")


@gap("a setsid grandchild leaves the group")
def test_a_double_forked_child_writes_after_the_step(workspace: Path, mode: str) -> None:
    escaped = outlived_the_step(workspace, DOUBLE_FORK)
    held(mode, escaped, "a double-forked child outlived the step")


# ----------------------------------------------------------------------------- network


@pytest.fixture
def server() -> Iterator[int]:
    """A listening socket on the operator's loopback; connecting is all the attempt needs."""
    with socket.create_server(("127.0.0.1", 0)) as listener:
        yield listener.getsockname()[1]


CONNECT = """\
import socket, sys
print('attempting', flush=True)
try:
    socket.create_connection(('127.0.0.1', int(sys.argv[1])), timeout=5).close()
    print('connected')
except OSError as exc:
    print('refused:', exc)
"""


@gap("no network namespace")
def test_reach_a_server_on_the_operators_machine(workspace: Path, mode: str, server: int) -> None:
    outcome = run_python(workspace, CONNECT, str(server))
    output = ran(outcome)
    held(mode, "connected" in output, "connected to the host's loopback")
    assert output.startswith(ATTEMPTING + "refused: "), output  # the connect raised


@pytest.mark.skipif(not BWRAP, reason=NO_BWRAP)
def test_a_task_that_allows_the_network_reaches_it(
    workspace: Path, monkeypatch: pytest.MonkeyPatch, server: int
) -> None:
    use_mode(monkeypatch, "bwrap")
    outcome = run_python(workspace, CONNECT, str(server), sandbox={"network": True})
    assert ran(outcome) == ATTEMPTING + "connected\n"


UNIX_CONNECT = """\
import socket, sys
print('attempting', flush=True)
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


@gap("/run is not hidden")
def test_reach_a_unix_socket_under_run(workspace: Path, mode: str, run_socket: str) -> None:
    outcome = run_python(workspace, UNIX_CONNECT, run_socket)
    output = ran(outcome)
    held(mode, "connected" in output, f"connected to {run_socket}")
    assert output.startswith(ATTEMPTING + "refused: "), output  # no such socket inside


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
