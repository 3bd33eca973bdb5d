"""The team library: published sessions in PostgreSQL, read and written through a psycopg pool.

``TeamLibrary.open(dsn)`` checks the schema (refusing a newer one, asking for ``team init`` on an
older one) and opens an async pool. Every write is one transaction; every psycopg error leaves
as a rho-desk error whose text holds no password (``db.describe``). Row-level security in the
database (schema step 3) decides what a member sees: this code never filters by team for
access, only for the view the caller asked for.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import functools
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final, Unpack

import psycopg
import psycopg_pool
from psycopg import sql
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb

from ..core.errors import AccessDenied, DatabaseUnavailable, InputError, StorageError
from ..core.export import ExportSource, Selection, SignOptions
from ..core.text.jsonable import json_fields
from ..core.wire.snapshot import SessionSnapshot
from .db import connect, database_errors, keyring_password, safe_dsn
from .publish import Publication, prepare
from .schema import MEMBERS_ROLE, SCHEMA_VERSION, migrate, schema_version, team_role, too_new

__all__ = [
    "PublishOutcome",
    "PublishedSession",
    "PublishedVersion",
    "SearchHit",
    "TeamLibrary",
    "validate_team_name",
]

_TEAM_NAME: Final = "^[a-z][a-z0-9_]{0,47}$"
HIGHLIGHT: Final = ("«", "»")


def validate_team_name(name: str) -> str:
    import re

    if not re.fullmatch(_TEAM_NAME, name):
        raise InputError(
            f"team names are 1 to 48 lowercase letters, digits and underscores, starting with a letter; not {name!r}"
        )
    return name


@dataclass(frozen=True)
class PublishOutcome:
    team: str
    session_id: str
    revision: int
    added: bool
    """False: that revision was already published (nothing changed)."""
    versions: int
    latest_revision: int
    history: str = "display"
    """The history kind stored for this revision: the one just published, or (when ``added`` is
    false) the one published before; a revision is published once, in one history."""


@dataclass(frozen=True)
class PublishedSession:
    team: str
    session_id: str
    title: str
    latest_revision: int
    versions: int
    published_at: datetime
    published_by: str

    def to_json(self) -> dict[str, object]:
        return json_fields(self)


@dataclass(frozen=True)
class PublishedVersion:
    team: str
    session_id: str
    revision: int
    history: str
    export: bytes
    sha256: str
    receipt: bytes
    stats: dict[str, Any]
    message_count: int
    published_at: datetime
    published_by: str
    revisions: tuple[int, ...]
    """Every published revision of this session, oldest first."""
    title: str | None = None
    """The session's title as the database lists it, when this is its latest revision (the title
    is derived from the latest export, so verification recomputes it); ``None`` otherwise."""
    search_text: str | None = None
    """The session's searchable text as the database holds it (what team search finds and shows
    snippets of), when this is its latest revision: verification recomputes it from the export."""

    def __repr__(self) -> str:
        return f"PublishedVersion({self.team!r}, {self.session_id!r}, r{self.revision}, {len(self.export)} bytes)"


@dataclass(frozen=True)
class SearchHit:
    team: str
    session_id: str
    title: str
    latest_revision: int
    published_at: datetime
    snippet: str
    """Text around the match, matches between ``HIGHLIGHT`` marks."""
    rank: float

    def to_json(self) -> dict[str, object]:
        return json_fields(self, rank=round(self.rank, 6))


def _like_pattern(text: str) -> str:
    return "%" + text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


class TeamLibrary:
    """Published sessions of the teams the connecting role belongs to (see module docstring)."""

    def __init__(self, dsn: str, pool: psycopg_pool.AsyncConnectionPool[Any]) -> None:
        self._dsn = dsn
        self._pool = pool

    def __repr__(self) -> str:
        return f"TeamLibrary({safe_dsn(self._dsn)!r})"

    @property
    def where(self) -> str:
        """The database, as it may be shown (no password)."""
        return safe_dsn(self._dsn)

    # -- opening -----------------------------------------------------------------------------

    @classmethod
    async def open(
        cls, dsn: str, *, max_size: int = 4, require_schema: bool = True, timeout: float = 10.0
    ) -> TeamLibrary:
        """Connect (checking the schema) and open a pool of up to ``max_size`` connections;
        a call waits up to ``timeout`` seconds for a connection.

        Raises:
            DatabaseUnavailable: the server cannot be reached.
            CredentialsUnavailable: the server refused the credentials.
            SchemaTooNew: the schema is newer than this rho-desk.
            StorageError: no rho-desk schema, or an older one (run ``rho-desk team init``).
        """
        async with connect(dsn, autocommit=True) as conn:
            version = await schema_version(conn)
        if version > SCHEMA_VERSION:
            raise too_new(version)
        if require_schema and version < SCHEMA_VERSION:
            what = (
                "has no rho-desk schema"
                if version == 0
                else f"has rho-desk schema version {version}"
            )
            raise StorageError(
                f"the team database {what} (this rho-desk needs {SCHEMA_VERSION}): its owner runs "
                f"'rho-desk team init --db ...' ({safe_dsn(dsn)})"
            )
        password = keyring_password(dsn)
        pool: psycopg_pool.AsyncConnectionPool[Any] = psycopg_pool.AsyncConnectionPool(
            dsn,
            kwargs={"autocommit": True, **({"password": password} if password else {})},
            min_size=1,
            max_size=max_size,
            open=False,
            timeout=timeout,
            reconnect_timeout=30,
            check=psycopg_pool.AsyncConnectionPool.check_connection,
            name="rho-desk-team",
        )
        with database_errors(dsn):
            await pool.open(wait=False)
        return cls(dsn, pool)

    async def close(self) -> None:
        await self._pool.close()

    async def __aenter__(self) -> TeamLibrary:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def _errors(self) -> Any:
        return database_errors(self._dsn)

    # -- administration (the database owner, or a role with CREATEROLE) -------------------------

    @staticmethod
    async def init(dsn: str, target: int = SCHEMA_VERSION) -> tuple[int, int]:
        """Create or migrate the schema; returns (before, after) versions."""
        async with connect(dsn, autocommit=True) as conn:
            with database_errors(dsn):
                return await migrate(conn, target)

    async def create_team(self, name: str, members: tuple[str, ...] = ()) -> bool:
        """Create the team (its role and its row) if missing, and grant it to ``members`` roles.

        Returns whether the team is new.
        """
        validate_team_name(name)
        role = team_role(name)
        try:
            with self._errors():
                async with self._pool.connection() as conn, conn.transaction():
                    cur = await conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (role,))
                    if await cur.fetchone() is None:
                        await conn.execute(
                            sql.SQL("CREATE ROLE {} NOLOGIN IN ROLE {}").format(
                                sql.Identifier(role), sql.Identifier(MEMBERS_ROLE)
                            )
                        )
                    cur = await conn.execute(
                        "INSERT INTO rho_desk.teams (name, role) VALUES (%s, %s) ON CONFLICT (name) DO NOTHING RETURNING name",
                        (name, role),
                    )
                    created = await cur.fetchone() is not None
                    for member in members:
                        cur = await conn.execute(
                            "SELECT 1 FROM pg_roles WHERE rolname = %s", (member,)
                        )
                        if await cur.fetchone() is None:
                            raise InputError(
                                f"no database role {member!r} to add to team {name!r} (CREATE ROLE it first)"
                            )
                        await conn.execute(
                            sql.SQL("GRANT {} TO {}").format(
                                sql.Identifier(role), sql.Identifier(member)
                            )
                        )
                    return created
        except psycopg_pool.PoolTimeout as exc:
            raise DatabaseUnavailable(
                f"the team database is unreachable ({self.where}): {exc}"
            ) from None

    async def teams(self) -> list[str]:
        """The teams the connecting role can see (its own; all of them for the owner)."""
        rows = await self._fetch("SELECT name FROM rho_desk.teams ORDER BY name", ())
        return [str(r["name"]) for r in rows]

    # -- reading -----------------------------------------------------------------------------

    async def _fetch(self, query: str | sql.Composed, params: Any) -> list[dict[str, Any]]:
        try:
            with self._errors():
                async with (
                    self._pool.connection() as conn,
                    conn.cursor(row_factory=dict_row) as cur,
                ):
                    await cur.execute(query, params)
                    rows: list[dict[str, Any]] = await cur.fetchall()
                    return rows
        except psycopg_pool.PoolTimeout as exc:
            raise DatabaseUnavailable(
                f"the team database is unreachable ({self.where}): {exc}"
            ) from None

    async def sessions(
        self, *, team: str | None = None, limit: int = 50, offset: int = 0
    ) -> list[PublishedSession]:
        """Published sessions, most recently published first."""
        where = "WHERE team = %(team)s" if team else ""
        rows = await self._fetch(
            "SELECT team, session_id, title, latest_revision, versions, published_at, published_by "
            f"FROM rho_desk.sessions {where} ORDER BY published_at DESC, id DESC LIMIT %(limit)s OFFSET %(offset)s",
            {"team": team, "limit": limit, "offset": offset},
        )
        return [PublishedSession(**r) for r in rows]

    async def show(
        self, session_id: str, *, team: str | None = None, revision: int | None = None
    ) -> PublishedVersion:
        """One published version (the latest by default) with its export and receipt.

        Raises:
            InputError: no such session or revision visible to this role, or the id is ambiguous.
        """
        rows = await self._fetch(
            "SELECT s.id, s.team, s.title, s.search_text, array_agg(v.revision ORDER BY v.revision) AS revisions "
            "FROM rho_desk.sessions s JOIN rho_desk.versions v ON v.session = s.id "
            "WHERE s.session_id = %(sid)s AND (%(team)s::text IS NULL OR s.team = %(team)s) GROUP BY s.id",
            {"sid": session_id, "team": team},
        )
        if not rows:
            raise InputError(
                f"no published session {session_id!r}"
                + (f" in team {team!r}" if team else "")
                + " that you can read"
            )
        if len(rows) > 1:
            teams = ", ".join(sorted(str(r["team"]) for r in rows))
            raise InputError(
                f"session {session_id!r} is published in several teams ({teams}): pass --team"
            )
        row = rows[0]
        # the newest stored version: members cannot change versions, while the session row's
        # latest_revision is a teammate's to rewrite (a rollback would hide a newer revision)
        newest = max(int(r) for r in row["revisions"])
        wanted = newest if revision is None else revision
        versions = await self._fetch(
            "SELECT revision, history, export, sha256, receipt, stats, message_count, published_at, published_by "
            "FROM rho_desk.versions WHERE session = %s AND revision = %s",
            (row["id"], wanted),
        )
        if not versions:
            kept = ", ".join(str(r) for r in row["revisions"])
            raise InputError(
                f"revision {wanted} of {session_id!r} is not published (published: {kept})"
            )
        v = versions[0]
        return PublishedVersion(
            team=str(row["team"]),
            session_id=session_id,
            revision=int(v["revision"]),
            history=str(v["history"]),
            export=bytes(v["export"]),
            sha256=str(v["sha256"]),
            receipt=bytes(v["receipt"]),
            stats=dict(v["stats"]),
            message_count=int(v["message_count"]),
            published_at=v["published_at"],
            published_by=str(v["published_by"]),
            revisions=tuple(int(r) for r in row["revisions"]),
            title=str(row["title"]) if int(v["revision"]) == newest else None,
            search_text=str(row["search_text"]) if int(v["revision"]) == newest else None,
        )

    async def search(
        self, query: str, *, team: str | None = None, limit: int = 20
    ) -> list[SearchHit]:
        """Sessions whose latest version matches ``query``: full-text (web-search syntax) or,
        for three characters or more, a case-insensitive substring; best matches first."""
        query = query.strip()
        if not query:
            raise InputError("an empty search")
        substring = len(query) >= 3
        start, stop = HIGHLIGHT
        options = f"StartSel={start}, StopSel={stop}, MaxFragments=2, MaxWords=18, MinWords=6, FragmentDelimiter=' … '"
        # rho_desk.search applies the membership rule itself (schema step 4: why)
        rows = await self._fetch(
            "SELECT team, session_id, title, latest_revision, published_at, rank, snippet "
            "FROM rho_desk.search(%s, %s, %s, %s, %s)",
            (query, _like_pattern(query) if substring else None, team, limit, options),
        )
        hits = []
        for r in rows:
            snippet = " ".join(str(r["snippet"] or "").split())
            if substring and start not in snippet:
                snippet = _mark(snippet, query)
            hits.append(
                SearchHit(
                    str(r["team"]),
                    str(r["session_id"]),
                    str(r["title"]),
                    int(r["latest_revision"]),
                    r["published_at"],
                    snippet,
                    float(r["rank"]),
                )
            )
        return hits

    # -- publishing --------------------------------------------------------------------------

    async def publish(
        self,
        team: str,
        source: ExportSource | SessionSnapshot,
        selection: Selection,
        *,
        source_name: str | None = None,
        **sign: Unpack[SignOptions],
    ) -> tuple[Publication, PublishOutcome]:
        """Export ``source`` through the export pipeline (off the event loop; a bare snapshot
        exports its model context) and store the result in one transaction.

        Raises:
            PublishBlocked: the audit blocked the export; nothing was sent.
            AccessDenied, DatabaseUnavailable: see :meth:`store`.
        """
        validate_team_name(team)
        pub = await asyncio.to_thread(
            functools.partial(prepare, source, selection, source_name=source_name, **sign)
        )
        return pub, await self.store(team, pub)

    async def publish_many(
        self,
        team: str,
        sources: Iterable[tuple[ExportSource | SessionSnapshot, str | None]],
        selection: Selection,
        **sign: Unpack[SignOptions],
    ) -> list[tuple[Publication, PublishOutcome]]:
        """Publish several sessions (source, source name): each in its own transaction, the
        next one exported while the previous ones are being stored (up to the pool's size).

        Raises:
            PublishBlocked: a session's audit blocked it; the sessions before it are published,
                it and the ones after are not.
        """
        validate_team_name(team)
        done: list[tuple[Publication, PublishOutcome]] = []
        storing: collections.deque[asyncio.Task[tuple[Publication, PublishOutcome]]] = (
            collections.deque()
        )
        in_flight = max(1, self._pool.max_size)

        async def store(pub: Publication) -> tuple[Publication, PublishOutcome]:
            return pub, await self.store(team, pub)

        try:
            for source, source_name in sources:
                pub = await asyncio.to_thread(
                    functools.partial(prepare, source, selection, source_name=source_name, **sign)
                )
                while len(storing) >= in_flight:
                    done.append(await storing.popleft())
                storing.append(asyncio.create_task(store(pub)))
            while storing:
                done.append(await storing.popleft())
        finally:
            # an export failed while earlier sessions were being stored: let them finish
            for task in storing:
                with contextlib.suppress(Exception):
                    await task
        return done

    async def store(self, team: str, pub: Publication) -> PublishOutcome:
        """Store one publication in one transaction; the same revision again changes nothing.

        Raises:
            AccessDenied: no such team, or the role is not one of its members.
            DatabaseUnavailable: the connection failed (nothing was committed).
        """
        validate_team_name(team)
        try:
            with self._errors():
                async with self._pool.connection() as conn:
                    return await self._store(conn, team, pub)
        except psycopg_pool.PoolTimeout as exc:
            raise DatabaseUnavailable(
                f"the team database is unreachable ({self.where}): {exc}"
            ) from None
        except psycopg.errors.InsufficientPrivilege:
            raise AccessDenied(f"you are not a member of team {team!r} ({self.where})") from None

    async def _store(
        self, conn: psycopg.AsyncConnection[Any], team: str, pub: Publication
    ) -> PublishOutcome:
        # one statement, so one transaction and one round trip (schema step 4)
        cur = await conn.execute(
            "SELECT added, versions, latest_revision FROM rho_desk.publish(%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
            (
                team,
                pub.session_id,
                pub.revision,
                pub.history,
                pub.title,
                pub.export,
                pub.sha256,
                pub.receipt,
                Jsonb(pub.stats),
                pub.message_count,
                pub.search_text,
            ),
        )
        row = await cur.fetchone()
        assert row is not None
        history = pub.history
        if not row[0]:  # already there: say in which history it was published
            cur = await conn.execute(
                "SELECT v.history FROM rho_desk.versions v JOIN rho_desk.sessions s ON s.id = v.session "
                "WHERE s.team = %s AND s.session_id = %s AND v.revision = %s",
                (team, pub.session_id, pub.revision),
            )
            found = await cur.fetchone()
            history = str(found[0]) if found else history
        return PublishOutcome(
            team, pub.session_id, pub.revision, bool(row[0]), int(row[1]), int(row[2]), history
        )


def _mark(snippet: str, query: str) -> str:
    lower, needle = snippet.lower(), query.lower()
    at = lower.find(needle)
    if at < 0:
        return snippet
    start, stop = HIGHLIGHT
    return snippet[:at] + start + snippet[at : at + len(query)] + stop + snippet[at + len(query) :]
