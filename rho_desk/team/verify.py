"""Verifying a published version against its signed receipt, as ``rho-desk audit --verify-key``
does for a file.

Three things are checked, and each failure is named:

* the signature: the stored receipt carries an Ed25519 signature, made by the public key it
  names, over everything else it says (the export's SHA-256 and size, the history kind, the
  classes, redactions and findings). A receipt changed after signing (a fixed-up hash) fails;
* the export: its SHA-256 and size are the ones the signed receipt states;
* the audit: the stored export is audited again (secrets, excluded classes, echoes) and must
  reproduce the receipt's findings; and the receipt describes this session, revision and history.

The session's title and searchable text, as the database lists them (what the list shows and
team search finds and quotes), are derived from the signed export; they are recomputed and must
match (a teammate who rewrites either makes the check fail). Who published a
version (``published_by``) is recorded by the database (``current_user``, stamped by a trigger
members cannot bypass), not signed: the app and ``team show`` say so.

A valid signature proves the export is what the holder of that key's rho-desk wrote and audited;
who that is, a member learns by comparing the key with the publisher's ``rho-desk keys``
(``docs/security.md``). With another machine's fingerprint key the fingerprints are not compared
(the summary says so).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..core.errors import InputError
from ..core.export import (
    AuditReport,
    ContentClass,
    ReceiptCheck,
    SecretScanner,
    audit_bytes,
    decode_receipt,
    key_id,
    parse_public_key,
    verify_receipt,
)

if TYPE_CHECKING:
    from .library import PublishedVersion

__all__ = ["Verification", "verify_published", "verify_version"]


@dataclass(frozen=True)
class Verification:
    ok: bool
    summary: str
    """One line for a person: ``signed by ed25519:… — valid`` or ``INVALID: …``."""
    check: ReceiptCheck | None
    report: AuditReport | None
    signer: str | None = None
    """The public key the receipt names as its signer (``ed25519:…``), if it is signed."""
    problems: tuple[str, ...] = ()
    """Each failed check, for a person."""

    def to_json(self) -> dict[str, object]:
        return {
            "ok": self.ok,
            "summary": self.summary,
            "signer": self.signer,
            "signature": None if self.check is None else self.check.signature,
            "problems": list(self.problems),
            "check": None if self.check is None else self.check.to_json(),
            "findings": [] if self.report is None else [f.to_json() for f in self.report.findings],
        }


def verify_published(
    export: bytes,
    receipt_bytes: bytes,
    *,
    key: bytes,
    known_secrets: list[str],
    session_id: str | None = None,
    revision: int | None = None,
    history: str | None = None,
    title: str | None = None,
    search_text: str | None = None,
) -> Verification:
    """Check the receipt's signature, the export against it, and a fresh audit (CPU only: run it
    off the event loop). ``session_id``, ``revision`` and ``history``, when given, must be the
    ones the receipt states (the database row's); ``title`` and ``search_text``, when given, must
    be the ones the export yields (``title_of_export``, ``search_text_of_export``)."""
    try:
        receipt = decode_receipt(receipt_bytes, source="receipt")
    except InputError as exc:
        reason = f"the stored receipt is unreadable: {exc.reason}"
        return Verification(False, f"INVALID: {reason}", None, None, problems=(reason,))
    signer = receipt.signature.public_key if receipt.signature is not None else None
    public_key = None
    problems: list[str] = []
    if signer is not None:
        try:
            public_key = parse_public_key(signer, source="receipt")
        except InputError:
            problems.append("the receipt's public key is not an Ed25519 key")
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
    check = verify_receipt(receipt, export, report, key_id(key), public_key=public_key)
    if public_key is None and not problems:
        check.signature = "missing"
    problems.extend(check.failures())
    for what, stored, stated in (
        ("session", session_id, receipt.source.session_id),
        ("revision", revision, receipt.source.revision),
        ("history", history, receipt.history),
    ):
        if stored is not None and stored != stated:
            problems.append(f"the receipt describes {what} {stated}, not the published {stored}")
    if title is not None or search_text is not None:
        from .publish import listing_of_export

        derived: str | None
        searchable: str | None
        try:
            derived, searchable = listing_of_export(export)
        except InputError:
            derived = searchable = None  # the export's own problems are reported above
        if title is not None and derived is not None and derived != title:
            problems.append(f"the listed title {title!r} is not the exported one {derived!r}")
        if search_text is not None and searchable is not None and searchable != search_text:
            problems.append(
                "the listed search text (what team search finds and quotes) is not the exported one"
            )
    if not problems:
        extra = (
            ""
            if check.fingerprints_compared
            else "; fingerprints not compared: published with another key"
        )
        summary = f"signed by {signer} — valid (sha256 matches, findings reproduced{extra})"
        return Verification(True, summary, check, report, signer)
    by = f" (signed by {signer})" if signer else ""
    return Verification(
        False, "INVALID: " + "; ".join(problems) + by, check, report, signer, tuple(problems)
    )


def verify_version(
    version: PublishedVersion, *, key: bytes, known_secrets: list[str]
) -> Verification:
    """``verify_published`` with everything the database row states about ``version``."""
    return verify_published(
        version.export,
        version.receipt,
        key=key,
        known_secrets=known_secrets,
        session_id=version.session_id,
        revision=version.revision,
        history=version.history,
        title=version.title,
        search_text=version.search_text,
    )
