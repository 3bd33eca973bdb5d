"""Where rho-desk's own keys live: the implementations of :class:`rho_desk.core.secrets.keys.KeySource`.

* :class:`KeyringKeySource`: the system keyring (new keys only on a secure backend);
* :class:`FileKeySource`: one private key file (mode 0600) in the config folder;
* :class:`DefaultKeySource`: what the app and the command line use. A key is looked up in the
  key file, then in the keyring; a missing key is created in the keyring when a secure backend
  exists, else in the key file (with a one-line notice). So a machine with no keyring at all (no
  D-Bus, SSH, CI) works, and keys never move silently once created;
* :class:`MemoryKeySource`: keys held in memory (tests, embedders that bring their own).

``default_key_source(key_file)`` builds the default; an explicit key file (``--key-file`` or
``RHO_DESK_KEY_FILE``) replaces it: every key is then read from, and created in, that file.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Callable
from pathlib import Path
from typing import Final

from ..core.errors import CredentialsUnavailable
from ..core.secrets.keys import KEY_BYTES, KeySource
from ..core.system.dirs import config_dir
from ..core.system.paths import UnsafePath
from ._files import KEY_FILE_NAME, FileKeySource
from ._keyring import (
    OWN_KEYS_ADVICE,
    SERVICE,
    InsecureKeyring,
    KeyringFailure,
    KeyringKeySource,
    KeyringStatus,
    NoKeyringBackend,
    backend_is_insecure,
    credentials_error,
    delete_secret,
    insecure_keyring_error,
    keyring_error,
    keyring_status,
    read_secret,
    reset_keyring_probe,
    store_secret,
)

__all__ = [
    "KEY_FILE_ENV",
    "OWN_KEYS_ADVICE",
    "SERVICE",
    "DefaultKeySource",
    "FileKeySource",
    "InsecureKeyring",
    "KeyringFailure",
    "KeyringKeySource",
    "KeyringStatus",
    "MemoryKeySource",
    "NoKeyringBackend",
    "UnsafePath",
    "backend_is_insecure",
    "credentials_error",
    "default_key_file",
    "default_key_source",
    "delete_secret",
    "insecure_keyring_error",
    "keyring_error",
    "keyring_status",
    "read_secret",
    "reset_keyring_probe",
    "store_secret",
]

KEY_FILE_ENV: Final = "RHO_DESK_KEY_FILE"


def default_key_file() -> Path:
    """``<config folder>/keys`` (``RHO_DESK_CONFIG_DIR`` moves the config folder)."""
    return config_dir() / KEY_FILE_NAME


class DefaultKeySource:
    """The key file first, then the keyring; new keys in a secure keyring, else in the file."""

    def __init__(self, file: FileKeySource, keyring: KeyringKeySource | None = None) -> None:
        self.file = file
        self.keyring = keyring if keyring is not None else KeyringKeySource()

    def __repr__(self) -> str:
        return f"DefaultKeySource({self.file!r})"

    def locate(self, name: str) -> str | None:
        """Where the key ``name`` is stored now (``None``: nowhere yet)."""
        if self.file.lookup(name) is not None:
            return self.file.describe()
        if self.keyring.usable() and self.keyring.lookup(name) is not None:
            return self.keyring.describe()
        return None

    def key(self, name: str, *, create: bool = True) -> bytes:
        found = self.file.lookup(name)
        if found is not None:
            return found
        if self.keyring.usable():
            try:
                found = self.keyring.lookup(name)
            except NoKeyringBackend:
                found = None
            if found is not None:
                return found
        if not create:
            raise credentials_error(
                "read",
                f"rho-desk's key {name}",
                f"it is neither in {self.file.describe()} nor in the keyring",
                "Restore it from your backup.",
            )
        if self.keyring.writable():
            # under the key file's lock: two processes never each store a different key
            with self.file.locked():
                found = self.keyring.lookup(name)
                if found is None:
                    found = secrets.token_bytes(KEY_BYTES)
                    self.keyring.store(name, found)
            return found
        return self.file.key(name, create=True)

    def describe(self) -> str:
        if self.keyring.writable():
            return f"{self.keyring.describe()}; keys already in {self.file.path} are used first"
        status = keyring_status()
        problem = f", not usable: {status.problem}" if status.problem else ""
        return f"{self.file.describe()} (no secure keyring: {status.backend}{problem})"


class MemoryKeySource:
    """Keys in memory only (tests; embedders that manage keys themselves)."""

    def __init__(self, keys: dict[str, bytes] | None = None) -> None:
        self.keys = dict(keys or {})

    def __repr__(self) -> str:
        return f"MemoryKeySource({sorted(self.keys)})"

    def key(self, name: str, *, create: bool = True) -> bytes:
        if name not in self.keys:
            if not create:
                raise CredentialsUnavailable(
                    f"Cannot read rho-desk's key {name}: it is not in memory."
                )
            self.keys[name] = secrets.token_bytes(KEY_BYTES)
        return self.keys[name]

    def describe(self) -> str:
        return "memory (not stored)"


def default_key_source(
    key_file: Path | None = None, *, notice: Callable[[str], None] | None = None
) -> KeySource:
    """The key source of the app and the command line.

    Args:
        key_file: use only this key file (``--key-file``); default ``RHO_DESK_KEY_FILE`` when
            set, else the key file in the config folder together with the keyring.
        notice: told in one line when a key file entry is created.
    """
    if key_file is None and os.environ.get(KEY_FILE_ENV):
        key_file = Path(os.environ[KEY_FILE_ENV])
    if key_file is not None:
        return FileKeySource(Path(key_file).expanduser(), notice=notice)
    return DefaultKeySource(FileKeySource(default_key_file(), notice=notice))
