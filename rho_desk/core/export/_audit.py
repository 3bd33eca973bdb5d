"""The audit: what the exact bytes of an export (or any snapshot or transcript) still contain.

Checks, with upstream's severities (spec/export.md §5.6):

* ``critical``: a secret (every rule of ``RULES``, a known credential, plain or encoded);
* ``high``: content of an excluded class present where that class lives (a snapshot export whose
  markers or receipt name the excluded classes): ``excluded-class-present``;
* ``medium``: text of an excluded class echoed inside included content (a line of an excluded
  tool output quoted by the assistant): ``excluded-content-echo``. Found by comparing the output
  with the excluded originals, so only at export time; the receipt records each one with the
  SHA-256 of the echoed line (which is in the export anyway), and ``rho-desk audit`` re-verifies
  them from the file;
* ``medium``: what the second opinion (``_opinion``: structure and randomness, none of the
  scanner's rules) suspects is a secret the scanner missed: ``second-opinion:<kind>``. The
  placeholders the redaction wrote are never a hit of either;
* ``low``: an image whose bytes are not of its declared MIME type (unclear classification):
  ``image-mime-mismatch``.

Findings name the rule, the location (a JSON path, or ``line N`` in a transcript) and, for
secrets, a keyed fingerprint: never the value.
"""

from __future__ import annotations

import base64
import binascii
import bisect
import enum
import hashlib
import html
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from itertools import compress
from typing import Any, Final

import msgspec

from ..errors import InputError
from ..system.allocator import large_buffers
from ..system.collector import collection_paused
from ..wire.codec import decode_snapshot
from ..wire.limits import (
    MAX_DEPTH,
    DuplicateKey,
    check_depth,
    find_duplicate,
    nesting_depth,
    parse_pairs,
)
from ..wire.model import ImageContent
from ..wire.snapshot import SessionSnapshot
from ._classes import ContentClass
from ._classify import (
    Slot,
    SlotKind,
    document_spans,
    is_placeholder,
    iter_slots,
    json_slots,
    own_path,
)
from ._display import decode_display_export, display_slots
from ._opinion import second_opinion
from .scanner import Hit, SecretScanner, fingerprint

__all__ = [
    "ECHO_LINE_MIN",
    "ECHO_STRING_MIN",
    "AuditReport",
    "EchoIndex",
    "Finding",
    "Severity",
    "audit_bytes",
    "detect_format",
    "enclosing_string",
    "enclosing_strings",
    "html_text",
]

ECHO_LINE_MIN: Final = 32
"""Shortest line of excluded text the echo check looks for (characters, stripped)."""
ECHO_STRING_MIN: Final = 16
"""Shortest whole excluded string the echo check looks for."""
_ECHO_DISTINCT: Final = 8
"""An echoed unit needs this many distinct characters (rulers like ``-----`` are not content)."""


class Severity(enum.Enum):
    """Upstream's grades; critical and high block an export unless overridden."""

    CRITICAL = "critical"
    HIGH = "high"
    MEDIUM = "medium"
    LOW = "low"

    @property
    def blocks(self) -> bool:
        return self in (Severity.CRITICAL, Severity.HIGH)


_NUMBERS: Final = re.compile(r"(\d+)")
_ORDER: Final = {Severity.CRITICAL: 0, Severity.HIGH: 1, Severity.MEDIUM: 2, Severity.LOW: 3}


@dataclass(frozen=True)
class Finding:
    """One problem in the audited bytes. Holds no secret value."""

    rule: str
    severity: Severity
    location: str
    cls: ContentClass | None = None
    fingerprint: str | None = None
    """``fp:…`` of the secret (secret findings only)."""
    digest: str | None = None
    """``sha256:…`` of the echoed text (echo findings only; that text is in the file)."""

    def to_json(self) -> dict[str, str]:
        out = {"rule": self.rule, "severity": self.severity.value, "location": self.location}
        if self.cls is not None:
            out["class"] = self.cls.value
        if self.fingerprint is not None:
            out["fingerprint"] = self.fingerprint
        if self.digest is not None:
            out["digest"] = self.digest
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Finding:
        try:
            return cls(
                rule=str(data["rule"]),
                severity=Severity(data["severity"]),
                location=str(data["location"]),
                cls=ContentClass(data["class"]) if data.get("class") else None,
                fingerprint=data.get("fingerprint"),
                digest=data.get("digest"),
            )
        except (KeyError, ValueError, TypeError) as exc:
            raise InputError(f"malformed finding in receipt: {exc}") from None

    def sort_key(self) -> tuple[int, list[int | str], str, str]:
        """Severity first, then document order (``history[17]`` before ``history[101]``)."""
        location: list[int | str] = [
            int(p) if p.isdigit() else p for p in _NUMBERS.split(self.location)
        ]
        return (_ORDER[self.severity], location, self.rule, self.fingerprint or self.digest or "")

    def describe(self) -> str:
        what = self.rule + (f" ({self.cls.value})" if self.cls is not None else "")
        tag = self.fingerprint or ""
        return f"{self.severity.value:<8} {what} at {self.location} {tag}".rstrip()


