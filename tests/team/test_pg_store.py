"""PostgresSessionStore beyond the shared conformance suite: races, retention, keys, deletion."""

from __future__ import annotations

import asyncio
import os

import psycopg
import pytest

from rho_desk.core.errors import InputError, RevisionConflict
from rho_desk.core.stores.durable import CorruptSnapshotFile
from rho_desk.core.wire.model import Message
from rho_desk.team.store import PostgresSessionStore

from .helpers import session


def grow(s, text: str):  # type: ignore[no-untyped-def]
    return s.replace(revision=s.revision + 1, history=(*s.history, Message.user_text(text)))


@pytest.mark.asyncio
async def test_two_writers_race_exactly_one_conflict_per_race_and_no_lost_revision(
    pg_db: str,
) -> None:
    races = 25
    async with (
        PostgresSessionStore(pg_db, keep_revisions=1000) as a,
        PostgresSessionStore(pg_db, keep_revisions=1000) as b,
    ):
        await a.save(session("race", revision=1))
        conflicts = 0
        winners = []
        for n in range(races):
            base_a, base_b = await asyncio.gather(a.load("race"), b.load("race"))
            assert base_a == base_b
            results = await asyncio.gather(
                a.save(grow(base_a, f"a{n}")), b.save(grow(base_b, f"b{n}")), return_exceptions=True
            )
            errors = [r for r in results if isinstance(r, BaseException)]
            assert len(errors) == 1 and isinstance(errors[0], RevisionConflict), results
            conflicts += 1
            winners.append("a" if results[0] is None else "b")
        final = await a.load("race")
        assert final is not None and final.revision == races + 1 and conflicts == races
        # every committed revision is there, each the winner's: none lost, none overwritten
        assert await a.revisions("race") == list(range(1, races + 1))
        for n in range(races):
            kept = await a.load_revision("race", n + 2)
            assert kept.history[-1].content[0].text == f"{winners[n]}{n}"


@pytest.mark.asyncio
async def test_retention_keeps_the_configured_number_of_previous_revisions(pg_db: str) -> None:
    async with PostgresSessionStore(pg_db, keep_revisions=3) as store:
        current = session("kept", revision=1)
        await store.save(current)
        for n in range(6):
            current = grow(current, f"n{n}")
            await store.save(current)
        assert await store.revisions("kept") == [4, 5, 6]
        assert (await store.load_revision("kept", 5)).revision == 5
        assert (await store.load_revision("kept", 7)).revision == 7  # the current one
        with pytest.raises(InputError, match="revision 2"):
            await store.load_revision("kept", 2)
    async with PostgresSessionStore(pg_db) as store:  # keep_revisions=0: no history rows
        await store.save(session("unkept", revision=1))
        await store.save(session("unkept", revision=2))
        assert await store.revisions("unkept") == []


@pytest.mark.asyncio
async def test_encrypted_snapshots_need_their_key(pg_db: str) -> None:
    key = os.urandom(32)
    async with PostgresSessionStore(pg_db, key=key, key_name="k1") as store:
        await store.save(session("enc"))
    async with PostgresSessionStore(pg_db, key=os.urandom(32), key_name="k1") as wrong:
        with pytest.raises(CorruptSnapshotFile, match="cannot decrypt"):
            await wrong.load("enc")
    async with PostgresSessionStore(pg_db) as keyless:
        with pytest.raises(CorruptSnapshotFile, match="was not given"):
            await keyless.load("enc")
    async with PostgresSessionStore(pg_db, key=key, key_name="k1") as right:
        assert await right.load("enc") == session("enc")
    # the row is bound to its session: moving it to another id is detected
    with psycopg.connect(pg_db) as conn:
        conn.execute(
            "UPDATE rho_desk.store_snapshots SET session_id = 'moved' WHERE session_id = 'enc'"
        )
    async with PostgresSessionStore(pg_db, key=key, key_name="k1") as right:
        with pytest.raises(InputError):
            await right.load("moved")


@pytest.mark.asyncio
async def test_namespaces_deletion_listing_and_repr(pg_db: str) -> None:
    async with (
        PostgresSessionStore(pg_db, namespace="host-a") as a,
        PostgresSessionStore(pg_db, namespace="host-b") as b,
    ):
        await a.save(session("x"))
        await a.save(session("é"))
        assert await b.load("x") is None
        assert await a.ids() == ["x", "é"]
        assert await a.delete("x") is True and await a.delete("x") is False
        assert await a.load("x") is None
        await a.save(session("x"))  # a deleted session may be created again
        assert "password" not in repr(a) and "host-a" in repr(a)
