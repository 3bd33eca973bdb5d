"""``rho-desk audit FILE [--json] [--receipt FILE]``: re-run the export audit on any file.

Works on exports, SDK snapshots, Rho session files and Markdown/HTML transcripts. When a receipt
is beside the file (``FILE.receipt.json``) it also checks the file's SHA-256 and that the audit
reproduces the receipt's findings. Exit status: 0 no finding and the receipt (if any) agrees;
1 findings or a disagreeing receipt; 2 unreadable input.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from . import EXIT_OK, EXIT_PROBLEMS


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "audit",
        help="audit an export, snapshot or transcript for secrets and excluded content",
        description="Re-run the export audit on a file; verify its receipt when one is beside it.",
    )
    parser.add_argument("file", type=Path)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--receipt", type=Path, help="the receipt (default: FILE.receipt.json when present)")
    parser.set_defaults(handler=run)


def _warn(message: str) -> None:
    print(f"rho-desk: warning: {message}", file=sys.stderr)


def run(args: argparse.Namespace) -> int:
    from ..core.errors import CredentialsUnavailable, InputError
    from ..core.export import (
        ContentClass,
        SecretScanner,
        audit_bytes,
        decode_receipt,
        fingerprint_key,
        key_id,
        verify_receipt,
    )

    path: Path = args.file
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(exc.strerror or str(exc), source=str(path)) from None
    receipt_path = args.receipt or path.with_name(path.name + ".receipt.json")
    receipt = None
    if args.receipt is not None or receipt_path.exists():
        try:
            receipt = decode_receipt(receipt_path.read_bytes(), source=str(receipt_path))
        except OSError as exc:
            raise InputError(exc.strerror or str(exc), source=str(receipt_path)) from None

    # The audit works without a keyring, weaker: say so rather than refuse.
    try:
        key = fingerprint_key()
        from .export import known_credentials

        known = known_credentials(key)
    except CredentialsUnavailable as exc:
        _warn(f"{exc.text()} Known credentials are not checked; fingerprints are not comparable.")
        key, known = os.urandom(32), []

    excluded = None
    if receipt is not None:
        excluded = frozenset(ContentClass(n) for n in receipt.selection.excluded if n in {c.value for c in ContentClass})
    report = audit_bytes(
        data,
        scanner=SecretScanner(known),
        key=key,
        name=path.name,
        excluded=excluded,
        recorded_echoes=receipt.finding_objects() if receipt is not None else (),
    )
    check = verify_receipt(receipt, data, report, key_id(key)) if receipt is not None else None
    problems = bool(report.findings) or (check is not None and not check.ok)

    if args.json:
        print(json.dumps({
            "file": str(path),
            "format": report.format,
            "excluded_classes": sorted(c.value for c in report.excluded),
            "findings": [f.to_json() for f in report.findings],
            "counts": report.counts(),
            "receipt": None if check is None else {"file": str(receipt_path), **check.to_json()},
            "notes": report.notes,
        }, indent=2))
        return EXIT_PROBLEMS if problems else EXIT_OK

    counts = ", ".join(f"{n} {s}" for s, n in report.counts().items() if n)
    print(f"{path}: {report.format}, {len(report.findings)} finding(s){' (' + counts + ')' if counts else ''}")
    for finding in report.findings:
        print(f"  {finding.describe()}")
    for note in report.notes:
        print(f"  note: {note}")
    if check is not None:
        print(f"receipt {receipt_path}:")
        print(f"  sha256 {'matches' if check.sha256_ok else 'DOES NOT MATCH'} the file")
        if check.missing or check.unexpected:
            print(f"  findings differ: {len(check.missing)} in the receipt not found, {len(check.unexpected)} new")
            for f in check.missing:
                print(f"    missing  {f.describe()}")
            for f in check.unexpected:
                print(f"    new      {f.describe()}")
        else:
            print("  findings reproduced" + ("" if check.fingerprints_compared else " (fingerprints not compared: another key)"))
    return EXIT_PROBLEMS if problems else EXIT_OK
