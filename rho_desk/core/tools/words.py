"""A tool call and its result in words, for the app's continue panel and ``rho-desk continue``."""

from __future__ import annotations

from collections.abc import Mapping

from ..session.events import ToolCallFailure, ToolCallResult, ToolCallSuccess

__all__ = ["call_subject", "result_text"]


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
