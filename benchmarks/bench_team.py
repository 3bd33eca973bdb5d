"""Benchmarks of the team library on PostgreSQL (a throwaway cluster, or ``$RHO_DESK_BENCH_DB``).

* ``team.publish_1k``: publish 1,000 sessions of 100 messages each, the conversation as shown
  (the export pipeline with a display export document and a signed receipt, the searchable text
  and statistics decoded from the export, and one transaction per session) with one
  ``TeamLibrary``; sessions/s. Baseline, in the same run: the export pipeline alone on the same
  sessions, as ``rho-desk export`` runs it (``export_signed``: the display export and its signed
  receipt, and the atomic, fsynced write of both files). The cluster
  commits durably (fsync on) for the comparison to be fair. Target: publishing takes ≤ 1.5× the
  baseline's time.
* ``team.search_100k``: ``TeamLibrary.search`` over 100,000 published sessions, as a member
  (row-level security on), for a rare word; p95 ≤ 100 ms. Also reported: a common word, two
  terms, and a substring (pg_trgm). The rows are built with ``COPY`` (100k publishes would
  measure publishing again): sessions with a title and ~60 words of searchable text each.
* ``team.list_first_page``: the first page (50) of the same library, newest first, as a
  member; median ≤ 50 ms.

Without ``$RHO_DESK_BENCH_DB`` (a superuser DSN on a scratch database) the benchmark starts its
own throwaway cluster (rho_desk.team.cluster) and deletes it at exit.
"""

from __future__ import annotations

import asyncio
import atexit
import os
import random
import secrets
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

import psycopg
from _sessions import PROVIDER, turn
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from rho_desk.benchkit import BenchResult, benchmark, measure
from rho_desk.core.export import (
    ALL_CLASSES,
    ExportKeys,
    ExportSource,
    Selection,
    display_snapshot,
    export_signed,
    write_files_atomic,
)
from rho_desk.core.wire import Message, SessionSnapshot
from rho_desk.team.library import TeamLibrary

KEY = bytes(range(32))
KEYS = ExportKeys(KEY, Ed25519PrivateKey.from_private_bytes(bytes(range(32, 64))))
SELECTION = Selection.including(frozenset(ALL_CLASSES))
_state: dict[str, Any] = {}


def _admin_dsn() -> str:
    if "dsn" in _state:
        return str(_state["dsn"])
    dsn = os.environ.get("RHO_DESK_BENCH_DB")
    if not dsn:
        from rho_desk.team.cluster import ThrowawayCluster

        # durable commits (fsync on), as the baseline's files are fsynced
        cluster = ThrowawayCluster(fast=False).start()
        atexit.register(cluster.destroy)
        _state["cluster"] = cluster
        with psycopg.connect(cluster.socket_dsn, autocommit=True) as conn:
            conn.execute("CREATE DATABASE bench")
        dsn = cluster.dsn_for("postgres", cluster.password, "bench")
    asyncio.run(TeamLibrary.init(dsn))
    _state["dsn"] = dsn
    return dsn


def _member(admin: str, team: str) -> str:
    """A login role in ``team`` (row-level security applies to it); its DSN."""
    role = f"bench_{secrets.token_hex(3)}"
    password = secrets.token_urlsafe(12)
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f"CREATE ROLE {role} LOGIN PASSWORD '{password}'")

    async def add() -> None:
        async with await TeamLibrary.open(admin) as lib:
            await lib.create_team(team, (role,))

    asyncio.run(add())
    params = psycopg.conninfo.conninfo_to_dict(admin)
    params.update(user=role, password=password)
    return psycopg.conninfo.make_conninfo(**{k: str(v) for k, v in params.items()})


def _sessions(count: int, messages: int) -> list[SessionSnapshot]:
    rng = random.Random(14)
    out = []
    for n in range(count):
        history: list[Message] = [Message.system_text("You are a coding agent.")]
        i = 0
        while len(history) < messages:
            history.extend(turn(rng, i))
            i += 1
        out.append(SessionSnapshot.new(f"pub-{n:05d}", 1, history[:messages], PROVIDER))
    return out


