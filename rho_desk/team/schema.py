"""The team database's schema, versioned and migrated step by step.

Everything lives in the PostgreSQL schema ``rho_desk``. ``rho_desk.schema_version`` holds one
row, the version, as Rho's index keeps ``user_version``: :func:`migrate` takes an older schema
forward one step at a time (each step one transaction that also bumps the version, under an
advisory lock so two ``team init`` cannot interleave) and refuses a newer one (``SchemaTooNew``)
without writing anything.

Steps:

1. teams, published sessions and their versions (export, receipt, statistics), and the
   ``PostgresSessionStore`` tables;
2. search: each session's searchable text (of its latest version), a ``tsvector`` column with
   a GIN index and a ``pg_trgm`` GIN index for substrings (sessions already published get their
   text from their stored export);
3. access: row-level security (a member reads and publishes only their teams' sessions) and the
   ``rho_desk_members`` role every team role belongs to, which holds the table privileges;
4. ``rho_desk.publish(...)``: storing one version as one statement (one round trip, atomic),
   run with the caller's rights, so row-level security applies to it as to plain SQL; and
   ``rho_desk.search(...)``: search with the indexes. Row-level security keeps PostgreSQL from
   using an index for an operator that is not leakproof (``@@``, ``ILIKE``), so this function
   runs with its owner's rights and applies the same membership rule itself (the caller's login
   role must be a member of the session's team).
5. rows bound to their team: a version's team is its session's team (a composite foreign key
   ``(session, team) -> sessions (id, team)``), and the primary key of versions includes the team,
   so neither a foreign-key nor a unique violation answers for a row of another team (a member
   probing ids learns nothing: every id of another team fails as an id that does not exist).
   ``published_by`` and ``published_at`` are stamped by the database (``current_user``, ``now()``)
   on every version and on every change of a session's title, revision or publisher; members no
   longer update versions. Versions already stored under another team than their session's are
   moved to ``rho_desk.quarantined_versions`` (the owner's only) before the constraint is added.
6. what a member writes of a session row is named: members insert only the columns publishing
   writes (``team``, ``session_id``, ``title``, ``latest_revision``, ``search_text``), so an
   insert cannot choose an ``id`` (a unique violation on a chosen id would say which ids of
   other teams exist); and the session's publisher is stamped on a change of its searchable text
   or its publication time too, so a teammate who rewrites what team search finds and quotes is
   the one listed.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Final

import psycopg
from psycopg import sql

from ..core.errors import SchemaTooNew, StorageError

__all__ = ["MEMBERS_ROLE", "SCHEMA_VERSION", "STEPS", "migrate", "schema_version", "team_role"]

SCHEMA_VERSION: Final = 6
"""The newest schema this rho-desk knows. Never write more."""
MEMBERS_ROLE: Final = "rho_desk_members"
_LOCK_KEY: Final = 0x72686F_6465736B  # "rho desk"

Conn = psycopg.AsyncConnection[Any]


def team_role(team: str) -> str:
    """The PostgreSQL role of a team (``rho_team_<name>``)."""
    return f"rho_team_{team}"


_V1: Final = """
CREATE SCHEMA IF NOT EXISTS rho_desk;
CREATE TABLE rho_desk.schema_version (
    version integer NOT NULL,
    migrated_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE rho_desk.teams (
    name text PRIMARY KEY CHECK (name ~ '^[a-z][a-z0-9_]{0,47}$'),
    role name NOT NULL UNIQUE,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE rho_desk.sessions (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    team text NOT NULL REFERENCES rho_desk.teams (name),
    session_id text NOT NULL,
    title text NOT NULL DEFAULT '',
    latest_revision integer NOT NULL,
    versions integer NOT NULL DEFAULT 0,
    first_published_at timestamptz NOT NULL DEFAULT now(),
    published_at timestamptz NOT NULL DEFAULT now(),
    published_by name NOT NULL DEFAULT current_user,
    UNIQUE (team, session_id)
);
CREATE INDEX sessions_recent ON rho_desk.sessions (published_at DESC, id DESC);
CREATE TABLE rho_desk.versions (
    session bigint NOT NULL REFERENCES rho_desk.sessions (id) ON DELETE CASCADE,
    team text NOT NULL REFERENCES rho_desk.teams (name),
    revision integer NOT NULL,
    history text NOT NULL,
    format text NOT NULL,
    export bytea NOT NULL,
    sha256 text NOT NULL,
    receipt bytea NOT NULL,
    stats jsonb NOT NULL,
    message_count integer NOT NULL,
    published_at timestamptz NOT NULL DEFAULT now(),
    published_by name NOT NULL DEFAULT current_user,
    PRIMARY KEY (session, revision)
);
CREATE TABLE rho_desk.store_snapshots (
    namespace text NOT NULL,
    session_id text NOT NULL,
    revision integer NOT NULL,
    etag text NOT NULL,
    saved_at timestamptz NOT NULL DEFAULT now(),
    envelope bytea NOT NULL,
    PRIMARY KEY (namespace, session_id)
);
CREATE TABLE rho_desk.store_history (
    namespace text NOT NULL,
    session_id text NOT NULL,
    revision integer NOT NULL,
    etag text NOT NULL,
    saved_at timestamptz NOT NULL,
    envelope bytea NOT NULL,
    PRIMARY KEY (namespace, session_id, revision, etag)
);
"""

_V2: Final = """
CREATE EXTENSION IF NOT EXISTS pg_trgm;
ALTER TABLE rho_desk.sessions ADD COLUMN search_text text NOT NULL DEFAULT '';
"""

_V2_INDEXES: Final = """
ALTER TABLE rho_desk.sessions ADD COLUMN search_tsv tsvector
    GENERATED ALWAYS AS (to_tsvector('english', title || ' ' || search_text)) STORED;
CREATE INDEX sessions_search_tsv ON rho_desk.sessions USING gin (search_tsv);
CREATE INDEX sessions_search_trgm ON rho_desk.sessions USING gin (search_text gin_trgm_ops);
"""

_V3: Final = """
DO $$ BEGIN
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'rho_desk_members') THEN
        CREATE ROLE rho_desk_members NOLOGIN;
    END IF;
END $$;
-- any role may see the schema version and the teams it belongs to (rows: policy below)
GRANT USAGE ON SCHEMA rho_desk TO PUBLIC;
GRANT SELECT ON rho_desk.schema_version, rho_desk.teams TO PUBLIC;
GRANT SELECT, INSERT, UPDATE ON rho_desk.sessions, rho_desk.versions TO rho_desk_members;
ALTER TABLE rho_desk.teams ENABLE ROW LEVEL SECURITY;
ALTER TABLE rho_desk.sessions ENABLE ROW LEVEL SECURITY;
ALTER TABLE rho_desk.versions ENABLE ROW LEVEL SECURITY;
CREATE POLICY member_teams ON rho_desk.teams
    USING (pg_has_role(current_user, role, 'MEMBER'));
CREATE POLICY member_sessions ON rho_desk.sessions
    USING (team IN (SELECT name FROM rho_desk.teams))
    WITH CHECK (team IN (SELECT name FROM rho_desk.teams));
CREATE POLICY member_versions ON rho_desk.versions
    USING (team IN (SELECT name FROM rho_desk.teams))
    WITH CHECK (team IN (SELECT name FROM rho_desk.teams));
"""


_V4: Final = """
CREATE FUNCTION rho_desk.publish(
    p_team text, p_session_id text, p_revision integer, p_history text, p_title text, p_export bytea,
    p_sha256 text, p_receipt bytea, p_stats jsonb, p_message_count integer, p_search_text text
) RETURNS TABLE (added boolean, versions integer, latest_revision integer)
LANGUAGE plpgsql SECURITY INVOKER AS $fn$
DECLARE
    v_id bigint;
    v_latest integer;
    v_versions integer;
BEGIN
    IF NOT EXISTS (SELECT FROM rho_desk.teams t WHERE t.name = p_team) THEN
        RAISE EXCEPTION 'no team % that you are a member of', p_team USING ERRCODE = 'insufficient_privilege';
    END IF;
    -- the session row, locked: publishers of one session take turns
    SELECT s.id, s.latest_revision, s.versions INTO v_id, v_latest, v_versions
        FROM rho_desk.sessions s WHERE s.team = p_team AND s.session_id = p_session_id FOR UPDATE;
    IF NOT FOUND THEN
        INSERT INTO rho_desk.sessions AS s (team, session_id, latest_revision) VALUES (p_team, p_session_id, p_revision)
            ON CONFLICT (team, session_id) DO NOTHING
            RETURNING s.id, s.latest_revision, s.versions INTO v_id, v_latest, v_versions;
        IF NOT FOUND THEN  -- created by a concurrent publisher since
            SELECT s.id, s.latest_revision, s.versions INTO v_id, v_latest, v_versions
                FROM rho_desk.sessions s WHERE s.team = p_team AND s.session_id = p_session_id FOR UPDATE;
        END IF;
    END IF;
    INSERT INTO rho_desk.versions (session, team, revision, history, format, export, sha256, receipt, stats, message_count)
        VALUES (v_id, p_team, p_revision, p_history, 'json', p_export, p_sha256, p_receipt, p_stats, p_message_count)
        ON CONFLICT (session, revision) DO NOTHING;
    IF NOT FOUND THEN  -- already published: nothing changes
        RETURN QUERY SELECT false, v_versions, v_latest;
        RETURN;
    END IF;
    IF v_versions = 0 OR p_revision >= v_latest THEN
        UPDATE rho_desk.sessions s SET versions = s.versions + 1, latest_revision = p_revision, title = p_title,
            search_text = p_search_text, published_at = now(), published_by = current_user
            WHERE s.id = v_id;
        v_latest := p_revision;
    ELSE
        UPDATE rho_desk.sessions s SET versions = s.versions + 1 WHERE s.id = v_id;
    END IF;
    RETURN QUERY SELECT true, v_versions + 1, v_latest;
END
$fn$;
REVOKE ALL ON FUNCTION rho_desk.publish FROM PUBLIC;
GRANT EXECUTE ON FUNCTION rho_desk.publish TO rho_desk_members;

CREATE FUNCTION rho_desk.search(p_query text, p_like text, p_team text, p_limit integer, p_options text)
RETURNS TABLE (team text, session_id text, title text, latest_revision integer, published_at timestamptz,
               rank real, snippet text)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $fn$
BEGIN
    -- dynamic SQL: planned with the actual values, so the GIN indexes are used
    RETURN QUERY EXECUTE format($q$
        SELECT hit.team, hit.session_id, hit.title, hit.latest_revision, hit.published_at, hit.rank,
               CASE WHEN hit.fts THEN ts_headline('english', hit.search_text, websearch_to_tsquery('english', $1), $5)
                    ELSE substr(hit.search_text, greatest(strpos(lower(hit.search_text), lower($1)) - 60, 1),
                                length($1) + 120)
               END
        FROM (
            SELECT c.team, c.session_id, c.title, c.latest_revision, c.published_at, c.search_text,
                   c.search_tsv @@ websearch_to_tsquery('english', $1) AS fts,
                   ts_rank(c.search_tsv, websearch_to_tsquery('english', $1)) AS rank
            FROM (
                -- ranked among the 1,000 most recently published matches: a common word does
                -- not make every matching session's text be ranked
                SELECT s.id, s.team, s.session_id, s.title, s.latest_revision, s.published_at,
                       s.search_text, s.search_tsv
                FROM rho_desk.sessions s
                WHERE (s.search_tsv @@ websearch_to_tsquery('english', $1) %s)
                  AND s.team IN (SELECT t.name FROM rho_desk.teams t WHERE pg_has_role(session_user, t.role, 'MEMBER'))
                  %s
                ORDER BY s.published_at DESC, s.id DESC
                LIMIT 1000
            ) c
            ORDER BY rank DESC, c.published_at DESC, c.id DESC
            LIMIT $4
        ) hit
        ORDER BY hit.rank DESC, hit.published_at DESC
    $q$,
        CASE WHEN p_like IS NULL THEN '' ELSE 'OR s.search_text ILIKE $2' END,
        CASE WHEN p_team IS NULL THEN '' ELSE 'AND s.team = $3' END)
    USING p_query, p_like, p_team, p_limit, p_options;
END
$fn$;
REVOKE ALL ON FUNCTION rho_desk.search FROM PUBLIC;
GRANT EXECUTE ON FUNCTION rho_desk.search TO rho_desk_members;
"""


_V5: Final = """
CREATE TABLE rho_desk.quarantined_versions (LIKE rho_desk.versions);
ALTER TABLE rho_desk.quarantined_versions ADD COLUMN quarantined_at timestamptz NOT NULL DEFAULT now();
REVOKE ALL ON rho_desk.quarantined_versions FROM PUBLIC;
WITH moved AS (
    DELETE FROM rho_desk.versions v USING rho_desk.sessions s
    WHERE v.session = s.id AND v.team <> s.team RETURNING v.*
)
INSERT INTO rho_desk.quarantined_versions SELECT * FROM moved;
UPDATE rho_desk.sessions s SET versions = (SELECT count(*) FROM rho_desk.versions v WHERE v.session = s.id)
    WHERE s.versions <> (SELECT count(*) FROM rho_desk.versions v WHERE v.session = s.id);

ALTER TABLE rho_desk.sessions ADD CONSTRAINT sessions_id_team UNIQUE (id, team);
ALTER TABLE rho_desk.versions DROP CONSTRAINT versions_session_fkey;
ALTER TABLE rho_desk.versions DROP CONSTRAINT versions_pkey;
ALTER TABLE rho_desk.versions ADD CONSTRAINT versions_pkey PRIMARY KEY (session, team, revision);
ALTER TABLE rho_desk.versions ADD CONSTRAINT versions_session_team_fkey
    FOREIGN KEY (session, team) REFERENCES rho_desk.sessions (id, team) ON DELETE CASCADE;
REVOKE UPDATE ON rho_desk.versions FROM rho_desk_members;

CREATE FUNCTION rho_desk.stamp_version() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
    NEW.published_by := current_user;
    NEW.published_at := now();
    RETURN NEW;
END
$fn$;
CREATE TRIGGER versions_stamp BEFORE INSERT ON rho_desk.versions
    FOR EACH ROW EXECUTE FUNCTION rho_desk.stamp_version();
CREATE FUNCTION rho_desk.stamp_session() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
    IF TG_OP = 'INSERT' OR NEW.title IS DISTINCT FROM OLD.title
       OR NEW.latest_revision IS DISTINCT FROM OLD.latest_revision
       OR NEW.published_by IS DISTINCT FROM OLD.published_by THEN
        NEW.published_by := current_user;
    END IF;
    RETURN NEW;
END
$fn$;
CREATE TRIGGER sessions_stamp BEFORE INSERT OR UPDATE ON rho_desk.sessions
    FOR EACH ROW EXECUTE FUNCTION rho_desk.stamp_session();
"""


def _v5_publish() -> str:
    """Step 4's ``rho_desk.publish``, its conflict target following the new primary key."""
    publish = _V4[: _V4.index("CREATE FUNCTION rho_desk.search")]
    old = "ON CONFLICT (session, revision) DO NOTHING"
    assert old in publish
    return publish.replace("CREATE FUNCTION", "CREATE OR REPLACE FUNCTION", 1).replace(
        old, "ON CONFLICT (session, team, revision) DO NOTHING"
    )


async def _step1(conn: Conn) -> None:
    await conn.execute(_V1)
    await conn.execute("INSERT INTO rho_desk.schema_version (version) VALUES (0)")


async def _step2(conn: Conn) -> None:
    from .publish import search_text_of_export

    await conn.execute(_V2)
    # Sessions published before search existed: the text of their latest (redacted) export.
    cur = await conn.execute(
        "SELECT s.id, v.export FROM rho_desk.sessions s JOIN rho_desk.versions v "
        "ON v.session = s.id AND v.revision = s.latest_revision"
    )
    for session, export in await cur.fetchall():
        await conn.execute(
            "UPDATE rho_desk.sessions SET search_text = %s WHERE id = %s",
            (search_text_of_export(bytes(export)), session),
        )
    await conn.execute(_V2_INDEXES)


async def _step3(conn: Conn) -> None:
    await conn.execute(_V3)
    cur = await conn.execute("SELECT role FROM rho_desk.teams")
    for (role,) in await cur.fetchall():
        await conn.execute(
            sql.SQL("GRANT {} TO {}").format(
                sql.Identifier(MEMBERS_ROLE), sql.Identifier(str(role))
            )
        )


async def _step4(conn: Conn) -> None:
    await conn.execute(_V4)


async def _step5(conn: Conn) -> None:
    await conn.execute(_V5)
    await conn.execute(_v5_publish())


_V6: Final = """
REVOKE INSERT ON rho_desk.sessions FROM rho_desk_members;
GRANT INSERT (team, session_id, title, latest_revision, search_text) ON rho_desk.sessions TO rho_desk_members;
CREATE OR REPLACE FUNCTION rho_desk.stamp_session() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
    IF TG_OP = 'INSERT' OR NEW.title IS DISTINCT FROM OLD.title
       OR NEW.latest_revision IS DISTINCT FROM OLD.latest_revision
       OR NEW.search_text IS DISTINCT FROM OLD.search_text
       OR NEW.published_at IS DISTINCT FROM OLD.published_at
       OR NEW.published_by IS DISTINCT FROM OLD.published_by THEN
        NEW.published_by := current_user;
    END IF;
    RETURN NEW;
END
$fn$;
"""


async def _step6(conn: Conn) -> None:
    await conn.execute(_V6)


STEPS: Final[tuple[Callable[[Conn], Awaitable[None]], ...]] = (
    _step1,
    _step2,
    _step3,
    _step4,
    _step5,
    _step6,
)
"""``STEPS[n]`` takes the schema from version ``n`` to ``n + 1``."""
assert len(STEPS) == SCHEMA_VERSION


async def schema_version(conn: Conn) -> int:
    """The stored schema version; 0 when the database has no rho-desk schema yet."""
    cur = await conn.execute("SELECT to_regclass('rho_desk.schema_version') IS NOT NULL")
    row = await cur.fetchone()
    if not row or not row[0]:
        return 0
    cur = await conn.execute("SELECT max(version) FROM rho_desk.schema_version")
    row = await cur.fetchone()
    return int(row[0]) if row and row[0] is not None else 0


def too_new(found: int) -> SchemaTooNew:
    return SchemaTooNew(
        f"the team database has schema version {found}, newer than this rho-desk understands "
        f"({SCHEMA_VERSION}); upgrade rho-desk (nothing was read or written)"
    )


async def migrate(conn: Conn, target: int = SCHEMA_VERSION) -> tuple[int, int]:
    """Bring the schema to ``target`` one step at a time; returns (before, after).

    ``conn`` must be in autocommit mode: each step is its own transaction.

    Raises:
        SchemaTooNew: the stored schema is newer than ``SCHEMA_VERSION`` (nothing is written).
        StorageError: a step failed (that step is rolled back; earlier steps stay).
    """
    if not 0 <= target <= SCHEMA_VERSION:
        raise ValueError(f"no schema version {target}")
    if not conn.autocommit:
        raise ValueError("migrate needs an autocommit connection (each step is one transaction)")
    before = None
    while True:
        async with conn.transaction():
            await conn.execute("SELECT pg_advisory_xact_lock(%s)", (_LOCK_KEY,))
            version = await schema_version(conn)
            if before is None:
                before = version
            if version > SCHEMA_VERSION:
                raise too_new(version)
            if version >= target:
                return before, version
            try:
                await STEPS[version](conn)
            except psycopg.errors.InsufficientPrivilege as exc:
                raise StorageError(
                    f"schema step {version + 1} needs the database owner or a role with CREATEROLE: {exc}"
                ) from None
            await conn.execute(
                "UPDATE rho_desk.schema_version SET version = %s, migrated_at = now()",
                (version + 1,),
            )
