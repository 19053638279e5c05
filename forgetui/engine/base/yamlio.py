"""YAML in and out: load into pydantic models with file:line:field errors; dump readably; write
atomically so a crash never leaves a half-written state file.

Every YAML text forgetui reads goes through `safe_load` here. forgetui never writes anchors or
aliases, so a file that has one was not written by forgetui, and refusing it, before anything
is built, keeps a kilobyte "billion laughs" file from expanding into gigabytes. Nesting is
bounded too: libyaml's parser slows quadratically with depth and its composer overflows the C
stack past ~30,000 levels (a segfault, not an error)."""

from __future__ import annotations

import json
import os
import stat
import sys
import tempfile
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from forgetui.engine.base.errors import ForgeError, StateFileError, first_error

M = TypeVar("M", bound=BaseModel)

_Loader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
# For `safe_load` on files forgetui ships or writes (themes, the config): libyaml's parser where
# PyYAML has it, four times as fast as the pure-Python one, on the way to the first paint.
FAST_LOADER = _Loader
_AnyLoader = type[yaml.SafeLoader] | type[yaml.BaseLoader]
_BaseDumper: type[yaml.SafeDumper] = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


# The largest YAML file forgetui reads. A step puts at most a model reply (~0.5 MB at 128k
# tokens) and capped outputs into a file; working memory holds capped items; so the files are
# kilobytes to a few megabytes. 16 MiB loads in ~1.5 s and ~160 MB: slow, but bounded.
MAX_YAML_BYTES = 16 * 1024 * 1024
# The deepest nesting read. forgetui's own files nest under ten levels plus whatever a model's
# arguments carry; libyaml is fast and safe far beyond this.
MAX_YAML_DEPTH = 256
# The most values (scalars and collections) a file may hold. Building costs ~7 us a value
# whatever its size, and `[x,x,x...]` packs one into two bytes: 16 MiB of them took 56 s and
# 1.8 GB (bench/bench_hostile.py). forgetui's own files hold hundreds; a 1,000-step replay
# script about 10,000.
MAX_YAML_NODES = 300_000
NO_ALIASES = "YAML anchors and aliases are not allowed in forgetui's files"
# Where aliases are allowed (replay scripts, which PyYAML writes with `&id001` for a repeated
# response), the most values they may add: a "billion laughs" needs a thousand times more.
MAX_ALIAS_NODES = 1_000_000


class RefusedYAML(yaml.MarkedYAMLError):
    """YAML forgetui will not build: an anchor or alias, nesting past MAX_YAML_DEPTH or more
    than MAX_YAML_NODES values. A YAMLError, so code that catches parse errors catches it
    too."""

    def __init__(self, problem: str, mark: Any) -> None:  # a libyaml or a pure-Python Mark
        super().__init__(problem=problem, problem_mark=mark)


class _Dumper(_BaseDumper):  # type: ignore[misc,valid-type]
    """Multi-line strings as `|` blocks so state files read and diff well by hand; never an
    anchor, even for data that shares an object, since the loader refuses them."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


def _represent_str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    if "\n" in value:
        # Block style cannot keep trailing spaces on lines; strip them rather than fall back
        # to an unreadable quoted scalar.
        cleaned = "\n".join(line.rstrip() for line in value.split("\n"))
        return dumper.represent_scalar("tag:yaml.org,2002:str", cleaned, style="|")
    return dumper.represent_scalar("tag:yaml.org,2002:str", value)


_Dumper.add_representer(str, _represent_str)


def dump_yaml(data: Any) -> str:
    return yaml.dump(
        data,
        Dumper=_Dumper,
        sort_keys=False,
        allow_unicode=True,
        width=100,
        default_flow_style=False,
    )


def dump_model(model: BaseModel) -> str:
    return dump_yaml(model.model_dump(mode="json", exclude_none=True))


class TooLargeToWrite(ForgeError):
    """A file forgetui would then refuse to read back: refused before anything is written."""

    title = "file too large"


def atomic_write_text(path: Path, text: str) -> None:
    """Temporary file, fsync, rename, fsync the directory. Every text forgetui writes this way
    is one it reads back whole, so one over MAX_YAML_BYTES is refused (TooLargeToWrite) and
    the old file stays."""
    atomic_write_bytes(path, text.encode("utf-8"), max_bytes=MAX_YAML_BYTES)


def atomic_write_bytes(
    path: Path, data: bytes, *, durable: bool = True, max_bytes: int | None = None
) -> None:
    """Temporary file, fsync, rename, fsync the directory. Not `durable`: no fsyncs, for a file
    whose loss in a power cut costs nothing the task depends on (a reader still never sees
    half of it). With `max_bytes` (what its reader accepts), more data is refused before
    anything is written."""
    if max_bytes is not None and len(data) > max_bytes:
        raise TooLargeToWrite(
            f"{path}: not written: {len(data):,} bytes is over the {_limit(max_bytes)} "
            "forgetui reads back; the file is unchanged"
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    if durable:
        fsync_dir(path.parent)


def _limit(size: int) -> str:
    mib = 1024 * 1024
    return f"{size // mib} MiB" if size % mib == 0 else f"{size:,} bytes"


def fsync_dir(path: Path) -> None:
    """Make a rename or a new entry in `path` survive a power cut."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def safe_load(text: str, loader: _AnyLoader = yaml.SafeLoader, aliases: bool = False) -> Any:
    """`yaml.safe_load` (same loader, same errors), refusing anchors and aliases (or, with
    `aliases`, only those that would expand past MAX_ALIAS_NODES) and deep nesting, as
    RefusedYAML, before it builds anything."""
    try:
        _refuse_unsafe(text, loader, aliases)
    except RefusedYAML:
        raise
    except yaml.YAMLError:
        pass  # a syntax error: loading stops at it too, before building, in its own words
    return yaml.load(text, Loader=loader)


