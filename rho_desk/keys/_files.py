"""rho-desk's own keys in a private key file, for machines without a secure keyring.

The file (``<config folder>/keys`` by default) holds one key per line, ``NAME BASE64``, with
``#`` comments. It is created on first use with mode 0600 in a 0700 folder, and rho-desk says so
in one line, as ssh does when it adds a host key. As ssh treats ``~/.ssh``, what others could
change is refused before a byte is read (``rho_desk.core.system.paths``): a folder that is writable by
others or belongs to someone else (a symbolic link is judged by its target), a key file that is
readable by others, is not a regular file (a FIFO, a folder) or is not the user's, and a lock file
that is a symbolic link. Keys are added under a lock and the file is replaced
atomically, so two processes never each create a different key of the same name.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Final

from ..core.errors import CredentialsUnavailable, StorageError
from ..core.secrets.keys import KEY_BYTES, decode_key, encode_key
from ..core.system.fsio import atomic_write
from ..core.system.paths import check_private_folder, open_private_file, private_folder
from ._keyring import credentials_error

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

__all__ = ["KEY_FILE_NAME", "FileKeySource"]

KEY_FILE_NAME: Final = "keys"
_NAME: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:@-]{0,127}")
_MAX_BYTES: Final = 1024 * 1024
_HEADER: Final = (
    "# rho-desk's own keys (export fingerprints, receipt signing, encrypted stores).\n"
    "# Keep this file private (mode 0600) and in your backups: what a key protects is lost with it.\n"
)


def _what(name: str) -> str:
    return f"rho-desk's key {name}"


class FileKeySource:
    """Keys in one private file.

    Args:
        path: the key file.
        notice: called with a one-line message when a key is created (the CLI prints it on
            stderr, the app shows it); ``None``: silent.
    """

    def __init__(self, path: Path, *, notice: Callable[[str], None] | None = None) -> None:
        self.path = Path(path)
        self.notice = notice

    def __repr__(self) -> str:
        return f"FileKeySource({str(self.path)!r})"

    def describe(self) -> str:
        return f"the key file {self.path}"

    def _real(self) -> Path:
        """The key file's path with every symbolic link resolved: a link is judged by its target."""
        return Path(os.path.realpath(self.path))

    def _read(self) -> dict[str, str]:
        real = self._real()
        check_private_folder(real.parent)
        fd = open_private_file(real, what="the key file")
        if fd is None:
            return {}
        with os.fdopen(fd, "rb") as handle:
            data = handle.read(_MAX_BYTES + 1)
        if len(data) > _MAX_BYTES:
            raise credentials_error(
                "read", "rho-desk's keys", f"{self.path} is larger than a key file can be"
            )
        keys: dict[str, str] = {}
        for number, raw in enumerate(data.decode("utf-8", "replace").splitlines(), 1):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            parts = line.split()
            if len(parts) != 2 or not _NAME.fullmatch(parts[0]):
                raise credentials_error(
                    "read", "rho-desk's keys", f"{self.path}:{number} is not a line NAME BASE64"
                )
            keys[parts[0]] = parts[1]
        return keys

    def lookup(self, name: str) -> bytes | None:
        """The key stored under ``name``, or ``None``.

        Raises:
            CredentialsUnavailable: the file cannot be read, is not private, or is malformed.
        """
        text = self._read().get(name)
        return None if text is None else decode_key(text, name, str(self.path))

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        """An exclusive lock beside the key file (held while a key is created).

        The lock file is opened without following a symbolic link: a ``keys.lock`` link planted
        by someone else cannot make rho-desk create a file where it points.
        """
        real = self._real()
        private_folder(real.parent)
        lock = real.with_name(real.name + ".lock")
        fd = open_private_file(lock, what="the key file's lock", create=True)
        assert fd is not None
        try:
            if fcntl is not None:
                fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)

    def key(self, name: str, *, create: bool = True) -> bytes:
        if not _NAME.fullmatch(name):
            raise credentials_error(
                "store",
                _what(name),
                "a key file holds names of letters, digits and . _ : @ - only",
                "Choose another key name.",
            )
        found = self.lookup(name)
        if found is not None:
            return found
        if not create:
            raise credentials_error("read", _what(name), f"it is not in {self.describe()}")
        with self.locked():
            keys = self._read()  # another process may have created it meanwhile
            if name in keys:
                return decode_key(keys[name], name, str(self.path))
            key = secrets.token_bytes(KEY_BYTES)
            keys[name] = encode_key(key)
            body = _HEADER + "".join(f"{n} {v}\n" for n, v in keys.items())
            try:
                atomic_write(self._real(), body.encode("ascii"), mode=0o600)
            except StorageError as exc:
                raise CredentialsUnavailable(f"Cannot store {_what(name)}: {exc.text()}.") from None
        if self.notice is not None:
            self.notice(f"Created {_what(name)} in {self.path} (readable only by you).")
        return key
