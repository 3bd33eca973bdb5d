"""Publish: the export pipeline's output, receipt, text and statistics in one transaction; browse and search."""

from __future__ import annotations

import asyncio
import json
import secrets

import psycopg
import pytest

from rho_desk.cli import main
from rho_desk.core.errors import AccessDenied, InputError
from rho_desk.core.export import (
    ContentClass,
    ExportSource,
    Selection,
    decode_receipt,
    display_snapshot,
)
from rho_desk.core.stores.demo import bundled_demo_dir
from rho_desk.core.wire.codec import decode_snapshot, encode_pretty
from rho_desk.team.library import TeamLibrary
from rho_desk.team.publish import PublishBlocked, decode_published, prepare
from rho_desk.team.verify import verify_published

from .helpers import EVERYTHING, KEY, KEYS, session, without_password


def team_name() -> str:
    return f"t{secrets.token_hex(4)}"


@pytest.mark.asyncio
async def test_publish_stores_the_audited_export_receipt_text_and_statistics(pg_db: str) -> None:
    team = team_name()
    async with await TeamLibrary.open(pg_db) as lib:
        assert await lib.create_team(team) is True
        assert await lib.create_team(team) is False
        pub, outcome = await lib.publish(team, session(), EVERYTHING, keys=KEYS, known_secrets=[])
        assert outcome.added and outcome.versions == 1 and outcome.latest_revision == 1
        version = await lib.show("sess-1")
        assert version.export == pub.export and version.receipt == pub.receipt  # stored as produced
        receipt = decode_receipt(version.receipt)
        assert receipt.output.sha256 == version.sha256 and receipt.source.revision == 1
        assert (
            decode_snapshot(version.export).history[1].content[0].text
            == "Please fix the flaky websocket reconnection test"
        )
        assert version.stats["messages"] == 4 and version.stats["model"] == "gpt-5"
        verification = verify_published(version.export, version.receipt, key=KEY, known_secrets=[])
        assert verification.ok and verification.signer == KEYS.public_key
        assert verification.summary.startswith(f"signed by {KEYS.public_key} — valid")
        assert receipt.history == "model" == version.history
        [listed] = await lib.sessions()
        assert (
            listed.title == "Please fix the flaky websocket reconnection test"
            and listed.versions == 1
        )


@pytest.mark.asyncio
async def test_same_revision_is_a_no_op_and_a_newer_one_adds_a_version(pg_db: str) -> None:
    team = team_name()
    async with await TeamLibrary.open(pg_db) as lib:
        await lib.create_team(team)
        _, first = await lib.publish(
            team, session(revision=1), EVERYTHING, keys=KEYS, known_secrets=[]
        )
        _, again = await lib.publish(
            team, session(revision=1), EVERYTHING, keys=KEYS, known_secrets=[]
        )
        assert first.added and not again.added and again.versions == 1
        _, newer = await lib.publish(
            team, session(revision=3), EVERYTHING, keys=KEYS, known_secrets=[]
        )
        assert newer.added and newer.versions == 2 and newer.latest_revision == 3
        _, older = await lib.publish(
            team, session(revision=2), EVERYTHING, keys=KEYS, known_secrets=[]
        )
        assert (
            older.added and older.versions == 3 and older.latest_revision == 3
        )  # kept, not the latest
        latest = await lib.show("sess-1")
        assert latest.revision == 3 and latest.revisions == (1, 2, 3)
        assert (await lib.show("sess-1", revision=1)).revision == 1
        with pytest.raises(InputError, match="revision 9"):
            await lib.show("sess-1", revision=9)
        [row] = await lib.sessions()
        assert row.latest_revision == 3 and row.versions == 3


@pytest.mark.asyncio
async def test_excluded_classes_never_reach_the_database(pg_db: str) -> None:
    team = team_name()
    async with await TeamLibrary.open(pg_db) as lib:
        await lib.create_team(team)
        selection = Selection.excluding(
            frozenset({ContentClass.TOOL_RECORDS, ContentClass.METADATA})
        )
        await lib.publish(team, session(), selection, keys=KEYS, known_secrets=[])
    dump = _dump(pg_db)
    assert "reconnect_backoff" not in dump and "net/ws.py" not in dump and "OPS-12" not in dump
    assert "websocket reconnection" in dump  # the user text is included


