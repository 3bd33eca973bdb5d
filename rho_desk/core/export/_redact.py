"""Redaction: excluded classes become typed placeholders, secrets become fingerprinted ones.

Both keep the result a valid schema-2 snapshot that rho-desk and Rho load: message order, ids,
tool names and call/result pairing are kept; a ``ToolCall``'s arguments stay a JSON object; an
excluded image becomes a ``Text`` block saying what was there; excluded provider context becomes
one portable-fallback block (never replayed) saying what was dropped; when ``metadata`` is
excluded only rho-desk's export markers remain and the prompt-cache key is dropped.

Secret redaction is a function of the string's value (same string, same result), so an id that
holds a secret is rewritten identically in a ``ToolCall`` and its ``ToolResult``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final

import msgspec

from ..wire.model import (
    EMPTY_IDENTITY,
    PORTABLE_FALLBACK_KIND,
    ContentBlock,
    Message,
    PartialToolCall,
    ProviderContextBlock,
    ToolCall,
    ToolResult,
)
from ..wire.snapshot import SessionSnapshot
from ._classes import ContentClass, Selection
from ._classify import EXPORT_MARKER_PREFIX, document_spans, is_attachment, utf8_len
from .scanner import Hit, fingerprint

__all__ = [
    "EXCLUDED_ARGUMENT_KEY",
    "MARKER_EXCLUDED",
    "MARKER_REDACTED",
    "Exclusion",
    "Redaction",
    "apply_selection",
    "human_size",
    "image_placeholder",
    "outside_placeholders",
    "redact_text",
    "rewrite_strings",
    "with_markers",
]

MARKER_EXCLUDED: Final = EXPORT_MARKER_PREFIX + "excluded"
"""Metadata key: the excluded classes, comma-separated in canonical order (may be empty)."""
MARKER_REDACTED: Final = EXPORT_MARKER_PREFIX + "redacted"
"""Metadata key: ``true`` on every redacted export."""
EXCLUDED_ARGUMENT_KEY: Final = "rho_desk.excluded"
"""The one key of a tool call's arguments object when ``tool_records`` are excluded."""

_MIME: Final = re.compile(r"[a-z]+/[a-z0-9.+-]{1,64}")
_KIND: Final = re.compile(r"[A-Za-z0-9_.:\-]{1,80}")
_ARG_NAME: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]{0,39}")


def human_size(size: int) -> str:
    """``340 B``, ``4.5 KB``, ``45 KB``, ``1.2 MB`` (decimal units)."""
    if size < 1000:
        return f"{size} B"
    for unit, scale in (("KB", 1e3), ("MB", 1e6), ("GB", 1e9)):
        value = size / scale
        if value < 1000 or unit == "GB":
            return f"{value:.1f} {unit}" if value < 10 else f"{value:.0f} {unit}"
    raise AssertionError("unreachable")


def _placeholder(cls: ContentClass, detail: str) -> str:
    return f"[{cls.value} excluded: {detail}]"


