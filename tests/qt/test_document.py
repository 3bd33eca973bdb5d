"""The shared document: opening every kind of file, selection, modes, live reloads, writes."""

from __future__ import annotations

from pathlib import Path

import pytest

from rho_desk.core.errors import InputError
from rho_desk.core.stores.rho_files import read_session
from rho_desk.qt.services.bridge import EngineBridge
from rho_desk.qt.services.document import HistoryMode, SessionDocument, rho_home_of
from rho_desk.qt.services.messages import Notifier

from .conftest import idle
from .helpers import append_turn, v3_session, v4_session


@pytest.fixture
def document(qloop) -> SessionDocument:
    return SessionDocument(EngineBridge(Notifier()), poll_ms=0)


@pytest.mark.parametrize(
    "name",
    [
        "session-v1.jsonl",
        "session-v2.jsonl",
        "session-v3.jsonl",
        "session-snapshot-v1.json",
        "session-snapshot-v2.json",
    ],
)
def test_every_fixture_opens(document: SessionDocument, run, rho_fixtures: Path, name: str) -> None:
    loaded: list[bool] = []
    document.sig_loaded.connect(lambda: loaded.append(True))
    run(document.aopen(rho_fixtures / name))
    assert loaded == [True] and document.selected is document.tree.active_leaf  # type: ignore[union-attr]
    assert document.is_snapshot_document == name.endswith(".json")
    assert len(document.history(mode=HistoryMode.MODEL)) >= 1


def test_display_and_model_histories_differ_as_rho_says(
    document: SessionDocument, run, rho_fixtures: Path
) -> None:
    run(document.aopen(rho_fixtures / "session-v1.jsonl"))
    display = document.history(mode=HistoryMode.DISPLAY)
    model = document.history(mode=HistoryMode.MODEL)
    assert display[0].text() == "/goal legacy prompt"
    assert display[2].text().startswith("◆ Compacted context")
    assert [m.text() for m in model] == ["compacted legacy summary", "answer after compaction"]


def test_a_corrupt_file_opens_read_only_up_to_its_last_good_revision(
    document: SessionDocument, run, tmp_path: Path, rho_fixtures: Path
) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(
        (rho_fixtures / "session-v3.jsonl")
        .read_bytes()
        .replace(b'"base_revision":1', b'"base_revision":0')
    )
    run(document.aopen(bad))
    damage = document.damage
    assert damage is not None and damage.line == 3 and "base revision" in damage.reason
    assert document.tree is not None and document.tree.active_leaf.revision == 1
    assert not document.writable

    async def write() -> None:
        async with document.writing():
            pass

    with pytest.raises(InputError, match=r"bad.jsonl: the session is damaged at line 3"):
        run(write())


def test_selection_moves_along_the_path_and_follows_the_active_branch(
    document: SessionDocument, run, tmp_path: Path
) -> None:
    run(document.aopen(v4_session(tmp_path)))
    tree = document.tree
    assert tree is not None and document.selected is tree.nodes["n3"]
    document.select_relative(-2)
    assert document.selected is tree.nodes["n1"]
    document.select_relative(1)  # n1 has two children: the one on the active path wins
    assert document.selected is tree.nodes["n2"]
    document.select(tree.nodes["b1"])
    document.select(None)
    assert document.selected is tree.active_leaf


def test_mode_changes_are_announced_once(
    document: SessionDocument, run, rho_fixtures: Path
) -> None:
    run(document.aopen(rho_fixtures / "session-v3.jsonl"))
    seen: list[HistoryMode] = []
    document.sig_history_mode_changed.connect(seen.append)
    document.set_mode(HistoryMode.MODEL)
    document.set_mode(HistoryMode.MODEL)
    assert seen == [HistoryMode.MODEL]


def test_a_live_append_is_applied_incrementally_and_the_selection_follows(
    document: SessionDocument, run, tmp_path: Path
) -> None:
    path = v3_session(tmp_path)
    run(document.aopen(path))
    tree_before = document.tree
    append_turn(path)
    info = run(document.areload()).value
    assert info is not None and not info.full and info.records == 1 and info.leaf_moved
    assert document.tree is tree_before  # same tree, grown in place
    assert document.selected is document.tree.active_leaf  # type: ignore[union-attr]
    assert document.tree.history() == read_session(path).tree.history()  # type: ignore[union-attr]


