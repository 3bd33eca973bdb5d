"""The document's own appends are not read back by its live watcher as someone else's."""

from __future__ import annotations

from pathlib import Path

from rho_desk.core.stores.rho_files.tail import read_appended
from rho_desk.qt.services.bridge import EngineBridge
from rho_desk.qt.services.document import SessionDocument
from rho_desk.qt.services.messages import Notifier

from ..helpers import v3_session, v4_session


def test_after_our_own_writes_the_live_look_finds_nothing_new(run, tmp_path: Path) -> None:
    bridge = EngineBridge(Notifier())
    document = SessionDocument(bridge, poll_ms=0)
    try:
        path = v4_session(tmp_path)
        run(document.aopen(path))
        tree = document.tree
        assert tree is not None
        run(document.amake_active(tree.nodes["b1"]))
        run(document.afork(tree.nodes["n1"]))
        assert read_appended(document.file).empty  # type: ignore[arg-type]
        reloads: list[object] = []
        document.sig_reloaded.connect(reloads.append)
        result = run(document.areload())
        assert not result.changes.any and reloads == []
        assert document.tree is tree  # not replaced by a full re-read
        # another program's append is still seen, incrementally
        with open(path, "ab") as handle:
            handle.write(b'{"type":"set_leaf","timestamp":"1767100010","target_id":"n0"}\n')
        result = run(document.areload())
        assert result.value is not None and not result.value.full and result.value.leaf_moved
    finally:
        run(document.aclose())
        run(bridge.aclose())


def test_a_v3_line_grows_and_the_live_look_stays_quiet(run, tmp_path: Path) -> None:
    from rho_desk.core.wire import Message

    bridge = EngineBridge(Notifier())
    document = SessionDocument(bridge, poll_ms=0)
    try:
        run(document.aopen(v3_session(tmp_path / "home")))

        async def append() -> None:
            async with document.writing() as writer:
                state = writer.tree.snapshot()
                node = writer.save(
                    state.replace(
                        revision=state.revision + 1,
                        history=(*state.history, Message.user_text("more")),
                    )
                )
            document.note_written(node)

        run(append())
        run(append())
        assert read_appended(document.file).empty  # type: ignore[arg-type]
        assert document.file.line_count == 6  # type: ignore[union-attr]  # header, snapshot, 2 deltas, 2 ours
    finally:
        run(document.aclose())
        run(bridge.aclose())


def test_a_live_look_during_our_own_write_waits_and_does_not_add_our_record_twice(
    run, tmp_path: Path
) -> None:
    import asyncio

    from rho_desk.core.wire import Message

    bridge = EngineBridge(Notifier())
    document = SessionDocument(bridge, poll_ms=0)
    try:
        run(document.aopen(v3_session(tmp_path / "home")))
        tree = document.tree
        assert tree is not None
        before = len(tree.nodes)

        async def write_while_looking() -> None:
            async with document.writing() as writer:
                state = writer.tree.snapshot()
                more = state.replace(
                    revision=state.revision + 1, history=(*state.history, Message.user_text("more"))
                )
                await asyncio.to_thread(writer.save, more)  # on disk, not yet accounted for
                look = asyncio.ensure_future(document.areload())  # the watcher fires now
                await asyncio.sleep(0.1)
            await look

        run(write_while_looking())
        assert document.tree is tree and len(tree.nodes) == before + 1
        assert read_appended(document.file).empty  # type: ignore[arg-type]
    finally:
        run(document.aclose())
        run(bridge.aclose())
