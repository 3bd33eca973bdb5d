"""The export's keys: the fingerprint key (HMAC) and the receipt signing key (Ed25519).

Both come from a :class:`~rho_desk.core.secrets.keys.KeySource` (the keyring or the key file, chosen
outside core) and are created there on first use.

Redactions and findings carry ``fp:`` + HMAC-SHA256(key, secret). With one key per machine the
same secret fingerprints the same way in every export (so two exports can be compared, or a
receipt re-verified) while the fingerprint reveals nothing without the key.

Receipts are signed with Ed25519; the public key is shown as ``ed25519:<base64 of 32 bytes>``
(``rho-desk keys`` prints it), which a recipient passes to ``rho-desk audit --verify-key``.

Key sources may block (a locked keyring prompts): the GUI calls these from a worker thread.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
from typing import Final

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from ..errors import InputError
from ..secrets.keys import FINGERPRINT_KEY, SIGNING_KEY, KeySource

__all__ = [
    "PUBLIC_KEY_PREFIX",
    "fingerprint_key",
    "key_id",
    "parse_public_key",
    "public_key_text",
    "signing_key",
]

PUBLIC_KEY_PREFIX: Final = "ed25519:"


def fingerprint_key(keys: KeySource) -> bytes:
    """The fingerprint key, created on first use.

    Raises:
        CredentialsUnavailable: the key source cannot give it.
    """
    return keys.key(FINGERPRINT_KEY)


def signing_key(keys: KeySource) -> Ed25519PrivateKey:
    """The receipt signing key (its 32-byte seed is kept by the key source), created on first use.

    Raises:
        CredentialsUnavailable: the key source cannot give it.
    """
    return Ed25519PrivateKey.from_private_bytes(keys.key(SIGNING_KEY))


def public_key_text(key: Ed25519PrivateKey | Ed25519PublicKey) -> str:
    """``ed25519:<base64>``: the form ``rho-desk keys`` prints and ``--verify-key`` takes."""
    public = key.public_key() if isinstance(key, Ed25519PrivateKey) else key
    return PUBLIC_KEY_PREFIX + base64.b64encode(public.public_bytes_raw()).decode("ascii")


def parse_public_key(text: str, *, source: str | None = None) -> Ed25519PublicKey:
    """The public key of ``ed25519:<base64>`` (the prefix may be left out).

    Raises:
        InputError: not an Ed25519 public key.
    """
    body = text.strip().removeprefix(PUBLIC_KEY_PREFIX)
    try:
        raw = base64.b64decode(body, validate=True)
    except (binascii.Error, ValueError):
        raw = b""
    if len(raw) != 32:
        raise InputError(
            f"not an Ed25519 public key ({PUBLIC_KEY_PREFIX}<base64 of 32 bytes>)", source=source
        )
    return Ed25519PublicKey.from_public_bytes(raw)


def key_id(key: bytes) -> str:
    """A public name for the key (receipts record it; a different id means fingerprints differ)."""
    return (
        "kid:"
        + hmac.new(key, b"rho-desk export fingerprint key id", hashlib.sha256).hexdigest()[:12]
    )
