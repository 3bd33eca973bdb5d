"""One export, step by step: classify, apply the selection, redact secrets, render, audit.

::

    snapshot ──classify──► class stats
        │
        └─apply_selection──► S1 (typed placeholders, export markers)
              │ encode ──► B1 ──scan──► hits? ── none ──► B1 is the output (its scan is the audit's)
              │                          │
              │                          └─ each hit's JSON string: redact (hits from B1 mapped
              │                             into the string, plus a scan of the string itself)
              └────────────────────────────► S2 ──encode──► B2 ──scan──► (again, at most 3 rounds)
                                   (its changed messages into B1's bytes)
        JSON output = the last B; Markdown/HTML = rendered from the last S, scanned as shown:
            a secret found there and in a string of S is redacted in S, rendered again (≤ 3 rounds)
        placeholders already written are never hits again (``outside_placeholders``)
        audit(output bytes): secrets, excluded classes present, echoes, image types

Nothing is written here (``write_export`` does that); the result holds the bytes, the redactions
and the audit report, and ``build_receipt`` turns it into a receipt.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Final

import msgspec

from ..system.allocator import large_buffers
from ..system.collector import collection_paused
from ..wire.codec import encode_pretty, encode_pretty_changed
from ..wire.snapshot import SessionSnapshot
from ._audit import AuditReport, EchoIndex, audit_bytes, enclosing_strings, html_text
from ._classes import ContentClass, Selection
from ._classify import (
    ClassStats,
    Slot,
    SlotKind,
    class_stats,
    document_spans,
    iter_slots,
    own_path,
    utf8_len,
)
from ._display import HISTORY_KINDS, encode_display_export, with_title
from ._opinion import candidates, candidates_after_edit
from ._redact import (
    Exclusion,
    Redaction,
    apply_selection,
    image_placeholder,
    outside_placeholders,
    redact_text,
    rewrite_strings,
    with_markers,
)
from .scanner import PARALLEL_MIN, Hit, SecretScanner, fingerprint, merge_hits, tool_values, workers

__all__ = ["FORMATS", "ExportResult", "export_snapshot"]

FORMATS: Final = ("json", "markdown", "html")
_ROUNDS: Final = 3


@dataclass
class ExportResult:
    """Everything an export produced, before anything is written."""

    data: bytes
    """The exact bytes to write (audited)."""
    format: str
    snapshot: SessionSnapshot
    """The redacted snapshot (the JSON output is its pretty encoding)."""
    source: SessionSnapshot
    selection: Selection
    stats: ClassStats
    """Counts and sizes per class in the source."""
    exclusion: Exclusion
    redactions: list[Redaction]
    report: AuditReport
    known_checked: int = 0
    known_ignored_short: int = 0
    history: str = "model"
    """Which history was exported: ``display`` (as shown) or ``model`` (the model context)."""
    sha256: str = ""
    """Of ``data``: computed here unless the pipeline hashed it meanwhile (``export_snapshot``)."""

    def __post_init__(self) -> None:
        if not self.sha256:
            self.sha256 = _sha256(self.data)

    @property
    def blocked(self) -> bool:
        """Critical or high findings: the export must not be written without an override."""
        return bool(self.report.blocking)


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _string_offsets(data: bytes, quote: int, hits: list[Hit]) -> list[Hit] | None:
    """Hits inside the JSON string opening at ``quote``, as offsets in its decoded UTF-8 bytes."""
    out = []
    raw = quote + 1
    pos = 0
    try:
        for hit in sorted(hits, key=lambda h: h.start):
            if hit.start < raw:
                continue
            # the raw JSON between quotes decodes to str; UTF-8 sizes give the byte offsets
            before = msgspec.json.decode(b'"' + data[raw : hit.start] + b'"')
            inside = msgspec.json.decode(b'"' + data[hit.start : hit.end] + b'"')
            start = pos + len(before.encode("utf-8", "surrogatepass"))
            end = start + len(inside.encode("utf-8", "surrogatepass"))
            out.append(Hit(hit.rule, start, end, hit.value, hit.encoding))
            raw, pos = hit.end, end
    except msgspec.DecodeError:
        return None
    return out


def _redaction_table(
    data: bytes, hits: list[Hit], scanner: SecretScanner, key: bytes
) -> dict[str, tuple[str, list[tuple[Hit, str, int]]]]:
    """For each string holding a hit: its redacted text and what was replaced."""
    per_string: dict[tuple[int, str], list[Hit]] = {}
    for hit, owner in zip(hits, enclosing_strings(data, hits), strict=True):
        if owner is not None:
            per_string.setdefault(owner, []).append(hit)
    local: dict[str, list[Hit]] = {}
    for (quote, value), string_hits in per_string.items():
        mapped = _string_offsets(data, quote, string_hits)
        local.setdefault(value, []).extend(mapped or [])
    table: dict[str, tuple[str, list[tuple[Hit, str, int]]]] = {}
    for value, mapped in local.items():
        raw = value.encode("utf-8", "surrogatepass")
        own = outside_placeholders(raw, scanner.scan(raw))
        merged = merge_hits([*mapped, *own])
        new_text, done = redact_text(value, merged, key)
        if new_text != value:
            table[value] = (new_text, done)
    return table


def _replacer(table: dict[str, tuple[str, list[tuple[Hit, str, int]]]]) -> Callable[[str], str]:
    def replace(text: str) -> str:
        entry = table.get(text)
        return text if entry is None else entry[0]

    return replace


def _shown_secrets(shown: bytes, hits: list[Hit], key: bytes) -> dict[str, tuple[Hit, str]]:
    """The secrets a scan of a rendered transcript found (``hits``), as the text to replace in the
    strings (the secret as written, else the span's text) with its hit and fingerprint."""
    table: dict[str, tuple[Hit, str]] = {}
    for hit in outside_placeholders(shown, hits):
        fp = fingerprint(key, hit.value)
        for raw in (
            hit.value if hit.encoding == "plain" else b"",
            shown[hit.start : hit.end].strip(),
        ):
            text = raw.decode("utf-8", "replace")
            if len(text) >= _SHOWN_MIN and "\n" not in text:
                table.setdefault(text, (hit, fp))
    return table


_SHOWN_MIN: Final = 4
"""Shorter text from a transcript's scan is not replaced in strings (it would match words)."""


def _substituter(table: dict[str, tuple[Hit, str]]) -> Callable[[str], str]:
    ordered = [
        (secret, f"[secret redacted: {hit.rule} {fp}]")
        for secret, (hit, fp) in sorted(table.items(), key=lambda e: -len(e[0]))
    ]

    def replace(text: str) -> str:
        out = text
        for secret, placeholder in ordered:
            if secret in out:
                out = out.replace(secret, placeholder)
        return text if out == text else out

    return replace


def _located(
    snapshot: SessionSnapshot, table: dict[str, tuple[Hit, str]], scanner: SecretScanner
) -> list[Redaction]:
    """A redaction for each string of ``snapshot`` holding a secret of ``table``."""
    out: list[Redaction] = []
    if not table:
        return out
    for slot in iter_slots(snapshot):
        for secret, (hit, fp) in table.items():
            if secret in slot.text:
                path = slot.path if own_path(slot.path) else scanner.redact_location(slot.path)
                out.append(Redaction(hit.rule, path, slot.cls, fp, hit.encoding))
    return out


def printed_secrets(snapshot: SessionSnapshot) -> list[str]:
    """What the tool calls of ``snapshot`` that print a secret printed (``tool_values``: ``op
    read``, ``terraform output -raw``, ``cat`` of a credential-named file…): each call's result
    read with its arguments."""
    calls: dict[str, object] = {}
    out: list[str] = []
    for message in snapshot.history:
        for call in message.tool_calls():
            calls.setdefault(call.id, call.arguments)
        result = message.tool_result
        if result is not None and result.id in calls:
            out += tool_values(calls[result.id], result.content)
    return out


def _classes_at(slot: Slot, offsets: list[int]) -> list[ContentClass | None]:
    """The class at each byte offset of ``slot``'s text (a tool result holds document lines)."""
    spans = document_spans(slot.text) if slot.kind == SlotKind.RESULT else []
    if not spans:
        return [slot.cls] * len(offsets)
    # character spans to byte spans, once per slot
    byte_spans = [(utf8_len(slot.text[:a]), utf8_len(slot.text[:b])) for a, b in spans]
    return [
        ContentClass.DOCUMENTS if any(a <= o < b for a, b in byte_spans) else slot.cls
        for o in offsets
    ]


@large_buffers()  # the session-sized buffers of one export reuse each other's memory
@collection_paused()  # its many small objects die by reference counting: no cycle to look for
def export_snapshot(
    snapshot: SessionSnapshot,
    selection: Selection,
    *,
    key: bytes,
    known_secrets: list[str] | tuple[str, ...] = (),
    fmt: str = "json",
    scanner: SecretScanner | None = None,
    incremental: bool = True,
    history: str = "model",
    timestamps: Sequence[str | None] | None = None,
    title: str | None = None,
) -> ExportResult:
    """Build a redacted export of ``snapshot`` and audit it (nothing is written).

    Args:
        selection: the classes to keep; secrets are redacted whatever it says.
        key: the fingerprint key (``fingerprint_key()`` in the app and CLI).
        known_secrets: credentials to find literally (every one rho-desk holds).
        fmt: ``json`` (a schema-2 snapshot), ``markdown`` or ``html``.
        incremental: after redacting, rescan only the changed lines of the output (the result
            equals a full scan, see ``SecretScanner.rescan``); ``False`` rescans everything.
        history: ``model`` (``snapshot`` is the model context) or ``display`` (``snapshot``
            carries the display history, see ``display_snapshot``; its JSON form is a
            ``rho-desk.display-export`` document with ``timestamps``).
        title: the session's title (Rho keeps it in its index) for the transcript heading and
            the display document; it joins the metadata, so it is selected and redacted with
            it. A model-context JSON export stays the snapshot as it is.
    """
    if fmt not in FORMATS:
        raise ValueError(f"unknown export format {fmt!r}")
    if history not in HISTORY_KINDS:
        raise ValueError(f"unknown history {history!r}")
    if history == "display" or fmt != "json":
        snapshot = with_title(snapshot, title)
    if scanner is None:
        scanner = SecretScanner(known_secrets, printed=printed_secrets(snapshot))
    stats = class_stats(snapshot)
    current, exclusion = apply_selection(snapshot, selection)
    if selection.excluded:
        current = with_markers(current, selection)
    redactions: list[Redaction] = []
    data = encode_pretty(current)
    echo = EchoIndex(exclusion.originals)
    # encoded regions of the final bytes, for the echo check (collected by the same scan)
    decoded: list[tuple[int, int, bytes]] | None = [] if echo else None
    # the audit's second opinion reads the JSON output: its candidates in these bytes are found
    # on a worker thread while this one scans them (RE2 lets go of the GIL), then carried over
    # each redaction's edit (only the lines around the changed ones searched again); submitted
    # once the scan's gate parts are queued, so that it does not hold a worker they wait for
    pending: list[Future[list[tuple[int, int]]]] = []

    def find_candidates() -> None:
        pending.append(workers().submit(candidates, data))

    wanted = fmt == "json" and history != "display" and len(data) >= PARALLEL_MIN
    hits = outside_placeholders(
        data, scanner.scan(data, decoded=decoded, started=find_candidates if wanted else None)
    )
    opinion: Future[list[tuple[int, int]]] | list[tuple[int, int]] | None = (
        pending[0] if pending else None
    )
    for _ in range(_ROUNDS):
        if not hits:
            break
        table = _redaction_table(data, hits, scanner, key)
        if not table:
            break  # what is left cannot be placed in a string: the audit reports it
        rewritten = rewrite_strings(current, _replacer(table), image_placeholder)
        # the strings replaced are in the messages that changed (and outside the history)
        changed = {
            i
            for i, (a, b) in enumerate(zip(current.history, rewritten.history, strict=True))
            if a != b
        }
        for slot in iter_slots(current, messages=changed):
            entry = table.get(slot.text)
            if entry is None:
                continue
            path = (
                slot.path if own_path(slot.path) else scanner.redact_location(slot.path)
            )  # a key on it may be the secret
            classes = _classes_at(slot, [offset for _, _, offset in entry[1]])
            for (hit, fp, _), cls in zip(entry[1], classes, strict=True):
                redactions.append(Redaction(hit.rule, path, cls, fp, hit.encoding))
        previous, current = current, with_markers(rewritten, selection)
        # the messages that changed encoded again, every other byte of ``data`` kept
        redacted = encode_pretty_changed(data, previous, current, changed, [h.start for h in hits])
        if opinion is not None:
            spans = opinion.result() if isinstance(opinion, Future) else opinion
            opinion = candidates_after_edit(data, spans, redacted)
        # the audit's scan of the exact new bytes: lines identical to the scanned ones keep their
        # result, changed lines are scanned (SecretScanner.rescan; equal to a full scan for JSON)
        fresh: list[tuple[int, int, bytes]] | None = [] if echo else None
        if incremental:
            hits = scanner.rescan(data, hits, redacted, old_decoded=decoded, decoded=fresh)
        else:
            hits = scanner.scan(redacted, decoded=fresh)
        # a rule may read a placeholder as the value it replaced: it is not redacted again
        hits = outside_placeholders(redacted, hits)
        data, decoded = redacted, fresh
    digest: Future[str] | None = None
    if fmt == "json" and history == "display":
        data = encode_display_export(current, timestamps)
        report = audit_bytes(
            data, scanner=scanner, key=key, fmt="json", excluded=selection.excluded, echo=echo
        )
    elif fmt == "json":
        # the output is final: hashed on a worker thread (hashlib lets go of the GIL; 100 MB take
        # about 70 ms) while this one audits it
        digest = workers().submit(_sha256, data) if len(data) >= PARALLEL_MIN else None
        report = audit_bytes(
            data,
            scanner=scanner,
            key=key,
            fmt="snapshot",
            excluded=selection.excluded,
            echo=echo,
            hits=hits,
            decoded=decoded,
            encodes=current,
            opinion_spans=opinion.result() if isinstance(opinion, Future) else opinion,
        )
    else:
        from ._transcript import render_html, render_markdown

        render = render_markdown if fmt == "markdown" else render_html
        data = render(current, history=history)
        for round_ in range(_ROUNDS + 1):
            # a transcript puts texts on lines of their own, beside headings and fences: what a
            # rule reads there and not in the JSON strings is redacted in the strings it is in,
            # so that the audit of the transcript agrees with the redaction (the last round's
            # scan is the audit's)
            decoded = [] if echo else None
            text = html_text(data) if fmt == "html" else data
            hits = scanner.scan(text, decoded=decoded)
            shown = _shown_secrets(text, hits, key)
            located = _located(current, shown, scanner) if round_ < _ROUNDS else []
            if not located:
                break
            redactions += located
            current = with_markers(
                rewrite_strings(current, _substituter(shown), image_placeholder), selection
            )
            data = render(current, history=history)
        report = audit_bytes(
            data,
            scanner=scanner,
            key=key,
            fmt=fmt,
            excluded=selection.excluded,
            echo=echo,
            hits=hits,
            decoded=decoded,
        )
    return ExportResult(
        data=data,
        format=fmt,
        snapshot=current,
        source=snapshot,
        selection=selection,
        stats=stats,
        exclusion=exclusion,
        redactions=redactions,
        report=report,
        known_checked=scanner.known_count,
        known_ignored_short=scanner.ignored_short,
        history=history,
        sha256=digest.result() if digest is not None else "",
    )
