"""The durable file store: one complete snapshot file per session, replaced atomically.

It meets the seed's eight points for a durable host adapter ("Store and atomicity
responsibilities"); ``docs/durable-store.md`` is the operator's guide:

1. a save serialises the complete snapshot first (nothing touches the disk if that fails);
2. it writes a new temporary file in the same folder (``O_EXCL``, mode 0600);
3. it ``fsync``\\ s that file;
4. it renames it over the previous file (``os.replace``) and ``fsync``\\ s the folder;
5. any failure before the rename deletes the temporary file: the previous file is untouched;
6. saves are optimistic: under an exclusive ``flock`` on ``<name>.lock`` the stored revision
   and write tag must still be those this store last loaded or saved, else ``RevisionConflict``
   (this holds across processes);
7. with ``encrypt=True`` the payload is AES-256-GCM encrypted (random 12-byte nonce, the file
   header - which names the session - as associated data), with the key ``durable-store:<name>``
   from the store's key source (``rho_desk.keys``: the keyring or the key file), fetched through
   ``asyncio.to_thread``;
8. retention (kept previous revisions, purging old sessions), deletion, backup, restore and
   export are explicit methods.

File format (``<name>.rdsnap``): the 8 bytes ``RHODSNAP``, a 4-byte big-endian header length,
the header (compact JSON: format, session id, revision, write tag, save time, encryption
parameters) and the payload (the snapshot's compact JSON, or its ciphertext).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import os
import re
import secrets
import shutil
import struct
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Final

import msgspec

from ..errors import CredentialsUnavailable, InputError, RevisionConflict, StorageError
from ..secrets.keys import KeySource, durable_store_key
from ..system.fsio import atomic_write, fsync_dir, write_temp
from ..wire.codec import decode, encode, encode_pretty, gc_paused
from ..wire.snapshot import SessionSnapshot

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

__all__ = [
    "KEYRING_SERVICE",
    "UNKNOWN",
    "BackupReport",
    "CorruptSnapshotFile",
    "DurableFileSessionStore",
    "EnvelopeKey",
    "StoredSession",
    "check_expected",
    "open_envelope",
    "seal",
    "split_envelope",
]

KEYRING_SERVICE: Final = "rho-desk"
"""The keyring service of rho-desk's keys (kept for callers; keys come from ``KeySource``)."""
MAGIC: Final = b"RHODSNAP"
FORMAT: Final = 1
SUFFIX: Final = ".rdsnap"
ALGORITHM: Final = "AES-256-GCM"
_MAX_HEADER: Final = 64 * 1024
_SAFE_NAME: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")
_STALE_TEMP_SECONDS: Final = 3600


class CorruptSnapshotFile(InputError):
    """A stored snapshot file that cannot be read back (damaged, altered, or not ours)."""


class _Encryption(msgspec.Struct, frozen=True):
    algorithm: str
    key: str
    """Name of the key in the keyring (never the key itself)."""
    nonce: str
    """Standard base64 of the 12-byte nonce."""


class _Header(msgspec.Struct, frozen=True):
    format: int
    session_id: str
    revision: int
    etag: str
    """Random tag of this write: tells two writes of the same revision apart."""
    saved_at: int
    encryption: _Encryption | None = None


@dataclass(frozen=True, slots=True)
class StoredSession:
    """What the store holds for one session (read from the file header only)."""

    session_id: str
    revision: int
    saved_at: int
    size: int
    encrypted: bool
    path: Path


@dataclass(frozen=True, slots=True)
class BackupReport:
    folder: Path
    sessions: int
    encrypted: int
    """Encrypted copies: restoring them needs the keyring entry (it is not in the backup)."""


class _Key:
    """A key held in memory; never shown (``EnvelopeKey`` outside this module)."""

    __slots__ = ("name", "value")

    def __init__(self, name: str, value: bytes) -> None:
        self.name = name
        self.value = value

    def __repr__(self) -> str:
        return f"_Key({self.name!r}, [redacted])"


