"""Classification: every string of a snapshot, where it sits (JSON path) and which content class.

Where each class lives on the wire is spec/export.md §4:

* ``System`` text → ``instructions``;
* ``User`` text blocks → ``user``, except composer attachments (a block starting
  ``Attached file: ``) and display labels (``[pdf: name · N chars]``) → ``documents``;
* ``Assistant`` / ``EnrichedAssistant`` / ``AbortedAssistant`` text → ``assistant``;
* ``ToolCall`` arguments (values at any depth), ``AbortedAssistant.tool_calls[].arguments`` and
  ``ToolResult.content`` → ``tool_records``, except the ``Extraction notice:`` and
  ``[document warning: …]`` lines of a tool result → ``documents``;
* ``Image.data`` → ``images``;
* ``reasoning_summary`` → ``reasoning_summaries``; ``provider_context[].data`` (every string in
  it, portable fallbacks included) → ``provider_context``;
* ``metadata`` keys and values, ``prompt_cache_key`` → ``metadata``.

Everything else (ids, tool names, MIME types, provider identities, context kinds, argument keys,
the session id, rho-desk's own export markers) is *structure*: it keeps the snapshot meaningful,
is never excluded, and is still scanned for secrets.

Strings are visited in the order msgspec writes them, so the n-th occurrence of a string in the
encoded document is the n-th slot with that text.
"""

from __future__ import annotations

import re
from collections.abc import Container, Iterator
from dataclasses import dataclass
from typing import Any, Final

from ..wire.model import ContentBlock, Message, ProviderContextBlock
from ..wire.snapshot import SessionSnapshot
from ._classes import ALL_CLASSES, ContentClass

__all__ = [
    "EXPORT_MARKER_PREFIX",
    "PLACEHOLDER",
    "ClassStats",
    "Slot",
    "SlotKind",
    "class_stats",
    "document_spans",
    "is_attachment",
    "is_placeholder",
    "iter_slots",
    "json_path",
    "json_slots",
    "own_path",
    "utf8_len",
]

EXPORT_MARKER_PREFIX: Final = "rho_desk.export."
"""Metadata keys rho-desk writes into an export; structure, not custom metadata."""

PLACEHOLDER: Final = re.compile(
    r"\[(?:" + "|".join(c.value for c in ALL_CLASSES) + r") (?:excluded|redacted): [^\]\n]*\]"
)
"""A typed placeholder left where excluded content was: ``[images excluded: image/png, 45 KB]``."""

_PLACEHOLDERS_ONLY: Final = re.compile(r"\s*(?:" + PLACEHOLDER.pattern + r"\s*)+")
_LABEL: Final = re.compile(r"\[[^:\]\n]+: .+ · \d+ chars(?: · truncated)?\]")
_DOCUMENT_LINES: Final = re.compile(r"(?m)^(?:Extraction notice: .*|\[document warning: .*\])$")
_IDENTIFIER: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class SlotKind:
    """What a string slot is, where the class alone does not say (images and keys need care)."""

    TEXT = "text"
    IMAGE_DATA = "image_data"
    KEY = "key"
    """An object key (argument names, metadata keys, keys inside provider data)."""
    RESULT = "result"
    """A tool result's content: ``tool_records``, except its document lines (``document_spans``)."""


@dataclass(frozen=True, slots=True)
class Slot:
    """One string of a snapshot."""

    path: str
    """JSON path: ``$.history[3].User[0].Text``; object keys end with ``@key``."""
    cls: ContentClass | None
    """The content class, or ``None`` for structure."""
    text: str
    kind: str = SlotKind.TEXT


def utf8_len(text: str) -> int:
    """UTF-8 size of ``text`` without encoding pure-ASCII strings (``isascii`` is O(1))."""
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))


def json_path(base: str, key: str) -> str:
    """``base.key`` for identifier keys, else ``base["key"]`` (JSON-escaped)."""
    if _IDENTIFIER.fullmatch(key):
        return f"{base}.{key}"
    escaped = key.replace("\\", "\\\\").replace('"', '\\"')
    return f'{base}["{escaped}"]'