@dataclass
class AuditReport:
    """The findings of one audit, and what was checked."""

    format: str
    findings: list[Finding]
    excluded: frozenset[ContentClass] = frozenset()
    notes: list[str] = field(default_factory=list)

    @property
    def blocking(self) -> list[Finding]:
        return [f for f in self.findings if f.severity.blocks]

    def counts(self) -> dict[str, int]:
        out = {s.value: 0 for s in Severity}
        for f in self.findings:
            out[f.severity.value] += 1
        return out


# --- formats ---------------------------------------------------------------------------------


def detect_format(data: bytes, name: str = "") -> str:
    """``snapshot``, ``json``, ``jsonl``, ``markdown``, ``html`` or ``text``."""
    lower = name.lower()
    if lower.endswith((".md", ".markdown")):
        return "markdown"
    if lower.endswith((".html", ".htm")):
        return "html"
    if lower.endswith(".jsonl"):
        return "jsonl"
    head = data[:64].lstrip()
    if head.startswith(b"<!DOCTYPE html") or head.startswith(b"<html"):
        return "html"
    if head.startswith((b"{", b"[")):
        try:
            msgspec.json.decode(data)
        except msgspec.DecodeError:
            return "jsonl" if b"\n{" in data else "text"
        try:
            decode_snapshot(data)
        except InputError:
            return "json"
        return "snapshot"
    return "text"


def _refuse_unreadable_json(data: bytes, name: str) -> None:
    """Refuse JSON (a document or JSON lines) nested deeper than ``limits.MAX_DEPTH`` or naming a
    key twice in one object: the parser keeps the last value, a person reads the first, and the
    audit would judge the one nobody sees.

    Raises:
        TooDeep, DuplicateKey: naming ``name`` and the line.
    """
    head = data[:64].lstrip()
    lower = name.lower()
    if not (head.startswith((b"{", b"[")) or lower.endswith((".json", ".jsonl"))):
        return
    source = name or None
    if not lower.endswith(".jsonl"):
        if nesting_depth(data, stop_above=MAX_DEPTH) > MAX_DEPTH:
            for number, line in enumerate(data.splitlines(), 1):  # name the line when one is
                check_depth(line, source=source, line=number)
            check_depth(data, source=source)
        try:
            document = parse_pairs(data)
        except (ValueError, UnicodeDecodeError):
            pass  # JSON lines, or not JSON at all (the format's own checks say which)
        else:
            _refuse_duplicate(document, source, None)
            return
    for number, line in enumerate(data.splitlines(), 1):
        check_depth(line, source=source, line=number)
        try:
            value = parse_pairs(line)
        except (ValueError, UnicodeDecodeError):
            continue
        _refuse_duplicate(value, source, number)


def _refuse_duplicate(value: Any, source: str | None, line: int | None) -> None:
    found = find_duplicate(value)
    if found is not None:
        key, where = found
        raise DuplicateKey(
            f"the key {key!r} appears twice in one object: a parser keeps one value and a reader may see "
            "the other, so this file cannot be audited as one document",
            source=source,
            line=line,
            path=where,
        )


# --- secret findings -------------------------------------------------------------------------


def _unescaped_quote_before(data: bytes, pos: int) -> int:
    while True:
        q = data.rfind(b'"', 0, pos)
        if q < 0:
            return -1
        j = q - 1
        while j >= 0 and data[j] == 0x5C:
            j -= 1
        if (q - 1 - j) % 2 == 0:
            return q
        pos = q


