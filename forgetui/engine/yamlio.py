"""YAML in and out: load into pydantic models with file:line:field errors; dump readably; write
atomically so a crash never leaves a half-written state file."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from forgetui.engine.errors import StateFileError, first_error

M = TypeVar("M", bound=BaseModel)

_Loader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_BaseDumper: type[yaml.SafeDumper] = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


class _Dumper(_BaseDumper):  # type: ignore[misc,valid-type]
    """Multi-line strings as `|` blocks so state files read and diff well by hand."""


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


def atomic_write_text(path: Path, text: str) -> None:
    """Temporary file, fsync, rename, fsync the directory."""
    atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Temporary file, fsync, rename, fsync the directory."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    dir_fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


def write_model(path: Path, model: BaseModel) -> None:
    atomic_write_text(path, dump_model(model))


def parse_yaml(text: str, path: Path) -> Any:
    try:
        return yaml.load(text, Loader=_Loader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise StateFileError(path, f"YAML does not parse: {problem}", line=line) from None


def load_model(path: Path, model: type[M], default: Any = None) -> M:
    """Read and validate a YAML file; any problem is a StateFileError naming file:line:field."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        if default is not None:
            return model.model_validate(default)
        raise StateFileError(path, "file is missing") from None
    except UnicodeDecodeError as exc:
        raise StateFileError(path, f"not UTF-8 text ({exc.reason})") from None
    data = parse_yaml(text, path)
    if data is None:
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
        node = yaml.compose(text, Loader=yaml.SafeLoader)
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
