"""Team rows bound to their team, in the database itself (issue 18, item 5), on the real
PostgreSQL cluster the team tests use (``pg_db``, ``pg_empty_db``).

A member of team alpha works in plain SQL, as any PostgreSQL client can: they try to slip a
version under team beta's session, probe which of beta's session ids exist, and rewrite what the
list shows (the title, who published). The database refuses each, answers every probe of another
team's ids exactly as it answers for ids that do not exist, and the receipt check catches a
rewritten title.
"""

from __future__ import annotations

import asyncio
import re
import secrets
from pathlib import Path

import psycopg
import pytest

from rho_desk.team.library import TeamLibrary

from ..team.helpers import EVERYTHING, KEY, KEYS, create_login, session


def _teams(admin: str) -> dict[str, str]:
    tag = secrets.token_hex(3)
    names = {"alpha": f"alpha{tag}", "beta": f"beta{tag}", "alice": f"alice{tag}", "bob": f"bob{tag}", "carol": f"carol{tag}"}
    dsns = {who: create_login(admin, names[who], f"{who}-pw-{tag}") for who in ("alice", "bob", "carol")}

    async def setup() -> None:
        async with await TeamLibrary.open(admin, require_schema=False) as lib:
            await lib.create_team(names["alpha"], (names["alice"], names["carol"]))
            await lib.create_team(names["beta"], (names["bob"], names["carol"]))
        async with await TeamLibrary.open(dsns["alice"], require_schema=False) as lib:
            await lib.publish(names["alpha"], session("sess-a", topic="alpha plan"), EVERYTHING, keys=KEYS, known_secrets=[])
        async with await TeamLibrary.open(dsns["bob"], require_schema=False) as lib:
            await lib.publish(names["beta"], session("sess-b", topic="beta plan"), EVERYTHING, keys=KEYS, known_secrets=[])

    asyncio.run(setup())
    return {**names, **{f"{k}_dsn": v for k, v in dsns.items()}}


def _ids(admin: str, t: dict[str, str]) -> tuple[int, int]:
    with psycopg.connect(admin) as conn:
        a = conn.execute("SELECT id FROM rho_desk.sessions WHERE team = %s", (t["alpha"],)).fetchone()
        b = conn.execute("SELECT id FROM rho_desk.sessions WHERE team = %s", (t["beta"],)).fetchone()
        missing = conn.execute("SELECT max(id) + 1000 FROM rho_desk.sessions").fetchone()
    assert a and b and missing
    return int(b[0]), int(missing[0])


def _insert_version(conn: psycopg.Connection[object], session_id: int, team: str, revision: int) -> None:
    conn.execute(
        "INSERT INTO rho_desk.versions (session, team, revision, history, format, export, sha256, receipt, stats, "
        "message_count) SELECT %s, %s, %s, history, format, export, sha256, receipt, stats, message_count "
        "FROM rho_desk.versions LIMIT 1",
        (session_id, team, revision),
    )


def test_a_member_cannot_put_a_version_under_another_teams_session(pg_db: str) -> None:
    t = _teams(pg_db)
    beta_id, _missing = _ids(pg_db, t)
    with psycopg.connect(t["alice_dsn"]) as conn:
        with pytest.raises(psycopg.errors.ForeignKeyViolation):
            _insert_version(conn, beta_id, t["alpha"], 2)
        conn.rollback()
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            _insert_version(conn, beta_id, t["beta"], 2)

    async def seen_by_carol() -> list[int]:
        async with await TeamLibrary.open(t["carol_dsn"]) as lib:
            return list((await lib.show("sess-b", team=t["beta"])).revisions)

    assert asyncio.run(seen_by_carol()) == [1]  # a member of both teams sees beta's own revision only


def _answer(dsn: str, statement: str, params: tuple[object, ...], probed: int) -> tuple[str, str]:
    with psycopg.connect(dsn) as conn:
        try:
            conn.execute(statement, params)
        except psycopg.Error as exc:
            text = " ".join(str(exc).split()).replace(str(probed), "ID")
            return str(exc.sqlstate), re.sub(r"\b\d{5,}\b", "N", text)
        conn.rollback()
        return "ok", ""