def _unescaped_quote_after(data: bytes, pos: int) -> int:
    while True:
        q = data.find(b'"', pos)
        if q < 0:
            return -1
        j = q - 1
        while j >= pos and data[j] == 0x5C:
            j -= 1
        if (q - 1 - j) % 2 == 0:
            return q
        pos = q + 1


def enclosing_string(data: bytes, start: int, end: int) -> tuple[int, str] | None:
    """(offset of the opening quote, decoded value) of the JSON string holding ``[start, end)``."""
    q = _unescaped_quote_before(data, start + 1 if data[start : start + 1] == b'"' else start)
    if q < 0:
        return None
    c = _unescaped_quote_after(data, q + 1)
    if c < 0 or c < end - 1:
        return None
    try:
        value = msgspec.json.decode(data[q : c + 1])
    except msgspec.DecodeError:
        return None
    return (q, value) if isinstance(value, str) else None


def enclosing_strings(data: bytes, hits: list[Hit]) -> list[tuple[int, str] | None]:
    """``enclosing_string`` of each hit, in one pass: hits inside the string found for an earlier
    hit share its result (the same object), so a string holding many secrets is decoded once."""
    out: list[tuple[int, str] | None] = [None] * len(hits)
    last: tuple[int, int, tuple[int, str]] | None = None  # (quote, closing quote, result)
    for i in sorted(range(len(hits)), key=lambda k: hits[k].start):
        hit = hits[i]
        if last is not None and last[0] < hit.start and hit.end <= last[1]:
            out[i] = last[2]
            continue
        owner = enclosing_string(data, hit.start, hit.end)
        out[i] = owner
        if owner is not None:
            close = _unescaped_quote_after(data, owner[0] + 1)
            last = (owner[0], close, owner)
    return out


def _json_locations(
    data: bytes, hits: list[Hit], slots: Iterable[Slot]
) -> list[tuple[str, ContentClass | None]]:
    """A JSON path (and class) for each hit, matching the n-th string occurrence to the n-th slot."""
    owners = enclosing_strings(data, hits)
    wanted: dict[str, set[int]] = {}
    for owner in owners:
        if owner is not None:
            wanted.setdefault(owner[1], set()).add(owner[0])
    places: dict[str, list[tuple[str, ContentClass | None]]] = {}
    if wanted:
        for slot in slots:
            if slot.text in wanted:
                places.setdefault(slot.text, []).append((slot.path, slot.cls))
    out: list[tuple[str, ContentClass | None]] = []
    orders: dict[int, int] = {}
    for owner in owners:
        if owner is None:
            out.append(("$ (outside any string)", None))
            continue
        quote, value = owner
        found = places.get(value, [])
        if len(found) > 1:
            # the n-th occurrence on the wire is the n-th slot (slots are in wire order)
            order = orders.get(quote)
            if order is None:
                order = orders[quote] = data.count(msgspec.json.encode(value), 0, quote)
            out.append(found[min(order, len(found) - 1)])
        else:
            out.append(found[0] if found else ("$", None))
    return out


def html_text(data: bytes) -> bytes:
    """An HTML document's text with character references decoded, line for line."""
    if b"&" not in data:
        return data
    lines = data.split(b"\n")
    return b"\n".join(
        html.unescape(line.decode("utf-8", "surrogateescape"))
        .replace("\n", " ")
        .encode("utf-8", "surrogateescape")
        if b"&" in line
        else line
        for line in lines
    )


def _line_starts(data: bytes) -> list[int]:
    return [0, *(m.end() for m in re.finditer(b"\n", data))]


