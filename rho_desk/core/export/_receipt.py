"""The receipt written beside every export, its signature, and its verification.

A receipt says what left the machine and proves the file is the one audited: format version,
rho-desk version, source session id and revision, which history was exported (``display``: the
conversation as shown; ``model``: the model context), the classes included and excluded with
their counts, every redaction (rule id, JSON path, class, fingerprint), the findings of the audit
of the exact bytes written, any override, the scanner's rule-set version, and the SHA-256 and size
of the exported file; a note names the version of the audit's second opinion. It holds no secret and no excluded content: fingerprints are keyed HMACs;
echo digests hash text that is in the export.

Receipts are documents people exchange, so they are pydantic models with a published JSON
Schema (``docs/schemas/export-receipt.v2.json``). Version 2 adds ``history``,
``ruleset_version`` and ``signature``: an Ed25519 signature, made with the sender's signing key,
over every other field of the receipt (:func:`signed_bytes`). Version 1 receipts still read.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Final, Literal

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ... import __version__
from ..errors import InputError
from ._audit import AuditReport, Finding
from ._classes import ALL_CLASSES
from ._export import ExportResult
from ._keys import public_key_text
from ._opinion import OPINION_RULE_PREFIX, OPINION_VERSION
from .scanner import RULESET_VERSION

__all__ = [
    "RECEIPT_FORMAT",
    "RECEIPT_VERSION",
    "Receipt",
    "ReceiptCheck",
    "ReceiptSignature",
    "build_receipt",
    "decode_receipt",
    "encode_receipt",
    "receipt_json_schema",
    "sign_receipt",
    "signed_bytes",
    "verify_receipt",
]

RECEIPT_FORMAT: Final = "rho-desk.export-receipt"
RECEIPT_VERSION: Final = 2
SIGNATURE_ALGORITHM: Final = "Ed25519"
_SIGNED_PREFIX: Final = b"rho-desk.export-receipt signature v1\n"

HistoryKind = Literal["display", "model"]
_OPINION_NOTE_START: Final = "second opinion v"
OPINION_NOTE: Final = (
    f"{_OPINION_NOTE_START}{OPINION_VERSION}: the audit also looked for secrets by structure and randomness, "
    f"without the scanner's rules (its findings: {OPINION_RULE_PREFIX}<kind>, medium)"
)
"""The note every receipt carries since the audit has a second opinion (a receipt without it
predates it: a fresh audit's second-opinion findings are not compared with it)."""


class _Part(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


class ReceiptSource(_Part):
    session_id: str
    revision: int
    file: str | None = Field(default=None, description="The source file's name (never its folder).")


class ReceiptOutput(_Part):
    file: str
    format: str
    bytes: int = Field(ge=0)
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")


class ReceiptSelection(_Part):
    included: list[str]
    excluded: list[str]


class ReceiptClass(_Part):
    included: bool
    strings: int = Field(
        ge=0, description="Strings (or document lines) of this class in the source."
    )
    bytes: int = Field(ge=0, description="Their UTF-8 size on the wire.")
    placeholders: int = Field(
        ge=0, description="Typed placeholders left where this class was excluded."
    )


class ReceiptRedaction(_Part):
    rule: str
    path: str
    cls: str | None = Field(default=None, alias="class")
    fingerprint: str
    encoding: str


class ReceiptFinding(_Part):
    rule: str
    severity: Literal["critical", "high", "medium", "low"]
    location: str
    cls: str | None = Field(default=None, alias="class")
    fingerprint: str | None = None
    digest: str | None = None


class ReceiptOverride(_Part):
    allow_findings: bool
    blocking_findings: int = Field(ge=0)


class ReceiptCredentials(_Part):
    checked: int = Field(ge=0, description="Known credentials searched for (plain and encoded).")
    ignored_short: int = Field(ge=0, description="Known credentials too short to search for.")


class ReceiptSignature(_Part):
    """An Ed25519 signature over :func:`signed_bytes` of the receipt."""

    algorithm: Literal["Ed25519"]
    public_key: str = Field(description="The signer's public key, ed25519:<base64>.")
    value: str = Field(description="The signature, base64.")


class Receipt(_Part):
    """The receipt document (JSON, pretty-printed)."""

    model_config = ConfigDict(
        extra="forbid",
        frozen=True,
        populate_by_name=True,
        title="rho-desk export receipt",
    )

    format: Literal["rho-desk.export-receipt"]
    format_version: Literal[1, 2]
    rho_desk_version: str
    created_at: str
    history: HistoryKind = Field(
        default="model",
        description="display: the conversation as shown; model: the model context (version 1 receipts: model).",
    )
    ruleset_version: int | None = Field(
        default=None, description="The secret scanner's rule-set version."
    )
    source: ReceiptSource
    output: ReceiptOutput
    selection: ReceiptSelection
    classes: dict[str, ReceiptClass]
    redactions: list[ReceiptRedaction]
    findings: list[ReceiptFinding]
    override: ReceiptOverride | None = None
    known_credentials: ReceiptCredentials
    fingerprint_key_id: str
    notes: list[str] = []
    signature: ReceiptSignature | None = None

    def finding_objects(self) -> list[Finding]:
        return [
            Finding.from_json(f.model_dump(by_alias=True, exclude_none=True)) for f in self.findings
        ]


def receipt_json_schema() -> dict[str, Any]:
    """The JSON Schema of receipts (published as ``docs/schemas/export-receipt.v2.json``)."""
    schema = Receipt.model_json_schema(by_alias=True)
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = "https://rho-desk.invalid/schemas/export-receipt.v2.json"
    return schema


def signed_bytes(receipt: Receipt) -> bytes:
    """What the signature covers: every field but ``signature``, as canonical JSON (sorted keys,
    no spaces, absent and null the same), after a fixed prefix."""
    body = receipt.model_dump(mode="json", by_alias=True, exclude_none=True, exclude={"signature"})
    return _SIGNED_PREFIX + json.dumps(
        body, sort_keys=True, separators=(",", ":"), ensure_ascii=False
    ).encode("utf-8")


def sign_receipt(receipt: Receipt, key: Ed25519PrivateKey) -> Receipt:
    """``receipt`` with its signature made by ``key``."""
    unsigned = receipt.model_copy(update={"signature": None})
    value = base64.b64encode(key.sign(signed_bytes(unsigned))).decode("ascii")
    signature = ReceiptSignature(
        algorithm=SIGNATURE_ALGORITHM, public_key=public_key_text(key), value=value
    )
    return unsigned.model_copy(update={"signature": signature})


def build_receipt(
    result: ExportResult,
    *,
    output_name: str,
    key_id: str,
    source_name: str | None = None,
    allow_findings: bool = False,
    created_at: datetime | None = None,
    signing_key: Ed25519PrivateKey | None = None,
) -> Receipt:
    """The receipt of ``result`` as it will be written under ``output_name``.

    Args:
        signing_key: sign the receipt (``signing_key(keys)`` in the app and the CLI).
    """
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
    override = (
        ReceiptOverride(allow_findings=True, blocking_findings=blocking)
        if allow_findings and blocking
        else None
    )
    stamp = (created_at or datetime.now(UTC)).strftime("%Y-%m-%dT%H:%M:%SZ")
    receipt = Receipt(
        format=RECEIPT_FORMAT,
        format_version=RECEIPT_VERSION,
        rho_desk_version=__version__,
        created_at=stamp,
        history=result.history,
        ruleset_version=RULESET_VERSION,
        source=ReceiptSource(
            session_id=result.source.session_id, revision=result.source.revision, file=source_name
        ),
        output=ReceiptOutput(
            file=output_name, format=result.format, bytes=len(result.data), sha256=result.sha256
        ),
        selection=ReceiptSelection(
            included=result.selection.included_names(), excluded=result.selection.excluded_names()
        ),
        classes=classes,
        redactions=[
            ReceiptRedaction(
                rule=r.rule,
                path=r.path,
                cls=r.cls.value if r.cls else None,
                fingerprint=r.fingerprint,
                encoding=r.encoding,
            )
            for r in result.redactions
        ],
        findings=[ReceiptFinding.model_validate(f.to_json()) for f in result.report.findings],
        override=override,
        known_credentials=ReceiptCredentials(
            checked=result.known_checked, ignored_short=result.known_ignored_short
        ),
        fingerprint_key_id=key_id,
        notes=[*result.report.notes, OPINION_NOTE],
    )
    return receipt if signing_key is None else sign_receipt(receipt, signing_key)


def encode_receipt(receipt: Receipt) -> bytes:
    """The receipt as pretty JSON (absent optional fields are left out)."""
    body = receipt.model_dump(mode="json", by_alias=True, exclude_none=True)
    return json.dumps(body, indent=2, ensure_ascii=False).encode("utf-8") + b"\n"


def _validation_text(exc: ValidationError) -> str:
    first = exc.errors()[0]
    where = ".".join(str(p) for p in first["loc"]) or "the document"
    more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
    return f"{where}: {first['msg']}{more}"


def decode_receipt(data: bytes, *, source: str | None = None) -> Receipt:
    """Parse a receipt (version 1 or 2).

    A receipt that names one key twice is refused: the signature covers the value a parser keeps
    (the last), while a person reads the first (``"history": "model"`` before the real
    ``"display"``).

    Raises:
        InputError: not a receipt this version of rho-desk reads, naming the first bad field;
            ``DuplicateKey`` for a repeated key, ``TooDeep`` for absurd nesting.
    """
    from ..wire.limits import loads_unique

    try:
        head = loads_unique(data, source=source)
    except UnicodeDecodeError as exc:
        raise InputError(f"not JSON: {exc}", source=source) from None
    if (
        isinstance(head, dict)
        and head.get("format") == RECEIPT_FORMAT
        and head.get("format_version") not in (1, 2)
    ):
        raise InputError(
            f"unsupported receipt {RECEIPT_FORMAT} version {head.get('format_version')}",
            source=source,
        )
    try:
        return Receipt.model_validate(head)
    except ValidationError as exc:
        raise InputError(
            f"not a rho-desk export receipt: {_validation_text(exc)}", source=source
        ) from None


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
    signature: str | None = None
    """``None``: not checked; else ``valid``, ``missing``, ``other-key`` or ``invalid``."""
    file_bytes: int = 0
    receipt_bytes: int = 0

    @property
    def findings_reproduced(self) -> bool:
        return not self.missing and not self.unexpected

    @property
    def ok(self) -> bool:
        return (
            self.sha256_ok
            and self.size_ok
            and self.findings_reproduced
            and self.signature in (None, "valid")
        )

    def failures(self) -> list[str]:
        """One line per failed check, for a person."""
        out = []
        if not self.size_ok:
            out.append(
                f"size does not match: the receipt says {self.receipt_bytes} bytes, the file has {self.file_bytes}"
            )
        if not self.sha256_ok:
            out.append("sha256 does not match the file")
        if not self.findings_reproduced:
            out.append(
                f"findings differ: {len(self.missing)} in the receipt not found, {len(self.unexpected)} new"
            )
        if self.signature == "missing":
            out.append("the receipt is not signed")
        elif self.signature == "other-key":
            out.append("the receipt is signed with another key than the one given")
        elif self.signature == "invalid":
            out.append("the signature does not match the receipt: it was changed after signing")
        return out

    def to_json(self) -> dict[str, object]:
        return {
            "sha256_ok": self.sha256_ok,
            "size_ok": self.size_ok,
            "fingerprints_compared": self.fingerprints_compared,
            "findings_reproduced": self.findings_reproduced,
            "missing": [f.to_json() for f in self.missing],
            "unexpected": [f.to_json() for f in self.unexpected],
            "signature": self.signature,
            "failures": self.failures(),
        }


def _check_signature(receipt: Receipt, public_key: Ed25519PublicKey) -> str:
    signature = receipt.signature
    if signature is None:
        return "missing"
    if signature.public_key != public_key_text(public_key):
        return "other-key"
    try:
        value = base64.b64decode(signature.value, validate=True)
        public_key.verify(value, signed_bytes(receipt))
    except (binascii.Error, ValueError, InvalidSignature):
        return "invalid"
    return "valid"


def verify_receipt(
    receipt: Receipt,
    data: bytes,
    report: AuditReport,
    key_id: str,
    *,
    public_key: Ed25519PublicKey | None = None,
) -> ReceiptCheck:
    """Check the file's SHA-256 and size, that the audit reproduces the receipt's findings, and
    (with ``public_key``) that the receipt carries a valid signature by that key."""
    compare_fp = receipt.fingerprint_key_id == key_id

    def ident(f: Finding) -> tuple[str, str, str, str | None, str | None]:
        return (
            f.rule,
            f.severity.value,
            f.location,
            f.fingerprint if compare_fp else None,
            f.digest,
        )

    recorded_findings = receipt.finding_objects()
    findings = report.findings
    if not any(n.startswith(OPINION_NOTE[: OPINION_NOTE.index(":") + 1]) for n in receipt.notes):
        # audited before the second opinion, or by another version of it (what it finds
        # changed): its suspicions and today's are not compared
        findings = [f for f in findings if not f.rule.startswith(OPINION_RULE_PREFIX)]
        recorded_findings = [
            f for f in recorded_findings if not f.rule.startswith(OPINION_RULE_PREFIX)
        ]
    recorded = Counter(ident(f) for f in recorded_findings)
    fresh = Counter(ident(f) for f in findings)
    by_ident = {ident(f): f for f in [*receipt.finding_objects(), *findings]}
    missing = [by_ident[k] for k in (recorded - fresh).elements()]
    unexpected = [by_ident[k] for k in (fresh - recorded).elements()]
    return ReceiptCheck(
        sha256_ok=hashlib.sha256(data).hexdigest() == receipt.output.sha256,
        size_ok=len(data) == receipt.output.bytes,
        fingerprints_compared=compare_fp,
        missing=missing,
        unexpected=unexpected,
        signature=None if public_key is None else _check_signature(receipt, public_key),
        file_bytes=len(data),
        receipt_bytes=receipt.output.bytes,
    )
