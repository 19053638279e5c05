"""Fuzz the four state files of a real hello_world task and run the CLI on them.

Each case damages one file of a freshly `init`-ed task (or of one that ran a step): cut at a
byte, bytes flipped or inserted, a value replaced by a random YAML value, random text, a 0-byte
file, a directory in its place, a line of garbage, an alias bomb. Then `status`, `context`,
`log --json` and `run --max-steps 1` run in process. Whatever the damage: no traceback (any
exception out of `main` fails), exit 0 or 2 (`run` may also end escalated, 3, or failed, 4,
as a damaged but valid state.yaml can say so), a refusal is one `forgetui: ` line naming the
file, the refused file keeps its bytes, and no `lock` is left.

Each run draws new cases from a fresh seed, printed at the end of the run and with a failure;
`FORGETUI_FUZZ_SEED=N` replays run N (tests/fuzz_seed.py).
`pytest --hypothesis-show-statistics` (or -s, for the totals printed at the end) shows how
many cases ran."""

from __future__ import annotations

import contextlib
import io
import json
import os
import resource
import shutil
import signal
import tempfile
import traceback
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from forgetui.cli import main
from forgetui.engine.base.errors import EXIT_BAD_INPUT, EXIT_ESCALATED, EXIT_FAILED, EXIT_OK
from tests.cli.conftest import one_parser, without_fsync
from tests.fuzz_seed import fuzzed

FILES = ("task.yaml", "state.yaml", "working_memory.yaml", "actions.yaml")
COMMANDS: tuple[tuple[str, ...], ...] = (
    ("status",),
    ("context",),
    ("log", "--json"),
    ("run", "--max-steps", "1"),
)
CASES_PER_FILE = 200
CALL_TIMEOUT_S = 30  # a command that runs longer is hung (an alias bomb expanding, say)
MEMORY_HEADROOM = 2 << 30  # bytes a command may grow by before that counts as a blow-up
RAN: Counter[str] = Counter()

FUZZ = settings(
    max_examples=CASES_PER_FILE,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


# ----------------------------------------------------------------------------- the task


@pytest.fixture(scope="module")
def templates(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Path]]:
    """hello_world as `init` lays it out (an empty log), and after its first step."""
    base = tmp_path_factory.mktemp("fuzz-files")
    with pytest.MonkeyPatch.context() as patch, without_fsync(), one_parser():
        patch.setenv("FORGETUI_HOME", str(base / "home"))
        patch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
        found: dict[str, Path] = {}
        for name in ("fresh", "stepped"):
            assert _quiet(["init", "hello_world", "--into", str(base / name)]) == 0
            found[name] = base / name
        task = _task_of(found["stepped"])
        assert _quiet(["run", str(task), "--max-steps", "1"]) == 0
        yield found
    print(
        f"\nfuzz cases run: {sum(RAN.values())} ({', '.join(f'{k} {n}' for k, n in RAN.items())})"
    )


def _task_of(workspace: Path) -> Path:
    return workspace / ".agentforge" / "tasks" / "hello_world"


def _quiet(argv: list[str]) -> int:
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        return main(argv)


# ----------------------------------------------------------------------------- the damage

DIRECTORY = "a directory in place of the file"
KINDS = (
    "truncate",
    "flip",
    "insert",
    "non-utf8",
    "replace",
    "unicode",
    "empty",
    "directory",
    "garbage-line",
    "alias-bomb",
)


@dataclass(frozen=True)
class Damage:
    """What was done to the file (shown when a case fails) and the bytes it now holds."""

    what: str
    data: bytes | None  # None: a directory in place of the file

    def __repr__(self) -> str:
        shown = "-" if self.data is None else repr(self.data[:300])
        return (
            f"Damage({self.what}; now {shown}{'...' if self.data and len(self.data) > 300 else ''})"
        )

    def apply(self, path: Path) -> None:
        path.unlink()
        if self.data is None:
            path.mkdir()
            (path / "inside.yaml").write_text("step: 1\n")
        else:
            path.write_bytes(self.data)


