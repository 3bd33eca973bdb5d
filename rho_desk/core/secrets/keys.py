"""rho-desk's own keys, as core receives them: one small interface, no keyring in core.

rho-desk holds three kinds of key of its own, each 32 random bytes created on first use:

* ``export-fingerprint-key``: the HMAC key of the ``fp:`` fingerprints in exports and receipts;
* ``export-signing-key``: the Ed25519 seed that signs export receipts;
* ``durable-store:<name>``: the AES-256-GCM key of an encrypted durable store.

Core asks a :class:`KeySource` for a key by name. The implementations live outside core, in
``rho_desk.keys``: the system keyring (secure backends only) and a private key file in the config
folder (mode 0600), chosen by ``rho_desk.keys.default_key_source``. Embedders can pass any object
with these two methods.
"""

from __future__ import annotations

import base64
import binascii
from typing import Final, Protocol, runtime_checkable

from ..errors import CredentialsUnavailable

__all__ = [
    "FINGERPRINT_KEY",
    "KEY_BYTES",
    "SIGNING_KEY",
    "KeySource",
    "decode_key",
    "durable_store_key",
    "encode_key",
]

KEY_BYTES: Final = 32
FINGERPRINT_KEY: Final = "export-fingerprint-key"
SIGNING_KEY: Final = "export-signing-key"
_DURABLE_PREFIX: Final = "durable-store:"


def durable_store_key(name: str) -> str:
    """The key name of the durable store key ``name``."""
    return _DURABLE_PREFIX + name


@runtime_checkable
class KeySource(Protocol):
    """Where rho-desk's own keys come from. Calls may block (a keyring may prompt): call them off
    the GUI thread."""

    def key(self, name: str, *, create: bool = True) -> bytes:
        """The 32-byte key ``name``; created and stored first when missing and ``create`` is true.

        Raises:
            CredentialsUnavailable: the key cannot be read or stored, it is missing and
                ``create`` is false, or what is stored under the name is not a key (a stored
                value is never silently replaced: what it protects would be lost).
        """
        ...

    def describe(self) -> str:
        """Where the keys live, for a person (``the keyring (SecretService)``, a file path)."""
        ...


def encode_key(key: bytes) -> str:
    """The stored text form of a key (base64)."""
    return base64.b64encode(key).decode("ascii")


def decode_key(text: str, name: str, where: str) -> bytes:
    """A key from its stored text.

    Raises:
        CredentialsUnavailable: the text is not a 32-byte key in base64.
    """
    try:
        key = base64.b64decode(text.strip(), validate=True)
    except (binascii.Error, ValueError):
        key = b""
    if len(key) != KEY_BYTES:
        raise CredentialsUnavailable(
            f"The entry {name} in {where} is not a rho-desk key; remove it to let rho-desk create a "
            "new one (what the old key protected cannot be read without it)."
        )
    return key
