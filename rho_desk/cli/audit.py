"""``rho-desk audit FILE [--json] [--receipt FILE] [--verify-key PUB]``: re-run the export audit.

Works on exports, SDK snapshots, Rho session files and Markdown/HTML transcripts. When a receipt
is beside the file (``FILE.receipt.json``) it also checks the file's size and SHA-256 and that the
audit reproduces the receipt's findings, and prints each check. ``--verify-key`` (the sender's
public key, as ``rho-desk keys`` prints it, or a file holding it) also requires a receipt signed
by that key over exactly what it says: then the file is what the sender's rho-desk wrote and
audited. Exit status: 0 no finding and every check passed; 1 findings or a failed check; 2
unreadable input.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from .export import add_key_file_option, key_source
from .status import EXIT_OK, EXIT_PROBLEMS

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "audit",
        help="audit an export, snapshot or transcript for secrets and excluded content",
        description="Re-run the export audit on a file; verify its receipt when one is beside it.",
    )
    parser.add_argument("file", type=Path)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--receipt", type=Path, help="the receipt (default: FILE.receipt.json when present)"
    )
    parser.add_argument(
        "--verify-key",
        metavar="PUB",
        help="the sender's public key (ed25519:..., from `rho-desk keys`) or a file holding it: "
        "require a receipt signed with it",
    )
    add_key_file_option(parser)
    parser.set_defaults(handler=run)


def _warn(message: str) -> None:
    print(f"rho-desk: warning: {message}", file=sys.stderr)


def _public_key(text: str) -> Ed25519PublicKey:
    from ..core.errors import InputError
    from ..core.export import parse_public_key

    candidate = Path(text)
    if not text.strip().startswith("ed25519:") and candidate.is_file():
        try:
            return parse_public_key(candidate.read_text(encoding="utf-8"), source=str(candidate))
        except (OSError, UnicodeDecodeError) as exc:
            raise InputError(f"cannot read the public key: {exc}", source=str(candidate)) from None
    return parse_public_key(text, source="--verify-key")


def _read(path: Path) -> bytes:
    """The bytes to audit: the file's, or an opencode session's rows (``<opencode.db>#<id>``)."""
    from ..core.agents.opencode import session_bytes, split
    from ..core.errors import InputError

    if split(path)[1] is not None:
        return session_bytes(path)
    try:
        return path.read_bytes()
    except OSError as exc:
        raise InputError(exc.strerror or str(exc), source=str(path)) from None


def run(args: argparse.Namespace) -> int:
    from ..core.errors import CredentialsUnavailable, InputError
    from ..core.export import (
        ContentClass,
        SecretScanner,
        audit_bytes,
        decode_receipt,
        key_id,
        verify_receipt,
    )

    path: Path = args.file
    public_key = _public_key(args.verify_key) if args.verify_key else None
    data = _read(path)
    receipt_path = args.receipt or path.with_name(path.name + ".receipt.json")
    receipt = None
    if args.receipt is not None or receipt_path.exists() or public_key is not None:
        try:
            receipt = decode_receipt(receipt_path.read_bytes(), source=str(receipt_path))
        except OSError as exc:
            raise InputError(exc.strerror or str(exc), source=str(receipt_path)) from None

    # The audit works without the keys, weaker: say so rather than refuse.
    try:
        from ..providers.export_secrets import load_export_secrets

        secrets = load_export_secrets(key_source(args))
        key, known = secrets.keys.fingerprint, list(secrets.known)
    except CredentialsUnavailable as exc:
        _warn(f"{exc.text()} Known credentials are not checked; fingerprints are not comparable.")
        key, known = os.urandom(32), []

    excluded = None
    if receipt is not None:
        excluded = frozenset(
            ContentClass(n)
            for n in receipt.selection.excluded
            if n in {c.value for c in ContentClass}
        )
    report = audit_bytes(
        data,
        scanner=SecretScanner(known),
        key=key,
        name=path.name,
        excluded=excluded,
        recorded_echoes=receipt.finding_objects() if receipt is not None else (),
    )
    check = (
        verify_receipt(receipt, data, report, key_id(key), public_key=public_key)
        if receipt is not None
        else None
    )
    problems = bool(report.findings) or (check is not None and not check.ok)

    if args.json:
        print(
            json.dumps(
                {
                    "file": str(path),
                    "format": report.format,
                    "excluded_classes": sorted(c.value for c in report.excluded),
                    "findings": [f.to_json() for f in report.findings],
                    "counts": report.counts(),
                    "receipt": None
                    if check is None
                    else {"file": str(receipt_path), **check.to_json()},
                    "notes": report.notes,
                },
                indent=2,
            )
        )
        return EXIT_PROBLEMS if problems else EXIT_OK

    counts = ", ".join(f"{n} {s}" for s, n in report.counts().items() if n)
    print(
        f"{path}: {report.format}, {len(report.findings)} finding(s){' (' + counts + ')' if counts else ''}"
    )
    for finding in report.findings:
        print(f"  {finding.describe()}")
    for note in report.notes:
        print(f"  note: {note}")
    if check is not None and receipt is not None:
        print(f"receipt {receipt_path}:")
        if check.size_ok:
            print(f"  size matches ({check.file_bytes} bytes)")
        else:
            print(
                f"  size DOES NOT MATCH: the receipt says {check.receipt_bytes} bytes, the file has {check.file_bytes}"
            )
        print(f"  sha256 {'matches' if check.sha256_ok else 'DOES NOT MATCH'} the file")
        if check.missing or check.unexpected:
            print(
                f"  findings DIFFER: {len(check.missing)} in the receipt not found, {len(check.unexpected)} new"
            )
            for f in check.missing:
                print(f"    missing  {f.describe()}")
            for f in check.unexpected:
                print(f"    new      {f.describe()}")
        else:
            print(
                "  findings reproduced"
                + (
                    ""
                    if check.fingerprints_compared
                    else " (fingerprints not compared: another key)"
                )
            )
        signature = receipt.signature
        if check.signature is None:
            print(
                f"  {'signed by ' + signature.public_key if signature else 'not signed'} (pass --verify-key to check)"
            )
        elif check.signature == "valid":
            print(
                f"  signature valid: written and audited by the holder of {signature.public_key if signature else ''}"
            )
        else:
            print(f"  signature FAILED: {check.failures()[-1]}")
        if not check.ok:
            print("FAILED: " + "; ".join(check.failures()), file=sys.stderr)
    return EXIT_PROBLEMS if problems else EXIT_OK
