"""The edit service without the app: one write path, and undo/redo as restores (v3 line, v4 tree)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from rho_desk.core.compaction.local import RecentBudget
from rho_desk.core.compaction.manual import (
    CompactionRefused,
    ManualCompaction,
    ThreadedCompactor,
    save_compaction,
)
from rho_desk.core.revisions.edits import FileSession, astore_revision, stored_state
from rho_desk.core.revisions.undo import NothingToUndo, RevisionHistory, restore_size
from rho_desk.core.stores.rho_files import NodeKind, create_session, read_session
from rho_desk.core.wire import Message, ModelIdentity, SessionSnapshot

from .stores.rho_files.helpers import v4_simple

SID = "22222222-2222-4222-8222-222222222222"


def long_history(turns: int = 8) -> tuple[Message, ...]:
    out: list[Message] = [Message.system_text("You are Rho.")]
    for i in range(turns):
        out += [
            Message.user_text(f"request {i} " + "word " * 150),
            Message.assistant_text(f"answer {i} " + "word " * 150),
        ]
    return tuple(out)


def v3_file(tmp_path: Path) -> Path:
    snapshot = SessionSnapshot.new(SID, 1, long_history(), ModelIdentity("p", "a", "m"))
    with create_session(
        tmp_path / "home", "/work/p", snapshot, created=1767225600, take_lease=False
    ) as writer:
        return writer.path


def v4_file(tmp_path: Path) -> Path:
    path = tmp_path / "v4.jsonl"
    path.write_bytes(v4_simple(3))
    with FileSession(path) as session:  # grow it with long turns so a digest shrinks it
        asyncio.run(
            astore_revision(
                session, lambda s: s.replace(history=s.history + long_history()[1:]), display=None
            )
        )
    return path


async def compact(session: FileSession, history: RevisionHistory) -> None:
    leaf = session.tree.active_leaf
    assert leaf is not None
    result = await ManualCompaction(
        stored_state(session.tree), ThreadedCompactor(RecentBudget(None, 4))
    ).run()
    async with session.writing() as writer:
        history.record("Compaction", leaf, save_compaction(writer, leaf.id, result))


@pytest.mark.parametrize("make", [v3_file, v4_file], ids=["v3", "v4"])
def test_undo_and_redo_of_a_compaction_are_restores(tmp_path: Path, make: object) -> None:
    path = make(tmp_path)  # type: ignore[operator]
    history = RevisionHistory()
    with FileSession(path) as session:
        before = session.tree.active_leaf
        assert before is not None
        asyncio.run(compact(session, history))
        compacted = session.tree.active_leaf
        assert compacted is not None and compacted.kind is NodeKind.COMPACTION
        size = restore_size(session.tree, before)
        file_size = path.stat().st_size
        step = asyncio.run(history.aundo(session))
        grown = path.stat().st_size - file_size
        assert abs(grown - size) < 300
        if session.tree.is_tree:
            assert step.node is before and grown < 200  # a set_leaf, whatever the state's size
        else:
            assert step.node.restores is before and step.node.kind is NodeKind.COMMIT
            assert grown > 4000  # the copy of the whole state
        assert asyncio.run(history.aredo(session)).node.compaction == compacted.compaction
        with pytest.raises(NothingToUndo):
            asyncio.run(history.aredo(session))
        # the redone change is undoable again, back to the state before it, and redoable again
        assert history.status(session.tree).undo == "Compaction"
        again = asyncio.run(history.aundo(session)).node
        assert session.tree.history(again) == session.tree.history(before)
        assert history.status(session.tree).redo == "Compaction"
        assert asyncio.run(history.aredo(session)).node.compaction == compacted.compaction

    tree = read_session(path).tree  # as read back from the file
    leaf = tree.active_leaf
    assert leaf is not None and leaf.compaction.completed_compactions == 1
    on_path = [n for n in tree.path() if n.kind is NodeKind.COMPACTION]
    assert len(on_path) == 1  # one compaction on the path after undo + redo, twice, not five
    markers = [e for e in tree.display() if e.message.text().startswith("◆ Compacted context")]
    assert len(markers) == 1 and markers[0].message.text() != "◆ Compacted context"


def test_a_compaction_that_does_not_shrink_is_refused_and_writes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "v4.jsonl"
    path.write_bytes(v4_simple(4))  # tiny messages: any digest is bigger
    size = path.stat().st_size
    with FileSession(path) as session, pytest.raises(CompactionRefused, match="would not shrink"):
        asyncio.run(
            ManualCompaction(
                stored_state(session.tree), ThreadedCompactor(RecentBudget(None, 2))
            ).run()
        )
    assert path.stat().st_size == size


def test_undo_of_an_edit_in_a_v3_line_reads_as_a_restore(tmp_path: Path) -> None:
    path = v3_file(tmp_path)
    history = RevisionHistory()
    with FileSession(path) as session:

        def edit(state: SessionSnapshot) -> SessionSnapshot:
            messages = list(state.history)
            messages[1] = Message.user_text("an edited request")
            return state.replace(history=tuple(messages))

        before, after = asyncio.run(astore_revision(session, edit))
        history.record("Edit Message", before, after)
        assert after.restores is None  # an edit is not a restore
        step = asyncio.run(history.aundo(session))
        assert step.node.restores is before
    tree = read_session(path).tree
    leaf = tree.active_leaf
    assert leaf is not None and leaf.restores is not None and leaf.restores.id == before.id
    assert [n.id for n in tree.path()] == [before.id, leaf.id]  # the undone edit is off the path


def test_acommit_writes_from_the_base_and_refuses_a_moved_one(tmp_path: Path) -> None:
    from rho_desk.core.errors import RevisionConflict
    from rho_desk.core.revisions.edits import acommit

    path = v3_file(tmp_path)
    with FileSession(path) as session:
        base = session.tree.active_leaf
        assert base is not None
        state = session.tree.snapshot(base)
        grown = state.replace(
            revision=base.revision + 1, history=state.history + (Message.user_text("next"),)
        )
        node = asyncio.run(acommit(session, base.id, lambda writer: writer.save(grown)))
        assert node.revision == base.revision + 1 and session.tree.active_leaf is node
        size = path.stat().st_size
        stale = grown.replace(revision=node.revision + 1)
        with pytest.raises(RevisionConflict, match="the session changed"):  # made from the old base
            asyncio.run(acommit(session, base.id, lambda writer: writer.save(stale)))
        assert path.stat().st_size == size and session.tree.active_leaf is node  # nothing written
    assert read_session(path).tree.snapshot().history[-1] == Message.user_text("next")
