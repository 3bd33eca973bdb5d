"""The system keyring: backend detection, the one wording of key and credential errors, and
rho-desk's own keys kept there.

Provider API keys (``rho_desk.providers.credentials``) and rho-desk's own keys share this
module's backend checks and error wording. A plaintext backend (keyrings.alt's
``PlaintextKeyring`` and friends) is not a secret store: nothing is written to it without an
explicit opt-in, and rho-desk's own keys never are.

Keyring calls can block (a locked collection prompts; a D-Bus service may hang): call them from
a worker thread in the GUI.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import keyring
import keyring.errors

from ..core.errors import CredentialsUnavailable
from ..core.keys import decode_key, encode_key

__all__ = [
    "OWN_KEYS_ADVICE",
    "SERVICE",
    "InsecureKeyring",
    "KeyringFailure",
    "KeyringKeySource",
    "KeyringStatus",
    "NoKeyringBackend",
    "backend_is_insecure",
    "credentials_error",
    "insecure_keyring_error",
    "keyring_error",
    "keyring_status",
]

SERVICE: Final = "rho-desk"
"""The keyring service of every rho-desk entry (profile API keys and rho-desk's own keys)."""

SECRET_SERVICE_ADVICE: Final = (
    "Install and unlock a Secret Service provider (GNOME Keyring or KWallet; on a headless "
    "machine run it under dbus-run-session)"
)
OWN_KEYS_ADVICE: Final = "Unlock the keyring and try again."


class NoKeyringBackend(CredentialsUnavailable):
    """No keyring backend exists on this system."""


class KeyringFailure(CredentialsUnavailable):
    """The keyring exists but the operation failed (locked, dismissed prompt, D-Bus error)."""


class InsecureKeyring(CredentialsUnavailable):
    """The only backend stores secrets in plain text; writing needs an explicit opt-in."""


@dataclass(frozen=True, slots=True)
class KeyringStatus:
    """Which keyring backend is in use, for the settings dialog and ``rho-desk keys``."""

    backend: str
    available: bool
    secure: bool


def backend_is_insecure(backend: object) -> bool:
    """Whether ``backend`` keeps secrets in plain text (keyrings.alt's plaintext backends)."""
    # keyring's chainer writes to its highest-priority backend: judge that one
    chained = getattr(backend, "backends", None)
    if isinstance(chained, list) and chained:
        backend = chained[0]
    name = type(backend).__name__
    return type(backend).__module__.startswith("keyrings.alt") and ("Plaintext" in name or "Unencrypted" in name)


def keyring_status() -> KeyringStatus:
    """The active backend, whether one is usable, and whether it actually protects secrets."""
    backend = keyring.get_keyring()
    label = f"{type(backend).__module__}.{type(backend).__name__}"
    available = not type(backend).__module__.startswith("keyring.backends.fail")
    return KeyringStatus(label, available, available and not backend_is_insecure(backend))


def credentials_error(
    action: str, what: str, reason: str, advice: str = "", *, kind: type[CredentialsUnavailable] = CredentialsUnavailable
) -> CredentialsUnavailable:
    """The one wording of key and credential errors: ``Cannot ACTION WHAT: REASON. ADVICE``."""
    text = f"Cannot {action} {what}: {reason}."
    return kind(f"{text} {advice}".rstrip())


def keyring_error(action: str, what: str, exc: BaseException, *, no_keyring_advice: str = "") -> CredentialsUnavailable:
    """A keyring exception as a :class:`CredentialsUnavailable` in the shared wording.

    Only the exception's type is reported: a backend's message may quote its internals.
    """
    if isinstance(exc, keyring.errors.NoKeyringError):
        advice = f"{SECRET_SERVICE_ADVICE}{no_keyring_advice}."
        return credentials_error(action, what, "no system keyring is available", advice, kind=NoKeyringBackend)
    return credentials_error(
        action, what, f"the keyring reported {type(exc).__name__}", OWN_KEYS_ADVICE, kind=KeyringFailure
    )


def insecure_keyring_error(action: str, what: str) -> CredentialsUnavailable:
    return credentials_error(
        action,
        what,
        f"the only keyring backend ({keyring_status().backend}) stores secrets in plain text",
        kind=InsecureKeyring,
    )


def _describe_key(name: str) -> str:
    return f"rho-desk's key {name}"


class KeyringKeySource:
    """rho-desk's own keys in the system keyring (service ``rho-desk``, username = key name).

    Reading works on any backend (an entry an older rho-desk wrote to a plaintext keyring stays
    readable, so what it protects is not lost); creating a key needs a secure backend.
    """

    def usable(self) -> bool:
        """A backend exists (secure or not) for reading."""
        return keyring_status().available

    def writable(self) -> bool:
        """A secure backend exists: new keys may be stored here."""
        return keyring_status().secure

    def lookup(self, name: str) -> bytes | None:
        """The stored key, or ``None``.

        Raises:
            CredentialsUnavailable: the keyring failed, or the entry is not a key.
        """
        failure: CredentialsUnavailable | None = None
        value: str | None = None
        try:
            value = keyring.get_password(SERVICE, name)
        except Exception as exc:  # backends raise D-Bus, OS and keyring errors alike
            failure = keyring_error("read", _describe_key(name), exc)
        if failure is not None:
            raise failure
        return None if not value else decode_key(value, name, f"the keyring (service {SERVICE})")

    def store(self, name: str, key: bytes) -> None:
        """Store a new key (never over an existing entry: the caller looked first).

        Raises:
            InsecureKeyring: the backend keeps secrets in plain text.
            CredentialsUnavailable: the keyring failed.
        """
        if not self.writable():
            raise insecure_keyring_error("store", _describe_key(name))
        failure: CredentialsUnavailable | None = None
        try:
            keyring.set_password(SERVICE, name, encode_key(key))
        except Exception as exc:
            failure = keyring_error("store", _describe_key(name), exc)
        if failure is not None:
            raise failure

    def key(self, name: str, *, create: bool = True) -> bytes:
        import secrets

        from ..core.keys import KEY_BYTES

        found = self.lookup(name)
        if found is not None:
            return found
        if not create:
            raise credentials_error("read", _describe_key(name), f"it is not in {self.describe()}")
        key = secrets.token_bytes(KEY_BYTES)
        self.store(name, key)
        return key

    def describe(self) -> str:
        return f"the keyring ({keyring_status().backend}, service {SERVICE})"