EnvelopeKey = _Key
"""A named 256-bit key for :func:`seal` and :func:`open_envelope`."""


# -- the store ---------------------------------------------------------------------------------


def _file_stem(session_id: str) -> str:
    """A file name for a session id: the id itself when safe, else ``~`` + its SHA-256."""
    if _SAFE_NAME.fullmatch(session_id):
        return session_id
    return "~" + hashlib.sha256(session_id.encode("utf-8")).hexdigest()[:48]


class DurableFileSessionStore:
    """A ``SessionStore`` keeping one atomically replaced snapshot file per session.

    Args:
        root: the folder (created with mode 0700).
        encrypt: encrypt new saves with AES-256-GCM; the key ``durable-store:<key_name>`` comes
            from ``keys``, created on first use.
        key_name: which key to use (stores sharing a key can read each other's files).
        keys: where the encryption keys live (``rho_desk.keys.default_key_source()``: the
            keyring, or the key file without one); needed to save encrypted or read encrypted
            files.
        keep_revisions: how many previous revisions of each session to keep in
            ``.history/`` (0: none). See :meth:`prune`.
        clock: Unix time for ``saved_at``.
    """

    def __init__(
        self,
        root: Path,
        *,
        encrypt: bool = False,
        key_name: str = "default",
        keep_revisions: int = 0,
        clock: Callable[[], float] = time.time,
        keys: KeySource | None = None,
    ) -> None:
        if keep_revisions < 0:
            raise ValueError("keep_revisions must be 0 or more")
        self.root = Path(root)
        self.encrypt = encrypt
        self.key_name = key_name
        self.keys = keys
        self.keep_revisions = keep_revisions
        self._clock = clock
        self._keys: dict[str, _Key] = {}
        self._expected: dict[str, tuple[int, str] | None] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        try:
            self.root.mkdir(mode=0o700, parents=True, exist_ok=True)
        except OSError as exc:
            raise StorageError(
                f"{self.root}: cannot create the store folder: {exc.strerror or exc}"
            ) from exc
        self._remove_stale_temps()

    def __repr__(self) -> str:
        return (
            f"DurableFileSessionStore({str(self.root)!r}, encrypt={self.encrypt}, "
            f"keep_revisions={self.keep_revisions})"
        )

    # -- paths -----------------------------------------------------------------------------

    def path_of(self, session_id: str) -> Path:
        """The file holding ``session_id``'s current snapshot."""
        return self.root / (_file_stem(session_id) + SUFFIX)

    def _lock_path(self, session_id: str) -> Path:
        return self.root / (_file_stem(session_id) + ".lock")

    def _history_dir(self, session_id: str) -> Path:
        return self.root / ".history" / _file_stem(session_id)

    def _remove_stale_temps(self) -> None:
        cutoff = time.time() - _STALE_TEMP_SECONDS
        for temp in self.root.glob(".tmp-*"):
            with contextlib.suppress(OSError):
                if temp.stat().st_mtime < cutoff:
                    temp.unlink()

    def _async_lock(self, session_id: str) -> asyncio.Lock:
        return self._locks.setdefault(session_id, asyncio.Lock())

    @contextlib.contextmanager
    def _file_lock(self, session_id: str, path: Path | None = None) -> Iterator[None]:
        """The cross-process lock of one session (held during check-and-replace)."""
        path = self._lock_path(session_id) if path is None else path
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        except OSError as exc:
            raise StorageError(f"{path}: cannot open the lock file: {exc.strerror or exc}") from exc
        try:
            if fcntl is not None:
                fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)

    # -- keys --------------------------------------------------------------------------------

    async def _key(self, name: str, *, create: bool) -> _Key:
        key = self._keys.get(name)
        if key is None:
            key = await asyncio.to_thread(self._fetch_key, name, create)
            self._keys[name] = key
        return key

    def _fetch_key(self, name: str, create: bool) -> _Key:
        """Runs in a worker thread: a keyring may block (environment.md §3)."""
        if self.keys is None:
            raise CredentialsUnavailable(
                "Cannot read the durable store's encryption key: this store was opened without a "
                "key source (pass keys=rho_desk.keys.default_key_source())."
            )
        # Creation happens under a lock so two processes cannot each store a different key.
        with (
            self._file_lock("", self.root / ".keyring.lock") if create else contextlib.nullcontext()
        ):
            value = self.keys.key(durable_store_key(name), create=create)
        return _Key(name, value)

    # -- reading -----------------------------------------------------------------------------

    def _read_header(self, path: Path) -> tuple[_Header, bytes] | None:
        """The header of a stored file (and its raw bytes, the AAD); ``None`` if absent."""
        try:
            with open(path, "rb") as handle:
                start = handle.read(len(MAGIC) + 4)
                if len(start) < len(MAGIC) + 4 or start[: len(MAGIC)] != MAGIC:
                    raise CorruptSnapshotFile("not a rho-desk snapshot file", source=str(path))
                (length,) = struct.unpack(">I", start[len(MAGIC) :])
                if length > _MAX_HEADER:
                    raise CorruptSnapshotFile(
                        "the file header is implausibly large", source=str(path)
                    )
                raw = handle.read(length)
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise StorageError(f"{path}: cannot read: {exc.strerror or exc}") from exc
        try:
            header = decode(raw, _Header, source=str(path))
        except InputError as exc:
            raise CorruptSnapshotFile(
                f"damaged file header: {exc.reason}", source=str(path)
            ) from None
        if header.format != FORMAT:
            raise CorruptSnapshotFile(
                f"unsupported snapshot file format {header.format}", source=str(path)
            )
        return header, raw

    def _read(self, path: Path) -> tuple[_Header, bytes, bytes] | None:
        """Header, raw header bytes and payload of a stored file; ``None`` if absent."""
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise StorageError(f"{path}: cannot read: {exc.strerror or exc}") from exc
        return split_envelope(data, str(path))

    async def _decode(
        self, path: Path, header: _Header, raw: bytes, payload: bytes
    ) -> SessionSnapshot:
        key = None
        if header.encryption is not None:
            key = await self._key(header.encryption.key, create=False)
        return await asyncio.to_thread(open_envelope, str(path), header, raw, payload, key)

    async def load(self, session_id: str) -> SessionSnapshot | None:
        """The stored snapshot of ``session_id``, or ``None``; remembers its revision for saves.

        Raises:
            CorruptSnapshotFile: the file is damaged, altered or not decryptable with the key.
            CredentialsUnavailable: it is encrypted and the keyring cannot give the key.
            StorageError: it cannot be read.
        """
        async with self._async_lock(session_id):
            path = self.path_of(session_id)
            found = await asyncio.to_thread(self._read, path)
            if found is None:
                self._expected[session_id] = None
                return None
            header, raw, payload = found
            if header.session_id != session_id:
                raise CorruptSnapshotFile(
                    f"the file holds session {header.session_id!r}, not {session_id!r}",
                    source=str(path),
                )
            snapshot = await self._decode(path, header, raw, payload)
            self._expected[session_id] = (header.revision, header.etag)
            return snapshot

    # -- writing -----------------------------------------------------------------------------

    async def save(self, snapshot: SessionSnapshot) -> None:
        """Atomically replace the stored snapshot of ``snapshot.session_id``.

        Raises:
            RevisionConflict: another writer saved since this store last loaded or saved the
                session (or the snapshot is older than the stored one); nothing was written.
            StorageError: serialising or writing failed; the previous snapshot is still loadable.
            CredentialsUnavailable: encryption is on and the keyring cannot give the key.
        """
        session_id = snapshot.session_id
        async with self._async_lock(session_id):
            try:
                payload = await asyncio.to_thread(encode, snapshot)
            except (TypeError, ValueError, OverflowError, msgspec.MsgspecError) as exc:
                raise StorageError(f"cannot serialise session {session_id!r}: {exc}") from exc
            key = await self._key(self.key_name, create=True) if self.encrypt else None
            expected = self._expected.get(session_id, _UNKNOWN)
            written = await asyncio.to_thread(self._write, snapshot, payload, key, expected)
            self._expected[session_id] = written

    def _write(
        self,
        snapshot: SessionSnapshot,
        payload: bytes,
        key: _Key | None,
        expected: tuple[int, str] | object | None,
    ) -> tuple[int, str]:
        session_id = snapshot.session_id
        path = self.path_of(session_id)
        etag = secrets.token_hex(8)
        data = seal(session_id, snapshot.revision, etag, int(self._clock()), payload, key)
        with self._file_lock(session_id):
            current = self._read_header(path)
            self._check_expected(session_id, snapshot.revision, current, expected)
            try:
                temp = write_temp(path, data, mode=0o600)
            except OSError as exc:
                raise StorageError(
                    f"{path}: cannot save session {session_id!r} ({exc.strerror or exc}); "
                    "the previous snapshot is unchanged"
                ) from exc
            try:
                if current is not None and self.keep_revisions > 0:
                    self._retain(session_id, path, current[0])
                os.replace(temp, path)
            except OSError as exc:
                with contextlib.suppress(OSError):
                    temp.unlink()
                raise StorageError(
                    f"{path}: cannot save session {session_id!r} ({exc.strerror or exc}); "
                    "the previous snapshot is unchanged"
                ) from exc
            try:
                fsync_dir(self.root)
            except OSError as exc:
                # The new file is in place (readers see it) but the rename may not survive a
                # power cut; report it so the host does not claim the save is durable.
                self._expected[session_id] = (snapshot.revision, etag)
                raise StorageError(
                    f"{self.root}: saved, but cannot sync the folder ({exc.strerror or exc})"
                ) from exc
            if self.keep_revisions > 0:
                self._prune_one(session_id, self.keep_revisions)
        return snapshot.revision, etag

    def _check_expected(
        self,
        session_id: str,
        revision: int,
        current: tuple[_Header, bytes] | None,
        expected: tuple[int, str] | object | None,
    ) -> None:
        found = None if current is None else (current[0].revision, current[0].etag)
        check_expected(session_id, revision, found, expected)

    # -- retention -----------------------------------------------------------------------------

    def _retain(self, session_id: str, path: Path, header: _Header) -> None:
        folder = self._history_dir(session_id)
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        kept = folder / f"{header.revision:020d}-{header.etag}{SUFFIX}"
        if not kept.exists():
            os.link(path, kept)  # the old file lives on under a second name: no copy
            fsync_dir(folder)

    def _retained(self, session_id: str) -> list[Path]:
        folder = self._history_dir(session_id)
        return sorted(folder.glob(f"*{SUFFIX}")) if folder.is_dir() else []

    def _prune_one(self, session_id: str, keep: int) -> int:
        files = self._retained(session_id)
        doomed = files[: max(0, len(files) - keep)]
        for file in doomed:
            file.unlink()
        if doomed:
            fsync_dir(file.parent)
        return len(doomed)

    async def revisions(self, session_id: str) -> list[int]:
        """The previous revisions kept for ``session_id`` (oldest first)."""
        files = await asyncio.to_thread(self._retained, session_id)
        return [int(f.name.split("-", 1)[0]) for f in files]

    async def load_revision(self, session_id: str, revision: int) -> SessionSnapshot:
        """A kept previous revision (or the current one).

        Raises:
            InputError: no such revision is kept.
        """
        current = await asyncio.to_thread(self._read, self.path_of(session_id))
        if (
            current is not None
            and current[0].revision == revision
            and current[0].session_id == session_id
        ):
            return await self._decode(self.path_of(session_id), *current)
        for file in reversed(await asyncio.to_thread(self._retained, session_id)):
            if int(file.name.split("-", 1)[0]) == revision:
                found = await asyncio.to_thread(self._read, file)
                assert found is not None
                return await self._decode(file, *found)
        raise InputError(f"revision {revision} of session {session_id!r} is not kept")

    async def prune(self, keep_revisions: int | None = None) -> int:
        """Drop kept previous revisions beyond ``keep_revisions`` (default the store's) per session.

        Returns the number of files removed.
        """
        keep = self.keep_revisions if keep_revisions is None else keep_revisions

        def run() -> int:
            removed = 0
            history = self.root / ".history"
            for folder in sorted(history.iterdir()) if history.is_dir() else []:
                files = sorted(folder.glob(f"*{SUFFIX}"))
                for file in files[: max(0, len(files) - keep)]:
                    file.unlink()
                    removed += 1
            return removed

        return await asyncio.to_thread(run)

    async def purge(self, older_than: timedelta) -> list[str]:
        """Delete every session not saved within ``older_than`` (with its kept revisions).

        Returns the deleted session ids.
        """
        cutoff = self._clock() - older_than.total_seconds()
        doomed = [s.session_id for s in await self.list_sessions() if s.saved_at < cutoff]
        for session_id in doomed:
            await self.delete(session_id)
        return doomed

    # -- deletion, listing, backup, export ---------------------------------------------------

    async def delete(self, session_id: str) -> bool:
        """Delete ``session_id``'s snapshot and kept revisions. False if there was nothing.

        The deletion is immediate and final (there is no trash); take a :meth:`backup` first
        if in doubt. The small ``<name>.lock`` file stays, as lock files must.
        """
        async with self._async_lock(session_id):

            def run() -> bool:
                with self._file_lock(session_id):
                    path = self.path_of(session_id)
                    existed = path.exists()
                    with contextlib.suppress(FileNotFoundError):
                        path.unlink()
                    shutil.rmtree(self._history_dir(session_id), ignore_errors=True)
                    fsync_dir(self.root)
                    return existed

            try:
                existed = await asyncio.to_thread(run)
            except OSError as exc:
                raise StorageError(
                    f"cannot delete session {session_id!r}: {exc.strerror or exc}"
                ) from exc
            self._expected[session_id] = None
            return existed

    async def list_sessions(self) -> list[StoredSession]:
        """Every stored session (from file headers; nothing is decrypted), sorted by id."""

        def run() -> list[StoredSession]:
            found = []
            for path in sorted(self.root.glob(f"*{SUFFIX}")):
                header = self._read_header(path)
                if header is None:
                    continue
                h = header[0]
                found.append(
                    StoredSession(
                        h.session_id,
                        h.revision,
                        h.saved_at,
                        path.stat().st_size,
                        h.encryption is not None,
                        path,
                    )
                )
            return sorted(found, key=lambda s: s.session_id)

        return await asyncio.to_thread(run)

    async def backup(self, destination: Path) -> BackupReport:
        """Copy every current snapshot file, as stored, into a new folder under ``destination``.

        Encrypted files stay encrypted (the key is *not* copied: back up the keyring entry
        separately). Each copy is written atomically; a ``manifest.json`` lists the sessions.
        Returns where the backup went.
        """
        sessions = await self.list_sessions()

        def run() -> BackupReport:
            stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime(self._clock()))
            folder = Path(destination) / f"rho-desk-backup-{stamp}-{secrets.token_hex(3)}"
            folder.mkdir(mode=0o700, parents=True)
            for s in sessions:
                atomic_write(folder / s.path.name, s.path.read_bytes(), mode=0o600)
            manifest = {
                "format": FORMAT,
                "created_at": int(self._clock()),
                "sessions": [
                    {
                        "session_id": s.session_id,
                        "revision": s.revision,
                        "file": s.path.name,
                        "encrypted": s.encrypted,
                    }
                    for s in sessions
                ],
            }
            atomic_write(folder / "manifest.json", encode_pretty(manifest) + b"\n", mode=0o600)
            return BackupReport(folder, len(sessions), sum(s.encrypted for s in sessions))

        try:
            return await asyncio.to_thread(run)
        except OSError as exc:
            raise StorageError(f"cannot back up to {destination}: {exc.strerror or exc}") from exc

    async def restore(self, backup: Path, *, overwrite: bool = False) -> list[str]:
        """Put the sessions of a :meth:`backup` folder back; returns the restored ids.

        A session already stored at the same or a newer revision is skipped unless
        ``overwrite``. Each file is replaced atomically under the session's lock.
        """
        restored = []
        for file in sorted(Path(backup).glob(f"*{SUFFIX}")):
            found = await asyncio.to_thread(self._read, file)
            if found is None:
                continue
            header = found[0]
            async with self._async_lock(header.session_id):

                def run(header: _Header = header, file: Path = file) -> bool:
                    with self._file_lock(header.session_id):
                        current = self._read_header(self.path_of(header.session_id))
                        if (
                            current is not None
                            and current[0].revision >= header.revision
                            and not overwrite
                        ):
                            return False
                        atomic_write(self.path_of(header.session_id), file.read_bytes(), mode=0o600)
                        return True

                if await asyncio.to_thread(run):
                    restored.append(header.session_id)
                    self._expected.pop(header.session_id, None)
        return restored

    async def export(
        self, session_id: str, destination: Path, *, pretty: bool = True
    ) -> SessionSnapshot:
        """Write ``session_id``'s snapshot as a plain (decrypted) SDK snapshot document.

        The export is a data export, not a redacted transcript (seed, "Export safety"): it is
        written atomically with mode 0600. Use ``rho-desk export`` for a classified, audited one.

        Raises:
            InputError: no such session.
        """
        found = await asyncio.to_thread(self._read, self.path_of(session_id))
        if found is None:
            raise InputError(f"no stored session {session_id!r}")
        snapshot = await self._decode(self.path_of(session_id), *found)
        data = encode_pretty(snapshot) if pretty else encode(snapshot)
        await asyncio.to_thread(atomic_write, Path(destination), data, mode=0o600)
        return snapshot


