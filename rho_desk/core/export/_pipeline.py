"""An export, built then signed: the two calls every front end makes.

The export dialog, ``rho-desk export`` and publishing to the team library (from either) make them.

::

    read_export_source(path, revision, history) ──► ExportSource (display or model history)
    export_keys(key_source)                     ──► ExportKeys (fingerprint key, signing key)
    build_export(source, selection, keys=...)   ──► ExportResult: the preview
        export_snapshot (select, redact, render, audit the exact bytes)
    sign_export(result, keys=..., output_name=...) ──► SignedExport
        └─ not blocked (or allowed) ──► build_receipt(..., signing_key=...) ──► signed receipt
    export_signed(...)                          ──► both, for a front end with nothing to preview

rho-desk's own keys are always known secrets of the export (their base64 forms), so neither the
fingerprint key nor the signing key's private half can leave the machine inside an export. A
receipt records when it was signed; with ``SOURCE_DATE_EPOCH`` set (the reproducible-builds
convention) that time is the variable's, so the same choices give the same bytes.
Nothing is written here: the caller writes files (``write_files_atomic``) or stores the bytes.
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Required, TypedDict, Unpack

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat

from ..secrets.keys import KeySource
from ..wire.snapshot import SessionSnapshot
from ._classes import Selection
from ._display import HISTORY_KINDS, open_export_source
from ._export import ExportResult, export_snapshot
from ._keys import fingerprint_key, key_id, public_key_text, signing_key
from ._receipt import Receipt, build_receipt, encode_receipt
from ._transcript import source_date

__all__ = [
    "ExportKeys",
    "ExportSource",
    "SignOptions",
    "SignedExport",
    "build_export",
    "export_keys",
    "export_signed",
    "read_export_source",
    "sign_export",
]


@dataclass(frozen=True)
class ExportSource:
    """What an export exports: a snapshot carrying the display history or the model context."""

    snapshot: SessionSnapshot
    history: str = "model"
    """``display`` (``snapshot`` carries the display history) or ``model``."""
    timestamps: tuple[str | None, ...] | None = None
    title: str | None = None
    name: str | None = None
    """The source file's name (never its folder), for the receipt."""

    def __post_init__(self) -> None:
        if self.history not in HISTORY_KINDS:
            raise ValueError(f"unknown history {self.history!r}")


def read_export_source(path: Path, revision: int | None, history: str | None) -> ExportSource:
    """``open_export_source`` as an :class:`ExportSource` (see it for the rules and errors)."""
    snapshot, kind, timestamps, title = open_export_source(path, revision, history)
    return ExportSource(
        snapshot, kind, None if timestamps is None else tuple(timestamps), title, Path(path).name
    )


@dataclass(frozen=True)
class ExportKeys:
    """rho-desk's own keys as an export uses them (read once from a ``KeySource``)."""

    fingerprint: bytes
    signer: Ed25519PrivateKey
    known: tuple[str, ...] = field(init=False)
    """The keys' stored forms, redacted from every export like any credential."""

    def __post_init__(self) -> None:
        seed = self.signer.private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption())
        forms = tuple(base64.b64encode(k).decode("ascii") for k in (self.fingerprint, seed))
        object.__setattr__(self, "known", forms)

    @property
    def key_id(self) -> str:
        return key_id(self.fingerprint)

    @property
    def public_key(self) -> str:
        """``ed25519:<base64>``, as ``rho-desk keys`` prints it."""
        return public_key_text(self.signer)

    def __repr__(self) -> str:
        return f"ExportKeys({self.key_id}, {self.public_key})"


def export_keys(keys: KeySource) -> ExportKeys:
    """The fingerprint and signing keys from ``keys`` (created on first use; may block).

    Raises:
        CredentialsUnavailable: the key source cannot give them.
    """
    return ExportKeys(fingerprint_key(keys), signing_key(keys))


@dataclass
class SignedExport:
    """An audited export and, unless the audit blocked it, its signed receipt."""

    result: ExportResult
    receipt: Receipt | None
    """``None``: critical or high findings and no override; nothing may be written or sent."""
    receipt_bytes: bytes | None

    @property
    def blocked(self) -> bool:
        return self.receipt is None


class SignOptions(TypedDict, total=False):
    """Who signs an export and what it must not hold: the keywords that :func:`export_signed`,
    the team library's ``prepare`` and ``TeamLibrary.publish`` share."""

    keys: Required[ExportKeys]
    known_secrets: Required[Sequence[str]]
    """The credentials rho-desk holds; its own keys are added here."""
    allow_findings: bool
    """Sign and return a receipt even with critical or high findings (the override is recorded
    in the receipt). Default false."""


def build_export(
    source: ExportSource,
    selection: Selection,
    *,
    keys: ExportKeys,
    known_secrets: Sequence[str],
    fmt: str = "json",
) -> ExportResult:
    """Select, redact, render and audit ``source``: the export as it would be written, and what
    the export dialog previews (CPU only: run it off the event loop).

    Args:
        keys: rho-desk's own keys: their fingerprint key, and their forms as known secrets.
        known_secrets: the credentials rho-desk holds (``load_export_secrets``); its own keys are
            added here.
    """
    return export_snapshot(
        source.snapshot,
        selection,
        key=keys.fingerprint,
        known_secrets=[*known_secrets, *keys.known],
        fmt=fmt,
        history=source.history,
        timestamps=source.timestamps,
        title=source.title,
    )


def sign_export(
    result: ExportResult,
    *,
    keys: ExportKeys,
    output_name: str,
    source_name: str | None,
    allow_findings: bool = False,
) -> SignedExport:
    """The signed receipt of a built export, unless its audit blocked it (CPU only).

    Args:
        output_name: the file name the receipt records for the export.
        source_name: the source file's name (never its folder).
        allow_findings: sign even with critical or high findings (the override is recorded).
    """
    if result.blocked and not allow_findings:
        return SignedExport(result, None, None)
    receipt = build_receipt(
        result,
        output_name=output_name,
        key_id=keys.key_id,
        source_name=source_name,
        allow_findings=allow_findings,
        signing_key=keys.signer,
        created_at=source_date(),
    )
    return SignedExport(result, receipt, encode_receipt(receipt))


def export_signed(
    source: ExportSource,
    selection: Selection,
    *,
    fmt: str = "json",
    output_name: str,
    **sign: Unpack[SignOptions],
) -> SignedExport:
    """:func:`build_export` then :func:`sign_export`, for a front end with nothing to preview
    (CPU only).

    Args:
        output_name: the file name the receipt records for the export.
        sign: the keys, the known secrets and the findings override (:class:`SignOptions`).
    """
    keys = sign["keys"]
    result = build_export(
        source, selection, keys=keys, known_secrets=sign["known_secrets"], fmt=fmt
    )
    return sign_export(
        result,
        keys=keys,
        output_name=output_name,
        source_name=source.name,
        allow_findings=sign.get("allow_findings", False),
    )
