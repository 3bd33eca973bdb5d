"""Verifying a published version against its receipt, as ``rho-desk audit`` does for a file.

The stored export is audited again (secrets, excluded classes, echoes) and compared with the
receipt stored beside it: the SHA-256 and size must match and the audit must reproduce the
receipt's findings. With another machine's fingerprint key the fingerprints are not compared
(the check says so).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..core.errors import InputError
from ..core.export import (
    AuditReport,
    ContentClass,
    ReceiptCheck,
    SecretScanner,
    audit_bytes,
    decode_receipt,
    key_id,
    verify_receipt,
)

__all__ = ["Verification", "verify_published"]


@dataclass(frozen=True)
class Verification:
    ok: bool
    summary: str
    """One line for a person: verified, or what does not match."""
    check: ReceiptCheck | None
    report: AuditReport | None

    def to_json(self) -> dict[str, object]:
        return {
            "ok": self.ok,
            "summary": self.summary,
            "check": None if self.check is None else self.check.to_json(),
            "findings": [] if self.report is None else [f.to_json() for f in self.report.findings],
        }


def verify_published(export: bytes, receipt_bytes: bytes, *, key: bytes, known_secrets: list[str]) -> Verification:
    """Audit ``export`` again and compare with its receipt (CPU only: run it off the event loop)."""
    try:
        receipt = decode_receipt(receipt_bytes, source="receipt")
    except InputError as exc:
        return Verification(False, f"the stored receipt is unreadable: {exc.reason}", None, None)
    valid = {c.value for c in ContentClass}
    excluded = frozenset(ContentClass(n) for n in receipt.selection.excluded if n in valid)
    report = audit_bytes(
        export,
        scanner=SecretScanner(known_secrets),
        key=key,
        name=receipt.output.file,
        excluded=excluded,
        recorded_echoes=receipt.finding_objects(),
    )
    check = verify_receipt(receipt, export, report, key_id(key))
    if check.ok:
        extra = "" if check.fingerprints_compared else " (fingerprints not compared: published with another key)"
        return Verification(True, f"receipt verified: sha256 matches, findings reproduced{extra}", check, report)
    problems = []
    if not check.sha256_ok or not check.size_ok:
        problems.append("the export is not the one the receipt describes (sha256 or size differs)")
    if check.missing or check.unexpected:
        problems.append(f"findings differ ({len(check.missing)} missing, {len(check.unexpected)} new)")
    return Verification(False, "receipt NOT verified: " + "; ".join(problems), check, report)