def _bomb(levels: int = 8) -> str:
    """Billion laughs in flow style: 9**levels strings once the aliases are expanded."""
    parts = ['&a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    parts += [f"&a{i} [{','.join([f'*a{i - 1}'] * 9)}]" for i in range(1, levels)]
    return f"[{', '.join(parts)}, *a{levels - 1}]"


yaml_values: st.SearchStrategy[Any] = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-(2**70), 2**70),
        st.floats(allow_nan=True),
        st.text(max_size=40),
        st.sampled_from(["", "~", "null", "yes", "0x1F", "1e999", "-", "!!python/none", "*x"]),
    ),
    lambda kids: st.one_of(
        st.lists(kids, max_size=5), st.dictionaries(st.text(max_size=10), kids, max_size=5)
    ),
    max_leaves=12,
)


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every position in a parsed document, the root aside."""
    items = (
        node.items()
        if isinstance(node, dict)
        else enumerate(node)
        if isinstance(node, list)
        else ()
    )
    for key, child in items:
        yield (*prefix, key)
        yield from _paths(child, (*prefix, key))


def _set(doc: Any, path: tuple[Any, ...], value: Any) -> None:
    for key in path[:-1]:
        doc = doc[key]
    doc[path[-1]] = value


def _documents(name: str, data: bytes) -> list[tuple[str, Any]]:
    """(prefix, parsed) for each document: the YAML file, or each `--- {json}` log line."""
    if name != "actions.yaml":
        return [("", yaml.safe_load(data))]
    return [("--- ", json.loads(line[4:])) for line in data.decode().splitlines()]


def _encode(name: str, docs: list[tuple[str, Any]]) -> bytes:
    if name != "actions.yaml":
        return yaml.safe_dump(docs[0][1], sort_keys=False, allow_unicode=True).encode()
    return "".join(f"{prefix}{json.dumps(doc)}\n" for prefix, doc in docs).encode()


@st.composite
def damage(draw: st.DrawFn, name: str, original: bytes) -> Damage:
    kind = draw(st.sampled_from(KINDS))
    size = len(original)
    if kind == "truncate" and size:
        at = draw(st.integers(0, size - 1))
        return Damage(f"cut at byte {at} of {size}", original[:at])
    if kind == "flip" and size:
        flips = draw(
            st.lists(
                st.tuples(st.integers(0, size - 1), st.integers(1, 255)), min_size=1, max_size=6
            )
        )
        data = bytearray(original)
        for at, mask in flips:
            data[at] ^= mask
        return Damage(f"bytes flipped {flips}", bytes(data))
    if kind in ("insert", "non-utf8"):
        at = draw(st.integers(0, size))
        extra = (
            draw(st.binary(min_size=1, max_size=12))
            if kind == "insert"
            else draw(st.sampled_from([b"\xff", b"\xc3(", b"\xed\xa0\x80", b"\x00", b"\xfe\xff"]))
        )
        return Damage(f"{extra!r} inserted at byte {at}", original[:at] + extra + original[at:])
    if kind in ("replace", "alias-bomb"):
        docs = _documents(name, original)
        which = draw(st.integers(0, len(docs) - 1)) if docs else 0
        paths = list(_paths(docs[which][1])) if docs else []
        if paths:
            path = draw(st.sampled_from(paths))
            if kind == "replace":
                value = draw(yaml_values, label="value")
                _set(docs[which][1], path, value)
                return Damage(
                    f"{'/'.join(map(str, path))} replaced by {value!r}", _encode(name, docs)
                )
            _set(docs[which][1], path, "@@BOMB@@")
            text = _encode(name, docs).decode()
            bombed = text.replace('"@@BOMB@@"', _bomb()).replace("'@@BOMB@@'", _bomb())
            bombed = bombed.replace("@@BOMB@@", _bomb())
            return Damage(f"{'/'.join(map(str, path))} replaced by an alias bomb", bombed.encode())
        if kind == "alias-bomb":  # nothing to replace: the whole file is one
            return Damage("an alias bomb", f"--- {_bomb()}\n".encode())
    if kind == "garbage-line":
        lines = original.splitlines(keepends=True)
        at = draw(st.integers(0, len(lines)))
        garbage = draw(
            st.sampled_from([b"--- {garbage\n", b"\x00\x01\x02\n", b"--- []\n", b"::\n"])
        )
        return Damage(
            f"line {garbage!r} inserted before line {at + 1}",
            b"".join([*lines[:at], garbage, *lines[at:]]),
        )
    if kind == "directory":
        return Damage(DIRECTORY, None)
    if kind == "unicode":
        text = draw(st.text(max_size=200))
        return Damage("replaced by random text", text.encode("utf-8", "surrogatepass"))
    return Damage("emptied to 0 bytes", b"")


# ----------------------------------------------------------------------------- the CLI


class _Hung(BaseException):
    """Not an Exception, so no `except Exception` in the engine swallows it."""


@contextlib.contextmanager
def _bounded() -> Iterator[None]:
    """A time and a memory cap around one in-process command, so a blow-up fails the case
    instead of the machine."""

    def hung(_signum: int, _frame: FrameType | None) -> None:
        raise _Hung(f"still running after {CALL_TIMEOUT_S} s")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(CALL_TIMEOUT_S)
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    try:
        with contextlib.suppress(OSError, ValueError):
            pages = int(Path("/proc/self/statm").read_text().split()[0])
            cap = pages * os.sysconf("SC_PAGE_SIZE") + MEMORY_HEADROOM
            if hard == resource.RLIM_INFINITY or cap < hard:
                resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def _call(argv: list[str], case: Damage) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    try:
        with _bounded(), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(argv)
    except BaseException as exc:  # SystemExit, MemoryError, _Hung: all are failures here
        trace = "".join(traceback.format_exception(exc)[-6:])
        pytest.fail(f"`forgetui {' '.join(argv[:1])}` on {case!r} raised\n{trace}")
    return code, out.getvalue(), err.getvalue()


def _snapshot(path: Path) -> bytes | None:
    return None if path.is_dir() else path.read_bytes()


def _check(name: str, case: Damage, workspace: Path) -> None:
    task = _task_of(workspace)
    target = task / name
    for command in COMMANDS:
        before = _snapshot(target)
        argv = [command[0], str(task), *command[1:]]
        code, _out, err = _call(argv, case)
        label = f"`forgetui {' '.join(command)}` with {name}: {case!r}"
        allowed = {EXIT_OK, EXIT_BAD_INPUT}
        if command[0] == "run":  # a damaged state.yaml may validly say escalated or failed
            allowed |= {EXIT_ESCALATED, EXIT_FAILED}
        assert code in allowed, f"{label}: exit {code}, stderr {err!r}"
        if code == EXIT_BAD_INPUT:
            # one line as a terminal shows it: one newline, at the end
            one_line = err.count("\n") == 1 and err.endswith("\n")
            assert one_line and err.startswith("forgetui: "), f"{label}: {err!r}"
            assert name in err, f"{label}: the message does not name {name}: {err!r}"
            assert _snapshot(target) == before, f"{label}: refused, yet {name} was rewritten"
        assert not (task / "lock").exists(), f"{label}: exit {code} left the lock behind"


@pytest.mark.parametrize("name", FILES)
@fuzzed
@FUZZ
@given(data=st.data())
def test_a_damaged_state_file_is_read_or_refused_in_one_line(
    name: str, templates: dict[str, Path], data: st.DataObject
) -> None:
    start = data.draw(st.sampled_from(sorted(templates)), label="task")
    original = (_task_of(templates[start]) / name).read_bytes()
    case = data.draw(damage(name, original), label="damage")
    RAN[name] += 1
    scratch = Path(tempfile.mkdtemp(prefix="fuzz-", dir=templates[start].parent))
    try:
        workspace = scratch / "ws"
        shutil.copytree(templates[start], workspace)
        case.apply(_task_of(workspace) / name)
        _check(name, case, workspace)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
