"""The store conformance suite: every ``SessionStore`` adapter meets the seed's store contract.

One module, parametrized over the adapters: the in-memory store, the durable file store (plain
and encrypted) and ``PostgresSessionStore`` (plain and encrypted, on the session's throwaway
PostgreSQL cluster). The first group holds for every store; the second for the stores that
check revisions (``RevisionConflict``), which the in-memory store by design does not (spec §14).
Adapter-specific behaviour (file layout, keyring, retention files, SQL) stays in each store's
own test module.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from rho_desk.core.errors import RevisionConflict, StorageError
from rho_desk.core.stores.base import SessionStore
from rho_desk.core.stores.durable import DurableFileSessionStore
from rho_desk.core.stores.memory import InMemorySessionStore
from rho_desk.core.wire.model import ContentBlock, Message, ModelIdentity
from rho_desk.core.wire.snapshot import SessionSnapshot

ID = ModelIdentity("p", "a", "m")
ALL = ["memory", "durable", "durable-encrypted", "postgres", "postgres-encrypted"]
CHECKING = ["durable", "durable-encrypted", "postgres", "postgres-encrypted"]


def snap(session_id: str = "s1", revision: int = 1, text: str = "hi") -> SessionSnapshot:
    history = [
        Message.system_text("be brief"),
        Message.user_text(text),
        Message.assistant_blocks(
            [ContentBlock.of_tool_call("c1", "read", {"path": "a.txt", "n": [1, 2]})]
        ),
        Message.result("c1", True, "file body"),
    ]
    return SessionSnapshot.new(
        session_id, revision, history, ID, metadata={"k": "v"}, prompt_cache_key="rho:s"
    )


def grow(s: SessionSnapshot, text: str = "more") -> SessionSnapshot:
    return s.replace(revision=s.revision + 1, history=(*s.history, Message.user_text(text)))


@dataclass
class Backend:
    """Makes stores (writers) that share one backing store."""

    kind: str
    make: Callable[[], Any]
    made: list[Any] = field(default_factory=list)

    def writer(self) -> Any:
        store = self.make()
        self.made.append(store)
        return store


def _backend(kind: str, request: pytest.FixtureRequest, tmp_path: Path) -> Backend:
    """A factory of ``kind`` stores over one place (a folder, a database), one key for all."""
    if kind == "memory":
        shared = InMemorySessionStore()
        return Backend(kind, lambda: shared)
    if kind.startswith("durable"):
        from rho_desk.keys import MemoryKeySource

        encrypt, keys = kind.endswith("encrypted"), MemoryKeySource()
        return Backend(
            kind, lambda: DurableFileSessionStore(tmp_path / "store", encrypt=encrypt, keys=keys)
        )
    from rho_desk.team.store import PostgresSessionStore

    dsn = request.getfixturevalue("pg_db")
    key = os.urandom(32) if kind.endswith("encrypted") else None
    return Backend(kind, lambda: PostgresSessionStore(dsn, key=key))


async def _closed(b: Backend) -> None:
    for store in b.made:
        if hasattr(store, "close"):
            await store.close()


@pytest_asyncio.fixture(params=ALL)
async def backend(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Backend]:
    b = _backend(request.param, request, tmp_path)
    yield b
    await _closed(b)


@pytest.fixture(params=CHECKING)
def checking(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest_asyncio.fixture
async def checked_backend(
    checking: str, request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[Backend]:
    b = _backend(checking, request, tmp_path)
    yield b
    await _closed(b)


# -- every store -------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_it_is_a_session_store(backend: Backend) -> None:
    assert isinstance(backend.writer(), SessionStore)


@pytest.mark.asyncio
async def test_load_of_an_unknown_session_is_none(backend: Backend) -> None:
    assert await backend.writer().load("nobody") is None


@pytest.mark.asyncio
async def test_round_trip_is_exact_and_a_save_replaces_the_whole_snapshot(backend: Backend) -> None:
    store = backend.writer()
    first = snap()
    await store.save(first)
    assert await store.load("s1") == first
    second = grow(first).replace(metadata={"other": "x"}, prompt_cache_key=None)
    await store.save(second)
    loaded = await store.load("s1")
    assert (
        loaded == second and loaded.metadata == {"other": "x"} and loaded.prompt_cache_key is None
    )
    # a second store on the same backend sees the same complete snapshot
    assert await backend.writer().load("s1") == second


@pytest.mark.asyncio
async def test_a_failed_save_leaves_the_previous_snapshot_loadable(backend: Backend) -> None:
    store = backend.writer()
    await store.save(snap())
    bad = grow(snap()).replace(
        history=(Message.assistant_blocks([ContentBlock.of_tool_call("c", "t", {"x": object()})]),)
    )
    with pytest.raises(StorageError):
        await store.save(bad)
    assert await store.load("s1") == snap()
    assert await backend.writer().load("s1") == snap()


@pytest.mark.asyncio
async def test_loaded_snapshots_are_independent_copies(backend: Backend) -> None:
    store = backend.writer()
    await store.save(snap())
    first = await store.load("s1")
    first.metadata["k"] = "mutated"
    first.history[2].assistant[0].tool_call.arguments["path"] = "mutated"
    assert await store.load("s1") == snap()


@pytest.mark.asyncio
async def test_sessions_are_kept_apart_whatever_their_ids(backend: Backend) -> None:
    store = backend.writer()
    ids = ["a", "A", "é-ü", "with/slash", "dots..", "x" * 200, "sp ace"]
    for n, sid in enumerate(ids):
        await store.save(snap(sid, text=f"text {n}"))
    for n, sid in enumerate(ids):
        loaded = await store.load(sid)
        assert (
            loaded is not None
            and loaded.session_id == sid
            and loaded.history[1].user[0].text == f"text {n}"
        )


@pytest.mark.asyncio
async def test_concurrent_saves_of_different_sessions_all_land(backend: Backend) -> None:
    store = backend.writer()
    await asyncio.gather(*(store.save(snap(f"c{n}", text=str(n))) for n in range(12)))
    for n in range(12):
        assert (await store.load(f"c{n}")).history[1].user[0].text == str(n)


@pytest.mark.asyncio
async def test_successive_revisions_from_one_writer(backend: Backend) -> None:
    store = backend.writer()
    current = snap()
    await store.save(current)
    for _ in range(5):
        current = grow(current)
        await store.save(current)
    assert (await store.load("s1")).revision == 6


# -- stores that check revisions ---------------------------------------------------------------


@pytest.mark.asyncio
async def test_a_second_writer_is_detected_not_overwritten(checked_backend: Backend) -> None:
    a, b = checked_backend.writer(), checked_backend.writer()
    await a.save(snap())
    base_a, base_b = await a.load("s1"), await b.load("s1")
    await a.save(grow(base_a, "from a"))
    with pytest.raises(RevisionConflict):
        await b.save(grow(base_b, "from b"))
    assert (await checked_backend.writer().load("s1")).history[-1].user[0].text == "from a"
    # after reloading, b may save
    await b.save(grow(await b.load("s1"), "b again"))
    assert (await a.load("s1")).revision == 3


@pytest.mark.asyncio
async def test_a_writer_that_never_loaded_may_only_go_forward(checked_backend: Backend) -> None:
    await checked_backend.writer().save(snap(revision=3))
    with pytest.raises(RevisionConflict):
        await checked_backend.writer().save(snap(revision=3))
    with pytest.raises(RevisionConflict):
        await checked_backend.writer().save(snap(revision=2))
    await checked_backend.writer().save(snap(revision=4))
    assert (await checked_backend.writer().load("s1")).revision == 4


@pytest.mark.asyncio
async def test_going_back_a_revision_is_refused(checked_backend: Backend) -> None:
    store = checked_backend.writer()
    await store.save(snap(revision=5))
    with pytest.raises(RevisionConflict):
        await store.save(snap(revision=4))
    assert (await store.load("s1")).revision == 5


@pytest.mark.asyncio
async def test_a_session_created_elsewhere_is_a_conflict(checked_backend: Backend) -> None:
    a, b = checked_backend.writer(), checked_backend.writer()
    assert await a.load("s1") is None and await b.load("s1") is None
    await a.save(snap())
    with pytest.raises(RevisionConflict):
        await b.save(snap(text="b"))
    assert (await a.load("s1")).history[1].user[0].text == "hi"