_UNKNOWN: Final = object()
UNKNOWN: Final = _UNKNOWN
"""``expected`` for a session this store never loaded or saved (see :func:`check_expected`)."""


def check_expected(
    session_id: str,
    revision: int,
    found: tuple[int, str] | None,
    expected: tuple[int, str] | object | None,
) -> None:
    """The optimistic revision check of a save, run while holding the session's write lock.

    ``found`` is the stored (revision, write tag), ``None`` when nothing is stored; ``expected``
    what this store last loaded or saved (``None``: it saw nothing), or ``UNKNOWN``.

    Raises:
        RevisionConflict: another writer got there first, or ``revision`` goes backwards.
    """
    if expected is _UNKNOWN:
        # Never loaded here: only a first save, or a strictly newer revision, may go in.
        if found is not None and found[0] >= revision:
            raise RevisionConflict(
                f"session {session_id!r} is stored at revision {found[0]}, not older than "
                f"{revision}; load it before saving"
            )
        return
    if found != expected:
        if found is None:
            what = "was deleted"
        elif expected is None:
            what = f"was created elsewhere (revision {found[0]})"
        else:
            what = f"was saved elsewhere (now revision {found[0]})"
        raise RevisionConflict(
            f"session {session_id!r} {what} since this store read it; nothing was written: "
            "reload it, or save under a new session id"
        )
    if found is not None and revision < found[0]:
        raise RevisionConflict(
            f"session {session_id!r} is stored at revision {found[0]}; refusing to go back to {revision}"
        )