_OWN_NAMES: Final = (
    "session_id",
    "history",
    "messages",
    "message",
    "timestamp",
    "format",
    "System",
    "User",
    "Assistant",
    "EnrichedAssistant",
    "AbortedAssistant",
    "ToolResult",
    "content",
    "Text",
    "Image",
    "data",
    "mime_type",
    "ToolCall",
    "id",
    "name",
    "arguments",
    "provenance",
    "provider",
    "api",
    "model",
    "reasoning_summary",
    "reasoning",
    "provider_context",
    "identity",
    "kind",
    "tool_calls",
    "metadata",
    "prompt_cache_key",
)
"""The names the walks below (and the display document's) put in a path."""
_OWN_PATH: Final = re.compile(
    r"(?:line [0-9]+ )?\$(?:\.(?:"
    + "|".join(_OWN_NAMES)
    + r")|\[[0-9]+\])*(?: line [0-9]+)?|line [0-9]+"
)


def own_path(location: str) -> bool:
    """A finding's location made only of the walks' own names, indices and line numbers: nothing
    in it comes from the data (a key does), so it holds no secret and needs no scan. An audit
    can report thousands (an echo per quoted message), and a scan of even a short text costs
    tens of microseconds."""
    return _OWN_PATH.fullmatch(location) is not None


def is_placeholder(text: str) -> bool:
    """True when ``text`` holds typed placeholders and nothing else but whitespace."""
    return _PLACEHOLDERS_ONLY.fullmatch(text) is not None


def is_attachment(text: str) -> bool:
    """A composer attachment block (spec/export.md §4.5) or its display label."""
    return text.startswith("Attached file: ") or _LABEL.fullmatch(text) is not None


def document_spans(content: str) -> list[tuple[int, int]]:
    """The ``Extraction notice:`` and ``[document warning: …]`` lines of a tool result."""
    if "Extraction notice:" not in content and "[document warning:" not in content:
        return []
    return [m.span() for m in _DOCUMENT_LINES.finditer(content)]


# --- the walk --------------------------------------------------------------------------------


def json_slots(value: Any, path: str, cls: ContentClass | None) -> Iterator[Slot]:
    """Every string of an arbitrary JSON value: keys as structure, values as ``cls``."""
    if isinstance(value, str):
        yield Slot(path, cls, value)
    elif isinstance(value, dict):
        for key, item in value.items():
            child = json_path(path, key)
            yield Slot(child + "@key", None, key, SlotKind.KEY)
            yield from json_slots(item, child, cls)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from json_slots(item, f"{path}[{index}]", cls)


def _blocks(blocks: tuple[ContentBlock, ...], path: str, text_cls: ContentClass) -> Iterator[Slot]:
    for j, block in enumerate(blocks):
        base = f"{path}[{j}]"
        if block.text is not None:
            cls = (
                ContentClass.DOCUMENTS
                if text_cls is ContentClass.USER and is_attachment(block.text)
                else text_cls
            )
            yield Slot(f"{base}.Text", cls, block.text)
        elif block.image is not None:
            yield Slot(
                f"{base}.Image.data", ContentClass.IMAGES, block.image.data, SlotKind.IMAGE_DATA
            )
            yield Slot(f"{base}.Image.mime_type", None, block.image.mime_type)
        elif block.tool_call is not None:
            call = block.tool_call
            yield Slot(f"{base}.ToolCall.id", None, call.id)
            yield Slot(f"{base}.ToolCall.name", None, call.name)
            yield from json_slots(
                call.arguments, f"{base}.ToolCall.arguments", ContentClass.TOOL_RECORDS
            )


def _identity(identity: Any, path: str) -> Iterator[Slot]:
    yield Slot(f"{path}.provider", None, identity.provider)
    yield Slot(f"{path}.api", None, identity.api)
    yield Slot(f"{path}.model", None, identity.model)


