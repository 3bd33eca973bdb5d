"""The receipt written beside every export, and its verification.

A receipt says what left the machine and proves the file is the one audited: format version,
rho-desk version, source session id and revision, the classes included and excluded with their
counts, every redaction (rule id, JSON path, class, fingerprint), the findings of the audit of the
exact bytes written, any override, and the SHA-256 of the exported file. It holds no secret and
no excluded content: fingerprints are keyed HMACs; echo digests hash text that is in the export.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Final

import msgspec

from ... import __version__
from ..errors import InputError
from ._audit import AuditReport, Finding
from ._classes import ALL_CLASSES
from ._export import ExportResult

__all__ = [
    "RECEIPT_FORMAT",
    "RECEIPT_VERSION",
    "Receipt",
    "ReceiptCheck",
    "build_receipt",
    "decode_receipt",
    "encode_receipt",
    "verify_receipt",
]

RECEIPT_FORMAT: Final = "rho-desk.export-receipt"
RECEIPT_VERSION: Final = 1


class ReceiptSource(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    session_id: str
    revision: int
    file: str | None = None
    """The source file's name (not its folder: that would tell where the user keeps things)."""


class ReceiptOutput(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    file: str
    format: str
    bytes: int
    sha256: str


class ReceiptSelection(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    included: list[str]
    excluded: list[str]


class ReceiptClass(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    included: bool
    strings: int
    """Strings (or document lines) of this class in the source."""
    bytes: int
    """Their UTF-8 size on the wire."""
    placeholders: int
    """Typed placeholders left where this class was excluded."""


class ReceiptRedaction(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    rule: str
    path: str
    cls: str | None = msgspec.field(name="class")
    fingerprint: str
    encoding: str


class ReceiptFinding(msgspec.Struct, frozen=True, omit_defaults=True, forbid_unknown_fields=True):
    rule: str
    severity: str
    location: str
    cls: str | None = msgspec.field(default=None, name="class")
    fingerprint: str | None = None
    digest: str | None = None


class ReceiptOverride(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    allow_findings: bool
    blocking_findings: int


class ReceiptCredentials(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    checked: int
    """Known credentials searched for (plain and encoded)."""
    ignored_short: int
    """Known credentials too short to search for without matching ordinary text."""


class Receipt(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The receipt document (JSON, pretty-printed)."""

    format: str
    format_version: int
    rho_desk_version: str
    created_at: str
    source: ReceiptSource
    output: ReceiptOutput
    selection: ReceiptSelection
    classes: dict[str, ReceiptClass]
    redactions: list[ReceiptRedaction]
    findings: list[ReceiptFinding]
    override: ReceiptOverride | None
    known_credentials: ReceiptCredentials
    fingerprint_key_id: str
    notes: list[str] = []

    def finding_objects(self) -> list[Finding]:
        return [Finding.from_json(msgspec.to_builtins(f)) for f in self.findings]


def build_receipt(
    result: ExportResult,
    *,
    output_name: str,
    key_id: str,
    source_name: str | None = None,
    allow_findings: bool = False,
    created_at: datetime | None = None,
) -> Receipt:
    """The receipt of ``result`` as it will be written under ``output_name``."""
    stats = result.stats
    placeholders = result.exclusion.placeholders
    classes = {
        c.value: ReceiptClass(
            included=result.selection.includes(c),
            strings=stats.strings[c],
            bytes=stats.bytes[c],
            placeholders=placeholders.get(c, 0),
        )
        for c in ALL_CLASSES
    }
    blocking = len(result.report.blocking)
    override = ReceiptOverride(allow_findings=True, blocking_findings=blocking) if allow_findings and blocking else None
    stamp = (created_at or datetime.now(UTC)).strftime("%Y-%m-%dT%H:%M:%SZ")
    return Receipt(
        format=RECEIPT_FORMAT,
        format_version=RECEIPT_VERSION,
        rho_desk_version=__version__,
        created_at=stamp,
        source=ReceiptSource(result.source.session_id, result.source.revision, source_name),
        output=ReceiptOutput(output_name, result.format, len(result.data), result.sha256),
        selection=ReceiptSelection(result.selection.included_names(), result.selection.excluded_names()),
        classes=classes,
        redactions=[
            ReceiptRedaction(r.rule, r.path, r.cls.value if r.cls else None, r.fingerprint, r.encoding)
            for r in result.redactions
        ],
        findings=[msgspec.convert(f.to_json(), ReceiptFinding) for f in result.report.findings],
        override=override,
        known_credentials=ReceiptCredentials(result.known_checked, result.known_ignored_short),
        fingerprint_key_id=key_id,
        notes=list(result.report.notes),
    )


def encode_receipt(receipt: Receipt) -> bytes:
    return msgspec.json.format(msgspec.json.encode(receipt), indent=2) + b"\n"


def decode_receipt(data: bytes, *, source: str | None = None) -> Receipt:
    """Parse a receipt.

    Raises:
        InputError: not a receipt this version of rho-desk reads.
    """
    try:
        receipt = msgspec.json.decode(data, type=Receipt)
    except msgspec.ValidationError as exc:
        raise InputError(f"not a rho-desk export receipt: {exc}", source=source) from None
    except msgspec.DecodeError as exc:
        raise InputError(f"not JSON: {exc}", source=source) from None
    if receipt.format != RECEIPT_FORMAT or receipt.format_version != RECEIPT_VERSION:
        raise InputError(
            f"unsupported receipt {receipt.format} version {receipt.format_version}", source=source
        )
    return receipt


@dataclass
class ReceiptCheck:
    """How a file and a fresh audit compare with the receipt written beside it."""

    sha256_ok: bool
    size_ok: bool
    fingerprints_compared: bool
    """False when the receipt was made with another fingerprint key (another machine)."""
    missing: list[Finding] = field(default_factory=list)
    """In the receipt, not found again."""
    unexpected: list[Finding] = field(default_factory=list)
    """Found now, not in the receipt."""

    @property
    def ok(self) -> bool:
        return self.sha256_ok and self.size_ok and not self.missing and not self.unexpected

    def to_json(self) -> dict[str, object]:
        return {
            "sha256_ok": self.sha256_ok,
            "size_ok": self.size_ok,
            "fingerprints_compared": self.fingerprints_compared,
            "findings_reproduced": not self.missing and not self.unexpected,
            "missing": [f.to_json() for f in self.missing],
            "unexpected": [f.to_json() for f in self.unexpected],
        }


def verify_receipt(receipt: Receipt, data: bytes, report: AuditReport, key_id: str) -> ReceiptCheck:
    """Check the file's SHA-256 and size, and that the audit reproduces the receipt's findings."""
    compare_fp = receipt.fingerprint_key_id == key_id

    def ident(f: Finding) -> tuple[str, str, str, str | None, str | None]:
        return (f.rule, f.severity.value, f.location, f.fingerprint if compare_fp else None, f.digest)

    recorded = Counter(ident(f) for f in receipt.finding_objects())
    fresh = Counter(ident(f) for f in report.findings)
    by_ident = {ident(f): f for f in [*receipt.finding_objects(), *report.findings]}
    missing = [by_ident[k] for k in (recorded - fresh).elements()]
    unexpected = [by_ident[k] for k in (fresh - recorded).elements()]
    return ReceiptCheck(
        sha256_ok=hashlib.sha256(data).hexdigest() == receipt.output.sha256,
        size_ok=len(data) == receipt.output.bytes,
        fingerprints_compared=compare_fp,
        missing=missing,
        unexpected=unexpected,
    )
