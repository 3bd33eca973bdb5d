"""What a publish sends: the export pipeline's audited output and what is derived from it.

``prepare`` builds and signs the export exactly as ``rho-desk export`` does (``export_signed``: the
same classes, secret redaction, audit and signed receipt; the conversation as shown by default,
or the model context) and turns its result into a ``Publication``: the exported JSON bytes
(exactly the audited ones: a ``rho-desk.display-export`` document or a schema-2 snapshot), the
signed receipt's bytes, the searchable text and the statistics. The text, title and statistics
are decoded from the exported bytes only (``decode_published``), never from the source, so
nothing the export left out (excluded classes, redacted secrets) can reach the database by
another path.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from typing import Final, Unpack

from ..core.errors import InputError
from ..core.export import (
    HISTORY_KINDS,
    ContentClass,
    ExportResult,
    ExportSource,
    Selection,
    SignOptions,
    decode_display_export,
    export_signed,
    is_placeholder,
    iter_slots,
    with_title,
)
from ..core.export._classify import SlotKind
from ..core.wire.codec import decode_snapshot
from ..core.wire.display import display_identity
from ..core.wire.model import ModelIdentity
from ..core.wire.snapshot import SessionSnapshot

__all__ = [
    "HISTORIES",
    "Publication",
    "PublishBlocked",
    "decode_published",
    "listing_of_export",
    "prepare",
    "search_text_of_export",
    "shown_identity",
    "title_of_export",
]

HISTORIES: Final = HISTORY_KINDS
_SEARCH_CLASSES: Final = frozenset({ContentClass.USER, ContentClass.ASSISTANT})
"""What search covers: user and assistant text, as the local session index (tool output, file
contents and instructions are in the stored export, not in the search index)."""
_MAX_SEARCH_TEXT: Final = 512 * 1024
_TITLE_CHARS: Final = 120


class PublishBlocked(InputError):
    """The audit found critical or high findings: nothing was sent."""


@dataclass(frozen=True)
class Publication:
    """One session revision, ready to store: nothing here is unredacted."""

    session_id: str
    revision: int
    history: str
    title: str
    export: bytes
    """The exported JSON (a display export document or a snapshot), byte for byte what the
    audit checked."""
    sha256: str
    receipt: bytes
    """The signed receipt document, stored as the pipeline encoded it."""
    search_text: str
    stats: dict[str, object]
    message_count: int
    findings: int
    redactions: int


def decode_published(export: bytes) -> tuple[SessionSnapshot, str]:
    """A published export as a snapshot and its history kind: a display export document's
    messages in a snapshot (``display``), or the exported snapshot itself (``model``).

    Raises:
        InputError: neither shape.
    """
    display = decode_display_export(export)
    if display is not None:
        return display[0], "display"
    return decode_snapshot(export, source="export"), "model"


def _slot_texts(snapshot: SessionSnapshot) -> list[tuple[ContentClass, str]]:
    return [
        (slot.cls, slot.text)
        for slot in iter_slots(snapshot)
        if slot.cls in _SEARCH_CLASSES
        and slot.kind in (SlotKind.TEXT, SlotKind.RESULT)
        and slot.text.strip()
        and not is_placeholder(slot.text)
    ]


def search_text_of_export(export: bytes) -> str:
    """The searchable text of a published export, either shape (placeholders and structure left out)."""
    return _join(_slot_texts(decode_published(export)[0]))


def _join(texts: list[tuple[ContentClass, str]]) -> str:
    # PostgreSQL text cannot hold NUL
    return "\n".join(t for _c, t in texts).replace("\x00", "")[:_MAX_SEARCH_TEXT]


def shown_identity(exported: SessionSnapshot, history: str) -> ModelIdentity | None:
    """The model of a decoded export: the snapshot's own, or for a display document (which names
    none) the provenance of its last assistant turn; ``None`` when it has no such turn."""
    return exported.provider if history == "model" else display_identity(exported)


def _stats(result: ExportResult, exported: SessionSnapshot, history: str) -> dict[str, object]:
    kinds = Counter(m.kind.value for m in exported.history)
    identity = shown_identity(exported, history)
    return {
        "history": history,
        "messages": len(exported.history),
        "by_kind": dict(sorted(kinds.items())),
        "provider": identity.provider if identity else None,
        "api": identity.api if identity else None,
        "model": identity.model if identity else None,
        # a display document keeps no compaction state (its markers are messages)
        "compactions": int(exported.compaction.completed_compactions)
        if history == "model"
        else None,
        "export_bytes": len(result.data),
        "redactions": len(result.redactions),
        "findings": len(result.report.findings),
        "classes": {
            c.value: {
                "strings": result.stats.strings[c],
                "bytes": result.stats.bytes[c],
                "included": result.selection.includes(c),
            }
            for c in ContentClass
        },
    }


def title_of_export(export: bytes) -> str:
    """The title a publish derives from ``export`` (what the database lists for its session):
    decoded from the signed export itself, so verification can recompute it.

    Raises:
        InputError: the export is neither shape.
    """
    exported, _history = decode_published(export)
    return _title(exported, _slot_texts(exported))


def listing_of_export(export: bytes) -> tuple[str, str]:
    """The title and the searchable text a publish derives from ``export`` (one decode), as the
    database lists them: verification recomputes both.

    Raises:
        InputError: the export is neither shape.
    """
    exported, _history = decode_published(export)
    texts = _slot_texts(exported)
    return _title(exported, texts), _join(texts)


def _title(exported: SessionSnapshot, texts: list[tuple[ContentClass, str]]) -> str:
    """The session's title as exported (metadata kept and not a placeholder), else the first
    user text."""
    named = exported.metadata.get("title", "")
    if named.strip() and not is_placeholder(named):
        return " ".join(named.split())[:_TITLE_CHARS].replace("\x00", "")
    first = next(
        (" ".join(t.split())[:_TITLE_CHARS] for c, t in texts if c is ContentClass.USER), ""
    )
    return first.replace("\x00", "")


def prepare(
    source: ExportSource | SessionSnapshot,
    selection: Selection,
    *,
    source_name: str | None = None,
    **sign: Unpack[SignOptions],
) -> Publication:
    """Export ``source`` (a bare snapshot: its model context) through the export pipeline and
    derive what a publish stores (CPU only: run it off the event loop).

    Raises:
        PublishBlocked: critical or high findings and no ``allow_findings``; nothing is sent.
    """
    if isinstance(source, SessionSnapshot):
        source = ExportSource(source, "model", name=source_name)
    elif source_name is not None and source.name is None:
        source = ExportSource(
            source.snapshot, source.history, source.timestamps, source.title, source_name
        )
    if source.history == "model" and source.title:
        # a model-context export is the snapshot as it is; published, it carries the session's
        # title in its metadata (selected and redacted with it), so the team library lists the
        # session by it, as it does the conversation as shown, not by its first prompt
        source = ExportSource(
            with_title(source.snapshot, source.title),
            "model",
            source.timestamps,
            source.title,
            source.name,
        )
    snapshot = source.snapshot
    name = f"{snapshot.session_id}-r{snapshot.revision}.json"
    signed = export_signed(source, selection, fmt="json", output_name=name, **sign)
    result = signed.result
    if signed.receipt_bytes is None:
        raise PublishBlocked(
            f"publish blocked: {len(result.report.blocking)} critical or high finding(s) in the "
            "audit; nothing was sent (re-run with --allow-findings to publish anyway, recorded in "
            "the receipt)",
            source=source.name,
        )
    exported, history = decode_published(result.data)
    texts = _slot_texts(exported)
    return Publication(
        session_id=snapshot.session_id,
        revision=int(snapshot.revision),
        history=history,
        title=_title(exported, texts),
        export=result.data,
        sha256=result.sha256,
        receipt=signed.receipt_bytes,
        search_text=_join(texts),
        stats=json.loads(json.dumps(_stats(result, exported, history))),
        message_count=len(exported.history),
        findings=len(result.report.findings),
        redactions=len(result.redactions),
    )
