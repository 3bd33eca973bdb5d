"""What a publish sends: the export pipeline's audited output and what is derived from it.

``run_export`` is the one place the team library calls the export pipeline (the same classes,
secret redaction and audit as ``rho-desk export``). ``prepare`` turns its result into a
``Publication``: the exported JSON bytes (exactly the audited ones), the receipt bytes, the
searchable text and the statistics. The text, title and statistics are computed from the
exported bytes and the receipt only, never from the source snapshot, so nothing the export left
out (excluded classes, redacted secrets) can reach the database by another path.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from typing import Final

from ..core.errors import InputError
from ..core.export import (
    ContentClass,
    ExportResult,
    Selection,
    build_receipt,
    encode_receipt,
    export_snapshot,
    is_placeholder,
    iter_slots,
    key_id,
)
from ..core.export._classify import SlotKind
from ..core.wire.codec import decode_snapshot
from ..core.wire.snapshot import SessionSnapshot

__all__ = [
    "HISTORIES",
    "Publication",
    "PublishBlocked",
    "prepare",
    "run_export",
    "search_text_of_export",
]

HISTORIES: Final = ("display", "model")
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
    """The exported JSON snapshot, byte for byte what the audit checked."""
    sha256: str
    receipt: bytes
    """The receipt document, stored as the pipeline encoded it."""
    search_text: str
    stats: dict[str, object]
    message_count: int
    findings: int
    redactions: int


def run_export(
    snapshot: SessionSnapshot,
    selection: Selection,
    *,
    history: str,
    key: bytes,
    known_secrets: list[str],
) -> ExportResult:
    """The export pipeline, JSON output (the one call site of the pipeline in the team library).

    Raises:
        InputError: ``history`` is not one this pipeline exports.
    """
    if history not in HISTORIES:
        raise InputError(f"--history must be one of {', '.join(HISTORIES)}, not {history!r}")
    if history != "model":
        raise InputError(
            "--history display is not available from this export pipeline yet; publish the model "
            "history (--history model)"
        )
    return export_snapshot(snapshot, selection, key=key, known_secrets=known_secrets, fmt="json")


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
    """The searchable text of an exported JSON snapshot (placeholders and structure left out)."""
    return _join(_slot_texts(decode_snapshot(export, source="export")))


def _join(texts: list[tuple[ContentClass, str]]) -> str:
    # PostgreSQL text cannot hold NUL
    return "\n".join(t for _c, t in texts).replace("\x00", "")[:_MAX_SEARCH_TEXT]


def _stats(result: ExportResult, exported: SessionSnapshot) -> dict[str, object]:
    kinds = Counter(m.kind.value for m in exported.history)
    return {
        "messages": len(exported.history),
        "by_kind": dict(sorted(kinds.items())),
        "provider": exported.provider.provider,
        "api": exported.provider.api,
        "model": exported.provider.model,
        "compactions": int(exported.compaction.completed_compactions),
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


def prepare(
    snapshot: SessionSnapshot,
    selection: Selection,
    *,
    history: str,
    key: bytes,
    known_secrets: list[str],
    source_name: str | None = None,
    allow_findings: bool = False,
) -> Publication:
    """Export ``snapshot`` and derive what a publish stores (CPU only: run it off the event loop).

    Raises:
        PublishBlocked: critical or high findings and no ``allow_findings``; nothing is sent.
        InputError: an unsupported ``history``.
    """
    result = run_export(snapshot, selection, history=history, key=key, known_secrets=known_secrets)
    if result.blocked and not allow_findings:
        raise PublishBlocked(
            f"publish blocked: {len(result.report.blocking)} critical or high finding(s) in the "
            "audit; nothing was sent (re-run with --allow-findings to publish anyway, recorded in "
            "the receipt)",
            source=source_name,
        )
    name = f"{snapshot.session_id}-r{snapshot.revision}.json"
    receipt = build_receipt(
        result,
        output_name=name,
        key_id=key_id(key),
        source_name=source_name,
        allow_findings=allow_findings,
    )
    exported = decode_snapshot(result.data, source="export")
    texts = _slot_texts(exported)
    search_text = _join(texts)
    title = next(
        (" ".join(t.split())[:_TITLE_CHARS] for c, t in texts if c is ContentClass.USER), ""
    )
    title = title.replace("\x00", "")
    return Publication(
        session_id=snapshot.session_id,
        revision=int(snapshot.revision),
        history=history,
        title=title,
        export=result.data,
        sha256=result.sha256,
        receipt=encode_receipt(receipt),
        search_text=search_text,
        stats=json.loads(json.dumps(_stats(result, exported))),
        message_count=len(exported.history),
        findings=len(result.report.findings),
        redactions=len(result.redactions),
    )
