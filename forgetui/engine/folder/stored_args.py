"""What the task folder keeps of a record: long arguments by reference, secrets cut out.

An action's arguments are copied into many files (the intent and result lines of the log,
state.yaml's last result, pending action and loop guard, every checkpoint). A 3 MB write_file
copied whole into each would make state.yaml too large to read back, so a string argument longer
than INLINE_ARG_CHARS is kept once, in artifacts/args/<sha256>.txt, and every record holds
`<3,000,000 bytes: see artifacts/args/<sha256>.txt>` in its place. The name is the hash of the
content, so every copy of the same argument points at the same file, and a reference is checked
against the file it names before it is trusted (`expanded`), so a look-alike string an agent
wrote by hand is never mistaken for one.

Every saved record goes through `stored_data`, which also cuts the operator's secret values
(sandbox/redact.py) out of every string: a record is something forgetui wrote, not a copy of a
workspace file (snapshots, the byte-exact copies a rewind restores, never come here)."""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

from pydantic import BaseModel, SerializationInfo

from forgetui.engine.base.errors import ForgeError
from forgetui.engine.base.yamlio import atomic_write_bytes
from forgetui.engine.sandbox.redact import redact_data, secrets_of

INLINE_ARG_CHARS = 4096  # a longer string argument is kept by reference
INLINE_RAW_CHARS = 16384  # the model's raw answer: a little prose around its action stays inline
ARGS_DIR = "args"  # under artifacts/
TASK_DIR = "task_dir"  # the serialization context key: where to keep the referenced values
_REFERENCE = re.compile(r"<([0-9,]+) bytes: see artifacts/args/([0-9a-f]{64})\.txt>")


class MissingArgument(ForgeError):
    """A reference whose file is gone or changed: the argument cannot be given back."""

    title = "argument not kept"


def _secrets() -> dict[str, str]:
    return secrets_of(os.environ)


def _kept_bytes(value: str, secrets: dict[str, str]) -> bytes:
    """What is kept of `value`: its UTF-8, the secrets cut."""
    return redact_data(value, secrets).encode("utf-8", errors="surrogatepass")


@lru_cache(maxsize=4)  # a few: the key holds the value, megabytes maybe
def _reference(value: str, secrets: tuple[tuple[str, str], ...]) -> str:
    """The reference of `value`; cached because one step refers to the same argument from
    several records."""
    data = _kept_bytes(value, dict(secrets))
    digest = hashlib.sha256(data).hexdigest()
    return f"<{len(data):,} bytes: see artifacts/{ARGS_DIR}/{digest}.txt>"


def reference(value: str, task_dir: Path | None = None) -> str:
    """The reference that stands for `value`; with `task_dir`, the value is kept there first
    (once: the file's name is its hash)."""
    secrets = _secrets()
    ref = _reference(value, tuple(sorted(secrets.items())))
    if task_dir is not None:
        path = args_path(task_dir, ref)
        if not path.is_file():
            atomic_write_bytes(path, _kept_bytes(value, secrets))
    return ref


def args_path(task_dir: Path, ref: str) -> Path:
    match = _REFERENCE.fullmatch(ref)
    assert match is not None
    return task_dir / "artifacts" / ARGS_DIR / f"{match.group(2)}.txt"


def shortened(value: Any, task_dir: Path | None = None, limit: int = INLINE_ARG_CHARS) -> Any:
    """`value` (arguments: strings, lists, mappings) with every string longer than `limit`
    replaced by its reference."""
    if isinstance(value, str):
        return reference(value, task_dir) if len(value) > limit else value
    if isinstance(value, Mapping):
        return {key: shortened(item, task_dir, limit) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [shortened(item, task_dir, limit) for item in value]
    return value


def expanded(value: Any, task_dir: Path) -> Any:
    """`value` with each reference replaced by the text it stands for, read back from
    artifacts/args/; MissingArgument if that file is gone or is not what the reference says.
    What is given back had the secrets cut, like every record."""
    if isinstance(value, str):
        match = _REFERENCE.fullmatch(value)
        if match is None:
            return value
        path = args_path(task_dir, value)
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise MissingArgument(
                f"{path}: the argument {value} is not there ({exc.strerror or exc})"
            ) from None
        size = int(match.group(1).replace(",", ""))
        if len(data) != size or hashlib.sha256(data).hexdigest() != match.group(2):
            raise MissingArgument(f"{path}: does not hold the argument {value} (changed?)")
        return data.decode("utf-8", errors="surrogatepass")
    if isinstance(value, Mapping):
        return {key: expanded(item, task_dir) for key, item in value.items()}
    if isinstance(value, list):
        return [expanded(item, task_dir) for item in value]
    return value


def serialized(value: Any, info: SerializationInfo, limit: int = INLINE_ARG_CHARS) -> Any:
    """For a model's field serializer: the field as records keep it (long strings by
    reference, kept in the task folder the dump's context names)."""
    context = info.context if isinstance(info.context, Mapping) else {}
    task_dir = context.get(TASK_DIR)
    return shortened(value, Path(task_dir) if task_dir is not None else None, limit)


def stored_data(model: BaseModel, task_dir: Path | None) -> Any:
    """`model` as a saved record holds it: JSON data, long arguments by reference (their values
    kept under `task_dir`), the operator's secret values cut from every string. The one way
    state, memory, checkpoints, contexts and log lines are turned into what is written."""
    context = {TASK_DIR: task_dir} if task_dir is not None else None
    data = model.model_dump(mode="json", exclude_none=True, context=context)
    return redact_data(data, _secrets())
