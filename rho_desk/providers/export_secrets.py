"""What an export or a publish must redact whatever the selection: every credential rho-desk
holds (provider API keys, from the keyring) and rho-desk's own keys. The app and the command line
both read them here.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..core.export import ExportKeys, fingerprint_key, signing_key
from ..core.secrets.keys import SIGNING_KEY

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

__all__ = ["ExportSecrets", "known_credentials", "load_export_secrets", "stored_secrets"]


@dataclass(frozen=True, slots=True)
class ExportSecrets:
    """rho-desk's own keys and the known credentials to redact (never shown, never logged)."""

    key: bytes
    known: tuple[str, ...]
    signer: Ed25519PrivateKey | None = None
    notices: tuple[str, ...] = ()
    """One line per key created in the key file while loading (shown to the user)."""

    def __repr__(self) -> str:
        return f"ExportSecrets(key=[REDACTED], known={len(self.known)})"

    def export_keys(self) -> ExportKeys | None:
        """The keys as the export pipeline takes them (``None`` without a signing key)."""
        return None if self.signer is None else ExportKeys(self.key, self.signer)


def stored_secrets() -> list[str]:
    """Every credential rho-desk holds: the keyring entries and opted-in environment variables
    of every profile in the profile store and every name in the credential index (blocking).

    A damaged profile file does not stop it: the index still names every key ever stored.

    Raises:
        KeyringFailure: the keyring exists but cannot be read (redaction would be incomplete).
    """
    from .credentials import profile_secrets
    from .profiles import ProfileError, ProfileStore

    try:
        profiles = ProfileStore().profiles()
    except ProfileError:
        profiles = ()  # a corrupt profile file must not block redaction of what the index knows
    return profile_secrets(profiles)


def known_credentials(*keys: bytes) -> list[str]:
    """Every credential rho-desk holds (redacted whatever the selection), plus ``keys``, base64
    as they would appear in text (blocking: keyring).

    Raises:
        KeyringFailure: the keyring exists but cannot be read: an export must not then go ahead
            with an incomplete list.
    """
    return [*stored_secrets(), *(base64.b64encode(k).decode("ascii") for k in keys)]


def load_export_secrets() -> ExportSecrets:
    """Read rho-desk's own keys and every credential rho-desk holds (blocking: keyring).

    Raises:
        CredentialsUnavailable: the keys cannot be read or created, or the keyring holding API
            keys cannot be read (redaction would be incomplete).
    """
    from ..keys import default_key_source

    notices: list[str] = []
    keys = default_key_source(notice=notices.append)
    key = fingerprint_key(keys)
    known = known_credentials(key, keys.key(SIGNING_KEY))
    return ExportSecrets(key, tuple(known), signing_key(keys), tuple(notices))