def _dump(dsn: str) -> str:
    with psycopg.connect(dsn) as conn:
        tables = [
            r[0]
            for r in conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'rho_desk'")
        ]
        parts: list[str] = []
        for table in tables:
            for row in conn.execute(f"SELECT * FROM rho_desk.{table}"):
                parts.extend(
                    v.decode("utf-8", "replace") if isinstance(v, bytes) else str(v) for v in row
                )
        return "\n".join(parts)


def test_a_blocked_audit_sends_nothing() -> None:
    # a known credential cannot be redacted when it sits in a JSON object key: the audit blocks
    bad = session().replace(metadata={"token ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8": "v"})
    try:
        pub = prepare(bad, EVERYTHING, keys=KEYS, known_secrets=[])
    except PublishBlocked:
        return
    assert "ghp_a1B2" not in pub.export.decode() and "ghp_a1B2" not in pub.search_text


@pytest.mark.asyncio
async def test_search_full_text_and_substring_with_highlights(pg_db: str) -> None:
    team = team_name()
    async with await TeamLibrary.open(pg_db) as lib:
        await lib.create_team(team)
        await lib.publish(
            team,
            session("a", topic="websocket reconnection"),
            EVERYTHING,
            keys=KEYS,
            known_secrets=[],
        )
        await lib.publish(
            team, session("b", topic="database migration"), EVERYTHING, keys=KEYS, known_secrets=[]
        )
        hits = await lib.search("migrations")  # stemmed full text
        assert [h.session_id for h in hits] == ["b"] and "«migration»" in hits[0].snippet
        hits = await lib.search("ebsock")  # a substring (pg_trgm)
        assert [h.session_id for h in hits] == ["a"] and "«ebsock»" in hits[0].snippet
        assert await lib.search("nothing-like-this") == []
        with pytest.raises(InputError):
            await lib.search("  ")


@pytest.mark.asyncio
async def test_unknown_team_is_refused(pg_db: str) -> None:
    async with await TeamLibrary.open(pg_db) as lib:
        with pytest.raises(AccessDenied):
            await lib.publish("nosuchteam", session(), EVERYTHING, keys=KEYS, known_secrets=[])
        with pytest.raises(InputError):
            await lib.publish("Bad Name", session(), EVERYTHING, keys=KEYS, known_secrets=[])


def test_a_display_publication_derives_text_title_and_statistics_from_the_display_document() -> (
    None
):
    snapshot = session(revision=2)
    shown = display_snapshot(
        snapshot, (*snapshot.history, snapshot.history[1])
    )  # one more message as shown
    pub = prepare(
        ExportSource(shown, "display", title="Flaky websocket"),
        EVERYTHING,
        keys=KEYS,
        known_secrets=[],
    )
    assert pub.history == "display" and pub.export.lstrip().startswith(
        b'{\n  "format": "rho-desk.display-export"'
    )
    exported, kind = decode_published(pub.export)
    assert (
        kind == "display"
        and len(exported.history) == pub.message_count == 6 == pub.stats["messages"]
    )
    assert (
        pub.stats["history"] == "display" and pub.stats["model"] is None
    )  # no assistant text turn with provenance here
    assert (
        pub.title == "Flaky websocket"
        and "adjusted the websocket reconnection backoff" in pub.search_text
    )
    receipt = decode_receipt(pub.receipt)
    assert receipt.history == "display" and receipt.signature is not None
    assert verify_published(
        pub.export, pub.receipt, key=KEY, known_secrets=[], history="display"
    ).ok
    # the same revision's model context: another shape, the same derivations
    model = prepare(snapshot, EVERYTHING, keys=KEYS, known_secrets=[])
    assert model.history == "model" and model.message_count == 5 and model.stats["model"] == "gpt-5"