def _image_size(data: str) -> int:
    """Decoded size of standard base64 text."""
    return max(len(data) * 3 // 4 - data.count("=", max(len(data) - 2, 0)), 0)


def image_placeholder(data: str, mime: str) -> str:
    """What replaces an included image that held a secret (the receipt names rule and path)."""
    safe = mime if _MIME.fullmatch(mime) else "unknown type"
    return f"[images redacted: contained a secret, {safe}, {human_size(_image_size(data))}]"


@dataclass
class Exclusion:
    """What ``apply_selection`` removed: the originals (for the audit's echo check) and counts."""

    originals: list[tuple[ContentClass, str]] = field(default_factory=list)
    placeholders: dict[ContentClass, int] = field(default_factory=dict)

    def record(self, cls: ContentClass, *texts: str) -> None:
        self.originals.extend((cls, t) for t in texts)
        self.placeholders[cls] = self.placeholders.get(cls, 0) + 1


def _json_strings(value: Any) -> list[str]:
    out: list[str] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out.append(item)
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return out


def _json_size(value: Any) -> int:
    return len(msgspec.json.encode(value))


class _Selector:
    def __init__(self, selection: Selection) -> None:
        self.excluded = selection.excluded
        self.out = Exclusion()

    def off(self, cls: ContentClass) -> bool:
        return cls in self.excluded

    # -- blocks ---------------------------------------------------------------------------------

    def blocks(
        self, blocks: tuple[ContentBlock, ...], text_cls: ContentClass
    ) -> tuple[ContentBlock, ...]:
        new: list[ContentBlock] = []
        changed = False
        for block in blocks:
            replaced = self.block(block, text_cls)
            changed |= replaced is not block
            new.append(replaced)
        return tuple(new) if changed else blocks

    def block(self, block: ContentBlock, text_cls: ContentClass) -> ContentBlock:
        if block.text is not None:
            text = block.text
            if text_cls is ContentClass.USER and is_attachment(text):
                if not self.off(ContentClass.DOCUMENTS):
                    return block
                self.out.record(ContentClass.DOCUMENTS, text)
                what = "attached file" if text.startswith("Attached file: ") else "attachment label"
                return ContentBlock(
                    text=_placeholder(
                        ContentClass.DOCUMENTS, f"{what}, {human_size(utf8_len(text))}"
                    )
                )
            if not self.off(text_cls):
                return block
            self.out.record(text_cls, text)
            return ContentBlock(text=_placeholder(text_cls, f"text, {human_size(utf8_len(text))}"))
        if block.image is not None:
            if not self.off(ContentClass.IMAGES):
                return block
            image = block.image
            self.out.record(ContentClass.IMAGES, image.data)
            mime = image.mime_type if _MIME.fullmatch(image.mime_type) else "unknown type"
            return ContentBlock(
                text=_placeholder(
                    ContentClass.IMAGES, f"{mime}, {human_size(_image_size(image.data))}"
                )
            )
        call = block.tool_call
        assert call is not None
        if not self.off(ContentClass.TOOL_RECORDS):
            return block
        return ContentBlock(tool_call=ToolCall(call.id, call.name, self.arguments(call.arguments)))

    def arguments(self, arguments: Any) -> dict[str, str]:
        self.out.record(ContentClass.TOOL_RECORDS, *_json_strings(arguments))
        detail = "arguments"
        if isinstance(arguments, dict) and arguments:
            names = [k for k in arguments if _ARG_NAME.fullmatch(k)]
            shown = ", ".join(names[:8]) + (
                ", ..." if len(names) > 8 or len(names) < len(arguments) else ""
            )
            detail = f"arguments ({shown})"
        return {
            EXCLUDED_ARGUMENT_KEY: _placeholder(
                ContentClass.TOOL_RECORDS, f"{detail}, {human_size(_json_size(arguments))}"
            )
        }

    # -- other parts ----------------------------------------------------------------------------

    def summary(self, summary: str | None) -> str | None:
        if summary is None or not self.off(ContentClass.REASONING_SUMMARIES):
            return summary
        self.out.record(ContentClass.REASONING_SUMMARIES, summary)
        return _placeholder(ContentClass.REASONING_SUMMARIES, human_size(utf8_len(summary)))

    def context(
        self, blocks: tuple[ProviderContextBlock, ...], provenance: Any
    ) -> tuple[ProviderContextBlock, ...]:
        if not blocks or not self.off(ContentClass.PROVIDER_CONTEXT):
            return blocks
        kinds = sorted({b.kind if _KIND.fullmatch(b.kind) else "unnamed" for b in blocks})
        size = sum(_json_size(b.data) for b in blocks)
        self.out.record(
            ContentClass.PROVIDER_CONTEXT, *(s for b in blocks for s in _json_strings(b.data))
        )
        count = f"{len(blocks)} block" + ("s" if len(blocks) != 1 else "")
        text = _placeholder(
            ContentClass.PROVIDER_CONTEXT, f"{count} ({', '.join(kinds)}), {human_size(size)}"
        )
        identity = provenance if provenance is not None else EMPTY_IDENTITY
        return (ProviderContextBlock(identity=identity, kind=PORTABLE_FALLBACK_KIND, data=text),)

    def tool_result(self, result: ToolResult) -> ToolResult:
        content = result.content
        tool_off = self.off(ContentClass.TOOL_RECORDS)
        doc_off = self.off(ContentClass.DOCUMENTS)
        if not tool_off and not doc_off:
            return result  # (its document lines are looked for only when either class goes)
        spans = document_spans(content)
        if not spans:
            if not tool_off:
                return result
            self.out.record(ContentClass.TOOL_RECORDS, content)
            what = "tool output" if result.ok else "tool error output"
            return ToolResult(
                result.id,
                result.ok,
                _placeholder(ContentClass.TOOL_RECORDS, f"{what}, {human_size(utf8_len(content))}"),
            )
        pieces: list[str] = []
        pos = 0
        for start, end in spans:
            pieces.append(self._tool_piece(content[pos:start], tool_off, result.ok))
            line = content[start:end]
            if doc_off:
                self.out.record(ContentClass.DOCUMENTS, line)
                what = (
                    "extraction notice"
                    if line.startswith("Extraction notice:")
                    else "document warning"
                )
                line = _placeholder(ContentClass.DOCUMENTS, what)
            pieces.append(line)
            pos = end
        pieces.append(self._tool_piece(content[pos:], tool_off, result.ok))
        return ToolResult(result.id, result.ok, "".join(pieces))

    def _tool_piece(self, piece: str, off: bool, ok: bool) -> str:
        body = piece.strip()
        if not off or not body:
            return piece
        self.out.record(ContentClass.TOOL_RECORDS, piece)
        lead = piece[: len(piece) - len(piece.lstrip())]
        trail = piece[len(piece.rstrip()) :]
        what = "tool output" if ok else "tool error output"
        return (
            lead
            + _placeholder(ContentClass.TOOL_RECORDS, f"{what}, {human_size(utf8_len(body))}")
            + trail
        )

    def partial_calls(self, calls: tuple[PartialToolCall, ...]) -> tuple[PartialToolCall, ...]:
        if not calls or not self.off(ContentClass.TOOL_RECORDS):
            return calls
        new = []
        for call in calls:
            self.out.record(ContentClass.TOOL_RECORDS, call.arguments)
            text = _placeholder(
                ContentClass.TOOL_RECORDS,
                f"partial arguments, {human_size(utf8_len(call.arguments))}",
            )
            new.append(PartialToolCall(id=call.id, name=call.name, arguments=text))
        return tuple(new)

    # -- messages -------------------------------------------------------------------------------

    def message(self, message: Message) -> Message:
        replace = msgspec.structs.replace
        if message.system is not None:
            if not self.off(ContentClass.INSTRUCTIONS):
                return message
            self.out.record(ContentClass.INSTRUCTIONS, message.system)
            return Message(
                system=_placeholder(
                    ContentClass.INSTRUCTIONS,
                    f"system prompt, {human_size(utf8_len(message.system))}",
                )
            )
        if message.user is not None:
            blocks = self.blocks(message.user, ContentClass.USER)
            return message if blocks is message.user else Message(user=blocks)
        if message.assistant is not None:
            blocks = self.blocks(message.assistant, ContentClass.ASSISTANT)
            return message if blocks is message.assistant else Message(assistant=blocks)
        if message.enriched_assistant is not None:
            m = message.enriched_assistant
            new = replace(
                m,
                content=self.blocks(m.content, ContentClass.ASSISTANT),
                reasoning_summary=self.summary(m.reasoning_summary),
                provider_context=self.context(m.provider_context, m.provenance),
            )
            return Message(enriched_assistant=new)
        if message.aborted_assistant is not None:
            a = message.aborted_assistant
            new_a = replace(
                a,
                content=self.blocks(a.content, ContentClass.ASSISTANT),
                reasoning_summary=self.summary(a.reasoning_summary),
                provider_context=self.context(a.provider_context, a.provenance),
                tool_calls=self.partial_calls(a.tool_calls),
            )
            return Message(aborted_assistant=new_a)
        assert message.tool_result is not None
        result = self.tool_result(message.tool_result)
        return message if result is message.tool_result else Message(tool_result=result)


def apply_selection(
    snapshot: SessionSnapshot, selection: Selection
) -> tuple[SessionSnapshot, Exclusion]:
    """The snapshot with every excluded class replaced by typed placeholders (no markers yet)."""
    selector = _Selector(selection)
    if not selection.excluded:
        return snapshot, selector.out
    history = tuple(selector.message(m) for m in snapshot.history)
    metadata = snapshot.metadata
    cache_key = snapshot.prompt_cache_key
    if selector.off(ContentClass.METADATA):
        custom = {k: v for k, v in metadata.items() if not k.startswith(EXPORT_MARKER_PREFIX)}
        if custom or cache_key is not None:
            selector.out.record(
                ContentClass.METADATA,
                *custom,
                *custom.values(),
                *([cache_key] if cache_key else []),
            )
        metadata = {k: v for k, v in metadata.items() if k.startswith(EXPORT_MARKER_PREFIX)}
        cache_key = None
    return snapshot.replace(
        history=history, metadata=metadata, prompt_cache_key=cache_key
    ), selector.out


def with_markers(snapshot: SessionSnapshot, selection: Selection) -> SessionSnapshot:
    """The snapshot marked as a redacted export, naming the excluded classes."""
    metadata = dict(snapshot.metadata)
    metadata[MARKER_EXCLUDED] = ",".join(selection.excluded_names())
    metadata[MARKER_REDACTED] = "true"
    return snapshot.replace(metadata=dict(sorted(metadata.items())))


# --- secrets ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Redaction:
    """One secret replaced: rule, where, which class the string belonged to, and its fingerprint."""

    rule: str
    path: str
    cls: ContentClass | None
    fingerprint: str
    encoding: str

    def to_json(self) -> dict[str, str | None]:
        return {
            "rule": self.rule,
            "path": self.path,
            "class": self.cls.value if self.cls is not None else None,
            "fingerprint": self.fingerprint,
            "encoding": self.encoding,
        }


def _char_boundaries(data: bytes, start: int, end: int) -> tuple[int, int]:
    """Widen ``[start, end)`` to whole UTF-8 characters."""
    while start > 0 and data[start] & 0xC0 == 0x80:
        start -= 1
    while end < len(data) and data[end] & 0xC0 == 0x80:
        end += 1
    return start, end


SECRET_PLACEHOLDER: Final = re.compile(rb"\[secret redacted: [\w.:-]{1,64} fp:[0-9a-f]{16}\]")
"""What ``redact_text`` puts where a secret was (nothing in it can hold a secret: a rule id and
a keyed fingerprint)."""
_NOT_CONTENT: Final = re.compile(
    rb"</?[A-Za-z][^<>]*>|^/?[a-z][a-z0-9]{0,15}(?:\s[^<>]*)?>|</?[A-Za-z][^<>]*$|\\u[0-9a-fA-F]{4}|\\.|[^0-9A-Za-z\x80-\xff]"
)
"""What is left of a hit beside a placeholder that is markup, not content: tags (whole, or cut by
the hit's edge), JSON escapes, punctuation and spaces."""
_PLACEHOLDER_REACH: Final = 100
"""A placeholder is shorter than this: one overlapping a hit starts at most this far before it."""
_FEW_HITS: Final = 256
"""Up to this many hits, each is looked at where it is; more, and the data is searched for a
placeholder first (100 MB in about 40 ms)."""


def outside_placeholders(data: bytes, hits: list[Hit]) -> list[Hit]:
    """``hits`` without those that are placeholders rho-desk wrote (``[secret redacted: …]``),
    alone or with only markup beside them (``<code>[secret redacted: …``, a JSON escape).

    A rule may read a placeholder as a value (it stands where a value stood, under the same
    name): redacting it again nests placeholders, and an audit finding on it blocks an export
    over text the redaction itself produced. A hit with any letter or digit outside the
    placeholders it overlaps is kept.
    """
    if not hits or (len(hits) > _FEW_HITS and b"[secret redacted: " not in data):
        return hits  # (a few hits are looked at around themselves: no search of all the data)
    out = []
    for hit in hits:
        start = max(0, hit.start - _PLACEHOLDER_REACH)
        window = data[start : hit.end + _PLACEHOLDER_REACH]
        spans = [(m.start() + start, m.end() + start) for m in SECRET_PLACEHOLDER.finditer(window)]
        spans = [(a, b) for a, b in spans if a < hit.end and b > hit.start]
        if not spans:
            out.append(hit)
            continue
        rest, pos = [], hit.start
        for a, b in spans:
            rest.append(data[pos:a] if a > pos else b"")
            pos = max(pos, b)
        rest.append(data[pos : hit.end])
        if any(_NOT_CONTENT.sub(b"", piece) for piece in rest):
            out.append(hit)
    return out


def redact_text(text: str, hits: list[Hit], key: bytes) -> tuple[str, list[tuple[Hit, str, int]]]:
    """``text`` with each hit's span replaced by ``[secret redacted: RULE fp:…]``.

    ``hits`` are merged hits with offsets in ``text``'s UTF-8 bytes. Returns the new text and,
    per hit, (hit, fingerprint, offset of the span in the original text's bytes).
    """
    data = text.encode("utf-8", "surrogatepass")
    out: list[bytes] = []
    done: list[tuple[Hit, str, int]] = []
    pos = 0
    for hit in hits:
        start, end = _char_boundaries(data, max(hit.start, pos), hit.end)
        if end <= start:
            continue
        fp = fingerprint(key, hit.value)
        out.append(data[pos:start])
        out.append(f"[secret redacted: {hit.rule} {fp}]".encode())
        done.append((hit, fp, start))
        pos = end
    out.append(data[pos:])
    return b"".join(out).decode("utf-8", "surrogatepass"), done


def _map_json(value: Any, fn: Callable[[str], str]) -> Any:
    if isinstance(value, str):
        return fn(value)
    if isinstance(value, dict):
        changed = False
        new: dict[str, Any] = {}
        for key, item in value.items():
            new_key = fn(key)
            new_item = _map_json(item, fn)
            changed |= new_key is not key or new_item is not item
            while new_key in new:  # two keys redacted alike: keep both
                new_key += "'"
            new[new_key] = new_item
        return new if changed else value
    if isinstance(value, list):
        items = [_map_json(item, fn) for item in value]
        return items if any(a is not b for a, b in zip(items, value, strict=True)) else value
    return value


def rewrite_strings(
    snapshot: SessionSnapshot, fn: Callable[[str], str], image_text: Callable[[str, str], str]
) -> SessionSnapshot:
    """Every string passed through ``fn`` (which returns its argument when unchanged).

    An image whose data ``fn`` changes becomes a ``Text`` block, ``image_text(data, mime)``.
    """
    replace = msgspec.structs.replace

    def identity(i: Any) -> Any:
        provider, api, model = fn(i.provider), fn(i.api), fn(i.model)
        if provider is i.provider and api is i.api and model is i.model:
            return i
        return type(i)(provider, api, model)

    def blocks(items: tuple[ContentBlock, ...]) -> tuple[ContentBlock, ...]:
        new = []
        for b in items:
            if b.text is not None:
                t = fn(b.text)
                new.append(b if t is b.text else ContentBlock(text=t))
            elif b.image is not None:
                data = fn(b.image.data)
                if data is not b.image.data:
                    new.append(ContentBlock(text=image_text(b.image.data, b.image.mime_type)))
                else:
                    mime = fn(b.image.mime_type)
                    new.append(
                        b
                        if mime is b.image.mime_type
                        else ContentBlock.of_image(b.image.data, mime)
                    )
            else:
                c = b.tool_call
                assert c is not None
                cid, name, args = fn(c.id), fn(c.name), _map_json(c.arguments, fn)
                unchanged = cid is c.id and name is c.name and args is c.arguments
                new.append(b if unchanged else ContentBlock(tool_call=ToolCall(cid, name, args)))
        return tuple(new)

    def context(items: tuple[ProviderContextBlock, ...]) -> tuple[ProviderContextBlock, ...]:
        return tuple(
            replace(b, identity=identity(b.identity), kind=fn(b.kind), data=_map_json(b.data, fn))
            for b in items
        )

    def opt(value: str | None) -> str | None:
        return None if value is None else fn(value)

    def message(m: Message) -> Message:
        if m.system is not None:
            return Message(system=fn(m.system))
        if m.user is not None:
            return Message(user=blocks(m.user))
        if m.assistant is not None:
            return Message(assistant=blocks(m.assistant))
        if m.enriched_assistant is not None:
            e = m.enriched_assistant
            return Message(
                enriched_assistant=replace(
                    e,
                    content=blocks(e.content),
                    provenance=None if e.provenance is None else identity(e.provenance),
                    reasoning_summary=opt(e.reasoning_summary),
                    provider_context=context(e.provider_context),
                )
            )
        if m.aborted_assistant is not None:
            a = m.aborted_assistant
            calls = tuple(
                PartialToolCall(id=opt(c.id), name=opt(c.name), arguments=fn(c.arguments))
                for c in a.tool_calls
            )
            return Message(
                aborted_assistant=replace(
                    a,
                    content=blocks(a.content),
                    provenance=None if a.provenance is None else identity(a.provenance),
                    reasoning_summary=opt(a.reasoning_summary),
                    provider_context=context(a.provider_context),
                    tool_calls=calls,
                )
            )
        r = m.tool_result
        assert r is not None
        return Message(tool_result=ToolResult(fn(r.id), r.ok, fn(r.content)))

    metadata = {fn(k): fn(v) for k, v in snapshot.metadata.items()}
    return snapshot.replace(
        session_id=fn(snapshot.session_id),
        history=tuple(message(m) for m in snapshot.history),
        provider=identity(snapshot.provider),
        metadata=dict(sorted(metadata.items())),
        prompt_cache_key=opt(snapshot.prompt_cache_key),
    )
