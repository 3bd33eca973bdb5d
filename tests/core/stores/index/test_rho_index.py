"""Rho's index.sqlite3: migration of the upstream fixtures (§10.3), writes (§10.4), refusal to
touch newer or corrupt files, busy timeouts, and the §10.6 sync transaction."""

from __future__ import annotations

import hashlib
import sqlite3
import stat
import threading
import time
from dataclasses import replace
from pathlib import Path

import pytest

from rho_desk.core.errors import InputError, StorageError
from rho_desk.core.stores.index import (
    COLUMNS,
    IndexBusy,
    IndexCorrupt,
    IndexMalformed,
    IndexState,
    IndexTooNew,
    RhoIndex,
    SeenUnit,
    row_belongs,
    row_is_current,
    salvage_titles,
)

from ....conftest import RHO_FIXTURES
from .helpers import fake_key, make_summary, summary_for, write_unit


def _build(sessions_root: Path, script: str) -> Path:
    sessions_root.mkdir(parents=True, exist_ok=True)
    path = sessions_root / "index.sqlite3"
    db = sqlite3.connect(path)
    db.executescript(script)
    db.close()
    return path


def _raw(path: Path, sql: str) -> list[tuple]:
    db = sqlite3.connect(path)
    try:
        return db.execute(sql).fetchall()
    finally:
        db.close()


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _row_dict(path: Path) -> dict[str, object]:
    db = sqlite3.connect(path)
    db.row_factory = sqlite3.Row
    try:
        rows = db.execute("select * from sessions").fetchall()
        assert len(rows) == 1
        return dict(rows[0])
    finally:
        db.close()


# --- migration of the shared fixtures (the proof) --------------------------------------


