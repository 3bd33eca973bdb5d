"""The in-memory session store (spec/engine.md §14): atomic replacement, copies, no revision check."""

from __future__ import annotations

import asyncio
import threading

import pytest

from rho_desk.core.errors import StorageError
from rho_desk.core.stores.base import SessionStore
from rho_desk.core.stores.memory import InMemorySessionStore
from rho_desk.core.wire.model import ContentBlock, Message, ModelIdentity
from rho_desk.core.wire.snapshot import SessionSnapshot

ID = ModelIdentity("p", "a", "m")


def snap(
    session_id: str = "s1", revision: int = 1, text: str = "hi", **kw: object
) -> SessionSnapshot:
    return SessionSnapshot.new(session_id, revision, [Message.user_text(text)], ID, **kw)  # type: ignore[arg-type]


def test_it_is_a_session_store() -> None:
    assert isinstance(InMemorySessionStore(), SessionStore)


@pytest.mark.asyncio
async def test_save_returns_the_previous_and_load_returns_the_latest() -> None:
    store = InMemorySessionStore()
    assert store.is_empty() and len(store) == 0
    assert await store.load("s1") is None
    assert await store.save(snap(revision=1)) is None
    assert await store.save(snap(revision=2)) == snap(revision=1)
    assert await store.load("s1") == snap(revision=2)
    assert len(store) == 1 and "s1" in store


@pytest.mark.asyncio
async def test_no_revision_check_an_older_save_overwrites() -> None:
    store = InMemorySessionStore()
    await store.save(snap(revision=5))
    await store.save(snap(revision=2))
    assert (await store.load("s1")).revision == 2  # type: ignore[union-attr]


@pytest.mark.asyncio
async def test_remove_and_ids() -> None:
    store = InMemorySessionStore()
    for sid in ("b", "a", "é", "Z"):
        await store.save(snap(sid))
    assert store.ids() == ["Z", "a", "b", "é"]  # byte-wise order
    assert await store.remove("a") == snap("a")
    assert await store.remove("a") is None
    assert len(store) == 3


@pytest.mark.asyncio
async def test_loaded_snapshots_are_deep_copies() -> None:
    store = InMemorySessionStore()
    original = SessionSnapshot.new(
        "s1",
        1,
        [Message.assistant_blocks([ContentBlock.of_tool_call("c", "t", {"path": "a"})])],
        ID,
        metadata={"k": "v"},
    )
    await store.save(original)
    first = await store.load("s1")
    assert first == original and first is not original
    first.metadata["k"] = "mutated"  # type: ignore[union-attr]
    first.history[0].assistant[0].tool_call.arguments["path"] = "mutated"  # type: ignore[union-attr,index]
    second = await store.load("s1")
    assert second == original
    original.metadata["k"] = "mutated after save"
    assert (await store.load("s1")).metadata == {"k": "v"}  # type: ignore[union-attr]


@pytest.mark.asyncio
async def test_a_failed_save_leaves_the_previous_snapshot_loadable() -> None:
    store = InMemorySessionStore()
    await store.save(snap(revision=1))
    unencodable = snap(revision=2).replace(
        history=(Message.assistant_blocks([ContentBlock.of_tool_call("c", "t", {"x": object()})]),)
    )
    with pytest.raises(StorageError, match="cannot be encoded"):
        await store.save(unencodable)
    assert await store.load("s1") == snap(revision=1)


def test_readers_see_old_or_new_never_a_mix() -> None:
    store = InMemorySessionStore()
    store.save_now(snap(revision=0, text="r0"))
    stop = threading.Event()
    bad: list[object] = []

    def reader() -> None:
        while not stop.is_set():
            s = store.load_now("s1")
            if s is None or s.history[0].text() != f"r{s.revision}":
                bad.append(s)

    threads = [threading.Thread(target=reader) for _ in range(2)]
    for t in threads:
        t.start()
    for revision in range(1, 300):
        store.save_now(snap(revision=revision, text=f"r{revision}"))
    stop.set()
    for t in threads:
        t.join()
    assert bad == []


@pytest.mark.asyncio
async def test_the_engine_and_the_store_together() -> None:
    from rho_desk.core.session import Rho, SessionOptions
    from rho_desk.core.testing import ScriptedProvider, ScriptedTurn

    rho = (
        Rho.builder()
        .provider(ScriptedProvider([ScriptedTurn.completed("a"), ScriptedTurn.completed("b")]))
        .build()
    )
    store = InMemorySessionStore()
    session = rho.session()
    await session.complete("one")
    await store.save(session.snapshot())
    restored = rho.session(SessionOptions.from_snapshot(await store.load(session.id)))  # type: ignore[arg-type]
    outcome = await restored.complete("two")
    assert outcome.revision == 2
    await asyncio.sleep(0)
