"""Reading a JSON Lines log of another agent: one object per line, within the reader's limits.

Every line is decoded by msgspec into plain dicts and lists (the readers look at members by
name, and count the ones they do not use), or, for a reader that declares the common shapes of
its records as msgspec structs, into those (:meth:`JsonLines.mixed`; a line of any other shape
is still a dict). The limits are those of the Rho reader: a file of
at most ``MAX_FILE_BYTES``; nesting bounded by msgspec's own recursion guard, which turns absurd
depth into "JSON nesting is too deep" at the line, as the Rho reader's decoder does; and a line
of at most ``MAX_LINE_BYTES`` (read in bounded pieces, so a line of a gigabyte costs no more
memory than the limit). A ``.zst`` file (Codex compresses cold rollouts with zstd) is read
through its decompressor, every frame, with the same limits on what it decompresses to.
Blank lines are skipped. A last line without
``\\n`` whose JSON is merely cut short is a torn write: it is left out with a note, as Rho
leaves out its own torn tails; anything else that is not a JSON object fails the read with the
file, the line and the reason, or, read tolerantly (a viewer), stops it with a note.
"""

from __future__ import annotations

import io
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, BinaryIO, Final, TypeVar

import msgspec

from ..errors import InputError
from ..stores.rho_files.errors import read_failure
from ..stores.rho_files.reader import DAMAGED, RecoveryNote
from ._parts import Where
from .base import MAX_FILE_BYTES, MAX_LINE_BYTES, AgentLog, AgentLogError

__all__ = [
    "COMPRESSED_SUFFIX",
    "JsonLines",
    "decode_object",
    "first_line",
    "open_log",
    "stream_errors",
]

COMPRESSED_SUFFIX: Final = ".zst"

_BUFFER: Final = 1024 * 1024
_CHUNK: Final = 4096
"""Compressed bytes decompressed at a time: zstd blocks of 128 KiB can be a few bytes each, so
what one piece decompresses to is bounded by its size (4 KiB: at most about 128 MiB)."""
_DECODE: Final = msgspec.json.Decoder().decode
T = TypeVar("T")


def open_log(path: Path | str, buffering: int = _BUFFER) -> BinaryIO:
    """The bytes of a log: the file's, or for ``*.zst`` what its zstd frames decompress to.

    Raises:
        OSError: it cannot be opened.
    """
    handle = open(path, "rb", buffering=buffering)  # noqa: SIM115 - the caller closes it
    if not str(path).endswith(COMPRESSED_SUFFIX):
        return handle
    return io.BufferedReader(_Frames(handle), buffering)


class _Frames(io.RawIOBase):
    """What the zstd frames of ``handle`` decompress to, one after the other. A stream that ends
    inside a frame (a cut file) raises ``zstandard.ZstdError``, as a damaged one does: a
    decompressor would otherwise end there quietly, as if the log were shorter."""

    def __init__(self, handle: BinaryIO) -> None:
        import zstandard

        self._zstd = zstandard
        self._handle = handle
        self._frame = zstandard.ZstdDecompressor().decompressobj()
        self._started = False
        """Whether the current frame has been given any input."""
        self._pending = b""
        """Decompressed bytes not yet read, from ``_offset`` on."""
        self._offset = 0
        self._input = b""
        """Compressed bytes read but not yet given to a frame (what followed the last frame's end)."""

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        view = memoryview(buffer).cast("B")
        while self._offset >= len(self._pending):
            # one piece of input at a time: what decompressed is read before the next frame
            self._pending, self._offset = b"", 0
            data, self._input = self._input or self._handle.read(_CHUNK), b""
            if not data:
                if self._started:
                    raise self._zstd.ZstdError(
                        "the stream ends inside a frame (the file was cut short)"
                    )
                return 0
            self._started = True
            self._pending = self._frame.decompress(data)
            if self._frame.eof:
                self._input = self._frame.unused_data
                self._frame = self._zstd.ZstdDecompressor().decompressobj()
                self._started = False
        start = self._offset
        size = min(len(view), len(self._pending) - start)
        view[:size] = self._pending[start : start + size]
        self._offset = start + size
        return size

    def close(self) -> None:
        self._handle.close()
        super().close()


def stream_errors(path: Path | str) -> tuple[type[Exception], ...]:
    """What reading :func:`open_log`'s stream of ``path`` raises besides ``OSError`` (a damaged
    zstd stream: ``zstandard.ZstdError``)."""
    if not str(path).endswith(COMPRESSED_SUFFIX):
        return ()
    import zstandard

    return (zstandard.ZstdError,)


def first_line(path: Path | str, limit: int = 1024 * 1024) -> bytes:
    """The first line of a log (at most ``limit`` bytes; ``b""`` when it cannot be read)."""
    errors: tuple[type[Exception], ...] = (OSError, *stream_errors(path))
    try:
        with open_log(path, 64 * 1024) as handle:
            return handle.readline(limit)
    except errors:
        return b""


def decode_object(raw: bytes, *, source: str, line: int) -> dict[str, Any]:
    """One JSON object from ``raw``.

    Raises:
        AgentLogError: not JSON, nested too deep, or not an object.
    """
    try:
        value = _DECODE(raw)
    except (msgspec.DecodeError, RecursionError, ValueError) as exc:
        reason = (
            "JSON nesting is too deep" if isinstance(exc, RecursionError) else f"not JSON: {exc}"
        )
        raise AgentLogError(reason, source=source, line=line) from None
    if not isinstance(value, dict):
        raise AgentLogError(
            f"a record must be a JSON object, not {_kind(value)}", source=source, line=line
        )
    return value


