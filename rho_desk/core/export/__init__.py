"""Redacted export: content classes, secret redaction, the audit, receipts and transcripts.

A snapshot is a data export, not a sanitized transcript (seed, "Export safety"). This package lets
a person choose which of the nine content classes leave the machine and proves nothing else did:

1. ``class_stats`` classifies every string (``iter_slots``) into ``ContentClass``;
2. ``export_snapshot`` replaces excluded classes with typed placeholders, redacts every secret
   (``SecretScanner``: rule secrets and known credentials, plain and encoded) with a fingerprinted
   placeholder, renders JSON, Markdown or HTML, and audits the exact bytes (``audit_bytes``);
3. ``build_receipt`` describes what was written; ``write_files_atomic`` writes export and receipt;
4. ``audit_bytes`` re-runs the audit on any file; ``verify_receipt`` compares with a receipt.

The core takes the known secrets and the fingerprint key as parameters: gathering them from
keyring is the caller's job (``fingerprint_key`` helps with the key).
"""

from ._atomic import OutputExists, write_files_atomic
from ._audit import AuditReport, EchoIndex, Finding, Severity, audit_bytes, detect_format
from ._classes import (
    ALL_CLASSES,
    CLASS_NAMES,
    ContentClass,
    Selection,
    UnknownContentClass,
    parse_classes,
)
from ._classify import ClassStats, Slot, class_stats, is_placeholder, iter_slots
from ._export import FORMATS, ExportResult, export_snapshot
from ._keys import KEY_SERVICE, KEY_USERNAME, fingerprint_key, key_id, stored_key_text
from ._receipt import (
    RECEIPT_FORMAT,
    RECEIPT_VERSION,
    Receipt,
    ReceiptCheck,
    build_receipt,
    decode_receipt,
    encode_receipt,
    verify_receipt,
)
from ._redact import (
    MARKER_EXCLUDED,
    MARKER_REDACTED,
    Exclusion,
    Redaction,
    apply_selection,
    with_markers,
)
from ._secrets import RULES, Hit, SecretScanner, fingerprint
from ._transcript import render_html, render_markdown

__all__ = [
    "ALL_CLASSES",
    "CLASS_NAMES",
    "FORMATS",
    "KEY_SERVICE",
    "KEY_USERNAME",
    "MARKER_EXCLUDED",
    "MARKER_REDACTED",
    "RECEIPT_FORMAT",
    "RECEIPT_VERSION",
    "RULES",
    "AuditReport",
    "ClassStats",
    "ContentClass",
    "EchoIndex",
    "Exclusion",
    "ExportResult",
    "Finding",
    "Hit",
    "OutputExists",
    "Receipt",
    "ReceiptCheck",
    "Redaction",
    "SecretScanner",
    "Selection",
    "Severity",
    "Slot",
    "UnknownContentClass",
    "apply_selection",
    "audit_bytes",
    "build_receipt",
    "class_stats",
    "decode_receipt",
    "detect_format",
    "encode_receipt",
    "export_snapshot",
    "fingerprint",
    "fingerprint_key",
    "is_placeholder",
    "iter_slots",
    "key_id",
    "parse_classes",
    "render_html",
    "render_markdown",
    "stored_key_text",
    "verify_receipt",
    "with_markers",
    "write_files_atomic",
]
