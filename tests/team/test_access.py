"""Access: a team is a role; row-level security keeps each member to their teams, even in plain SQL.
Passwords come from the DSN, keyring, .pgpass or a service file, and are never shown."""

from __future__ import annotations

import asyncio
import secrets
from pathlib import Path

import psycopg
import pytest

from rho_desk.core.errors import AccessDenied, CredentialsUnavailable, InputError
from rho_desk.team.db import KEYRING_SERVICE, keyring_user, safe_dsn
from rho_desk.team.library import TeamLibrary

from .helpers import EVERYTHING, KEYS, create_login, dsn_with, session


def names() -> tuple[str, str, str, str]:
    tag = secrets.token_hex(3)
    return f"a{tag}", f"b{tag}", f"alice{tag}", f"bob{tag}"


async def setup_two_teams(admin: str) -> tuple[str, str, str, str]:
    team_a, team_b, alice, bob = names()
    alice_dsn = create_login(admin, alice, "alice-pw-1")
    bob_dsn = create_login(admin, bob, "bob-pw-2")
    async with await TeamLibrary.open(admin) as lib:
        await lib.create_team(team_a, (alice,))
        await lib.create_team(team_b, (bob,))
    # each member publishes to their own team
    async with await TeamLibrary.open(alice_dsn) as lib:
        await lib.publish(
            team_a,
            session("sess-a", topic="alpha secret plan"),
            EVERYTHING,
            keys=KEYS,
            known_secrets=[],
        )
    async with await TeamLibrary.open(bob_dsn) as lib:
        await lib.publish(
            team_b,
            session("sess-b", topic="bravo secret plan"),
            EVERYTHING,
            keys=KEYS,
            known_secrets=[],
        )
    return team_a, team_b, alice_dsn, bob_dsn


@pytest.mark.asyncio
async def test_a_member_reads_only_their_teams_through_rho_desk(pg_db: str) -> None:
    team_a, team_b, alice_dsn, _ = await setup_two_teams(pg_db)
    async with await TeamLibrary.open(alice_dsn) as lib:
        assert await lib.teams() == [team_a]
        assert [s.session_id for s in await lib.sessions()] == ["sess-a"]
        assert await lib.sessions(team=team_b) == []
        assert [h.session_id for h in await lib.search("secret plan")] == ["sess-a"]
        assert await lib.search("bravo") == []
        with pytest.raises(InputError, match="no published session 'sess-b'"):
            await lib.show("sess-b")
        with pytest.raises(AccessDenied):
            await lib.publish(team_b, session("intruder"), EVERYTHING, keys=KEYS, known_secrets=[])
    async with await TeamLibrary.open(pg_db) as lib:  # the owner sees everything
        assert sorted(s.session_id for s in await lib.sessions()) == ["sess-a", "sess-b"]


@pytest.mark.asyncio
async def test_a_member_reads_only_their_teams_through_plain_sql(pg_db: str) -> None:
    _team_a, team_b, alice_dsn, _ = await setup_two_teams(pg_db)
    with psycopg.connect(alice_dsn) as conn:
        for table in ("sessions", "versions", "teams"):
            rows = conn.execute(f"SELECT * FROM rho_desk.{table}").fetchall()
            text = " ".join(str(v) for row in rows for v in row)
            assert rows and team_b not in text and "bravo" not in text and "sess-b" not in text, (
                table
            )
        assert conn.execute(
            "SELECT count(*) FROM rho_desk.versions WHERE team = %s", (team_b,)
        ).fetchone() == (0,)
        assert conn.execute(
            "SELECT count(*) FROM rho_desk.sessions WHERE search_text ILIKE '%bravo%'"
        ).fetchone() == (0,)
        # the search function (which runs with its owner's rights) applies the same rule
        found = conn.execute(
            "SELECT session_id FROM rho_desk.search('secret plan', '%%secret%%', NULL, 50, '')"
        ).fetchall()
        assert found == [("sess-a",)]
        assert conn.execute(
            "SELECT count(*) FROM rho_desk.search('bravo', '%%bravo%%', %s, 50, '')", (team_b,)
        ).fetchone() == (0,)
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute(
                "INSERT INTO rho_desk.sessions (team, session_id, latest_revision) VALUES (%s, 'x', 1)",
                (team_b,),
            )
    with psycopg.connect(alice_dsn) as conn:
        cur = conn.execute(
            "UPDATE rho_desk.sessions SET title = 'defaced' WHERE team = %s", (team_b,)
        )
        assert cur.rowcount == 0
        for table in ("store_snapshots", "store_history"):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute(f"SELECT * FROM rho_desk.{table}")
            conn.rollback()
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("ALTER TABLE rho_desk.sessions DISABLE ROW LEVEL SECURITY")


@pytest.mark.asyncio
async def test_passwords_from_pgpass_service_file_and_keyring(
    pg_db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, memory_keyring: object
) -> None:
    role = f"carol{secrets.token_hex(3)}"
    password = "c4rol-" + secrets.token_hex(6)
    with_password = create_login(pg_db, role, password)
    bare = dsn_with(with_password, password="")
    bare = " ".join(p for p in bare.split() if not p.startswith("password="))
    params = psycopg.conninfo.conninfo_to_dict(bare)
    # nothing anywhere: a clean credentials error naming no secret
    monkeypatch.setenv("PGPASSFILE", str(tmp_path / "none"))
    with pytest.raises(CredentialsUnavailable) as caught:
        await TeamLibrary.open(bare, require_schema=False)
    assert password not in caught.value.text()
    # libpq's .pgpass
    pgpass = tmp_path / "pgpass"
    pgpass.write_text(f"127.0.0.1:{params['port']}:*:{role}:{password}\n")
    pgpass.chmod(0o600)
    monkeypatch.setenv("PGPASSFILE", str(pgpass))
    async with await TeamLibrary.open(bare) as lib:
        assert await lib.teams() == []
    # a service file (host, port, user, database; the password still from .pgpass)
    services = tmp_path / "pg_service.conf"
    services.write_text(
        f"[teamdb]\nhost=127.0.0.1\nport={params['port']}\nuser={role}\ndbname={params['dbname']}\n"
    )
    monkeypatch.setenv("PGSERVICEFILE", str(services))
    async with await TeamLibrary.open("service=teamdb") as lib:
        assert await lib.teams() == []
    # keyring
    monkeypatch.setenv("PGPASSFILE", str(tmp_path / "none"))
    import keyring

    keyring.set_password(KEYRING_SERVICE, keyring_user(bare), password)
    async with await TeamLibrary.open(bare) as lib:
        assert await lib.teams() == []
        assert password not in repr(lib) and password not in lib.where


def test_safe_dsn_strips_every_password() -> None:
    for dsn in (
        "postgresql://u:p%40ss-SECRET@db.example:5432/x?sslmode=verify-full",
        "host=db user=u password=p@ss-SECRET sslmode=require",
        "host=db user=u password='p@ss SECRET'",
        "postgresql://u:p@ss-SECRET@db/x?bad=",
        "not a dsn password=p@ss-SECRET",
    ):
        shown = safe_dsn(dsn)
        assert "SECRET" not in shown, shown
    assert "sslmode=verify-full" in safe_dsn("postgresql://u:pw@db/x?sslmode=verify-full")


def test_tls_settings_pass_through_to_libpq(pg_db: str) -> None:
    # the test server has no TLS: sslmode=require must be refused by libpq, proving it was passed on
    with pytest.raises(Exception, match=r"SSL|unreachable") as caught:
        asyncio.run(TeamLibrary.open(dsn_with(pg_db, sslmode="require")))
    assert "password=" not in str(caught.value)