def _refuse_unsafe(text: str, loader: _AnyLoader, aliases: bool) -> None:
    """Walk the parse events, which is linear in the text and never expands an alias, and stop
    at the first thing refused (so a hostile file costs no more than the events read up to it).
    With `aliases`, each alias adds the size of the node it names, counted as it was read; the
    sum is what building and then using the data would expand to."""
    added = 0  # nodes the aliases so far add
    opened: list[tuple[str | None, int]] = []  # per open collection: its anchor, `seen` then
    sizes: dict[str, int] = {}  # anchor -> nodes under it, expanded
    seen = 0  # nodes read, aliases expanded
    parsed = 0  # nodes in the text itself
    for event in yaml.parse(text, Loader=loader):
        if parsed > MAX_YAML_NODES:
            raise RefusedYAML(f"more than {MAX_YAML_NODES:,} values", event.start_mark)
        anchor = getattr(event, "anchor", None)
        if not aliases and (anchor is not None or isinstance(event, yaml.AliasEvent)):
            raise RefusedYAML(NO_ALIASES, event.start_mark)
        if isinstance(event, yaml.AliasEvent):
            if any(name == anchor for name, _ in opened):
                raise RefusedYAML(
                    "a YAML alias inside the node it names (a loop)", event.start_mark
                )
            size = sizes.get(str(anchor), 1)  # an undefined one: the parser says so next
            seen += size
            added += size
            if added > MAX_ALIAS_NODES:
                raise RefusedYAML(
                    f"YAML aliases here would expand to over {MAX_ALIAS_NODES:,} values",
                    event.start_mark,
                )
        elif isinstance(event, yaml.ScalarEvent):
            seen += 1
            parsed += 1
            if anchor is not None:
                sizes[anchor] = 1
        elif isinstance(event, yaml.CollectionStartEvent):
            seen += 1
            parsed += 1
            opened.append((anchor, seen))
            if len(opened) > MAX_YAML_DEPTH:
                raise RefusedYAML(f"nested deeper than {MAX_YAML_DEPTH} levels", event.start_mark)
        elif isinstance(event, yaml.CollectionEndEvent):
            name, start = opened.pop()
            if name is not None:
                sizes[name] = seen - start + 1


def parse_yaml(text: str, path: Path, aliases: bool = False) -> Any:
    """Parse, or a StateFileError naming the line. `aliases`: for files people generate (a
    replay script), aliases that do not expand much are allowed."""
    try:
        return safe_load(text, _Loader, aliases)
    except RefusedYAML as exc:
        line = exc.problem_mark.line + 1 if exc.problem_mark is not None else None
        raise StateFileError(path, exc.problem or NO_ALIASES, line=line) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise StateFileError(path, f"YAML does not parse: {problem}", line=line) from None


class NestedTooDeep(ValueError):
    """JSON nested past what Python's parser recurses through: a ValueError, as any JSON that
    does not load is."""


