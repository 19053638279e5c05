"""actions.yaml: the append-only action log, one record per line (the line format and the
byte-level reads are log_lines.py). Steps read the tail by seeking from the end; the TUI pages
through the log with an offset index of line starts built without parsing JSON.

The index scan also notes every line that does not have a record's shape (`--- {` ... `}`), at
no extra cost, so a writer can refuse a log with garbage in it without parsing every line
(consistency.py)."""

from __future__ import annotations

import os
import shlex
import stat
from array import array
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, NamedTuple

from forgetui.engine.base.clock import now_iso
from forgetui.engine.base.errors import ForgeError, StateFileError
from forgetui.engine.folder.log_lines import (
    KIND_FIELD,
    AnyRecord,
    LineError,
    decode_line,
    encode_record,
    is_blank,
    line_numbers,
    lines_backwards,
    pread,
    scan_lines,
    torn_tail,
)
from forgetui.engine.folder.records import IntentRecord, ResultRecord

_PREVIEW_CHARS = 120


@dataclass(frozen=True)
class TornTail:
    """A torn last record moved aside by `repair()`, for the caller to tell the operator."""

    offset: int  # where it started in actions.yaml (the file's new size)
    bytes: int  # how many were moved
    preview: str
    reason: str
    moved_to: Path

    def describe(self) -> str:
        return (
            f"{self.moved_to.with_suffix('').name}: moved a torn last record ({self.bytes} bytes "
            f"at offset {self.offset}, {self.reason}) to {self.moved_to.name}: {self.preview!r}"
        )


@dataclass(frozen=True)
class BadLine:
    """A complete line of actions.yaml that is not a record."""

    line: int  # 1-based
    offset: int
    size: int  # bytes, its newline included
    problem: str


class StepStatus(NamedTuple):
    """The last step that has an intent, and its result if it was recorded (resume)."""

    intent: IntentRecord
    result: ResultRecord | None

    @property
    def step(self) -> int:
        return self.intent.step

    @property
    def complete(self) -> bool:
        return self.result is not None


