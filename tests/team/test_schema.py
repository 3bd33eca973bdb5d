"""Schema versions: every migration step from every older version, and a newer schema refused."""

from __future__ import annotations

import asyncio
from pathlib import Path

import psycopg
import pytest

from rho_desk.core.errors import SchemaTooNew, StorageError
from rho_desk.team.library import TeamLibrary
from rho_desk.team.publish import prepare
from rho_desk.team.schema import SCHEMA_VERSION, STEPS

from .helpers import EVERYTHING, KEYS, session, without_password


def version_of(dsn: str) -> int:
    with psycopg.connect(dsn) as conn:
        row = conn.execute("SELECT version FROM rho_desk.schema_version").fetchone()
    assert row is not None
    return int(row[0])


def insert_v1_publication(dsn: str) -> bytes:
    """What a schema-1 database held: a team and a published version (no search columns yet)."""
    pub = prepare(
        session("old", revision=2, topic="kubernetes rollout"),
        EVERYTHING,
        keys=KEYS,
        known_secrets=[],
    )
    with psycopg.connect(dsn) as conn:
        conn.execute("CREATE ROLE rho_team_legacy NOLOGIN") if conn.execute(
            "SELECT 1 FROM pg_roles WHERE rolname = 'rho_team_legacy'"
        ).fetchone() is None else None
        conn.execute("INSERT INTO rho_desk.teams (name, role) VALUES ('legacy', 'rho_team_legacy')")
        (sid,) = conn.execute(
            "INSERT INTO rho_desk.sessions (team, session_id, title, latest_revision, versions) "
            "VALUES ('legacy', 'old', 'kubernetes', 2, 1) RETURNING id"
        ).fetchone()  # type: ignore[misc]
        conn.execute(
            "INSERT INTO rho_desk.versions (session, team, revision, history, format, export, sha256, receipt, stats, "
            "message_count) VALUES (%s, 'legacy', 2, 'model', 'json', %s, %s, %s, '{}', 5)",
            (sid, pub.export, pub.sha256, pub.receipt),
        )
    return pub.export


def test_there_is_one_step_per_version() -> None:
    assert len(STEPS) == SCHEMA_VERSION == 6


def test_a_fresh_database_is_created_at_the_current_version(pg_empty_db: str) -> None:
    assert asyncio.run(TeamLibrary.init(pg_empty_db)) == (0, SCHEMA_VERSION)
    assert version_of(pg_empty_db) == SCHEMA_VERSION
    assert asyncio.run(TeamLibrary.init(pg_empty_db)) == (
        SCHEMA_VERSION,
        SCHEMA_VERSION,
    )  # idempotent


@pytest.mark.parametrize("start", range(1, SCHEMA_VERSION))
def test_each_older_version_migrates_step_by_step_keeping_data(
    pg_empty_db: str, start: int
) -> None:
    assert asyncio.run(TeamLibrary.init(pg_empty_db, target=1)) == (0, 1)
    insert_v1_publication(pg_empty_db)
    if start > 1:
        assert asyncio.run(TeamLibrary.init(pg_empty_db, target=start)) == (1, start)
    # an older schema is not opened for use: its owner must migrate
    with pytest.raises(StorageError, match=f"schema version {start}.*team init"):
        asyncio.run(TeamLibrary.open(pg_empty_db))
    for step in range(start, SCHEMA_VERSION):
        assert asyncio.run(TeamLibrary.init(pg_empty_db, target=step + 1)) == (step, step + 1)
        assert version_of(pg_empty_db) == step + 1

    async def check() -> None:
        async with await TeamLibrary.open(pg_empty_db) as lib:
            [hit] = await lib.search("kubernetes")  # step 2 filled the search text from the export
            assert hit.session_id == "old" and "«kubernetes»" in hit.snippet
            assert (await lib.show("old")).revision == 2
            # step 4: publishing (one statement, rho_desk.publish) works on the migrated database
            _, outcome = await lib.publish(
                "legacy", session("old", revision=3), EVERYTHING, keys=KEYS, known_secrets=[]
            )
            assert outcome.added and outcome.versions == 2 and outcome.latest_revision == 3

    asyncio.run(check())
    with psycopg.connect(pg_empty_db) as conn:
        # step 3: row-level security, and the existing team's role joined the members' role
        assert conn.execute(
            "SELECT bool_and(relrowsecurity) FROM pg_class WHERE oid = ANY "
            "(ARRAY['rho_desk.sessions'::regclass, 'rho_desk.versions'::regclass, 'rho_desk.teams'::regclass])"
        ).fetchone() == (True,)
        assert conn.execute(
            "SELECT pg_has_role('rho_team_legacy', 'rho_desk_members', 'MEMBER')"
        ).fetchone() == (True,)


def test_a_newer_schema_is_refused_and_left_untouched(pg_db: str) -> None:
    with psycopg.connect(pg_db) as conn:
        conn.execute("UPDATE rho_desk.schema_version SET version = %s", (SCHEMA_VERSION + 1,))
    with pytest.raises(
        SchemaTooNew, match=f"schema version {SCHEMA_VERSION + 1}, newer.*upgrade rho-desk"
    ):
        asyncio.run(TeamLibrary.open(pg_db))
    with pytest.raises(SchemaTooNew):
        asyncio.run(TeamLibrary.init(pg_db))
    assert version_of(pg_db) == SCHEMA_VERSION + 1


def test_cli_reports_a_newer_schema_in_one_line(
    pg_db: str, capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rho_desk.cli import main

    with psycopg.connect(pg_db) as conn:
        conn.execute("UPDATE rho_desk.schema_version SET version = 99")
    assert main(["team", "sessions", "--db", without_password(pg_db, tmp_path, monkeypatch)]) == 1
    err = capsys.readouterr().err
    assert "schema version 99, newer" in err and err.count("\n") == 1


def test_a_failed_step_is_rolled_back(pg_empty_db: str) -> None:
    asyncio.run(TeamLibrary.init(pg_empty_db, target=1))
    with psycopg.connect(pg_empty_db) as conn:
        conn.execute(
            "ALTER TABLE rho_desk.sessions ADD COLUMN search_text integer"
        )  # step 2 will collide
    with pytest.raises(StorageError):
        asyncio.run(TeamLibrary.init(pg_empty_db))
    assert version_of(pg_empty_db) == 1
    with psycopg.connect(pg_empty_db) as conn:
        assert conn.execute("SELECT to_regclass('rho_desk.sessions_search_tsv')").fetchone() == (
            None,
        )
