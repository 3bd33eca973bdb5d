"""Reading a JSON Lines log of another agent: one object per line, within the reader's limits.

Every line is decoded by msgspec into plain dicts and lists (the readers look at members by
name, and count the ones they do not use). The limits are those of the Rho reader: a file of
at most ``MAX_FILE_BYTES``; nesting bounded by msgspec's own recursion guard, which turns absurd
depth into "JSON nesting is too deep" at the line, as the Rho reader's decoder does; and a line
of at most ``MAX_LINE_BYTES`` (read in bounded pieces, so a line of a gigabyte costs no more
memory than the limit). Blank lines are skipped. A last line without
``\\n`` whose JSON is merely cut short is a torn write: it is left out with a note, as Rho
leaves out its own torn tails; anything else that is not a JSON object fails the read with the
file, the line and the reason, or, read tolerantly (a viewer), stops it with a note.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

import msgspec

from ..errors import InputError
from ..stores.rho_files.errors import read_failure
from ..stores.rho_files.reader import DAMAGED, RecoveryNote
from .base import MAX_FILE_BYTES, MAX_LINE_BYTES, AgentLogError

__all__ = ["JsonLines", "decode_object"]

_BUFFER: Final = 1024 * 1024
_DECODE: Final = msgspec.json.Decoder().decode


def decode_object(raw: bytes, *, source: str, line: int) -> dict[str, Any]:
    """One JSON object from ``raw``.

    Raises:
        AgentLogError: not JSON, nested too deep, or not an object.
    """
    try:
        value = _DECODE(raw)
    except (msgspec.DecodeError, RecursionError, ValueError) as exc:
        reason = "JSON nesting is too deep" if isinstance(exc, RecursionError) else f"not JSON: {exc}"
        raise AgentLogError(reason, source=source, line=line) from None
    if not isinstance(value, dict):
        raise AgentLogError(f"a record must be a JSON object, not {_kind(value)}", source=source, line=line)
    return value


def _kind(value: object) -> str:
    if isinstance(value, list):
        return "an array"
    if isinstance(value, str):
        return "a string"
    if value is None:
        return "null"
    return "a number" if isinstance(value, int | float) and not isinstance(value, bool) else "a boolean"


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

    def __iter__(self) -> Iterator[tuple[int, dict[str, Any]]]:
        source = self.source
        try:
            handle = open(self.path, "rb", buffering=_BUFFER)  # noqa: SIM115 - closed below
        except OSError as exc:
            raise read_failure(exc, source) from None
        with handle:
            try:
                size = os.fstat(handle.fileno()).st_size
            except OSError as exc:
                raise read_failure(exc, source) from None
            if size > MAX_FILE_BYTES:
                raise InputError(f"file is {size} bytes, more than the {MAX_FILE_BYTES} a session may have",
                                 source=source)  # fmt: skip
            self.size = size
            pos = 0
            line = 0
            readline = handle.readline
            while True:
                try:
                    raw = readline(MAX_LINE_BYTES + 1)
                except OSError as exc:
                    raise read_failure(exc, source) from None
                if not raw:
                    break
                line += 1
                self.lines = line
                length = len(raw)
                if length > MAX_LINE_BYTES and not raw.endswith(b"\n"):
                    self._fail(f"line is longer than {MAX_LINE_BYTES} bytes", line, pos, length)
                    return
                terminated = raw.endswith(b"\n")
                if raw[0] != 0x7B and not raw.strip():
                    pos += length
                    continue
                try:
                    record = _DECODE(raw)
                except (msgspec.DecodeError, RecursionError, ValueError):
                    record = None
                if type(record) is not dict:
                    # not a JSON object: say why, or pass over a torn last line
                    try:
                        record = decode_object(raw, source=source, line=line)
                    except AgentLogError as exc:
                        if not terminated and _cut_short(raw):
                            self.notes.append(RecoveryNote(source, line, pos, length,
                                                           f"torn last line ignored ({length} bytes of an unfinished record)"))  # fmt: skip
                            return
                        self._fail(exc.reason, line, pos, length)
                        return
                pos += length
                yield line, record

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