def test_an_excluded_title_is_not_the_published_title() -> None:
    shown = display_snapshot(session(), session().history)
    selection = Selection.excluding(frozenset({ContentClass.METADATA}))
    pub = prepare(
        ExportSource(shown, "display", title="Secret project name"),
        selection,
        keys=KEYS,
        known_secrets=[],
    )
    assert "Secret project" not in pub.title and "Secret project" not in pub.export.decode()
    assert pub.title == "Please fix the flaky websocket reconnection test"


def _tamper(dsn: str, session_id: str, old: str, new: str) -> None:
    """As the database owner: change the stored export and fix up the receipt's sha256 and size
    (and the row's), as someone with write access to the database could."""
    import hashlib

    with psycopg.connect(dsn, autocommit=True) as conn:
        row = conn.execute(
            "SELECT v.export, v.receipt FROM rho_desk.versions v JOIN rho_desk.sessions s ON s.id = v.session "
            "WHERE s.session_id = %s",
            (session_id,),
        ).fetchone()
        assert row is not None
        export, receipt = row
        changed = bytes(export).replace(old.encode(), new.encode())
        assert changed != bytes(export)
        body = json.loads(bytes(receipt))
        body["output"]["sha256"] = hashlib.sha256(changed).hexdigest()
        body["output"]["bytes"] = len(changed)
        fixed = json.dumps(body, indent=2).encode() + b"\n"
        conn.execute(
            "UPDATE rho_desk.versions v SET export = %s, receipt = %s, sha256 = %s FROM rho_desk.sessions s "
            "WHERE s.id = v.session AND s.session_id = %s",
            (changed, fixed, body["output"]["sha256"], session_id),
        )