def _secret_findings(
    data: bytes,
    fmt: str,
    hits: list[Hit],
    key: bytes,
    slots: list[Slot] | None,
    severity: Severity = Severity.CRITICAL,
) -> list[Finding]:
    if not hits:
        return []
    if fmt in ("snapshot", "json") and slots is not None:
        places = _json_locations(data, hits, slots)
    elif fmt == "jsonl":
        starts = _line_starts(data)
        places = []
        for hit in hits:
            n = bisect.bisect_right(starts, hit.start) - 1
            line_end = starts[n + 1] if n + 1 < len(starts) else len(data)
            line = data[starts[n] : line_end]
            sub = Hit(hit.rule, hit.start - starts[n], hit.end - starts[n], hit.value)
            try:
                value = msgspec.json.decode(line)
                path, cls = _json_locations(line, [sub], list(json_slots(value, "$", None)))[0]
            except msgspec.DecodeError:
                path, cls = "", None
            places.append((f"line {n + 1} {path}".rstrip(), cls))
    else:
        starts = _line_starts(data)
        places = [(f"line {bisect.bisect_right(starts, h.start)}", None) for h in hits]
    findings = {}
    for hit, (location, cls) in zip(hits, places, strict=True):
        f = Finding(hit.rule, severity, location, cls, fingerprint(key, hit.value))
        findings[(f.rule, f.location, f.fingerprint)] = f
    return list(findings.values())


# --- excluded classes still present ----------------------------------------------------------


def _structural_findings(
    slots: list[Slot], snapshot: SessionSnapshot, excluded: frozenset[ContentClass]
) -> list[Finding]:
    out: list[Finding] = []

    def flag(path: str, cls: ContentClass) -> None:
        out.append(Finding("excluded-class-present", Severity.HIGH, path, cls))

    for slot in slots:
        cls = slot.cls
        if cls is None:
            continue
        if slot.kind == SlotKind.RESULT:
            if cls not in excluded and ContentClass.DOCUMENTS not in excluded:
                continue
            spans = document_spans(slot.text)
            if ContentClass.DOCUMENTS in excluded and spans:
                flag(slot.path, ContentClass.DOCUMENTS)
            if cls in excluded:
                pos = 0
                for a, b in [*spans, (len(slot.text), len(slot.text))]:
                    piece = slot.text[pos:a]
                    if piece.strip() and not is_placeholder(piece):
                        flag(slot.path, cls)
                        break
                    pos = b
            continue
        if cls not in excluded:
            continue
        if (
            slot.kind == SlotKind.IMAGE_DATA
            or slot.kind == SlotKind.KEY
            or cls is ContentClass.METADATA
            or (slot.text.strip() and not is_placeholder(slot.text))
        ):
            flag(slot.path, cls)
    return out


def _mime_findings(snapshot: SessionSnapshot, history: str = "$.history") -> list[Finding]:
    out = []
    for i, message in enumerate(snapshot.history):
        for j, block in enumerate(message.content):
            image = block.image
            if image is None:
                continue
            try:
                head = base64.b64decode(image.data[:24] + "=" * (-len(image.data[:24]) % 4))
            except (binascii.Error, ValueError):
                head = b""
            actual = ImageContent.mime_type_from_bytes(head)
            if actual != image.mime_type:
                kind = message.kind.value
                where = (
                    f"{history}[{i}].message.{kind}"
                    if history != "$.history"
                    else f"$.history[{i}].{kind}"
                ) + (".content" if kind in ("EnrichedAssistant", "AbortedAssistant") else "")
                out.append(
                    Finding(
                        "image-mime-mismatch",
                        Severity.LOW,
                        f"{where}[{j}].Image",
                        ContentClass.IMAGES,
                    )
                )
    return out


# --- echoes of excluded content --------------------------------------------------------------


