"""The cyclic GC paused during a large job (``core/system/collector``), and an export runs so."""

from __future__ import annotations

import gc
import threading
from collections.abc import Callable

from rho_desk.core.export import SecretScanner, Selection, export_snapshot
from rho_desk.core.export.scanner import Hit
from rho_desk.core.system.collector import collection_paused
from rho_desk.core.wire.model import Message, ModelIdentity
from rho_desk.core.wire.snapshot import SessionSnapshot


def test_paused_inside_enabled_after() -> None:
    assert gc.isenabled()
    with collection_paused():
        assert not gc.isenabled()
        with collection_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the outer block still runs
    assert gc.isenabled()


def test_a_collector_disabled_before_stays_disabled() -> None:
    gc.disable()
    try:
        with collection_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_blocks_in_two_threads_share_one_pause() -> None:
    entered, release = threading.Event(), threading.Event()

    def other() -> None:
        with collection_paused():
            entered.set()
            release.wait(10)

    thread = threading.Thread(target=other)
    thread.start()
    assert entered.wait(10)
    with collection_paused():
        pass
    assert not gc.isenabled()  # the other thread's block has not ended
    release.set()
    thread.join(10)
    assert gc.isenabled()


def test_an_export_runs_with_the_collector_paused() -> None:
    seen: list[bool] = []

    class Watching(SecretScanner):
        def scan(
            self,
            data: bytes,
            *,
            decoded: list[tuple[int, int, bytes]] | None = None,
            started: Callable[[], object] | None = None,
        ) -> list[Hit]:
            seen.append(gc.isenabled())
            return super().scan(data, decoded=decoded, started=started)

    identity = ModelIdentity("openai", "responses", "gpt-5")
    snapshot = SessionSnapshot.new("s-1", 1, [Message.user_text("hello")], identity)
    export_snapshot(snapshot, Selection.everything(), key=bytes(32), scanner=Watching())
    assert seen and not any(seen)
    assert gc.isenabled()


def test_a_freezing_block_freezes_when_the_last_block_ends() -> None:
    """A session's load (``freeze=True``, the window's ``bulk_load``) and an export share one
    pause: the collector is enabled again, and the survivors frozen, only when both have ended."""
    gc.unfreeze()
    try:
        with collection_paused():
            with collection_paused(freeze=True):
                kept = [[i] for i in range(100)]
            assert not gc.isenabled() and gc.get_freeze_count() == 0  # the export still runs
        assert gc.isenabled() and gc.get_freeze_count() >= len(kept)
        with collection_paused():
            pass
        frozen = gc.get_freeze_count()
        with collection_paused():
            more = [[i] for i in range(100)]
        assert gc.get_freeze_count() == frozen and more  # a block without freeze freezes nothing
    finally:
        gc.unfreeze()


def test_a_decode_ending_in_another_thread_leaves_a_job_paused() -> None:
    """The codec's pause around a bulk decode is the same pause: a decode that began before an
    export and ends during it (another thread) does not turn collection back on under it."""
    from rho_desk.core.wire.codec import gc_paused

    decode, export = gc_paused(), collection_paused()
    decode.__enter__()
    export.__enter__()
    decode.__exit__(None, None, None)
    assert not gc.isenabled()  # the export still runs
    export.__exit__(None, None, None)
    assert gc.isenabled()
