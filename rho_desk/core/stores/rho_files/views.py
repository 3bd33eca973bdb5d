"""How a transcript's histories are presented: tool-turn trimming, compaction markers, texts.

storage.md §6.4-§6.6: incomplete tool turns are cut from model and display history on resume,
export and summary; the *projected* display adds a synthetic "◆ Compacted context" message
after every compaction node on the path; summaries use the user messages' trimmed text.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator, Sequence
from typing import Final, TypeVar

from ...wire.model import ContentBlock, Message, ModelIdentity
from ...wire.snapshot import CompactionState
from .records import CompactionFacts, StoredDisplayMessage

__all__ = [
    "LEGACY_PROVIDER",
    "MARKER_PREFIX",
    "check_tool_turns",
    "compaction_marker",
    "complete_prefix_length",
    "default_prompt_cache_key",
    "is_marker_message",
    "message_at_offset",
    "scan_complete_prefix",
    "search_text",
    "tool_turns",
    "trim_incomplete_tool_turns",
    "user_text",
]

MARKER_PREFIX: Final = "◆ Compacted context"
"""U+25C6 then the words; the detail lines follow after a newline."""


def is_marker_message(message: Message) -> bool:
    """``message`` reads as a compaction marker: one assistant text block that starts with
    :data:`MARKER_PREFIX`. How a marker is known where it is a plain message (a conversation
    published or exported as shown, opened as a snapshot document)."""
    blocks = message.assistant
    return (
        blocks is not None and len(blocks) == 1 and (blocks[0].text or "").startswith(MARKER_PREFIX)
    )


LEGACY_PROVIDER: Final = ModelIdentity("legacy", "legacy", "legacy")
"""The in-memory identity of a message-only v1 state (never written, never a delta base)."""

_CACHE_KEY_LIMIT: Final = 64

T = TypeVar("T")


def complete_prefix_length(messages: Sequence[Message]) -> int:
    """How many leading messages survive incomplete-tool-turn trimming (§6.5).

    At each completed assistant message (``Assistant`` or ``EnrichedAssistant``, never
    ``AbortedAssistant``) with ``k >= 1`` tool calls, the next ``k`` messages must be
    ``ToolResult``s answering the calls in the same order; otherwise the list is cut just before
    that assistant message, whatever follows.
    """
    return scan_complete_prefix(messages)[0]


def scan_complete_prefix(messages: Sequence[Message], start: int = 0) -> tuple[int, bool]:
    """:func:`complete_prefix_length` from position ``start`` (which must begin a turn unit).

    Returns ``(keep, final)``: ``final`` is true when a mismatched result cut the list (more
    messages cannot change ``keep``); false when the scan reached the end, or stopped at a tool
    turn whose results have not all arrived yet (appending can move ``keep`` on from there).
    """
    return check_tool_turns(messages, tool_turns(messages, start))


def tool_turns(messages: Sequence[Message], start: int = 0) -> Iterator[tuple[int, list[str]]]:
    """``(index, call ids)`` of each completed assistant message with tool calls, in order."""
    for i in range(start, len(messages)):
        message = messages[i]
        content = message.assistant
        if content is None and message.enriched_assistant is not None:
            content = message.enriched_assistant.content
        if content:
            calls = [b.tool_call.id for b in content if b.tool_call is not None]
            if calls:
                yield i, calls


def check_tool_turns(
    messages: Sequence[Message], turns: Iterable[tuple[int, Sequence[str]]]
) -> tuple[int, bool]:
    """The rule of §6.5 over the tool turns of ``messages`` (from :func:`tool_turns`, or from a
    caller's own pass over the list, as the app's conversation model makes): each must be followed
    by results answering its calls in order. Returns :func:`scan_complete_prefix`'s pair."""
    n = len(messages)
    for i, calls in turns:
        if i + len(calls) >= n:
            return i, False
        for offset, call_id in enumerate(calls, 1):
            result = messages[i + offset].tool_result
            if result is None or result.id != call_id:
                return i, True
    return n, False


def trim_incomplete_tool_turns(messages: tuple[Message, ...]) -> tuple[Message, ...]:
    """``messages`` cut before the first incomplete tool turn (the same tuple when complete)."""
    keep = complete_prefix_length(messages)
    return messages if keep == len(messages) else messages[:keep]


def _micros(value: int) -> str:
    return f"{value // 1_000_000}.{value % 1_000_000:06d}"


def compaction_marker(
    timestamp: str, facts: CompactionFacts | None, compaction: CompactionState
) -> StoredDisplayMessage:
    """The synthetic display message shown after a compaction node (§6.4)."""
    detail = ""
    if facts is not None:
        detail = (
            f"\n{facts.previous_messages} → {facts.current_messages} messages"
            f"\n{facts.previous_tokens} → {facts.current_tokens} estimated tokens"
        )
        if facts.cost_usd_micros is not None:
            detail += f"\n${_micros(facts.cost_usd_micros)} compaction cost"
    elif compaction.last_previous_tokens is not None and compaction.last_current_tokens is not None:
        detail = f"\n{compaction.last_previous_tokens} → {compaction.last_current_tokens} estimated tokens"
    return StoredDisplayMessage(
        timestamp, Message(assistant=(ContentBlock(text=MARKER_PREFIX + detail),))
    )


def user_text(message: Message) -> str | None:
    """A ``User`` message's Text blocks, each trimmed, empty ones dropped, joined with ``\\n``."""
    if message.user is None:
        return None
    parts = [t for b in message.user if b.text is not None and (t := b.text.strip())]
    return "\n".join(parts) if parts else None


def _searched_parts(messages: Sequence[Message]) -> Iterator[tuple[int, str]]:
    """``(position in messages, text)`` of each message that :func:`search_text` includes."""
    for index, message in enumerate(messages):
        if message.system is not None or message.tool_result is not None:
            continue
        text = "\n".join(b.text for b in message.content if b.text is not None and b.text.strip())
        if text:
            yield index, text


def search_text(messages: Sequence[Message]) -> str:
    """User and assistant text of a display history, one message per line, for full-text search."""
    return "\n".join(text for _, text in _searched_parts(messages))


def message_at_offset(messages: Sequence[Message], offset: int) -> int | None:
    """The position in ``messages`` of the message whose text holds character ``offset`` of
    :func:`search_text` (``messages``), e.g. where a full-text search hit lies; ``None`` past the end."""
    if offset < 0:
        return None
    start = 0
    previous: int | None = None
    for index, text in _searched_parts(messages):
        if offset < start:
            return previous  # the newline between two messages counts with the one before
        start += len(text)
        if offset < start:
            return index
        start += 1
        previous = index
    return None


def default_prompt_cache_key(session_id: str) -> str:
    """The app's cache key for a session: ``rho:<id>``.

    Upstream shortens longer ids with a SHA-256 suffix without saying where the limit lies; we
    keep keys within 64 characters (the providers' limit) as ``rho:<id head>-<32 hex digits>``.
    """
    key = f"rho:{session_id}"
    if len(key) <= _CACHE_KEY_LIMIT:
        return key
    digest = hashlib.sha256(session_id.encode("utf-8")).hexdigest()[:32]
    return f"rho:{session_id[: _CACHE_KEY_LIMIT - 4 - 33]}-{digest}"
