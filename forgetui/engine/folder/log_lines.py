"""actions.yaml line by line: the record line's format, and reading lines by byte offset
without parsing them (action_log.py builds the log on these).

One record per line, `--- ` + one JSON object, so the file is a YAML stream, every line parses
alone, and a line cut mid-write never parses. Whether a line has a record's shape (`--- {` ...
`}`) is told without parsing its JSON, so an index scan notes garbage at no extra cost."""

from __future__ import annotations

import json
import os
import re
from array import array
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from forgetui.engine.base.errors import first_error
from forgetui.engine.base.yamlio import load_json
from forgetui.engine.folder.records import (
    RECORD_ADAPTER,
    IntentRecord,
    OperatorRecord,
    ResultRecord,
)
from forgetui.engine.folder.stored_args import stored_data

AnyRecord = IntentRecord | ResultRecord | OperatorRecord

PREFIX = b"--- "
_SHAPE_START = PREFIX + b"{"
_SHAPE_END = ord("}")
_BLOCK = 64 * 1024  # backwards reads: a few records per block
SCAN_BLOCK = 1 << 20  # index scans
# Characters JSON leaves raw (ensure_ascii=False) that a YAML 1.1 reader rejects or reads as a
# line break; escaping them keeps the file a valid YAML stream.
_YAML_UNSAFE = re.compile("[\x7f-\x9f\u2028\u2029\ud800-\udfff\ufffe\uffff]")
KIND_FIELD = re.compile(rb'"kind"\s*:\s*"([a-z_]+)"')


class LineError(Exception):
    """Why a line is not a record, and the field at fault if one is."""

    def __init__(self, problem: str, field: str | None = None) -> None:
        super().__init__(problem)
        self.problem = problem
        self.field = field


def encode_record(record: AnyRecord, task_dir: Path | None = None) -> bytes:
    """The exact bytes `append` writes: one line, newline included, as every saved record is
    kept (stored_args.py: long arguments by reference, kept under `task_dir`; no secret
    value)."""
    data = stored_data(record, task_dir)
    text = _YAML_UNSAFE.sub(_escape, json.dumps(data, ensure_ascii=False))
    return PREFIX + text.encode("utf-8") + b"\n"


def _escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def decode_line(line: bytes) -> AnyRecord:
    """Parse and validate one line (without its newline); raises LineError."""
    if not line.startswith(PREFIX):
        raise LineError("a record line must start with '--- ' followed by a JSON object")
    try:
        data = load_json(line[len(PREFIX) :])
    except json.JSONDecodeError as exc:
        raise LineError(f"not JSON ({exc.msg} at column {exc.colno + len(PREFIX)})") from None
    except ValueError as exc:  # invalid UTF-8
        raise LineError(f"not JSON ({exc})") from None
    if not isinstance(data, dict):
        raise LineError("the record is not a JSON object")
    try:
        return RECORD_ADAPTER.validate_python(data)
    except ValidationError as exc:
        _field, loc, msg = first_error(exc)
        if loc and loc[0] == data.get("kind"):  # the union's tag, not a field
            loc = loc[1:]
        raise LineError(msg, ".".join(map(str, loc)) or None) from None


def is_blank(line: bytes) -> bool:
    return len(line) < 8 and not line.strip()


def shaped(chunk: bytes, start: int, newline: int) -> bool:
    """Whether chunk[start:newline] looks like a record: `--- {` ... `}`."""
    if not chunk.startswith(_SHAPE_START, start):
        return False
    return chunk[newline - 1] == _SHAPE_END or chunk[start:newline].rstrip().endswith(b"}")


def scan_lines(
    handle: Any, pos: int, starts: array[int], ends: array[int], malformed: array[int]
) -> int:
    """Index the complete non-blank lines from `pos` on: their [start, end) appended to `starts`
    and `ends` (end past the newline), and to `malformed` the index among `starts` of each
    without a record's shape. Returns the end of the last complete line."""
    block = SCAN_BLOCK
    while True:
        handle.seek(pos)
        chunk = handle.read(block)
        last = chunk.rfind(b"\n")
        if last == -1:
            if len(chunk) < block:
                break  # only an unterminated tail is left
            block *= 2  # a line longer than the block
            continue
        index = 0
        while index <= last:
            newline = chunk.find(b"\n", index)
            if newline - index >= 8 or chunk[index:newline].strip():
                if not shaped(chunk, index, newline):
                    malformed.append(len(starts))
                starts.append(pos + index)
                ends.append(pos + newline + 1)
            index = newline + 1
        pos += last + 1
    return pos


def lines_backwards(handle: Any) -> Iterator[tuple[int, bytes]]:
    """(offset, line without its newline) of every complete line, last line first."""
    pos = after_last_newline(handle, handle.seek(0, os.SEEK_END))
    carry = b""  # the start of data may still be the end of an earlier line
    while pos > 0:
        size = min(_BLOCK, pos)
        pos -= size
        data = pread(handle, pos, size) + carry
        if pos > 0:
            cut = data.find(b"\n") + 1
            if cut == 0:
                carry = data
                continue
            carry, body, base = data[:cut], data[cut:], pos + cut
        else:
            carry, body, base = b"", data, 0
        end = len(body)
        while end > 0:
            start = body.rfind(b"\n", 0, end - 1) + 1
            yield base + start, body[start : end - 1]
            end = start


def line_numbers(handle: Any, offsets: Sequence[int]) -> list[int]:
    """1-based line numbers of lines at ascending offsets, in one pass over the file."""
    numbers: list[int] = []
    count, pos = 1, 0
    for offset in offsets:
        while pos < offset:
            chunk = handle.read(min(SCAN_BLOCK, offset - pos))
            if not chunk:
                break
            count += chunk.count(b"\n")
            pos += len(chunk)
        numbers.append(count)
    return numbers


def torn_tail(handle: Any) -> tuple[int, bytes, str] | None:
    """The last line if it is torn (no newline, or not a record): (offset, bytes, reason)."""
    size = handle.seek(0, os.SEEK_END)
    if size == 0:
        return None
    start = after_last_newline(handle, size - 1)  # where the last line starts
    tail = pread(handle, start, size - start)
    if not tail.endswith(b"\n"):
        return start, tail, "no trailing newline: cut mid-write"
    if is_blank(tail[:-1]):
        return None
    try:
        decode_line(tail[:-1])
    except LineError as bad:
        return start, tail, bad.problem
    return None


def after_last_newline(handle: Any, end: int) -> int:
    """Offset just past the last newline in the file's first `end` bytes (0 if none)."""
    pos = end
    while pos > 0:
        size = min(_BLOCK, pos)
        found = pread(handle, pos - size, size).rfind(b"\n")
        if found != -1:
            return pos - size + found + 1
        pos -= size
    return 0


def pread(handle: Any, offset: int, size: int) -> bytes:
    handle.seek(offset)
    data: bytes = handle.read(size)
    return data
