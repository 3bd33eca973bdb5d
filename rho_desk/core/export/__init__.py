"""Redacted export: content classes, secret redaction, the audit, receipts and transcripts.

A snapshot is a data export, not a sanitized transcript (seed, "Export safety"). This package lets
a person choose which of the nine content classes leave the machine and proves nothing else did:

1. ``class_stats`` classifies every string (``iter_slots``) into ``ContentClass``;
2. ``export_snapshot`` replaces excluded classes with typed placeholders, redacts every secret
   (``SecretScanner``: rule secrets and known credentials, plain and encoded) with a fingerprinted
   placeholder, renders JSON, Markdown or HTML, and audits the exact bytes (``audit_bytes``: the
   scanner again, and a second opinion that shares none of its rules, ``_opinion``);
3. ``build_receipt`` describes what was written; ``write_files_atomic`` writes export and receipt;
   ``build_export`` (step 2, the preview) and ``sign_export`` (the signed receipt) are the two calls
   every front end makes (the export dialog, ``rho-desk export``, publishing); ``export_signed``
   is both at once;
4. ``audit_bytes`` re-runs the audit on any file; ``verify_receipt`` compares with a receipt.

An export takes the conversation as shown (``display``, the default of the app and the CLI:
``open_export_source``, ``display_snapshot``) or the model context (``model``). Receipts are
signed (``build_receipt(..., signing_key=...)``) and verified with the signer's public key.

The core takes the known secrets and the keys as parameters: it receives rho-desk's own keys
through :class:`rho_desk.core.secrets.keys.KeySource` (``fingerprint_key(keys)``, ``signing_key(keys)``),
whose implementations (keyring, key file) live in ``rho_desk.keys``.
"""

from ._atomic import OutputExists, OutputIsInput, check_outputs, write_files_atomic
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
from ._display import (
    DISPLAY_FORMAT,
    DISPLAY_VERSION,
    HISTORY_KINDS,
    DisplayEntry,
    DisplayExport,
    decode_display_export,
    display_export_schema,
    display_snapshot,
    encode_display_export,
    index_title,
    open_export_source,
    with_title,
)
from ._export import FORMATS, ExportResult, export_snapshot
from ._keys import (
    PUBLIC_KEY_PREFIX,
    fingerprint_key,
    key_id,
    parse_public_key,
    public_key_text,
    signing_key,
)
from ._opinion import OPINION_RULE_PREFIX
from ._pipeline import (
    ExportKeys,
    ExportSource,
    SignedExport,
    SignOptions,
    build_export,
    export_keys,
    export_signed,
    read_export_source,
    sign_export,
)
from ._receipt import (
    RECEIPT_FORMAT,
    RECEIPT_VERSION,
    Receipt,
    ReceiptCheck,
    ReceiptSignature,
    build_receipt,
    decode_receipt,
    encode_receipt,
    receipt_json_schema,
    sign_receipt,
    signed_bytes,
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
from ._transcript import render_html, render_markdown
from .scanner import RULES, RULESET_VERSION, Hit, SecretScanner, fingerprint

__all__ = [
    "ALL_CLASSES",
    "CLASS_NAMES",
    "DISPLAY_FORMAT",
    "DISPLAY_VERSION",
    "FORMATS",
    "HISTORY_KINDS",
    "MARKER_EXCLUDED",
    "MARKER_REDACTED",
    "OPINION_RULE_PREFIX",
    "PUBLIC_KEY_PREFIX",
    "RECEIPT_FORMAT",
    "RECEIPT_VERSION",
    "RULES",
    "RULESET_VERSION",
    "AuditReport",
    "ClassStats",
    "ContentClass",
    "DisplayEntry",
    "DisplayExport",
    "EchoIndex",
    "Exclusion",
    "ExportKeys",
    "ExportResult",
    "ExportSource",
    "Finding",
    "Hit",
    "OutputExists",
    "OutputIsInput",
    "Receipt",
    "ReceiptCheck",
    "ReceiptSignature",
    "Redaction",
    "SecretScanner",
    "Selection",
    "Severity",
    "SignOptions",
    "SignedExport",
    "Slot",
    "UnknownContentClass",
    "apply_selection",
    "audit_bytes",
    "build_export",
    "build_receipt",
    "check_outputs",
    "class_stats",
    "decode_display_export",
    "decode_receipt",
    "detect_format",
    "display_export_schema",
    "display_snapshot",
    "encode_display_export",
    "encode_receipt",
    "export_keys",
    "export_signed",
    "export_snapshot",
    "fingerprint",
    "fingerprint_key",
    "index_title",
    "is_placeholder",
    "iter_slots",
    "key_id",
    "open_export_source",
    "parse_classes",
    "parse_public_key",
    "public_key_text",
    "read_export_source",
    "receipt_json_schema",
    "render_html",
    "render_markdown",
    "sign_export",
    "sign_receipt",
    "signed_bytes",
    "signing_key",
    "verify_receipt",
    "with_markers",
    "with_title",
    "write_files_atomic",
]