def test_a_viewer_on_an_old_revision_keeps_its_place(
    document: SessionDocument, run, tmp_path: Path
) -> None:
    path = v3_session(tmp_path)
    run(document.aopen(path))
    old = document.tree.active_leaf.parent  # type: ignore[union-attr]
    document.select(old)
    append_turn(path)
    run(document.areload())
    assert document.selected is old


def test_a_rewritten_file_is_read_again_and_the_selection_kept_by_id(
    document: SessionDocument, run, tmp_path: Path
) -> None:
    path = v4_session(tmp_path)
    run(document.aopen(path))
    old_tree = document.tree
    document.select(old_tree.nodes["b1"])  # type: ignore[union-attr]
    data = path.read_bytes()
    # another program rewrote the end of the file (not an append): the last set_leaf now names n0
    path.unlink()
    path.write_bytes(data.replace(b'"target_id":"n3"', b'"target_id":"n0"'))
    info = run(document.areload()).value
    assert info is not None and info.full and info.leaf_moved
    assert document.tree is not old_tree
    assert document.selected is document.tree.nodes["b1"]  # type: ignore[union-attr]
    assert document.tree.active_leaf.id == "n0"  # type: ignore[union-attr]


def test_the_watcher_triggers_a_live_reload(
    document: SessionDocument, run, tmp_path: Path, qtbot
) -> None:
    path = v3_session(tmp_path)
    run(document.aopen(path))
    reloaded: list[object] = []
    document.sig_reloaded.connect(reloaded.append)
    append_turn(path)
    document.watcher.poke()

    async def wait() -> None:
        import asyncio

        for _ in range(200):
            if reloaded:
                return
            await asyncio.sleep(0.01)
            await document.bridge.wait_idle()

    run(wait())
    assert reloaded


def test_make_active_writes_set_leaf_and_fork_branches_in_a_tree(
    document: SessionDocument, run, tmp_path: Path
) -> None:
    path = v4_session(tmp_path)
    run(document.aopen(path))
    tree = document.tree
    assert tree is not None
    result = run(document.amake_active(tree.nodes["b1"]))
    assert result.value is True and result.changes.revisions
    assert read_session(path).tree.active_leaf.id == "b1"  # type: ignore[union-attr]
    fork = run(document.afork(tree.nodes["n1"])).value
    reread = read_session(path).tree
    assert reread.active_leaf.id == fork.id and reread.nodes[fork.id].parent.id == "n1"  # type: ignore[union-attr]
    assert document.selected is fork
    run(document.aclose())


