"""``PostgresSessionStore``: the seed's durable session store, on PostgreSQL.

For hosts that embed ``rho_desk.core`` and keep sessions in a database. It meets the durable
adapter's eight points ("Store and atomicity responsibilities"):

1. a save serialises the complete snapshot first (nothing is sent if that fails);
2. it writes a new row version in one transaction;
3. the commit is durable as the server is configured (``synchronous_commit``);
4. the transaction replaces the current row, so readers see the old or the new snapshot;
5. a failure rolls the transaction back: the previous snapshot stays;
6. saves are optimistic: under ``SELECT ... FOR UPDATE`` the stored revision and write tag must
   still be those this store last loaded or saved, else ``RevisionConflict`` (across processes
   and machines; a concurrent first save loses on the primary key, also ``RevisionConflict``);
7. with a key the payload is AES-256-GCM encrypted in the durable file store's envelope (the
   same bytes a ``.rdsnap`` file holds), so the database never sees the plaintext;
8. retention (``keep_revisions`` previous revisions per session, pruned in the same
   transaction), deletion and listing are explicit methods.

Rows live in ``rho_desk.store_snapshots`` and ``rho_desk.store_history`` (created by ``rho-desk
team init``), keyed by a ``namespace`` so several hosts can share one database.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Callable
from typing import Any

import msgspec
import psycopg
import psycopg_pool

from ..core.errors import DatabaseUnavailable, InputError, RevisionConflict, StorageError
from ..core.stores.durable import (
    UNKNOWN,
    EnvelopeKey,
    check_expected,
    open_envelope,
    seal,
    split_envelope,
)
from ..core.wire.codec import encode
from ..core.wire.snapshot import SessionSnapshot
from .db import database_errors, keyring_password, safe_dsn

__all__ = ["PostgresSessionStore"]


class PostgresSessionStore:
    """A ``SessionStore`` keeping complete snapshots in PostgreSQL (see the module docstring).

    Args:
        dsn: a libpq connection string (password from keyring, ``.pgpass`` or a service file).
        namespace: separates the sessions of several hosts sharing one database.
        key: a 32-byte key to encrypt new saves with (``None``: stored in the clear). Loading an
            encrypted snapshot needs the key it was written with.
        key_name: the key's name, recorded in each envelope (never the key).
        keep_revisions: previous revisions kept per session (0: none).
        max_connections: the pool's size.
    """

    def __init__(
        self,
        dsn: str,
        *,
        namespace: str = "default",
        key: bytes | None = None,
        key_name: str = "default",
        keep_revisions: int = 0,
        max_connections: int = 4,
        clock: Callable[[], float] = time.time,
    ) -> None:
        if keep_revisions < 0:
            raise ValueError("keep_revisions must be 0 or more")
        if key is not None and len(key) != 32:
            raise ValueError("the encryption key must be 32 bytes (AES-256)")
        self._dsn = dsn
        self.namespace = namespace
        self.keep_revisions = keep_revisions
        self._key = None if key is None else EnvelopeKey(key_name, key)
        self._clock = clock
        self._expected: dict[str, tuple[int, str] | None] = {}
        password = keyring_password(dsn)
        self._pool: psycopg_pool.AsyncConnectionPool[Any] = psycopg_pool.AsyncConnectionPool(
            dsn,
            kwargs={"password": password} if password else {},
            min_size=1,
            max_size=max_connections,
            open=False,
            timeout=10,
            check=psycopg_pool.AsyncConnectionPool.check_connection,
            name="rho-desk-store",
        )
        self._opened = False

    def __repr__(self) -> str:
        return (
            f"PostgresSessionStore({safe_dsn(self._dsn)!r}, namespace={self.namespace!r}, "
            f"encrypt={self._key is not None}, keep_revisions={self.keep_revisions})"
        )

    async def _connection(self) -> Any:
        if not self._opened:
            with database_errors(self._dsn):
                await self._pool.open(wait=False)
            self._opened = True
        return self._pool.connection()

    async def close(self) -> None:
        await self._pool.close()

    async def __aenter__(self) -> PostgresSessionStore:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def _run(self, job: Callable[[psycopg.AsyncConnection[Any]], Any]) -> Any:
        try:
            with database_errors(self._dsn):
                async with await self._connection() as conn:
                    return await job(conn)
        except psycopg_pool.PoolTimeout as exc:
            raise DatabaseUnavailable(
                f"the session database is unreachable ({safe_dsn(self._dsn)}): {exc}"
            ) from None

    def _open(self, session_id: str, envelope: bytes) -> SessionSnapshot:
        source = f"postgres:{self.namespace}/{session_id}"
        header, raw, payload = split_envelope(envelope, source)
        if header.session_id != session_id:
            raise InputError(
                f"the row holds session {header.session_id!r}, not {session_id!r}", source=source
            )
        return open_envelope(source, header, raw, payload, self._key)

    # -- the SessionStore protocol -------------------------------------------------------------

    async def load(self, session_id: str) -> SessionSnapshot | None:
        """The stored snapshot, or ``None``; remembers its revision for the next save.

        Raises:
            CorruptSnapshotFile: the stored envelope is damaged, or encrypted with another key.
            DatabaseUnavailable: the server cannot be reached.
        """

        async def job(conn: psycopg.AsyncConnection[Any]) -> tuple[int, str, bytes] | None:
            cur = await conn.execute(
                "SELECT revision, etag, envelope FROM rho_desk.store_snapshots WHERE namespace = %s AND session_id = %s",
                (self.namespace, session_id),
            )
            row = await cur.fetchone()
            return None if row is None else (int(row[0]), str(row[1]), bytes(row[2]))

        found = await self._run(job)
        if found is None:
            self._expected[session_id] = None
            return None
        revision, etag, envelope = found
        snapshot = await asyncio.to_thread(self._open, session_id, envelope)
        self._expected[session_id] = (revision, etag)
        return snapshot

    async def save(self, snapshot: SessionSnapshot) -> None:
        """Replace the stored snapshot of ``snapshot.session_id`` in one transaction.

        Raises:
            RevisionConflict: another writer saved since this store last loaded or saved the
                session (or the snapshot is older than the stored one); nothing was written.
            StorageError: the snapshot cannot be serialised; nothing was sent.
            DatabaseUnavailable: the connection failed; nothing was committed.
        """
        if not isinstance(snapshot, SessionSnapshot):
            raise TypeError(f"expected SessionSnapshot, not {type(snapshot).__name__}")
        session_id = snapshot.session_id
        try:
            payload = await asyncio.to_thread(encode, snapshot)
        except (TypeError, ValueError, OverflowError, msgspec.MsgspecError) as exc:
            raise StorageError(f"cannot serialise session {session_id!r}: {exc}") from exc
        etag = secrets.token_hex(8)
        saved_at = self._clock()
        envelope = await asyncio.to_thread(
            seal, session_id, int(snapshot.revision), etag, int(saved_at), payload, self._key
        )
        expected = self._expected.get(session_id, UNKNOWN)
        revision = int(snapshot.revision)

        async def job(conn: psycopg.AsyncConnection[Any]) -> None:
            async with conn.transaction():
                cur = await conn.execute(
                    "SELECT revision, etag, saved_at, envelope FROM rho_desk.store_snapshots "
                    "WHERE namespace = %s AND session_id = %s FOR UPDATE",
                    (self.namespace, session_id),
                )
                row = await cur.fetchone()
                found = None if row is None else (int(row[0]), str(row[1]))
                check_expected(session_id, revision, found, expected)
                if row is None:
                    cur = await conn.execute(
                        "INSERT INTO rho_desk.store_snapshots (namespace, session_id, revision, etag, saved_at, envelope) "
                        "VALUES (%s, %s, %s, %s, to_timestamp(%s), %s) ON CONFLICT DO NOTHING RETURNING 1",
                        (self.namespace, session_id, revision, etag, saved_at, envelope),
                    )
                    if await cur.fetchone() is None:
                        raise RevisionConflict(
                            f"session {session_id!r} was created elsewhere at the same time; nothing was "
                            "written: reload it"
                        )
                else:
                    if self.keep_revisions > 0:
                        await conn.execute(
                            "INSERT INTO rho_desk.store_history (namespace, session_id, revision, etag, saved_at, envelope) "
                            "VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT DO NOTHING",
                            (self.namespace, session_id, row[0], row[1], row[2], row[3]),
                        )
                        await conn.execute(
                            "DELETE FROM rho_desk.store_history WHERE namespace = %s AND session_id = %s AND "
                            "(revision, etag) NOT IN (SELECT revision, etag FROM rho_desk.store_history "
                            "WHERE namespace = %s AND session_id = %s ORDER BY revision DESC, saved_at DESC LIMIT %s)",
                            (
                                self.namespace,
                                session_id,
                                self.namespace,
                                session_id,
                                self.keep_revisions,
                            ),
                        )
                    await conn.execute(
                        "UPDATE rho_desk.store_snapshots SET revision = %s, etag = %s, saved_at = to_timestamp(%s), "
                        "envelope = %s WHERE namespace = %s AND session_id = %s",
                        (revision, etag, saved_at, envelope, self.namespace, session_id),
                    )

        await self._run(job)
        self._expected[session_id] = (revision, etag)

    # -- retention, deletion, listing ----------------------------------------------------------

    async def revisions(self, session_id: str) -> list[int]:
        """The previous revisions kept for ``session_id`` (oldest first)."""

        async def job(conn: psycopg.AsyncConnection[Any]) -> list[int]:
            cur = await conn.execute(
                "SELECT revision FROM rho_desk.store_history WHERE namespace = %s AND session_id = %s "
                "ORDER BY revision, saved_at",
                (self.namespace, session_id),
            )
            return [int(r[0]) for r in await cur.fetchall()]

        result: list[int] = await self._run(job)
        return result

    async def load_revision(self, session_id: str, revision: int) -> SessionSnapshot:
        """A kept previous revision (or the current one).

        Raises:
            InputError: no such revision is kept.
        """

        async def job(conn: psycopg.AsyncConnection[Any]) -> bytes | None:
            cur = await conn.execute(
                "SELECT envelope FROM rho_desk.store_snapshots WHERE namespace = %s AND session_id = %s AND revision = %s "
                "UNION ALL (SELECT envelope FROM rho_desk.store_history WHERE namespace = %s AND session_id = %s "
                "AND revision = %s ORDER BY saved_at DESC LIMIT 1) LIMIT 1",
                (self.namespace, session_id, revision, self.namespace, session_id, revision),
            )
            row = await cur.fetchone()
            return None if row is None else bytes(row[0])

        envelope = await self._run(job)
        if envelope is None:
            raise InputError(f"revision {revision} of session {session_id!r} is not kept")
        return await asyncio.to_thread(self._open, session_id, envelope)

    async def delete(self, session_id: str) -> bool:
        """Delete a session and its kept revisions (final: there is no trash). False if absent."""

        async def job(conn: psycopg.AsyncConnection[Any]) -> bool:
            async with conn.transaction():
                await conn.execute(
                    "DELETE FROM rho_desk.store_history WHERE namespace = %s AND session_id = %s",
                    (self.namespace, session_id),
                )
                cur = await conn.execute(
                    "DELETE FROM rho_desk.store_snapshots WHERE namespace = %s AND session_id = %s RETURNING 1",
                    (self.namespace, session_id),
                )
                return await cur.fetchone() is not None

        existed: bool = await self._run(job)
        self._expected[session_id] = None
        return existed

    async def ids(self) -> list[str]:
        """Stored session ids of this namespace, in byte-wise order."""

        async def job(conn: psycopg.AsyncConnection[Any]) -> list[str]:
            cur = await conn.execute(
                'SELECT session_id FROM rho_desk.store_snapshots WHERE namespace = %s ORDER BY session_id COLLATE "C"',
                (self.namespace,),
            )
            return [str(r[0]) for r in await cur.fetchall()]

        result: list[str] = await self._run(job)
        return result