# -- the envelope (also what the PostgreSQL session store keeps in its rows) ----------------------


def seal(
    session_id: str, revision: int, etag: str, saved_at: int, payload: bytes, key: _Key | None
) -> bytes:
    """The stored bytes of one snapshot: magic, header length, header, payload (encrypted with
    AES-256-GCM under ``key`` when given, the magic and header being the associated data)."""
    encryption = None
    nonce = b""
    if key is not None:
        nonce = os.urandom(12)
        encryption = _Encryption(ALGORITHM, key.name, base64.b64encode(nonce).decode())
    raw = encode(_Header(FORMAT, session_id, revision, etag, saved_at, encryption))
    if key is not None:
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM

        payload = AESGCM(key.value).encrypt(nonce, payload, MAGIC + raw)
    return MAGIC + struct.pack(">I", len(raw)) + raw + payload


def split_envelope(data: bytes, source: str) -> tuple[_Header, bytes, bytes]:
    """Header, raw header bytes and payload of stored bytes made by :func:`seal`.

    Raises:
        CorruptSnapshotFile: not an envelope, or a damaged or unsupported header.
    """
    if len(data) < len(MAGIC) + 4 or data[: len(MAGIC)] != MAGIC:
        raise CorruptSnapshotFile("not a rho-desk snapshot file", source=source)
    (length,) = struct.unpack(">I", data[len(MAGIC) : len(MAGIC) + 4])
    body = len(MAGIC) + 4
    if length > _MAX_HEADER or body + length > len(data):
        raise CorruptSnapshotFile("damaged file header", source=source)
    raw = data[body : body + length]
    try:
        header = decode(raw, _Header, source=source)
    except InputError as exc:
        raise CorruptSnapshotFile(f"damaged file header: {exc.reason}", source=source) from None
    if header.format != FORMAT:
        raise CorruptSnapshotFile(
            f"unsupported snapshot file format {header.format}", source=source
        )
    return header, raw, data[body + length :]


