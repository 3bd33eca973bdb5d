"""What an export or a publish must redact whatever the selection: every credential rho-desk
holds (provider API keys, from the keyring) and rho-desk's own keys. The app and the command line
both read them here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..core.export import ExportKeys, export_keys

if TYPE_CHECKING:
    from ..core.secrets.keys import KeySource

__all__ = ["ExportSecrets", "load_export_secrets", "stored_secrets"]


@dataclass(frozen=True, slots=True)
class ExportSecrets:
    """rho-desk's own keys and the credentials it holds, as an export redacts them (never shown,
    never logged)."""

    keys: ExportKeys
    credentials: tuple[str, ...]
    """Every credential rho-desk holds: provider API keys, opted-in environment variables."""
    notices: tuple[str, ...] = ()
    """One line per key created in the key file while loading (shown to the user)."""

    @property
    def known(self) -> tuple[str, ...]:
        """Every secret an export must not hold: the credentials and rho-desk's own keys."""
        return (*self.credentials, *self.keys.known)

    def __repr__(self) -> str:
        return f"ExportSecrets({self.keys.key_id}, credentials={len(self.credentials)})"


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


def load_export_secrets(keys: KeySource | None = None) -> ExportSecrets:
    """What an export, a publish or an audit redacts whatever the selection, gathered once for
    every front end: rho-desk's own keys (from ``keys``, else the default key source) and every
    credential rho-desk holds (blocking: keyring).

    Raises:
        CredentialsUnavailable: the keys cannot be read or created, or the keyring holding API
            keys cannot be read (redaction would be incomplete).
    """
    from ..keys import default_key_source

    notices: list[
        str
    ] = []  # a key created in the key file, said by the caller's key source otherwise
    source = keys if keys is not None else default_key_source(notice=notices.append)
    own = export_keys(source)
    return ExportSecrets(own, tuple(stored_secrets()), tuple(notices))