def _digest(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


_ROW_NUMBER: Final = re.compile(r"[ \t]*\d+:")
_ROW_NUMBERS: Final = re.compile(r"\n[ \t]*\d+:")
"""A row number after a line break: searched from the literal ``\n`` (twice as fast as ``(?m)^``)."""


_LONG: Final = (ECHO_LINE_MIN - 1).__lt__


def _long_lines(text: str) -> Iterator[str]:
    """The stripped lines of ``text`` at least ``ECHO_LINE_MIN`` long (C-level maps: the excluded
    text of a large session has millions of lines, most of them short)."""
    stripped = list(map(str.strip, text.splitlines()))
    return compress(stripped, map(_LONG, map(len, stripped)))


def _without_row_numbers(low: str) -> str | None:
    """``low`` with the row number taken off each line that has one (``12:    code``, as
    ``read_file`` shows a file; line for line, the same line breaks), or None if no line has one."""
    marked = "\n" + low
    if _ROW_NUMBERS.search(marked) is None:
        return None
    return _ROW_NUMBERS.sub("\n", marked)[1:]


class EchoIndex:
    """Lines (≥ 32 chars) and whole strings (≥ 16 chars) of excluded content, case-folded.

    Built from the originals ``apply_selection`` removed. Matching is exact on stripped,
    lower-cased lines, with set operations done in C, so the index costs about one pass over
    the excluded text and the check one pass over the output's text. A numbered file (``read_file``
    output: ``12:    code``) is indexed without its row numbers, and output lines are looked up
    with and without theirs: a line quoted with or without its number is found (its text, not
    counting the number, at least 32 characters), and the index holds each line once.
    """

    def __init__(self, originals: Iterable[tuple[ContentClass, str]]) -> None:
        lines: dict[ContentClass, set[str]] = {}
        wholes: dict[ContentClass, set[str]] = {}
        for cls, text in originals:
            low = text.lower()
            whole = low.strip()
            if len(whole) >= ECHO_STRING_MIN:
                wholes.setdefault(cls, set()).add(whole)
            if "\n" in whole:
                plain = _without_row_numbers(low) if _ROW_NUMBER.match(low) else None
                lines.setdefault(cls, set()).update(_long_lines(low if plain is None else plain))
        self._units: dict[str, ContentClass] = {}
        for cls, bucket in lines.items():
            self._units.update(dict.fromkeys(bucket, cls))
        for cls, bucket in wholes.items():
            self._units.update(dict.fromkeys(bucket, cls))

    def __bool__(self) -> bool:
        return bool(self._units)

    def match(self, unit: str) -> ContentClass | None:
        """The excluded class ``unit`` (stripped, lower-cased) echoes, if any."""
        cls = self._units.get(unit)
        if cls is not None and len(set(unit)) >= _ECHO_DISTINCT:
            return cls
        return None

    def _line_match(self, line: str, plain: str | None) -> ContentClass | None:
        """The class a line echoes as it is or, without its row number, as ``plain``."""
        cls = self.match(line.strip())
        if cls is None and plain is not None:
            cls = self.match(plain.strip())
        return cls

    def check(self, units: Iterable[tuple[str, str]]) -> list[Finding]:
        """Echo findings among ``(location, text)`` of included output content."""
        keys = self._units.keys()
        out: list[Finding] = []
        for location, text in units:
            low = text.lower()
            lines = low.splitlines()
            whole = low.strip()
            plain = _without_row_numbers(low)
            bare = plain.splitlines() if plain is not None else None
            if (
                whole not in keys
                and keys.isdisjoint(map(str.strip, lines))
                and (bare is None or keys.isdisjoint(map(str.strip, bare)))
            ):
                continue
            if is_placeholder(text):
                continue
            cls = self.match(whole)
            if cls is not None:
                out.append(
                    Finding(
                        "excluded-content-echo",
                        Severity.MEDIUM,
                        location,
                        cls,
                        digest=_digest(text.strip()),
                    )
                )
                continue  # the whole string echoes: its lines need no separate findings
            originals = text.splitlines()
            for k, line in enumerate(lines):
                cls = self._line_match(line, bare[k] if bare is not None else None)
                if cls is not None:
                    where = f"{location} line {k + 1}" if len(lines) > 1 else location
                    out.append(
                        Finding(
                            "excluded-content-echo",
                            Severity.MEDIUM,
                            where,
                            cls,
                            digest=_digest(originals[k].strip()),
                        )
                    )
        return out

    def check_decoded(
        self, pieces: Iterable[tuple[int, int, bytes]]
    ) -> list[tuple[int, int, ContentClass]]:
        """Encoded regions of the output (from the secret scan) whose decoded text echoes."""
        out = []
        for start, end, raw in pieces:
            low = raw.decode("utf-8", "ignore").lower()
            plain = _without_row_numbers(low)
            units = (low, *low.splitlines(), *(plain.splitlines() if plain is not None else ()))
            cls = next(filter(None, map(self.match, map(str.strip, units))), None)
            if cls is not None:
                out.append((start, end, cls))
        return out


def _decoded_echoes(
    data: bytes,
    fmt: str,
    echo: EchoIndex,
    pieces: list[tuple[int, int, bytes]],
    slots: list[Slot] | None,
    already: set[str],
) -> list[Finding]:
    """Echoes in URL-encoded, unicode-escaped or base64 regions, located like secrets."""
    found = echo.check_decoded(pieces)
    if not found:
        return []
    spans = [Hit("excluded-content-echo", start, end, b"") for start, end, _ in found]
    if slots is not None:
        places = _json_locations(data, spans, slots)
        texts = {s.path: s.text for s in slots}
    else:
        starts = _line_starts(data)
        places = [(f"line {bisect.bisect_right(starts, h.start)}", None) for h in spans]
        lines = data.decode("utf-8", "replace").splitlines()
        texts = {
            f"line {n}": (html.unescape(t) if fmt == "html" else t) for n, t in enumerate(lines, 1)
        }
    out = []
    for (location, _), (_, _, cls) in zip(places, found, strict=True):
        if location in already or location not in texts:
            continue
        already.add(location)
        out.append(
            Finding(
                "excluded-content-echo",
                Severity.MEDIUM,
                location,
                cls,
                digest=_digest(texts[location].strip()),
            )
        )
    return out


def echo_units_of_text(data: bytes, fmt: str) -> Iterator[tuple[str, str]]:
    """(location, line) of a transcript, HTML entities decoded."""
    text = data.decode("utf-8", "replace")
    for n, line in enumerate(text.splitlines(), 1):
        if line.strip():
            yield f"line {n}", html.unescape(line) if fmt == "html" else line


def _echo_units_of_slots(
    slots: Iterable[Slot], excluded: frozenset[ContentClass]
) -> Iterator[tuple[str, str]]:
    for slot in slots:
        if slot.cls is None or slot.cls not in excluded:
            yield slot.path, slot.text


def verify_echo(
    data: bytes, fmt: str, recorded: Iterable[Finding], slots: list[Slot] | None
) -> list[Finding]:
    """The recorded echo findings whose text is still at their location (same SHA-256)."""
    by_path = {s.path: s.text for s in slots} if slots is not None else {}
    lines: list[str] | None = None
    out = []
    for f in recorded:
        if f.rule != "excluded-content-echo" or f.digest is None:
            continue
        location = f.location
        text: str | None = None
        if slots is not None:
            path, _, line = location.partition(" line ")
            value = by_path.get(path)
            if value is not None:
                if line:
                    parts = value.splitlines()
                    k = int(line) - 1 if line.isdigit() else -1
                    text = parts[k].strip() if 0 <= k < len(parts) else None
                else:
                    text = value.strip()
        elif location.startswith("line "):
            if lines is None:
                lines = data.decode("utf-8", "replace").splitlines()
            k = int(location[5:]) - 1 if location[5:].isdigit() else -1
            if 0 <= k < len(lines):
                text = html.unescape(lines[k]).strip() if fmt == "html" else lines[k].strip()
        if text is not None and _digest(text) == f.digest:
            out.append(f)
    return out


# --- the audit -------------------------------------------------------------------------------


@large_buffers()  # (rho-desk audit: a decode and a scan of the whole file)
@collection_paused()
def audit_bytes(
    data: bytes,
    *,
    scanner: SecretScanner,
    key: bytes,
    fmt: str | None = None,
    name: str = "",
    excluded: frozenset[ContentClass] | None = None,
    echo: EchoIndex | None = None,
    recorded_echoes: Iterable[Finding] = (),
    hits: list[Hit] | None = None,
    decoded: list[tuple[int, int, bytes]] | None = None,
    encodes: SessionSnapshot | None = None,
    opinion_spans: Sequence[tuple[int, int]] | None = None,
) -> AuditReport:
    """Audit the exact bytes of an export, snapshot or transcript.

    Args:
        scanner: the secret scanner (rules plus known credentials).
        key: the fingerprint key.
        fmt: ``snapshot``, ``json``, ``jsonl``, ``markdown``, ``html`` or ``text``; detected
            when omitted.
        excluded: classes that must be absent; for a snapshot, read from its export markers when
            omitted.
        echo: the excluded originals (export time); without it, ``recorded_echoes`` (from a
            receipt) are re-verified instead.
        hits: ``scanner.scan(data)`` if the caller already ran it on exactly these bytes.
        decoded: with ``hits``, the decoded regions that scan collected (for encoded echoes).
        encodes: for a snapshot, the snapshot ``data`` is the pretty encoding of, when the caller
            has just encoded it (an export): walked as it is, not decoded from the bytes again.
        opinion_spans: the second opinion's candidates in ``data`` (``candidates``) when the
            caller found them meanwhile (not for HTML, which is read as the text it shows).
    """
    from ._redact import MARKER_EXCLUDED, outside_placeholders

    recorded_echoes = [f for f in recorded_echoes if f.rule == "excluded-content-echo"]
    if fmt is None:
        # bytes from elsewhere (``rho-desk audit``, a published version): bounded before parsing
        _refuse_unreadable_json(data, name)
        fmt = detect_format(data, name)
    # HTML is scanned as the text it shows (entities decoded, line by line: lines keep their
    # numbers), so an HTML transcript and the Markdown of the same selection agree
    scanned = html_text(data) if fmt == "html" else data
    if hits is None:
        decoded = [] if echo else None
        hits = scanner.scan(scanned, decoded=decoded)
    # the placeholders the redaction wrote are not secrets, whatever a rule reads in them
    hits = outside_placeholders(scanned, hits)
    # what the scanner missed, by a detector that shares none of its rules (its own findings
    # are not reported twice)
    suspected = outside_placeholders(
        scanned,
        second_opinion(
            scanned, [(h.start, h.end) for h in hits], None if fmt == "html" else opinion_spans
        ),
    )
    notes: list[str] = []
    slots: list[Slot] | None = None
    snapshot: SessionSnapshot | None = None
    history_path = "$.history"
    if fmt == "snapshot":
        # decoding is also the check that the output is a valid schema-2 snapshot (an encoding
        # rho-desk just made of one is)
        snapshot = encodes if encodes is not None else decode_snapshot(data, source=name or None)
        if excluded is None:
            marker = snapshot.metadata.get(MARKER_EXCLUDED)
            excluded = (
                frozenset(ContentClass(n) for n in marker.split(",") if n in _NAMES)
                if marker
                else frozenset()
            )
        # the walk costs a few hundred ms on 100 MB: only when something needs paths or classes
        if hits or suspected or excluded or echo or recorded_echoes:
            slots = list(iter_slots(snapshot))
    elif fmt == "json" and (display := decode_display_export(data)) is not None:
        # a display export: the conversation as shown, classified like a snapshot's history
        snapshot, stamps = display
        history_path = "$.messages"
        if excluded is None:
            marker = snapshot.metadata.get(MARKER_EXCLUDED)
            excluded = (
                frozenset(ContentClass(n) for n in marker.split(",") if n in _NAMES)
                if marker
                else frozenset()
            )
        slots = list(display_slots(snapshot, stamps))
    elif fmt == "json":
        slots = list(json_slots(msgspec.json.decode(data), "$", None))
    excluded = excluded or frozenset()
    findings = _secret_findings(scanned, fmt, hits, key, slots)
    findings += _secret_findings(scanned, fmt, suspected, key, slots, Severity.MEDIUM)
    if snapshot is not None:
        if slots is not None:
            findings += _structural_findings(slots, snapshot, excluded)
        if ContentClass.IMAGES not in excluded:
            findings += _mime_findings(snapshot, history_path)
    if echo:
        if slots is not None:
            units: Iterable[tuple[str, str]] = _echo_units_of_slots(slots, excluded)
        else:
            units = list(echo_units_of_text(data, fmt))
        found = echo.check(units)
        findings += found
        findings += _decoded_echoes(
            scanned,
            fmt,
            echo,
            decoded or [],
            slots,
            {(f.location.split(" line ")[0]) for f in found},
        )
    else:
        if recorded_echoes:
            findings += verify_echo(data, fmt, recorded_echoes, slots)
        if excluded:
            notes.append(
                "echoes of excluded content are found only at export time (they need the source)"
            )
    # a location names object keys, and a key can be a secret: never report one
    findings = [
        f
        if own_path(f.location) or (safe := scanner.redact_location(f.location)) == f.location
        else replace(f, location=safe)
        for f in findings
    ]
    findings.sort(key=Finding.sort_key)
    return AuditReport("display" if history_path != "$.history" else fmt, findings, excluded, notes)


_NAMES: Final = frozenset(c.value for c in ContentClass)
