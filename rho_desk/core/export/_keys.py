"""The fingerprint key: a random 32-byte HMAC key kept in keyring, created on first use.

Redactions and findings carry ``fp:`` + HMAC-SHA256(key, secret). With one key per machine the
same secret fingerprints the same way in every export (so two exports can be compared, or a
receipt re-verified) while the fingerprint reveals nothing without the key.

Keyring calls may block (a locked collection prompts): the GUI calls these from a worker thread.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import secrets
from typing import Final

from ..errors import CredentialsUnavailable

__all__ = ["KEY_SERVICE", "KEY_USERNAME", "fingerprint_key", "key_id", "stored_key_text"]

KEY_SERVICE: Final = "rho-desk"
KEY_USERNAME: Final = "export-fingerprint-key"
_KEY_BYTES: Final = 32


def _unavailable(action: str, exc: BaseException) -> CredentialsUnavailable:
    import keyring.errors

    if isinstance(exc, keyring.errors.NoKeyringError):
        return CredentialsUnavailable(
            f"Cannot {action} the export fingerprint key: no system keyring is available. Install "
            "and unlock a Secret Service provider (GNOME Keyring or KWallet; on a headless machine "
            "run it under dbus-run-session)."
        )
    # only the type: a backend's message may quote internals
    return CredentialsUnavailable(
        f"Cannot {action} the export fingerprint key: the keyring reported {type(exc).__name__}. "
        "Unlock the keyring and try again."
    )


def stored_key_text() -> str | None:
    """The key as stored in keyring (base64), or ``None`` when none is stored yet.

    Raises:
        CredentialsUnavailable: no keyring backend, or the keyring failed.
    """
    import keyring

    try:
        return keyring.get_password(KEY_SERVICE, KEY_USERNAME)
    except Exception as exc:  # backends raise D-Bus, OS and keyring errors alike
        raise _unavailable("read", exc) from None


def fingerprint_key() -> bytes:
    """The fingerprint key, created and stored on first use.

    Raises:
        CredentialsUnavailable: no keyring backend, the keyring failed, or the stored value is
            not a key (it is never silently replaced: fingerprints would stop matching).
    """
    import keyring

    stored = stored_key_text()
    if stored:
        try:
            key = base64.b64decode(stored, validate=True)
        except (binascii.Error, ValueError):
            key = b""
        if len(key) != _KEY_BYTES:
            raise CredentialsUnavailable(
                f"The keyring entry {KEY_SERVICE}/{KEY_USERNAME} is not an export fingerprint key; "
                "remove it to let rho-desk create a new one."
            )
        return key
    key = secrets.token_bytes(_KEY_BYTES)
    try:
        keyring.set_password(KEY_SERVICE, KEY_USERNAME, base64.b64encode(key).decode("ascii"))
    except Exception as exc:
        raise _unavailable("store", exc) from None
    return key


def key_id(key: bytes) -> str:
    """A public name for the key (receipts record it; a different id means fingerprints differ)."""
    return "kid:" + hmac.new(key, b"rho-desk export fingerprint key id", hashlib.sha256).hexdigest()[:12]