def test_forking_a_line_file_creates_a_new_session(
    document: SessionDocument, run, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    path = v3_session(home)
    run(document.aopen(path))
    assert rho_home_of(path) == home and document.home == home
    node = document.tree.active_leaf.parent  # type: ignore[union-attr]
    new = run(document.afork(node)).value
    assert isinstance(new, Path) and new != path and new.is_file()
    forked = read_session(new).tree
    assert forked.history() == document.tree.history(node)  # type: ignore[union-attr]
    run(document.aclose())


def test_snapshot_documents_are_read_only(
    document: SessionDocument, run, rho_fixtures: Path
) -> None:
    run(document.aopen(rho_fixtures / "session-snapshot-v2.json"))

    async def write() -> None:
        async with document.writing():
            pass

    with pytest.raises(InputError, match="read-only"):
        run(write())


def test_a_conflict_is_recorded_and_a_reload_clears_it(
    document: SessionDocument, run, tmp_path: Path
) -> None:
    path = v4_session(tmp_path)
    run(document.aopen(path))
    conflicts: list[object] = []
    document.sig_conflict_changed.connect(conflicts.append)

    async def open_writer() -> None:
        async with document.writing():
            pass

    run(open_writer())
    with open(path, "ab") as handle:  # another program writes first
        handle.write(b'{"type":"set_leaf","timestamp":"1767100010","target_id":"n0"}\n')
    from rho_desk.core.errors import RevisionConflict

    with pytest.raises(RevisionConflict):
        run(document.amake_active(document.tree.nodes["b1"]))  # type: ignore[union-attr]
    assert document.conflict is not None
    run(document.areload())
    assert document.conflict is None and conflicts[-1] is None
    run(idle(document.bridge))  # the reload's follow-up work, before the document closes
    run(document.aclose())


def test_workers_read_the_tree_holding_its_lock(
    document: SessionDocument, run, tmp_path: Path
) -> None:
    import threading

    run(document.aopen(v4_session(tmp_path)))
    tree = document.tree
    assert tree is not None

    def read(node_id: str) -> tuple[int, bool]:
        # another thread (the GUI applying appended records) cannot take the lock meanwhile
        taken: list[bool] = []
        other = threading.Thread(
            target=lambda: taken.append(document.tree_lock.acquire(blocking=False))
        )
        other.start()
        other.join()
        return len(tree.history(tree.nodes[node_id])), taken[0]

    length, other_got_it = run(document.arun_locked(read, "n1"))
    assert length == len(tree.history(tree.nodes["n1"])) and other_got_it is False


def test_a_snapshot_document_has_no_times_not_january_1970(
    make_window, run, rho_fixtures: Path
) -> None:
    """A snapshot document (a team session opened from the Team tab is one) records no message
    times: rows and the detail pane show none, instead of the epoch."""
    from rho_desk.qt.ui.text import message_time

    assert (
        message_time("0", "%Y") == ""
        and message_time("", "%Y") == ""
        and message_time("1790000000", "%Y") == "2026"
    )
    context = make_window(open_file=rho_fixtures / "session-snapshot-v2.json")
    view = context.window.conversation
    model = view.model
    shown = " ".join(str(model.index(r, 0).data()) for r in range(model.rowCount()))
    view.select_row(0)
    detail = view.detail.meta.text()
    assert (
        "1970" not in shown
        and "Jan 01" not in shown
        and "1970" not in detail
        and "message 1 of" in detail
    )


def test_the_library_takes_the_open_files_summary_from_its_tree_while_it_is_unchanged(
    document: SessionDocument, run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rho_desk.core.stores import library
    from rho_desk.core.stores.rho_files.summary import summarize

    read: list[Path] = []
    monkeypatch.setattr(
        library, "summarize_transcript", lambda path: (read.append(Path(path)), summarize(path))[1]
    )
    path = v3_session(tmp_path)
    files = library.RhoSessionFiles(document.current_summary)
    assert files.summarize(path) == summarize(path) and read == [path]  # nothing open: read
    run(document.aopen(path))
    read.clear()
    assert (
        files.summarize(path) == summarize(path) and read == []
    )  # open and unchanged: not read again
    append_turn(path)  # another program wrote to it
    assert files.summarize(path) == summarize(path) and read == [path]


def test_the_app_indexes_the_library_without_reading_the_opened_session_again(
    make_window, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rho_desk.core.stores import library
    from rho_desk.core.stores.rho_files.summary import summarize

    read: list[Path] = []
    monkeypatch.setattr(
        library, "summarize_transcript", lambda path: (read.append(Path(path)), summarize(path))[1]
    )
    opened, other = v3_session(tmp_path, cwd="/work/a"), v3_session(tmp_path, cwd="/work/b")
    context = make_window(home=tmp_path, open_file=opened)
    assert read == [other]
    listed = {Path(s.path): s for s in context.library._lib().list(None).sessions}
    assert listed[opened].message_count == summarize(opened).message_count and listed.keys() == {
        opened,
        other,
    }


def test_a_refresh_that_read_sessions_gives_the_free_heap_back(
    make_window, run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rho_desk.qt.services import library

    trims: list[bool] = []
    monkeypatch.setattr(library, "release_free_memory", lambda: trims.append(True))
    v3_session(tmp_path, cwd="/work/a")
    context = make_window(home=tmp_path)
    assert trims == [True]  # the first refresh summarised the session
    run(context.library.arefresh())
    assert trims == [True]  # nothing new to read: nothing to give back
