"""A tool call and its result in words, for the app's continue panel and ``rho-desk continue``."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Final

import msgspec

from ..session.events import ToolCallFailure, ToolCallResult, ToolCallSuccess
from ..text.sizes import size_text
from ..text.visible import one_line

__all__ = ["CallProgress", "CallWritten", "call_subject", "result_line", "result_text"]

PROGRESS_EVERY: Final = 0.1
"""Seconds between two reports of one call being written (a live line, a ``progress`` event)."""


def call_subject(metadata: object, limit: int = 160) -> str:
    """What a call acts on, on one line: its command's first line, else its path."""
    if not isinstance(metadata, Mapping):
        return ""
    command = metadata.get("command")
    if isinstance(command, str):
        return command.splitlines()[0][:limit] if command else ""
    path = metadata.get("path")
    return path if isinstance(path, str) else ""


def result_text(result: ToolCallResult) -> tuple[bool, str]:
    """``(ok, text)``: the tool's output, its error message, or that the tool is unavailable."""
    if isinstance(result, ToolCallSuccess):
        return True, result.output.content
    if isinstance(result, ToolCallFailure):
        return False, result.message
    return False, "the tool is unavailable"


def result_line(result: ToolCallResult, limit: int = 200) -> str:
    """How a call ended, on one line: a change to files says which and how many lines
    (``README.md: 1 line added, 1 removed``), not the first line of what the model reads back
    (``[README.md#25CB]``); any other result its first line."""
    if isinstance(result, ToolCallSuccess):
        metadata = result.output.metadata
        diff, path = metadata.get("diff"), metadata.get("path")
        if (
            metadata.get("operation") == "write"
            and isinstance(diff, str)
            and isinstance(path, str)
            and path
        ):
            lines = diff.splitlines()
            added = sum(1 for ln in lines if ln.startswith("+") and not ln.startswith("+++"))
            removed = sum(1 for ln in lines if ln.startswith("-") and not ln.startswith("---"))
            if added and removed:
                counts = f"{_lines(added)} added, {removed} removed"
            elif added or removed:
                counts = f"{_lines(added)} added" if added else f"{_lines(removed)} removed"
            else:
                counts = "unchanged"
            return one_line(f"{path}: {counts}")[:limit]
    _ok, text = result_text(result)
    first = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    return one_line(first)[:limit]


def _lines(n: int) -> str:
    return f"{n} line{'s' * (n != 1)}"


class CallWritten(msgspec.Struct, frozen=True):
    """How far the model has written one tool call's arguments."""

    index: int
    call_id: str | None
    name: str | None
    bytes: int

    def words(self) -> str:
        """``● writing an edit call… 12 KB`` (the name as the model sent it, controls made visible)."""
        if self.name:
            article = "an" if self.name[0].lower() in "aeiou" else "a"
            what = f"{article} {one_line(self.name)} call"
        else:
            what = "a tool call"
        return f"● writing {what}… {size_text(self.bytes)}"


class _Streaming(msgspec.Struct):
    call_id: str | None
    name: str | None
    bytes: int = 0
    reported: float = float("-inf")


class CallProgress:
    """The tool calls a model is streaming, counted from the engine's ``ToolCallUpdated`` events,
    reported at most every :data:`PROGRESS_EVERY` seconds per call (a 9-minute runaway call is
    thus visible, without a report per fragment)."""

    def __init__(
        self, every: float = PROGRESS_EVERY, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._every = every
        self._clock = clock
        self._calls: dict[int, _Streaming] = {}

    def add(
        self, index: int, call_id: str | None, name: str | None, added: int
    ) -> CallWritten | None:
        """Count ``added`` bytes of call ``index``; what to report now, or ``None`` (not due)."""
        call = self._calls.get(index)
        if call is None:
            call = self._calls[index] = _Streaming(call_id, name)
        call.call_id = call_id or call.call_id
        call.name = name or call.name
        call.bytes += added
        now = self._clock()
        if now - call.reported < self._every:
            return None
        call.reported = now
        return CallWritten(index, call.call_id, call.name, call.bytes)

    def clear(self) -> None:
        """The calls are complete (proposed), or the reply was reset or ended."""
        self._calls.clear()