def _context(blocks: tuple[ProviderContextBlock, ...], path: str) -> Iterator[Slot]:
    for k, block in enumerate(blocks):
        base = f"{path}[{k}]"
        yield from _identity(block.identity, f"{base}.identity")
        yield Slot(f"{base}.kind", None, block.kind)
        yield from json_slots(block.data, f"{base}.data", ContentClass.PROVIDER_CONTEXT)


def message_slots(message: Message, path: str) -> Iterator[Slot]:
    """Every string of one message, in wire order."""
    if message.system is not None:
        yield Slot(f"{path}.System", ContentClass.INSTRUCTIONS, message.system)
    elif message.user is not None:
        yield from _blocks(message.user, f"{path}.User", ContentClass.USER)
    elif message.assistant is not None:
        yield from _blocks(message.assistant, f"{path}.Assistant", ContentClass.ASSISTANT)
    elif message.enriched_assistant is not None:
        m = message.enriched_assistant
        base = f"{path}.EnrichedAssistant"
        yield from _blocks(m.content, f"{base}.content", ContentClass.ASSISTANT)
        if m.provenance is not None:
            yield from _identity(m.provenance, f"{base}.provenance")
        if m.reasoning_summary is not None:
            yield Slot(
                f"{base}.reasoning_summary", ContentClass.REASONING_SUMMARIES, m.reasoning_summary
            )
        yield from _context(m.provider_context, f"{base}.provider_context")
    elif message.aborted_assistant is not None:
        a = message.aborted_assistant
        base = f"{path}.AbortedAssistant"
        yield from _blocks(a.content, f"{base}.content", ContentClass.ASSISTANT)
        if a.reasoning:
            yield Slot(f"{base}.reasoning", ContentClass.REASONING_SUMMARIES, a.reasoning)
        if a.provenance is not None:
            yield from _identity(a.provenance, f"{base}.provenance")
        if a.reasoning_summary is not None:
            yield Slot(
                f"{base}.reasoning_summary", ContentClass.REASONING_SUMMARIES, a.reasoning_summary
            )
        yield from _context(a.provider_context, f"{base}.provider_context")
        for k, call in enumerate(a.tool_calls):
            cbase = f"{base}.tool_calls[{k}]"
            if call.id is not None:
                yield Slot(f"{cbase}.id", None, call.id)
            if call.name is not None:
                yield Slot(f"{cbase}.name", None, call.name)
            yield Slot(f"{cbase}.arguments", ContentClass.TOOL_RECORDS, call.arguments)
    elif message.tool_result is not None:
        r = message.tool_result
        base = f"{path}.ToolResult"
        yield Slot(f"{base}.id", None, r.id)
        yield Slot(f"{base}.content", ContentClass.TOOL_RECORDS, r.content, SlotKind.RESULT)


def iter_slots(
    snapshot: SessionSnapshot, *, messages: Container[int] | None = None
) -> Iterator[Slot]:
    """Every string of ``snapshot`` with its path and class, in the order they are encoded (of
    the history, only the messages whose indices are in ``messages``, when given)."""
    yield Slot("$.session_id", None, snapshot.session_id)
    for i, message in enumerate(snapshot.history):
        if messages is None or i in messages:
            yield from message_slots(message, f"$.history[{i}]")
    yield from _identity(snapshot.provider, "$.provider")
    for key, value in snapshot.metadata.items():
        path = json_path("$.metadata", key)
        cls = None if key.startswith(EXPORT_MARKER_PREFIX) else ContentClass.METADATA
        yield Slot(path + "@key", cls, key, SlotKind.KEY)
        yield Slot(path, cls, value)
    if snapshot.prompt_cache_key is not None:
        yield Slot("$.prompt_cache_key", ContentClass.METADATA, snapshot.prompt_cache_key)


# --- statistics ------------------------------------------------------------------------------


