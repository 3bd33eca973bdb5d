"""Rho's index stays true after every write rho-desk makes into a Rho home.

A continued turn (the engine persisting through the Rho-file store, with a scripted provider),
a compaction (``rho-desk compact``, a real subprocess), an edit, an undo and a fork (the app's
own document and revision history): after each, ``rho-desk check`` exits 0 and the session's
row in ``sessions/index.sqlite3`` equals the summary of the file as it now is.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from rho_desk.core.revisions.edits import astore_revision
from rho_desk.core.revisions.rules import apply_edits
from rho_desk.core.revisions.undo import RevisionHistory
from rho_desk.core.stores.index import RhoIndex
from rho_desk.core.stores.library import SessionLibrary
from rho_desk.core.stores.rho_files import (
    RhoFileSessionStore,
    discover_units,
    read_session,
    summarize,
    workspace_dir,
)
from rho_desk.core.stores.summary import SessionSummary
from rho_desk.qt.services.bridge import EngineBridge, in_thread
from rho_desk.qt.services.document import SessionDocument
from rho_desk.qt.services.messages import Notifier
from rho_desk.qt.window.operations import arestore

from ..cli.helpers_files import rho_desk
from .helpers import v3_session, v4_session

CWD = "/work/tree"


def _row(home: Path, transcript: Path) -> SessionSummary | None:
    summary = summarize(transcript)
    with RhoIndex.open_readonly(home / "sessions") as index:
        return index.row(summary.workspace_key, summary.id)


def assert_index_true(home: Path, transcript: Path) -> None:
    """``check`` is clean and the row is exactly what Rho's save would have written."""
    result = rho_desk("check", home)
    assert result.returncode == 0, result.stdout + result.stderr
    row = _row(home, transcript)
    assert row is not None
    expected = replace(
        summarize(transcript),
        provider=None,
        model=None,
        compaction_count=0,
        search_text="",
        title=row.title,
    )
    assert row == expected


def _home_with_index(tmp_path: Path, make: object) -> tuple[Path, Path]:
    home = tmp_path / "rho"
    path = make(home, cwd=CWD)  # type: ignore[operator]
    with SessionLibrary(home) as library:  # Rho's index, as a listing leaves it
        library.refresh()
        library.rename(
            library.workspace_key(CWD), read_session(path).tree.session_id or "", "Kept title"
        )
    assert rho_desk("check", home).returncode == 0
    return home, path


def test_continued_turn_keeps_the_index_row_true(run, tmp_path: Path) -> None:
    from rho_desk.core.session import Rho, SessionOptions
    from rho_desk.core.testing import ScriptedProvider, ScriptedTurn

    home, path = _home_with_index(tmp_path, v4_session)
    sid = read_session(path).tree.session_id
    assert sid is not None

    async def continue_turn() -> None:
        async with RhoFileSessionStore(home, workspace=CWD) as store:
            snapshot = await store.load(sid)
            assert snapshot is not None
            rho = Rho.builder().provider(ScriptedProvider([ScriptedTurn.completed("done")])).build()
            session = rho.session(SessionOptions.from_snapshot(snapshot))
            await session.complete("one more thing")
            await store.save(session.snapshot())

    run(continue_turn())
    assert read_session(path).tree.node_count == 6
    assert_index_true(home, path)
    assert _row(home, path).title == "Kept title"  # type: ignore[union-attr]


def test_compaction_from_the_command_line_keeps_the_index_row_true(tmp_path: Path) -> None:
    home, path = _home_with_index(tmp_path, v3_session)
    result = rho_desk("compact", path, "--keep-messages", "2", "--keep-tokens", "0")
    assert result.returncode == 0, result.stdout + result.stderr
    assert read_session(path).tree.active_leaf.compaction.completed_compactions == 1  # type: ignore[union-attr]
    assert_index_true(home, path)


def test_edit_undo_and_fork_keep_the_index_rows_true(run, tmp_path: Path) -> None:
    home, path = _home_with_index(tmp_path, v4_session)
    bridge = EngineBridge(Notifier())
    document = SessionDocument(bridge, poll_ms=0)
    history = RevisionHistory()
    try:
        run(document.aopen(path))

        # an edit: delete the last two messages of the active revision
        def drop_last(state):  # type: ignore[no-untyped-def]
            n = len(state.history)
            return state.replace(history=apply_edits(state.history, {n - 2, n - 1}, {}))

        before, after = run(astore_revision(document, drop_last, hop=in_thread))
        document.note_written(after)
        history.record("Delete 2 Messages", before, after)
        assert_index_true(home, path)
        # undo it (a set_leaf in a v4 tree)
        run(arestore(history, document))
        assert read_session(path).tree.active_leaf.id == before.id  # type: ignore[union-attr]
        assert_index_true(home, path)
        # fork an older revision (a new node in the same file)
        tree = document.tree
        assert tree is not None
        run(document.afork(tree.nodes["n1"]))
        assert_index_true(home, path)
    finally:
        run(document.aclose())
        run(bridge.aclose())


def test_forking_a_line_session_indexes_the_new_session(run, tmp_path: Path) -> None:
    home, path = _home_with_index(tmp_path, v3_session)
    bridge = EngineBridge(Notifier())
    document = SessionDocument(bridge, poll_ms=0)
    try:
        run(document.aopen(path))
        tree = document.tree
        assert tree is not None
        result = run(document.afork(tree.path()[0]))
        new_path = result.value if hasattr(result, "value") else result
        units = discover_units(workspace_dir(home, CWD))
        assert len(units) == 2
        for unit in units:
            assert_index_true(home, unit.transcript)
        assert new_path is not None
    finally:
        run(document.aclose())
        run(bridge.aclose())


def test_a_save_after_the_index_was_deleted_or_replaced_writes_the_new_file(tmp_path: Path) -> None:
    # Saves keep one connection per index (as Rho does); a file deleted or rebuilt by another
    # program in between is noticed, and the row lands in the file that is there now.
    from rho_desk.core.stores.index import record_session

    home, path = _home_with_index(tmp_path, v3_session)
    index_file = home / "sessions" / "index.sqlite3"
    record_session(summarize(path))  # the connection is now kept
    index_file.unlink()  # Rho (or the user) throws the index away
    record_session(summarize(path))
    assert index_file.exists() and _row(home, path) is not None
    replacement = tmp_path / "rebuilt.sqlite3"
    with RhoIndex.open(tmp_path, create=True) as fresh:  # an index rebuilt elsewhere, then moved in
        assert fresh.rows() == []
    (tmp_path / "index.sqlite3").rename(replacement)
    replacement.replace(index_file)
    assert _row(home, path) is None
    record_session(summarize(path))
    assert _row(home, path) is not None
    assert rho_desk("check", home).returncode == 0