def load_json(text: str | bytes) -> Any:
    """`json.loads`, with nesting past the interpreter's recursion limit (a hand-made or
    damaged file, `[[[[...`) a NestedTooDeep instead of a RecursionError traceback."""
    try:
        return json.loads(text)
    except RecursionError:
        raise NestedTooDeep(
            f"nested deeper than the {sys.getrecursionlimit():,} levels forgetui reads"
        ) from None


def parse_json_or_yaml(text: str, path: Path) -> Any:
    """A file forgetui writes as one JSON object (a YAML flow mapping): JSON; else, written by
    hand as YAML or damaged, the YAML reader, which names the line. Either way, a StateFileError
    rather than a traceback."""
    try:
        return load_json(text)
    except NestedTooDeep as exc:
        raise StateFileError(path, str(exc)) from None
    except ValueError:
        return parse_yaml(text, path)


def read_text(path: Path, max_bytes: int = MAX_YAML_BYTES) -> str:
    """A text file forgetui reads whole, or a one-line StateFileError: a directory or anything
    but a regular file (a FIFO would block the read forever), a file over `max_bytes`, bytes
    that are not UTF-8 (with the offset). FileNotFoundError is left to the caller."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise
    except IsADirectoryError:
        raise StateFileError(path, "a directory where a file should be") from None
    except OSError as exc:
        raise StateFileError(path, f"cannot read it: {exc.strerror or exc}") from None
    info = os.fstat(fd)
    problem = None
    if stat.S_ISDIR(info.st_mode):
        problem = "a directory where a file should be"
    elif not stat.S_ISREG(info.st_mode):
        problem = "not a regular file"
    elif info.st_size > max_bytes:
        problem = _too_big(info.st_size, max_bytes)
    if problem is not None:
        os.close(fd)
        raise StateFileError(path, problem)
    with os.fdopen(fd, "rb") as handle:
        try:
            data = handle.read(max_bytes + 1)
        except OSError as exc:
            raise StateFileError(path, f"cannot read it: {exc.strerror or exc}") from None
    if len(data) > max_bytes:  # grew since the stat
        raise StateFileError(path, _too_big(len(data), max_bytes))
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise StateFileError(path, not_utf8(exc)) from None


def not_utf8(exc: UnicodeDecodeError) -> str:
    """'not UTF-8 text: byte 0xff at offset 123'."""
    return f"not UTF-8 text: byte 0x{exc.object[exc.start]:02x} at offset {exc.start}"


def _too_big(size: int, limit: int) -> str:
    return (
        f"{size:,} bytes, over the {limit // (1024 * 1024)} MiB forgetui reads: "
        "not a file forgetui wrote"
    )


def load_model(path: Path, model: type[M], default: Any = None, if_empty: str | None = None) -> M:
    """Read and validate a YAML file; any problem is a StateFileError naming file:line:field.
    With `if_empty`, a file holding no YAML document is an error (that sentence says what to
    do); without, it validates as `{}`."""
    try:
        text = read_text(path)
    except FileNotFoundError:
        if default is not None:
            return model.model_validate(default)
        raise StateFileError(path, "file is missing") from None
    data = parse_yaml(text, path)
    if data is None:
        if if_empty is not None:
            size = len(text.encode("utf-8"))
            what = "empty (0 bytes)" if not size else f"holds no YAML ({size} bytes)"
            raise StateFileError(path, f"{what}: {if_empty}")
        data = {}
    return validate_data(data, model, path, text)


def validate_data(data: Any, model: type[M], path: Path, text: str | None = None) -> M:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        field, loc, msg = first_error(exc)
        line = _line_of(text, loc) if text is not None else None
        more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
        raise StateFileError(path, f"{msg}{more}", line=line, field=field or None) from None


def _line_of(text: str, loc: tuple[Any, ...]) -> int | None:
    """1-based line of the node at `loc`, or of its deepest existing parent (a missing field)."""
    try:
        node = yaml.compose(text, Loader=_Loader)
    except yaml.YAMLError:
        return None
    if node is None:
        return 1
    line = node.start_mark.line + 1
    for part in loc:
        child = None
        if isinstance(node, yaml.MappingNode):
            for key_node, value_node in node.value:
                if key_node.value == str(part):
                    child = value_node
                    line = key_node.start_mark.line + 1
                    break
        elif (
            isinstance(node, yaml.SequenceNode)
            and isinstance(part, int)
            and 0 <= part < len(node.value)
        ):
            child = node.value[part]
            line = child.start_mark.line + 1
        if child is None:
            break
        node = child
    return line
