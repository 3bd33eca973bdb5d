"""Faults: the server stopped in the middle of a publish; nothing half-written, and a retry succeeds."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator

import psycopg
import pytest

from rho_desk.core.errors import DatabaseUnavailable
from rho_desk.team.cluster import ThrowawayCluster
from rho_desk.team.library import TeamLibrary

from .helpers import EVERYTHING, KEYS, session


@pytest.fixture
def own_cluster() -> Iterator[ThrowawayCluster]:
    """A cluster of this test's own (it is stopped on purpose), with durable commits."""
    cluster = ThrowawayCluster(fast=False)
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.destroy()


def _wait_for_sleeping_insert(cluster: ThrowawayCluster, timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    with psycopg.connect(cluster.socket_dsn, autocommit=True) as conn:
        while time.monotonic() < deadline:
            row = conn.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'PgSleep'"
            ).fetchone()
            if row and row[0]:
                return
            time.sleep(0.05)
    raise AssertionError("the publish never reached the slowed-down insert")


@pytest.mark.asyncio
async def test_server_stopped_mid_publish_then_retry(own_cluster: ThrowawayCluster) -> None:
    dsn = own_cluster.dsn
    await TeamLibrary.init(dsn)
    lib = await TeamLibrary.open(dsn, max_size=2)
    try:
        await lib.create_team("ops")
        await lib.publish(
            "ops", session("before", revision=1), EVERYTHING, keys=KEYS, known_secrets=[]
        )
        with psycopg.connect(dsn, autocommit=True) as conn:
            # the version insert (after the session row is written, before commit) now takes a while
            conn.execute(
                "CREATE FUNCTION rho_desk.slow() RETURNS trigger LANGUAGE plpgsql AS "
                "$$ BEGIN PERFORM pg_sleep(30); RETURN NEW; END $$"
            )
            conn.execute(
                "CREATE TRIGGER slow BEFORE INSERT ON rho_desk.versions FOR EACH ROW EXECUTE FUNCTION rho_desk.slow()"
            )
        task = asyncio.create_task(
            lib.publish("ops", session("mid", revision=4), EVERYTHING, keys=KEYS, known_secrets=[])
        )
        await asyncio.to_thread(_wait_for_sleeping_insert, own_cluster)
        await asyncio.to_thread(own_cluster.stop, "immediate")
        with pytest.raises(DatabaseUnavailable) as caught:
            await task
        assert own_cluster.password not in caught.value.text()
        await asyncio.to_thread(own_cluster.start)
        with psycopg.connect(dsn, autocommit=True) as conn:
            # nothing half-written: no session row without its version
            assert conn.execute(
                "SELECT session_id FROM rho_desk.sessions ORDER BY 1"
            ).fetchall() == [("before",)]
            assert conn.execute("SELECT count(*) FROM rho_desk.versions").fetchone() == (1,)
            conn.execute("DROP TRIGGER slow ON rho_desk.versions")
        # the same library recovers (the pool replaces its dead connections) and the retry lands
        _, outcome = await lib.publish(
            "ops", session("mid", revision=4), EVERYTHING, keys=KEYS, known_secrets=[]
        )
        assert outcome.added and outcome.versions == 1
        assert sorted(s.session_id for s in await lib.sessions()) == ["before", "mid"]
    finally:
        await lib.close()


@pytest.mark.asyncio
async def test_the_server_down_gives_a_clean_error(own_cluster: ThrowawayCluster) -> None:
    dsn = own_cluster.dsn
    await TeamLibrary.init(dsn)
    own_cluster.stop()
    with pytest.raises(DatabaseUnavailable, match="unreachable") as caught:
        await TeamLibrary.open(dsn)
    assert own_cluster.password not in caught.value.text()