class ActionLog:
    """actions.yaml. `can_write` (the task lock) gates append and repair; readers need neither."""

    def __init__(self, path: Path, can_write: Callable[[], bool] | None = None) -> None:
        self.path = path
        self.torn_path = path.with_name(path.name + ".torn")
        self.last_repair: TornTail | None = None
        self._can_write = can_write
        self._tail_checked = False
        # The offset index: [start, end) of every complete non-blank line, end past its newline.
        self._starts = array("q")
        self._ends = array("q")
        self._malformed = array("q")  # indexes of lines without a record's shape
        self._scanned = 0  # bytes indexed: the end of the last complete line
        self._identity: tuple[int, int] | None = None

    # -- writing ------------------------------------------------------------------------------

    def append(self, record: AnyRecord) -> int:
        """Append one record durably; returns its byte offset. One os.write, then fsync; a failed
        write is cut back so the file never keeps a partial line from this process."""
        self._require_writer()
        if not self._tail_checked:
            self.repair()
        line = encode_record(record, self.path.parent)
        fd = self._open_fd(os.O_WRONLY | os.O_APPEND | os.O_CREAT)
        try:
            info = os.fstat(fd)
            offset = info.st_size
            try:
                written = os.write(fd, line)
                if written != len(line):
                    raise OSError(f"short write ({written} of {len(line)} bytes)")
                os.fsync(fd)
            except OSError as exc:
                os.ftruncate(fd, offset)
                raise ForgeError(f"{self.path}: could not append a record: {exc}") from exc
        finally:
            os.close(fd)
        if self._identity == (info.st_dev, info.st_ino) and self._scanned == offset:
            self._starts.append(offset)
            self._ends.append(offset + len(line))
            self._scanned = offset + len(line)
        return offset

    def repair(self) -> TornTail | None:
        """Writer-only, at open: move a torn last line to actions.yaml.torn and truncate to the last
        good record. A crash mid-append leaves at most one such line; never fatal."""
        self._require_writer()
        self._tail_checked = True
        try:
            handle = self._open("r+b")
        except FileNotFoundError:
            return None
        with handle:
            found = torn_tail(handle)
            if found is None:
                return None
            start, tail, reason = found
            header = f"# {now_iso()} from {self.path.name} offset {start}: {reason}\n"
            with open(self.torn_path, "ab") as torn:
                torn.write(header.encode("utf-8") + tail + (b"" if tail.endswith(b"\n") else b"\n"))
                torn.flush()
                os.fsync(torn.fileno())
            handle.truncate(start)
            handle.flush()
            os.fsync(handle.fileno())
        if self._scanned > start:
            self._reset_index()
        preview = tail[: _PREVIEW_CHARS * 4].decode("utf-8", "replace").rstrip("\n")
        self.last_repair = TornTail(
            start, len(tail), preview[:_PREVIEW_CHARS], reason, self.torn_path
        )
        return self.last_repair

    def torn_tail(self) -> tuple[int, int, str] | None:
        """What `repair()` would move aside, without moving it: (offset, bytes, reason)."""
        try:
            handle = self._open("rb")
        except FileNotFoundError:
            return None
        with handle:
            found = torn_tail(handle)
        return None if found is None else (found[0], len(found[1]), found[2])

    def _require_writer(self) -> None:
        if self._can_write is not None and not self._can_write():
            raise ForgeError(f"{self.path}: opened read-only; take the task lock before writing")

    def _open_fd(self, flags: int) -> int:
        """A descriptor on the log, or a one-line StateFileError if it is a directory or not a
        regular file (opened non-blocking, so a FIFO in its place cannot hang us)."""
        extra = getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
        try:
            fd = os.open(self.path, flags | extra, 0o644)
        except FileNotFoundError:
            raise
        except IsADirectoryError:
            raise StateFileError(self.path, "a directory where a file should be") from None
        except OSError as exc:  # no permission, a socket in its place...
            raise StateFileError(self.path, f"cannot open it: {exc.strerror or exc}") from None
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            os.close(fd)
            what = "a directory where a file should be" if stat.S_ISDIR(mode) else None
            raise StateFileError(self.path, what or "not a regular file")
        return fd

    def _open(self, mode: str) -> IO[bytes]:
        flags = os.O_RDWR if "+" in mode else os.O_RDONLY
        return os.fdopen(self._open_fd(flags), mode)

    # -- reading the tail ---------------------------------------------------------------------

    def tail(self, n: int, kinds: Sequence[str] | None = ("result",)) -> list[AnyRecord]:
        """The last n records of these kinds (None: all), oldest first, read from the end."""
        if n <= 0:
            return []
        found: list[AnyRecord] = []
        for record in self.iter_backwards(kinds):
            found.append(record)
            if len(found) == n:
                break
        found.reverse()
        return found

    def iter_backwards(self, kinds: Sequence[str] | None = None) -> Iterator[AnyRecord]:
        """Records newest first, parsing only lines whose kind is wanted. An unterminated last
        line (a writer mid-write, or a torn record not yet repaired) is ignored."""
        wanted = None if kinds is None else {kind.encode() for kind in kinds}
        for offset, line in self._lines_backwards():
            if is_blank(line):
                continue
            if wanted is not None and not any(
                match.group(1) in wanted for match in KIND_FIELD.finditer(line)
            ):
                continue
            record = self._decode(line, offset)
            if kinds is None or record.kind in kinds:
                yield record

    def _lines_backwards(self) -> Iterator[tuple[int, bytes]]:
        """(offset, line without its newline) of every complete line, last line first."""
        try:
            handle = self._open("rb")  # a generator: closed in finally
        except FileNotFoundError:
            return
        try:
            yield from lines_backwards(handle)
        finally:
            handle.close()

    def last_intents(self, n: int) -> list[IntentRecord]:
        return [r for r in self.tail(n, ("intent",)) if isinstance(r, IntentRecord)]

    def last_step_status(self) -> StepStatus | None:
        """The last step with an intent, and whether its result was recorded: a crash between
        the two leaves an intent alone, which resume must settle before the next step."""
        results: dict[int, ResultRecord] = {}
        for record in self.iter_backwards(("intent", "result")):
            if isinstance(record, ResultRecord):
                results.setdefault(record.step, record)
            elif isinstance(record, IntentRecord):
                return StepStatus(record, results.get(record.step))
        return None

    # -- the offset index ---------------------------------------------------------------------

    def __len__(self) -> int:
        self.refresh()
        return len(self._starts)

    def refresh(self) -> int:
        """Bring the index up to date, scanning only bytes appended since the last call (a file
        that shrank or was replaced is rescanned). Returns the number of records."""
        try:
            info = os.stat(self.path)
        except FileNotFoundError:
            self._reset_index()
            return 0
        if not stat.S_ISREG(info.st_mode):
            self._open_fd(os.O_RDONLY)  # raises the one-line error
        identity = (info.st_dev, info.st_ino)
        if identity != self._identity or info.st_size < self._scanned:
            self._reset_index()
            self._identity = identity
        if info.st_size == self._scanned:
            return len(self._starts)
        with self._open("rb") as handle:
            if self._scanned and pread(handle, self._scanned - 1, 1) != b"\n":
                self._reset_index()  # rewritten in place
                self._identity = identity
            pos = scan_lines(handle, self._scanned, self._starts, self._ends, self._malformed)
        self._scanned = pos
        return len(self._starts)

    def _reset_index(self) -> None:
        self._starts = array("q")
        self._ends = array("q")
        self._malformed = array("q")
        self._scanned = 0
        self._identity = None

    def record_at(self, index: int) -> AnyRecord:
        """The index-th record (negative counts from the end); parses that line only."""
        self.refresh()
        count = len(self._starts)
        if not -count <= index < count:
            raise IndexError(f"record {index} out of range ({count} records)")
        return self.records(index, index + 1 if index != -1 else None)[0]

    def records(self, start: int | None = None, stop: int | None = None) -> list[AnyRecord]:
        """Records [start:stop] (slice semantics), one read, parsing only those lines."""
        self.refresh()
        window = range(len(self._starts))[start:stop]
        if not window:
            return []
        first, last = window[0], window[-1]
        base = self._starts[first]
        with self._open("rb") as handle:
            data = pread(handle, base, self._ends[last] - base)
        return [
            self._decode(data[self._starts[i] - base : self._ends[i] - base - 1], self._starts[i])
            for i in window
        ]

    def iter_records(self, batch: int = 1000) -> Iterator[AnyRecord]:
        """Every record, oldest first, a batch at a time (memory stays bounded)."""
        count = self.refresh()
        for start in range(0, count, batch):
            yield from self.records(start, min(start + batch, count))

    # -- checking ------------------------------------------------------------------------------

    def bad_lines(self, decoded: int | None = None) -> list[BadLine]:
        """Complete lines that are not records: every line without a record's shape (the index
        noted them while scanning), and, among the last `decoded` lines (None: all of them),
        those that do not parse and validate. Parsing every line costs ~0.3 s per 10,000
        steps; the shape check costs nothing extra."""
        count = self.refresh()
        window = range(count) if decoded is None else range(max(0, count - decoded), count)
        checked = {*self._malformed, *window}
        if not checked:
            return []
        problems: dict[int, str] = {}
        with self._open("rb") as handle:
            for index in sorted(checked):
                start, end = self._starts[index], self._ends[index]
                try:
                    decode_line(pread(handle, start, end - start)[:-1])
                except LineError as bad:
                    field = f"field '{bad.field}': " if bad.field else ""
                    problems[index] = field + bad.problem
        ordered = sorted(problems)
        numbers = self._line_numbers([self._starts[i] for i in ordered])
        return [
            BadLine(number, self._starts[i], self._ends[i] - self._starts[i], problems[i])
            for i, number in zip(ordered, numbers, strict=True)
        ]

    def last_of_kind(self, kind: str, skip: Collection[int] = ()) -> AnyRecord | None:
        """The newest record of `kind`, passing over the lines starting at the offsets in
        `skip` (bad lines a repair will move aside)."""
        wanted = kind.encode()
        for offset, line in self._lines_backwards():
            if offset in skip or is_blank(line):
                continue
            if not any(match.group(1) == wanted for match in KIND_FIELD.finditer(line)):
                continue
            record = self._decode(line, offset)
            if record.kind == kind:
                return record
        return None

    def _line_numbers(self, offsets: Sequence[int]) -> list[int]:
        """1-based line numbers of lines at ascending offsets, in one pass over the file."""
        with self._open("rb") as handle:
            return line_numbers(handle, offsets)

    def merged(self, tail: int | None = None) -> Iterator[dict[str, Any]]:
        """The log as `log --json` entries, oldest first (see log_entries.py)."""
        from forgetui.engine.folder.log_entries import merged

        return merged(self, tail)

    def _decode(self, line: bytes, offset: int) -> AnyRecord:
        try:
            return decode_line(line)
        except LineError as bad:
            task = shlex.quote(str(self.path.parent))
            raise StateFileError(
                self.path,
                f"{bad.problem}; `forgetui repair {task}` moves bad lines aside",
                line=self._line_number(offset),
                field=bad.field,
            ) from None

    def _line_number(self, offset: int) -> int:
        """1-based line number of the line at offset; counts newlines, used on errors only."""
        return self._line_numbers([offset])[0]


__all__ = [
    "ActionLog",
    "AnyRecord",
    "BadLine",
    "StepStatus",
    "TornTail",
    "decode_line",
    "encode_record",
]