def open_envelope(
    source: str, header: _Header, raw: bytes, payload: bytes, key: _Key | None
) -> SessionSnapshot:
    """The snapshot inside an envelope (decrypted with ``key`` when the header says encrypted).

    Raises:
        CorruptSnapshotFile: altered, undecryptable, or not matching its header.
    """
    if header.encryption is not None:
        enc = header.encryption
        if enc.algorithm != ALGORITHM:
            raise CorruptSnapshotFile(f"unknown encryption {enc.algorithm!r}", source=source)
        if key is None or key.name != enc.key:
            raise CorruptSnapshotFile(
                f"encrypted with key {enc.key!r}, which was not given", source=source
            )
        payload = _decrypt(Path(source), key, enc, MAGIC + raw, payload)
    snapshot = _decode_snapshot(Path(source), payload)
    if snapshot.session_id != header.session_id or snapshot.revision != header.revision:
        raise CorruptSnapshotFile("the snapshot does not match its file header", source=source)
    return snapshot


def _decrypt(path: Path, key: _Key, enc: _Encryption, aad: bytes, payload: bytes) -> bytes:
    from cryptography.exceptions import InvalidTag
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    try:
        nonce = base64.b64decode(enc.nonce, validate=True)
    except ValueError:
        nonce = b""
    if len(nonce) != 12:
        raise CorruptSnapshotFile("damaged encryption nonce", source=str(path))
    try:
        return AESGCM(key.value).decrypt(nonce, payload, aad)
    except InvalidTag:
        raise CorruptSnapshotFile(
            f"cannot decrypt with key {key.name!r}: the file was altered, or the key is not the one "
            "it was written with",
            source=str(path),
        ) from None


def _decode_snapshot(path: Path, payload: bytes) -> SessionSnapshot:
    with gc_paused():
        try:
            return decode(payload, SessionSnapshot, source=str(path))
        except InputError as exc:
            raise CorruptSnapshotFile(exc.reason, source=str(path), path=exc.path) from None