def _kind(value: object) -> str:
    if isinstance(value, list):
        return "an array"
    if isinstance(value, str):
        return "a string"
    if value is None:
        return "null"
    return (
        "a number"
        if isinstance(value, int | float) and not isinstance(value, bool)
        else "a boolean"
    )


class JsonLines:
    """The records of one JSON Lines file, in order: iterate for ``(line number, object)``.

    After the iteration: ``size`` (bytes), ``lines``, ``notes`` (a torn tail; a bad line in
    tolerant mode).

    Args:
        path: the file.
        tolerant: a bad line ends the records instead of failing the read (with a note).
    """

    def __init__(self, path: Path, *, tolerant: bool = False) -> None:
        self.path = path
        self.source = str(path)
        self.tolerant = tolerant
        self.size = 0
        self.lines = 0
        self.notes: list[RecoveryNote] = []
        self.raw = b""
        """The line :meth:`mixed` gave last as a typed value."""

    def __iter__(self) -> Iterator[tuple[int, dict[str, Any]]]:
        return self._records(None)

    def mixed(self, decode: Callable[[bytes], T]) -> Iterator[tuple[int, dict[str, Any] | T]]:
        """The records, each line decoded by ``decode`` first (a typed msgspec decoder for the
        common shapes of a log's records, which does in C what a reader would do member by
        member): its value when it takes the line, else the object as a dict, as iterating
        gives it. :meth:`as_dict` reads the current line as a dict after all."""
        return self._records(decode)

    def as_dict(self) -> dict[str, Any]:
        """The line :meth:`mixed` gave last as a typed value, as a dict."""
        return decode_object(self.raw, source=self.source, line=self.lines)

    def _records(self, typed: Callable[[bytes], Any] | None) -> Iterator[tuple[int, Any]]:
        source = self.source
        try:
            size = os.stat(self.path).st_size
            handle = open_log(self.path)
        except OSError as exc:
            raise read_failure(exc, source) from None
        with handle:
            if size > MAX_FILE_BYTES:
                raise InputError(
                    f"file is {size} bytes, more than the {MAX_FILE_BYTES} a session may have",
                    source=source,
                )
            self.size = size
            pos = 0
            line = 0
            readline = handle.readline
            read = 0
            damaged = stream_errors(self.path)
            while True:
                try:
                    raw = readline(MAX_LINE_BYTES + 1)
                except OSError as exc:
                    raise read_failure(exc, source) from None
                except damaged as exc:
                    self._fail(f"the compressed stream is damaged: {exc}", line + 1, pos, 0)
                    return
                if not raw:
                    break
                line += 1
                self.lines = line
                length = len(raw)
                read += length
                if read > MAX_FILE_BYTES:
                    raise InputError(
                        f"file decompresses to more than the {MAX_FILE_BYTES} bytes a session may have",
                        source=source,
                    )
                if length > MAX_LINE_BYTES and not raw.endswith(b"\n"):
                    self._fail(f"line is longer than {MAX_LINE_BYTES} bytes", line, pos, length)
                    return
                if raw[0] != 0x7B and not raw.strip():
                    pos += length
                    continue
                if typed is not None:
                    try:
                        value = typed(raw)
                    except (msgspec.DecodeError, RecursionError, ValueError):
                        pass  # not of a common shape (or not JSON): read as a dict
                    else:
                        self.raw = raw
                        pos += length
                        yield line, value
                        continue
                try:
                    record = _DECODE(raw)
                except (msgspec.DecodeError, RecursionError, ValueError):
                    record = None
                if type(record) is not dict:
                    terminated = raw.endswith(b"\n")
                    # not a JSON object: say why, or pass over a torn last line
                    try:
                        record = decode_object(raw, source=source, line=line)
                    except AgentLogError as exc:
                        if not terminated and _cut_short(raw):
                            self.notes.append(
                                RecoveryNote(
                                    source,
                                    line,
                                    pos,
                                    length,
                                    f"torn last line ignored ({length} bytes of an unfinished record)",
                                )
                            )
                            return
                        self._fail(exc.reason, line, pos, length)
                        return
                pos += length
                yield line, record

    def first(
        self, what: str, typed: Callable[[bytes], Any] | None = None
    ) -> tuple[dict[str, Any], Where, Iterator[tuple[int, Any]]]:
        """The first record (a header, as a dict), where it is, and the records after it (with
        ``typed``: as :meth:`mixed` gives them).

        Raises:
            AgentLogError: the file holds no record ("not a <what>: the file is empty").
        """
        records = self._records(typed)
        first = next(records, None)
        if first is None:
            raise AgentLogError(f"not a {what}: the file is empty", source=self.source, line=1)
        line, head = first
        if not isinstance(head, dict):
            head = self.as_dict()
        return head, Where(self.source, line), records

    def hand_over(self, log: AgentLog) -> None:
        """Give ``log`` what the reading found out: its notes, the bytes and the lines read."""
        log.notes = self.notes
        log.size, log.lines = self.size, self.lines

    def _fail(self, reason: str, line: int, pos: int, length: int) -> None:
        if not self.tolerant:
            raise AgentLogError(reason, source=self.source, line=line)
        self.notes.append(RecoveryNote(self.source, line, pos, length, reason, kind=DAMAGED))


def _cut_short(raw: bytes) -> bool:
    """Whether ``raw`` (a last line without ``\\n``) is a JSON value merely cut short."""
    try:
        _DECODE(raw)
    except msgspec.DecodeError as exc:
        return "truncated" in str(exc)
    except (RecursionError, ValueError):
        return False
    return False