def test_v0_fixture_migrates_to_exactly_the_spec_values(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    path = _build(root, (RHO_FIXTURES / "index-v0.sql").read_text())
    with RhoIndex.open(root) as index:
        assert index.state is IndexState.OK
        report = index.migration
    assert report.from_version == 0
    assert report.added_columns == (
        "title",
        "first_user_message",
        "node_count",
        "branch_count",
        "active_leaf_id",
        "effective_format_version",
    )
    assert report.nulled_file_size == 1
    assert _raw(path, "pragma user_version") == [(2,)]
    assert _row_dict(path) == {
        "workspace_key": "fixture-workspace",
        "cwd": "/fixture",
        "id": "fixture-session",
        "path": "/fixture/session.jsonl",
        "created_at": 10,
        "updated_at": 20,
        "message_count": 2,
        "last_user_message": "historical prompt",
        "file_size": None,
        "file_mtime": 20,
        "title": None,
        "first_user_message": None,
        "node_count": 0,
        "branch_count": 0,
        "active_leaf_id": None,
        "effective_format_version": 1,
    }
    # Migrated tables keep the old physical order, new columns at the end (§10.3).
    assert [r[1] for r in _raw(path, "pragma table_info(sessions)")] == [
        "workspace_key",
        "cwd",
        "id",
        "path",
        "created_at",
        "updated_at",
        "message_count",
        "last_user_message",
        "file_size",
        "file_mtime",
        "title",
        "first_user_message",
        "node_count",
        "branch_count",
        "active_leaf_id",
        "effective_format_version",
    ]
    names = {r[1] for r in _raw(path, "pragma index_list(sessions)")}
    assert {"sessions_workspace_updated_idx", "sessions_workspace_id_idx"} <= names


def test_v1_fixture_keeps_its_title_and_nulls_file_size(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    path = _build(root, (RHO_FIXTURES / "index-v1.sql").read_text())
    with RhoIndex.open(root) as index:
        assert index.migration.from_version == 1
        assert index.migration.added_columns == (
            "node_count",
            "branch_count",
            "active_leaf_id",
            "effective_format_version",
        )
        assert index.migration.created_indexes == ()
        assert index.titles() == {("fixture-workspace", "fixture-session"): "fixture title"}
        (row,) = index.rows()
    assert _raw(path, "pragma user_version") == [(2,)]
    assert _row_dict(path) == {
        "workspace_key": "fixture-workspace",
        "cwd": "/fixture",
        "id": "fixture-session",
        "path": "/fixture/session.jsonl",
        "created_at": 10,
        "updated_at": 20,
        "message_count": 2,
        "title": "fixture title",
        "first_user_message": "first prompt",
        "last_user_message": "last prompt",
        "file_size": None,
        "file_mtime": 20,
        "node_count": 0,
        "branch_count": 0,
        "active_leaf_id": None,
        "effective_format_version": 1,
    }
    assert row.title == "fixture title" and row.file_size is None and row.node_count == 0


def test_opening_a_current_index_writes_nothing(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    path = _build(root, (RHO_FIXTURES / "index-v1.sql").read_text())
    RhoIndex.open(root).close()
    before = _digest(path)
    with RhoIndex.open(root) as index:
        assert not index.migration.changed
    assert _digest(path) == before


def test_a_failed_migration_rolls_everything_back(tmp_path: Path) -> None:
    # A v0 table without file_mtime: steps 3-4 add columns, step 6 fails, nothing survives.
    root = tmp_path / "sessions"
    path = _build(
        root,
        """
        create table sessions (workspace_key text not null, cwd text not null, id text not null,
            path text not null, created_at integer not null, updated_at integer not null,
            message_count integer not null default 0, last_user_message text, file_size integer,
            primary key (workspace_key, id));
        insert into sessions values ('k', '/c', 'i', '/p', 1, 2, 3, 'm', 4);
    """,
    )
    with pytest.raises(IndexMalformed, match="missing column\\(s\\): file_mtime"):
        RhoIndex.open(root)
    assert _raw(path, "pragma user_version") == [(0,)]
    assert len(_raw(path, "pragma table_info(sessions)")) == 9
    assert _raw(path, "select file_size from sessions") == [(4,)]


def test_v1_without_required_columns_is_malformed_and_untouched(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    path = _build(root, "pragma user_version = 1; create table sessions (id text);")
    before = _digest(path)
    with pytest.raises(IndexMalformed) as info:
        RhoIndex.open(root)
    assert info.value.state is IndexState.MALFORMED
    assert "workspace_key" in str(info.value)
    assert _digest(path) == before


def test_a_newer_index_is_refused_untouched_but_its_titles_are_salvaged(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    script = (
        (RHO_FIXTURES / "index-v1.sql")
        .read_text()
        .replace("pragma user_version = 1", "pragma user_version = 3")
    )
    path = _build(root, script)
    before = _digest(path)
    with pytest.raises(IndexTooNew, match="unsupported session index schema 3"):
        RhoIndex.open(root)
    assert _digest(path) == before
    assert salvage_titles(root) == {("fixture-workspace", "fixture-session"): "fixture title"}
    assert _digest(path) == before


def test_a_corrupt_index_is_refused_untouched(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    root.mkdir()
    path = root / "index.sqlite3"
    path.write_bytes(b"this is not a database, just text that is long enough" * 40)
    before = _digest(path)
    with pytest.raises(IndexCorrupt) as info:
        RhoIndex.open(root)
    assert isinstance(info.value, StorageError)
    assert "corrupt" in info.value.text()
    assert _digest(path) == before
    assert salvage_titles(root) == {}


def test_a_missing_index_is_created_as_rho_would(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    root.mkdir()
    with RhoIndex.open(root) as index:
        assert index.state is IndexState.CREATED
        assert index.migration.created_table
    path = root / "index.sqlite3"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert _raw(path, "pragma user_version") == [(2,)]
    assert tuple(r[1] for r in _raw(path, "pragma table_info(sessions)")) == COLUMNS
    # Rho's default rollback journal, not WAL: we must not change the file's journal mode.
    assert _raw(path, "pragma journal_mode") == [("delete",)]


def test_no_sessions_folder_means_nothing_is_created(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        RhoIndex.open(tmp_path / "sessions")
    assert not (tmp_path / "sessions").exists()
    (tmp_path / "sessions").mkdir()
    with pytest.raises(FileNotFoundError):
        RhoIndex.open(tmp_path / "sessions", create=False)
    assert not (tmp_path / "sessions" / "index.sqlite3").exists()


# --- never blocking on Rho --------------------------------------------------------------------


class _Holder:
    """Another process's view: a connection holding an exclusive lock on the index."""

    def __init__(self, path: Path) -> None:
        self.db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self.db.execute("begin exclusive")

    def release(self) -> None:
        self.db.execute("rollback")
        self.db.close()


def test_open_times_out_quickly_when_rho_holds_the_database(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    path = _build(root, (RHO_FIXTURES / "index-v1.sql").read_text())
    holder = _Holder(path)
    try:
        start = time.perf_counter()
        with pytest.raises(IndexBusy) as info:
            RhoIndex.open(root, busy_timeout=0.1)
        assert time.perf_counter() - start < 2.0
        assert info.value.state is IndexState.BUSY
    finally:
        holder.release()
    # The migration did not happen while locked; it happens on the next open.
    assert _raw(path, "pragma user_version") == [(1,)]
    with RhoIndex.open(root) as index:
        assert index.migration.from_version == 1


def test_reads_and_writes_time_out_on_an_open_index(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    root.mkdir()
    index = RhoIndex.open(root, busy_timeout=0.05)
    holder = _Holder(root / "index.sqlite3")
    try:
        with pytest.raises(IndexBusy):
            index.rows()
        with pytest.raises(IndexBusy):
            index.upsert([make_summary()])
    finally:
        holder.release()
    assert index.upsert([make_summary()]) == 1
    index.close()


def test_a_lock_released_within_the_timeout_is_waited_for(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    root.mkdir()
    index = RhoIndex.open(root, busy_timeout=2.0)
    holder = _Holder(root / "index.sqlite3")
    timer = threading.Timer(0.1, holder.release)
    timer.start()
    try:
        assert index.upsert([make_summary()]) == 1
    finally:
        timer.join()
        index.close()


# --- writes as Rho writes them ---------------------------------------------------------------


def test_upsert_keeps_existing_titles_and_updates_everything_else(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    root.mkdir()
    with RhoIndex.open(root) as index:
        first = make_summary(message_count=1)
        index.upsert([first])
        assert index.set_title(first.workspace_key, first.id, "  My title \n")
        index.upsert([replace(first, message_count=5, last_user_message="later")])
        row = index.row(first.workspace_key, first.id)
        assert row is not None
        assert (row.title, row.message_count, row.last_user_message) == ("My title", 5, "later")
        # A summary that does carry a title only fills an empty one (coalesce).
        index.upsert([replace(first, title="other")])
        assert index.row(first.workspace_key, first.id).title == "My title"  # type: ignore[union-attr]
        fresh = make_summary(id="s2", title="restored")
        index.upsert([fresh])
        assert index.titles() == {
            (first.workspace_key, "s1"): "My title",
            (first.workspace_key, "s2"): "restored",
        }


def test_set_title_refuses_empty_and_reports_missing_rows(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    root.mkdir()
    with RhoIndex.open(root) as index:
        index.upsert([make_summary()])
        with pytest.raises(InputError, match="cannot be empty"):
            index.set_title(fake_key("/home/alice/proj"), "s1", "   ")
        assert not index.set_title("nope", "s1", "x")


def test_empty_string_titles_read_as_none(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    path = _build(root, (RHO_FIXTURES / "index-v1.sql").read_text())
    db = sqlite3.connect(path)
    db.execute("update sessions set title = ''")
    db.commit()
    db.close()
    with RhoIndex.open(root) as index:
        assert index.rows()[0].title is None
        assert index.titles() == {}


def test_delete_and_workspace_scoped_rows(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    root.mkdir()
    with RhoIndex.open(root) as index:
        a = make_summary(id="a", updated_at=5)
        b = make_summary(id="b", updated_at=9)
        c = make_summary(cwd="/other", id="c")
        index.upsert([a, b, c])
        assert [r.id for r in index.rows(a.workspace_key)] == ["b", "a"]
        assert len(index.rows()) == 3
        assert index.delete(a.workspace_key, "a")
        assert not index.delete(a.workspace_key, "a")
        assert [r.id for r in index.rows(a.workspace_key)] == ["b"]


# --- staleness (§10.6) ------------------------------------------------------------------------


def test_row_currency_rules(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    transcript = write_unit(root, "/w", "s1")
    row = summary_for(transcript, "/w", "s1")
    unit = SeenUnit(row.workspace_key, "s1", transcript, "/w", row.file_size, row.file_mtime)  # type: ignore[arg-type]
    assert row_is_current(row, unit, root, fake_key)
    assert not row_is_current(replace(row, file_size=1), unit, root, fake_key)
    assert not row_is_current(replace(row, file_mtime=1), unit, root, fake_key)
    assert not row_is_current(replace(row, file_size=None), unit, root, fake_key)
    assert not row_is_current(replace(row, first_user_message=None), unit, root, fake_key)
    assert row_is_current(
        replace(row, first_user_message=None, message_count=0), unit, root, fake_key
    )
    assert not row_is_current(replace(row, path=str(transcript) + "x"), unit, root, fake_key)
    assert not row_is_current(row, replace(unit, cwd="/elsewhere"), root, fake_key)
    misplaced = replace(row, workspace_key="ws-other")
    assert not row_belongs(misplaced, root, fake_key)
    outside = replace(row, path="/tmp/elsewhere/session.jsonl")
    assert not row_belongs(outside, root, fake_key)


def test_apply_sync_drops_results_for_files_that_changed_meanwhile(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    t1 = write_unit(root, "/w", "s1")
    t2 = write_unit(root, "/w", "s2")
    with RhoIndex.open(root) as index:
        fresh1 = summary_for(t1, "/w", "s1")
        fresh2 = summary_for(t2, "/w", "s2")
        t2.write_text("grown while we were parsing\n")
        outcome = index.apply_sync(
            before={},
            refreshed=[fresh1, fresh2],
            stale=[],
            still_seen=lambda *k: False,
            sessions_root=root,
            key_of=fake_key,
        )
        assert outcome.upserted == [(fresh1.workspace_key, "s1")]
        assert outcome.skipped_changed == [(fresh2.workspace_key, "s2")]
        assert [r.id for r in index.rows()] == ["s1"]


def test_apply_sync_deletes_only_unchanged_stale_rows(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    root.mkdir()
    with RhoIndex.open(root) as index:
        gone = make_summary(id="gone")
        changed = make_summary(id="changed")
        back = make_summary(id="back")
        index.upsert([gone, changed, back])
        before = {(r.workspace_key, r.id): r for r in index.rows()}
        index.upsert([replace(changed, message_count=99)])  # another writer, after step 1
        outcome = index.apply_sync(
            before=before,
            refreshed=[],
            stale=list(before),
            sessions_root=root,
            key_of=fake_key,
            still_seen=lambda wk, sid: sid == "back",
        )
        assert outcome.deleted == [(gone.workspace_key, "gone")]
        assert sorted(k[1] for k in outcome.spared) == ["back", "changed"]
        assert sorted(r.id for r in index.rows()) == ["back", "changed"]


def test_apply_sync_keeps_titles_when_refreshing(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    t1 = write_unit(root, "/w", "s1")
    with RhoIndex.open(root) as index:
        old = summary_for(t1, "/w", "s1", file_size=1)
        index.upsert([old])
        index.set_title(old.workspace_key, "s1", "kept")
        before = {(r.workspace_key, r.id): r for r in index.rows()}
        fresh = summary_for(t1, "/w", "s1", message_count=7)
        outcome = index.apply_sync(
            before=before,
            refreshed=[fresh],
            stale=[],
            still_seen=lambda *k: False,
            sessions_root=root,
            key_of=fake_key,
        )
        assert outcome.upserted == [(old.workspace_key, "s1")]
        row = index.row(old.workspace_key, "s1")
        assert row is not None and (row.title, row.message_count) == ("kept", 7)


def test_open_readonly_reads_old_schemas_without_touching_them(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    path = _build(root, (RHO_FIXTURES / "index-v0.sql").read_text())
    before = _digest(path)
    with RhoIndex.open_readonly(root) as index:
        assert index.migration.from_version == 0
        (row,) = index.rows()
        assert (row.title, row.first_user_message, row.node_count, row.file_size) == (
            None,
            None,
            0,
            100,
        )
        assert row.effective_format_version == 1
        with pytest.raises(StorageError):
            index.upsert([make_summary()])
    assert _digest(path) == before
    with pytest.raises(FileNotFoundError):
        RhoIndex.open_readonly(tmp_path / "elsewhere")