@benchmark("team.publish_1k")
def bench_publish(quick: bool) -> BenchResult:
    count = 200 if quick else 1000
    # the conversation as shown (no compaction here: the display history is the messages)
    sources = [
        ExportSource(display_snapshot(s, s.history), "display") for s in _sessions(count, 100)
    ]
    admin = _admin_dsn()
    team = f"pub{secrets.token_hex(3)}"
    member = _member(admin, team)

    folder = Path(tempfile.mkdtemp(prefix="rho-desk-bench-"))
    atexit.register(shutil.rmtree, folder, True)

    def export_alone() -> None:
        for n, source in enumerate(sources):
            signed = export_signed(
                source, SELECTION, keys=KEYS, known_secrets=(), output_name=f"{n}.json"
            )
            assert signed.receipt_bytes is not None
            write_files_atomic(
                [
                    (folder / f"{n}.json", signed.result.data),
                    (folder / f"{n}.json.receipt.json", signed.receipt_bytes),
                ],
                overwrite=True,
            )

    async def publish_all() -> None:
        async with await TeamLibrary.open(member, max_size=2) as lib:
            await lib.publish_many(
                team, [(s, None) for s in sources], SELECTION, keys=KEYS, known_secrets=[]
            )

    exports, runs = [], []
    for _ in range(1 if quick else 2):  # alternate, so drift on a shared machine hits both
        exports.extend(measure(export_alone, repeat=1, warmup=0, scale=1.0))
        start = time.perf_counter()
        asyncio.run(publish_all())
        runs.append(time.perf_counter() - start)
        with psycopg.connect(admin, autocommit=True) as conn:  # the next round publishes anew
            conn.execute("DELETE FROM rho_desk.sessions WHERE team = %s", (team,))
    baseline_s = sorted(exports)[len(exports) // 2]
    published_s = sorted(runs)[len(runs) // 2]
    result = BenchResult(
        "team.publish_1k",
        "sessions/s",
        [count / r for r in runs],
        "time ≤ 1.5× the export pipeline alone",
        None,
    )
    result.baseline = count / baseline_s
    result.ratio = published_s / baseline_s
    result.met = result.ratio <= 1.5
    result.details = {
        "sessions": count,
        "messages": 100,
        "publish_s": published_s,
        "export_s": baseline_s,
    }
    print(
        f"team.publish_1k: {count} sessions, publish {published_s:.2f} s, export alone {baseline_s:.2f} s"
    )
    return result


_VOCAB = [
    f"{a}{b}"
    for a in ("pay", "ref", "hook", "sess", "tok", "cach", "rout", "sched", "pars", "rend")
    for b in ("ment", "und", "er", "ion", "en", "ing", "ed", "ule", "or", "al")
]
_COMMON = ["error", "test", "database", "migration", "timeout"]


def _library_100k(quick: bool) -> tuple[str, str, list[str]]:
    if "lib100k" in _state:
        return _state["lib100k"]  # type: ignore[no-any-return]
    admin = _admin_dsn()
    team, other = f"big{secrets.token_hex(3)}", f"oth{secrets.token_hex(3)}"
    member = _member(admin, team)
    asyncio.run(_create_team(admin, other))
    rng = random.Random(100)
    rare = [f"zq{n:05d}rare" for n in range(100)]
    total = 100_000
    start = time.perf_counter()
    with psycopg.connect(admin) as conn:
        conn.execute("DROP INDEX rho_desk.sessions_search_tsv, rho_desk.sessions_search_trgm")
        with conn.cursor().copy(
            "COPY rho_desk.sessions (team, session_id, title, latest_revision, versions, published_at, published_by, search_text) FROM STDIN"
        ) as copy:
            for n in range(total):
                words = rng.choices(_VOCAB, k=50) + rng.sample(_COMMON, 2)
                if n % 1000 == 7:
                    words.append(rare[n // 1000])
                rng.shuffle(words)
                body = " ".join(words)
                copy.write_row(
                    (
                        team if n % 10 else other,
                        f"s-{n:06d}",
                        " ".join(words[:8]),
                        1,
                        1,
                        "2026-01-01 00:00:00+00",
                        "bench",
                        body,
                    )
                )
        conn.execute("CREATE INDEX sessions_search_tsv ON rho_desk.sessions USING gin (search_tsv)")
        conn.execute(
            "CREATE INDEX sessions_search_trgm ON rho_desk.sessions USING gin (search_text gin_trgm_ops)"
        )
        conn.execute(
            "UPDATE rho_desk.sessions SET published_at = published_at + (id || ' seconds')::interval"
        )
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute("VACUUM ANALYZE rho_desk.sessions")
    print(
        f"team: built {total} published sessions with COPY in {time.perf_counter() - start:.1f} s"
    )
    _state["lib100k"] = (member, team, rare)
    return member, team, rare


async def _create_team(admin: str, team: str) -> None:
    async with await TeamLibrary.open(admin) as lib:
        await lib.create_team(team)


def _timed_async(lib_dsn: str, calls: list[tuple[str, Any]], repeat: int) -> dict[str, list[float]]:
    async def run() -> dict[str, list[float]]:
        out: dict[str, list[float]] = {}
        async with await TeamLibrary.open(lib_dsn, max_size=1) as lib:
            for name, call in calls:
                await call(lib)  # warm-up
                samples = []
                for _ in range(repeat):
                    start = time.perf_counter()
                    await call(lib)
                    samples.append((time.perf_counter() - start) * 1000)
                out[name] = samples
        return out

    return asyncio.run(run())


@benchmark("team.search_100k")
def bench_search(quick: bool) -> list[BenchResult]:
    member, _team, rare = _library_100k(quick)
    repeat = 20 if quick else 60
    picks = iter(rare[1:])

    async def search_rare(lib: TeamLibrary) -> None:
        assert await lib.search(next(picks, rare[1]), limit=20)

    async def check(lib: TeamLibrary) -> None:
        assert await lib.search(rare[0]), "the planted rare word was not found"

    queries = [
        ("team.search_100k", search_rare),
        ("team.search_100k_common", lambda lib: lib.search("migration", limit=20)),
        ("team.search_100k_two_terms", lambda lib: lib.search("payment refund", limit=20)),
        ("team.search_100k_substring", lambda lib: lib.search("ymen", limit=20)),
    ]
    _timed_async(member, [("check", check)], 1)
    timed = _timed_async(member, queries, repeat)
    results = []
    for name, samples in timed.items():
        main = name == "team.search_100k"
        r = BenchResult(name, "ms", samples, "p95 ≤ 100 ms" if main else "report", None)
        r.met = r.p95 <= 100.0 if main else None
        results.append(r)
    return results


@benchmark("team.list_first_page")
def bench_list(quick: bool) -> BenchResult:
    member, _team, _rare = _library_100k(quick)
    repeat = 30 if quick else 100
    timed = _timed_async(member, [("list", lambda lib: lib.sessions(limit=50))], repeat)
    r = BenchResult("team.list_first_page", "ms", timed["list"], "median ≤ 50 ms", None)
    r.met = r.median <= 50.0
    return r