def test_probing_another_teams_ids_answers_as_for_ids_that_do_not_exist(pg_db: str) -> None:
    t = _teams(pg_db)
    beta_id, missing = _ids(pg_db, t)
    insert = (
        "INSERT INTO rho_desk.versions (session, team, revision, history, format, export, sha256, receipt, stats, "
        "message_count) VALUES (%s, %s, %s, 'model', 'json', '\\x00', '', '\\x00', '{}', 0)"
    )
    probes = [
        (insert, lambda sid: (sid, t["alpha"], 1)),   # beta's session has a revision 1
        (insert, lambda sid: (sid, t["alpha"], 99)),
        (insert, lambda sid: (sid, t["beta"], 1)),
        ("UPDATE rho_desk.versions SET session = %s", lambda sid: (sid,)),
        ("UPDATE rho_desk.sessions SET team = %s WHERE id = %s", lambda sid: (t["beta"], sid)),
        ("DELETE FROM rho_desk.sessions WHERE id = %s", lambda sid: (sid,)),
    ]  # fmt: skip
    for statement, params in probes:
        existing = _answer(t["alice_dsn"], statement, params(beta_id), beta_id)
        absent = _answer(t["alice_dsn"], statement, params(missing), missing)
        assert existing == absent, (statement, existing, absent)
        assert existing[0] != "ok" or "INSERT" not in statement


def test_published_by_is_the_databases_and_a_rewritten_title_fails_the_check(pg_db: str, tmp_path: Path) -> None:
    t = _teams(pg_db)
    # a version row cannot be rewritten by a member
    with psycopg.connect(t["alice_dsn"]) as conn, pytest.raises(psycopg.errors.InsufficientPrivilege):
        conn.execute("UPDATE rho_desk.versions SET published_by = %s", (t["carol"],))
    with psycopg.connect(t["carol_dsn"]) as conn:  # a teammate of alice
        conn.execute("UPDATE rho_desk.sessions SET title = 'Harmless refactor', published_by = %s "
                     "WHERE team = %s", (t["alice"], t["alpha"]))  # fmt: skip
        conn.commit()
        row = conn.execute("SELECT title, published_by FROM rho_desk.sessions WHERE team = %s", (t["alpha"],)).fetchone()
        assert row == ("Harmless refactor", t["carol"])  # the change is carol's, whatever she wrote

    from rho_desk.team.verify import verify_version

    async def check() -> tuple[bool, str]:
        async with await TeamLibrary.open(t["alice_dsn"]) as lib:
            version = await lib.show("sess-a")
        verdict = verify_version(version, key=KEY, known_secrets=[])
        return verdict.ok, verdict.summary

    ok, summary = asyncio.run(check())
    assert not ok and "the listed title 'Harmless refactor' is not the exported one" in summary


def test_a_password_inside_db_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    from rho_desk.cli import main

    for dsn in ("postgresql://alice:s3cret-pw-77@db.example/team", "host=db.example user=alice password=s3cret-pw-77"):
        assert main(["team", "sessions", "--db", dsn]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "s3cret-pw-77" not in err
        assert "keyring" in err and "~/.pgpass" in err and "service file" in err and "--db" in err


def test_the_migration_quarantines_versions_filed_under_another_team(pg_empty_db: str) -> None:
    assert asyncio.run(TeamLibrary.init(pg_empty_db, target=4)) == (0, 4)
    t = _teams(pg_empty_db)
    beta_id, _ = _ids(pg_empty_db, t)
    with psycopg.connect(t["alice_dsn"]) as conn:  # what schema 4 let a member do
        _insert_version(conn, beta_id, t["alpha"], 2)
        conn.commit()
    assert asyncio.run(TeamLibrary.init(pg_empty_db)) == (4, 5)
    with psycopg.connect(pg_empty_db) as conn:
        moved = conn.execute("SELECT session, team, revision FROM rho_desk.quarantined_versions").fetchall()
        assert moved == [(beta_id, t["alpha"], 2)]
        kept = conn.execute("SELECT revision FROM rho_desk.versions WHERE session = %s", (beta_id,)).fetchall()
        assert kept == [(1,)]
    with psycopg.connect(t["alice_dsn"]) as conn, pytest.raises(psycopg.errors.InsufficientPrivilege):
        conn.execute("SELECT * FROM rho_desk.quarantined_versions")