@dataclass
class ClassStats:
    """How many strings (or document spans) of each class, and their UTF-8 size on the wire."""

    strings: dict[ContentClass, int]
    bytes: dict[ContentClass, int]
    structure_strings: int = 0
    structure_bytes: int = 0

    @classmethod
    def empty(cls) -> ClassStats:
        return cls({c: 0 for c in ALL_CLASSES}, {c: 0 for c in ALL_CLASSES})

    def add(self, cls: ContentClass | None, size: int) -> None:
        if cls is None:
            self.structure_strings += 1
            self.structure_bytes += size
        else:
            self.strings[cls] += 1
            self.bytes[cls] += size

    def to_json(self) -> dict[str, dict[str, int]]:
        return {c.value: {"strings": self.strings[c], "bytes": self.bytes[c]} for c in ALL_CLASSES}


def _json_sizes(value: Any, stats: ClassStats, cls: ContentClass) -> None:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            stats.add(cls, utf8_len(item))
        elif isinstance(item, dict):
            for key, child in item.items():
                stats.add(None, utf8_len(key))
                stack.append(child)
        elif isinstance(item, list):
            stack.extend(item)


def _block_sizes(
    blocks: tuple[ContentBlock, ...], stats: ClassStats, text_cls: ContentClass
) -> None:
    for block in blocks:
        if block.text is not None:
            cls = (
                ContentClass.DOCUMENTS
                if text_cls is ContentClass.USER and is_attachment(block.text)
                else text_cls
            )
            stats.add(cls, utf8_len(block.text))
        elif block.image is not None:
            stats.add(ContentClass.IMAGES, len(block.image.data))
            stats.add(None, utf8_len(block.image.mime_type))
        elif block.tool_call is not None:
            stats.add(None, utf8_len(block.tool_call.id) + utf8_len(block.tool_call.name))
            _json_sizes(block.tool_call.arguments, stats, ContentClass.TOOL_RECORDS)


def _assistant_sizes(
    summary: str | None, context: tuple[ProviderContextBlock, ...], stats: ClassStats
) -> None:
    if summary is not None:
        stats.add(ContentClass.REASONING_SUMMARIES, utf8_len(summary))
    for block in context:
        stats.add(None, utf8_len(block.kind))
        _json_sizes(block.data, stats, ContentClass.PROVIDER_CONTEXT)


def class_stats(snapshot: SessionSnapshot) -> ClassStats:
    """Counts and byte sizes per class (document lines of tool results count as documents).

    The same classification as ``iter_slots``, without building a slot per string (this runs
    over the whole source snapshot of every export). Identities are not counted.
    """
    stats = ClassStats.empty()
    stats.add(None, utf8_len(snapshot.session_id))
    for message in snapshot.history:
        if message.system is not None:
            stats.add(ContentClass.INSTRUCTIONS, utf8_len(message.system))
        elif message.user is not None:
            _block_sizes(message.user, stats, ContentClass.USER)
        elif message.assistant is not None:
            _block_sizes(message.assistant, stats, ContentClass.ASSISTANT)
        elif message.enriched_assistant is not None:
            m = message.enriched_assistant
            _block_sizes(m.content, stats, ContentClass.ASSISTANT)
            _assistant_sizes(m.reasoning_summary, m.provider_context, stats)
        elif message.aborted_assistant is not None:
            a = message.aborted_assistant
            _block_sizes(a.content, stats, ContentClass.ASSISTANT)
            _assistant_sizes(a.reasoning_summary, a.provider_context, stats)
            for call in a.tool_calls:
                stats.add(ContentClass.TOOL_RECORDS, utf8_len(call.arguments))
        elif message.tool_result is not None:
            content = message.tool_result.content
            spans = document_spans(content)
            doc = 0
            for lo, hi in spans:
                size = utf8_len(content[lo:hi])
                stats.add(ContentClass.DOCUMENTS, size)
                doc += size
            stats.add(ContentClass.TOOL_RECORDS, utf8_len(content) - doc)
    for key, value in snapshot.metadata.items():
        cls = None if key.startswith(EXPORT_MARKER_PREFIX) else ContentClass.METADATA
        stats.add(cls, utf8_len(key))
        stats.add(cls, utf8_len(value))
    if snapshot.prompt_cache_key is not None:
        stats.add(ContentClass.METADATA, utf8_len(snapshot.prompt_cache_key))
    return stats