def test_cli_publishes_the_display_history_signed_and_show_verifies_it(  # type: ignore[no-untyped-def]
    pg_db: str,
    tmp_path,
    rho_fixtures,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    admin = pg_db
    pg_db = without_password(admin, tmp_path, monkeypatch)
    legacy = (
        tmp_path / "session-v1.jsonl"
    )  # one compaction: 4 messages as shown, 2 in the model context
    legacy.write_bytes((rho_fixtures / "session-v1.jsonl").read_bytes())
    key_file = tmp_path / "keys"
    team = team_name()
    assert main(["team", "init", "--db", pg_db, "--team", team]) == 0
    capsys.readouterr()
    common = [
        "--db",
        pg_db,
        "--team",
        team,
        "--exclude",
        "reasoning_summaries",
        "--key-file",
        str(key_file),
    ]
    assert main(["publish", str(legacy), *common, "--json"]) == 0
    published = json.loads(capsys.readouterr().out)
    assert published["added"] and published["history"] == "display"
    assert main(["keys", "--key-file", str(key_file)]) == 0
    public = capsys.readouterr().out.splitlines()[0]
    assert published["signed_by"] == public and public.startswith("ed25519:")
    # the same revision again, in either history: nothing changes, and the output says which is there
    assert main(["publish", str(legacy), *common]) == 0
    assert "already published" in capsys.readouterr().out
    assert main(["publish", str(legacy), *common, "--history", "model"]) == 0
    assert (
        "already published" in (out := capsys.readouterr().out) and "as the display history" in out
    )
    with psycopg.connect(pg_db) as conn:
        row = conn.execute(
            "SELECT v.history, v.receipt, v.stats FROM rho_desk.versions v JOIN rho_desk.sessions s "
            "ON s.id = v.session WHERE s.team = %s",
            (team,),
        ).fetchone()
        assert row is not None
        history, receipt, stats = row
    assert (
        history == "display"
        and decode_receipt(bytes(receipt)).history == "display"
        and stats["messages"] == 4
    )
    sid = published["session_id"]
    assert main(["team", "show", sid, "--db", pg_db, "--key-file", str(key_file)]) == 0
    out = capsys.readouterr().out
    assert f"receipt: signed by {public} — valid" in out and "display history; 4 messages" in out
    assert main(["team", "show", sid, "--db", pg_db, "--key-file", str(key_file), "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["verification"]["ok"] and shown["verification"]["signature"] == "valid"
    assert shown["receipt"] == json.loads(bytes(receipt))  # stored byte for byte

    # someone with write access edits the export and fixes up the hash: the signature catches it
    _tamper(admin, sid, "Compacted context", "Compacted kontext")
    assert main(["team", "show", sid, "--db", pg_db, "--key-file", str(key_file)]) == 1
    out = capsys.readouterr().out
    assert "receipt: INVALID:" in out and "the signature does not match the receipt" in out
    assert main(["team", "show", sid, "--db", pg_db, "--key-file", str(key_file), "--json"]) == 1
    verdict = json.loads(capsys.readouterr().out)["verification"]
    assert verdict["ok"] is False and verdict["signature"] == "invalid"
    assert (
        verdict["check"]["sha256_ok"] is True
    )  # the fixed-up hash matches: only the signature tells


def test_a_demo_session_is_published_and_listed_under_its_title(
    pg_db: str, tmp_path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    """The bundled demo ships no Rho index (its rows would name absolute paths): its titles are in
    demo-titles.json, so a session published straight from it (a checkout, an installed wheel)
    is listed as "Flaky refund webhook test", as the app's library names it, not by its first
    prompt."""
    pg_db = without_password(pg_db, tmp_path, monkeypatch)
    demo = bundled_demo_dir()
    assert not (demo / "sessions" / "index.sqlite3").exists()
    [flaky] = demo.glob("sessions/*payments-api*/*_5f0c2a9e-*/session.jsonl")
    team = team_name()
    assert main(["team", "init", "--db", pg_db, "--team", team]) == 0
    common = [
        "--db",
        pg_db,
        "--team",
        team,
        "--key-file",
        str(tmp_path / "keys"),
        "--allow-findings",
    ]
    main(["publish", str(flaky), *common, "--exclude", "reasoning_summaries"])
    assert "published 5f0c2a9e-8d1b-4c47-9a6e-2b7d3f1e0a11" in capsys.readouterr().out
    assert main(["team", "sessions", "--db", pg_db, "--json"]) == 0
    [row] = json.loads(capsys.readouterr().out)
    assert row["title"] == "Flaky refund webhook test"
    assert main(["team", "show", row["session_id"], "--db", pg_db, "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["title"] == "Flaky refund webhook test"
    # the model context, published too, is listed by the title as well
    [rgl] = demo.glob("sessions/*ripgrep-lite*/*_c81f3e02-*/session.jsonl")
    main(["publish", str(rgl), *common, "--exclude", "reasoning_summaries", "--history", "model"])
    assert "published c81f3e02-" in capsys.readouterr().out
    assert main(["team", "sessions", "--db", pg_db, "--json"]) == 0
    titles = {r["session_id"][:8]: r["title"] for r in json.loads(capsys.readouterr().out)}
    assert titles == {"5f0c2a9e": "Flaky refund webhook test", "c81f3e02": "JSON output for rgl"}


def test_cli_publish_and_team_commands(
    pg_db: str, tmp_path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    pg_db = without_password(pg_db, tmp_path, monkeypatch)
    path = tmp_path / "s.json"
    path.write_bytes(encode_pretty(session(revision=2)))
    team = team_name()
    assert main(["team", "init", "--db", pg_db, "--team", team]) == 0
    assert f"team {team}: created" in capsys.readouterr().out
    assert main(["publish", str(path), "--db", pg_db, "--team", team, "--exclude", "metadata"]) == 0
    out = capsys.readouterr().out
    assert "published sess-1 revision 2" in out and "excluded classes: metadata" in out
    assert main(["publish", str(path), "--db", pg_db, "--team", team, "--exclude", "metadata"]) == 0
    assert "already published" in capsys.readouterr().out
    assert main(["team", "sessions", "--db", pg_db, "--json"]) == 0
    [row] = json.loads(capsys.readouterr().out)
    assert row["session_id"] == "sess-1" and row["latest_revision"] == 2
    assert main(["team", "search", "flaky", "--db", pg_db, "--json"]) == 0
    [hit] = json.loads(capsys.readouterr().out)
    assert "«flaky»" in hit["snippet"]
    assert main(["team", "show", "sess-1", "--db", pg_db, "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["verification"]["ok"] is True and shown["receipt"]["source"]["revision"] == 2
    assert main(["team", "show", "sess-1", "--db", pg_db]) == 0
    out = capsys.readouterr().out
    assert "— valid" in out and "Please fix the flaky" in out
    # bad input: exit 2 with one line; no database: exit 1, password not shown
    assert main(["team", "sessions"]) == 2
    assert "pass --db" in capsys.readouterr().err
    assert main(["team", "show", "nope", "--db", pg_db]) == 2
    assert "no published session 'nope'" in capsys.readouterr().err
    dead = "postgresql://someone:hunter2secret@127.0.0.1:1/x?connect_timeout=2"
    assert main(["team", "sessions", "--db", dead]) == 2  # a password on the command line: refused
    err = capsys.readouterr().err
    assert (
        err.count("\n") == 1
        and "~/.pgpass" in err
        and "keyring" in err
        and "hunter2secret" not in err
    )
    assert (
        main(["team", "sessions", "--db", "postgresql://someone@127.0.0.1:1/x?connect_timeout=2"])
        == 1
    )
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "unreachable" in err


@pytest.mark.asyncio
async def test_sixteen_concurrent_publishers_lose_and_duplicate_nothing(pg_db: str) -> None:
    """16 publishers × 100 revisions, each also republishing a shared session: every version once."""
    team = team_name()
    publishers, revisions = 16, 100
    base = session("shared")
    async with await TeamLibrary.open(pg_db, max_size=16) as lib:
        await lib.create_team(team)
        # the export runs once per revision; storing is what is under test
        pubs = [
            prepare(
                session(f"p{p}", revision=1).replace(revision=r),
                EVERYTHING,
                keys=KEYS,
                known_secrets=[],
            )
            for p in range(1)
            for r in range(1, revisions + 1)
        ]
        shared = [
            prepare(base.replace(revision=r), EVERYTHING, keys=KEYS, known_secrets=[])
            for r in range(1, 21)
        ]

        async def publisher(p: int) -> int:
            added = 0
            for r, pub in enumerate(pubs, start=1):
                mine = pub.__class__(**{**pub.__dict__, "session_id": f"p{p}"})
                added += (await lib.store(team, mine)).added
                added += (await lib.store(team, shared[(p + r) % len(shared)])).added
            return added

        results = await asyncio.gather(*(publisher(p) for p in range(publishers)))
    assert sum(results) == publishers * revisions + len(shared)
    with psycopg.connect(pg_db) as conn:
        rows = conn.execute(
            "SELECT s.session_id, s.versions, s.latest_revision, count(v.*), count(DISTINCT v.revision) "
            "FROM rho_desk.sessions s JOIN rho_desk.versions v ON v.session = s.id GROUP BY s.id"
        ).fetchall()
    by_id = {r[0]: r[1:] for r in rows}
    assert len(by_id) == publishers + 1
    for p in range(publishers):
        assert by_id[f"p{p}"] == (revisions, revisions, revisions, revisions)
    assert by_id["shared"] == (20, 20, 20, 20)


@pytest.mark.asyncio
async def test_publish_many_overlaps_and_keeps_order(pg_db: str) -> None:
    team = team_name()
    async with await TeamLibrary.open(pg_db, max_size=3) as lib:
        await lib.create_team(team)
        snaps = [(session(f"m{n}", revision=1 + n % 3), f"m{n}.json") for n in range(12)]
        done = await lib.publish_many(team, snaps, EVERYTHING, keys=KEYS, known_secrets=[])
        assert [o.session_id for _p, o in done] == [f"m{n}" for n in range(12)] and all(
            o.added for _p, o in done
        )
        assert len(await lib.sessions(limit=100)) == 12
        again = await lib.publish_many(team, snaps[:3], EVERYTHING, keys=KEYS, known_secrets=[])
        assert [o.added for _p, o in again] == [False, False, False]
