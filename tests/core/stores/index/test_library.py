"""The session library over a toy file reader: refresh, Rho-index reconciliation, fallbacks,
titles, listing, search, rename, delete to trash, drift."""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import sqlite3
import time
from pathlib import Path

import pytest

from rho_desk.core.errors import InputError
from rho_desk.core.stores.index import IndexBusy, IndexState
from rho_desk.core.stores.library import SessionInUse, SessionLibrary, SubagentsRunning

from ....conftest import RHO_FIXTURES
from .fake_files import FakeFiles, write_session
from .helpers import fake_key

CWD = "/home/alice/proj"
KEY = fake_key(CWD)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "rho"


@pytest.fixture
def sessions(home: Path) -> Path:
    root = home / "sessions"
    root.mkdir(parents=True)
    return root


@pytest.fixture
def files() -> FakeFiles:
    return FakeFiles()


@pytest.fixture
def make_library(home: Path, files: FakeFiles, tmp_path: Path):
    opened: list[SessionLibrary] = []

    def make(**kwargs: object) -> SessionLibrary:
        kwargs.setdefault("files", files)
        kwargs.setdefault("cache_dir", tmp_path / "cache")
        kwargs.setdefault("trash_dir", tmp_path / "trash")
        library = SessionLibrary(home, **kwargs)  # type: ignore[arg-type]
        opened.append(library)
        return library

    yield make
    for library in opened:
        library.close()


def _index_rows(sessions: Path) -> dict[str, dict[str, object]]:
    db = sqlite3.connect(sessions / "index.sqlite3")
    db.row_factory = sqlite3.Row
    try:
        return {row["id"]: dict(row) for row in db.execute("select * from sessions")}
    finally:
        db.close()


def _sql(sessions: Path, sql: str, *params: object) -> None:
    db = sqlite3.connect(sessions / "index.sqlite3")
    db.execute(sql, params)
    db.commit()
    db.close()


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _bump(path: Path, extra: str) -> None:
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(json.dumps({"user": extra}) + "\n")
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 2_000_000_000))


# --- refresh and Rho's index -------------------------------------------------------------------


def test_no_rho_home_lists_nothing_and_creates_nothing(make_library, home: Path) -> None:
    library = make_library()
    report = library.refresh()
    assert report.index_state is IndexState.MISSING and not report.fell_back
    assert library.list().sessions == []
    assert not home.exists()


def test_refresh_builds_rho_rows_and_rho_desk_extras(make_library, sessions: Path) -> None:
    a = write_session(
        sessions,
        CWD,
        "aaaa",
        messages=[("user", "first"), ("assistant", "ok"), ("user", "second")],
        compactions=2,
    )
    write_session(
        sessions, "/other", "bbbb", messages=[("user", "elsewhere")], provider=None, created=50
    )
    library = make_library()
    report = library.refresh()
    assert report.index_state is IndexState.CREATED
    assert sorted(Path(p).parent.name for p in report.added) == ["100_aaaa", "50_bbbb"]
    assert report.index_upserted == 2
    rows = _index_rows(sessions)
    assert rows["aaaa"] == {
        "workspace_key": KEY,
        "cwd": CWD,
        "id": "aaaa",
        "path": str(a),
        "created_at": 100,
        "updated_at": 106,
        "message_count": 3,
        "title": None,
        "first_user_message": "first",
        "last_user_message": "second",
        "file_size": a.stat().st_size,
        "file_mtime": int(a.stat().st_mtime),
        "node_count": 3,
        "branch_count": 0,
        "active_leaf_id": "N3",
        "effective_format_version": 4,
    }
    page = library.list(KEY)
    (only,) = page.sessions
    assert (only.provider, only.model, only.compaction_count) == (
        "openai/responses/gpt-5",
        "gpt-5",
        2,
    )
    assert [s.id for s in library.list().sessions] == ["aaaa", "bbbb"]


def test_an_unchanged_library_is_not_parsed_again(
    make_library, sessions: Path, files: FakeFiles
) -> None:
    for n in range(5):
        write_session(sessions, CWD, f"s{n}", messages=[("user", f"hello {n}")])
    library = make_library()
    library.refresh()
    assert len(files.summarized) == 5
    index = sessions / "index.sqlite3"
    before = _digest(index)
    report = library.refresh()
    assert (report.unchanged, report.added, report.updated, report.removed) == (5, [], [], [])
    assert not report.changed and report.index_upserted == 0
    assert len(files.summarized) == 5
    assert _digest(index) == before  # a current index is only read


def test_a_changed_transcript_is_resummarised_and_keeps_its_title(
    make_library, sessions: Path, files: FakeFiles
) -> None:
    t = write_session(sessions, CWD, "s1", messages=[("user", "hello")])
    write_session(sessions, CWD, "s2", messages=[("user", "other")])
    library = make_library()
    library.refresh()
    library.rename(KEY, "s1", "Important")
    _bump(t, "more")
    report = library.refresh(KEY)
    assert report.updated == [str(t)] and report.unchanged == 1
    assert files.summarized.count(t) == 2
    row = _index_rows(sessions)["s1"]
    assert (row["title"], row["last_user_message"], row["file_size"]) == (
        "Important",
        "more",
        t.stat().st_size,
    )
    (listed,) = [s for s in library.list(KEY).sessions if s.id == "s1"]
    assert listed.title == "Important" and listed.last_user_message == "more"


def test_removed_transcripts_leave_both_databases(make_library, sessions: Path) -> None:
    t = write_session(sessions, CWD, "gone", messages=[("user", "bye")])
    write_session(sessions, CWD, "stay", messages=[("user", "hi")])
    library = make_library()
    library.refresh()
    t.unlink()
    t.parent.rmdir()
    report = library.refresh(KEY)
    assert report.removed == [str(t)] and report.index_deleted == 1
    assert set(_index_rows(sessions)) == {"stay"}
    assert [s.id for s in library.list(KEY).sessions] == ["stay"]


def test_rows_of_other_workspaces_survive_a_workspace_refresh(make_library, sessions: Path) -> None:
    write_session(sessions, CWD, "mine", messages=[("user", "a")])
    write_session(sessions, "/other", "theirs", messages=[("user", "b")])
    library = make_library()
    library.refresh(KEY)
    assert set(_index_rows(sessions)) == {"mine"}
    library.refresh()
    assert set(_index_rows(sessions)) == {"mine", "theirs"}
    # An orphan row of another workspace is removed only by a global refresh.
    _sql(
        sessions,
        "insert into sessions (workspace_key, cwd, id, path, created_at, updated_at)"
        " values ('ws-x', '/x', 'orphan', '/x/session.jsonl', 1, 1)",
    )
    library.refresh(KEY)
    assert "orphan" in _index_rows(sessions)
    report = library.refresh()
    assert report.index_deleted == 1 and "orphan" not in _index_rows(sessions)


def test_a_misplaced_transcript_is_ignored(make_library, sessions: Path) -> None:
    t = write_session(
        sessions, CWD, "stray", messages=[("user", "a")], header_cwd="/somewhere/else"
    )
    library = make_library()
    report = library.refresh()
    assert report.misplaced == [str(t)]
    assert library.list().sessions == [] and _index_rows(sessions) == {}


def test_a_broken_transcript_is_reported_once_and_its_old_row_kept(
    make_library, sessions: Path, files: FakeFiles
) -> None:
    t = write_session(sessions, CWD, "s1", messages=[("user", "fine")])
    library = make_library()
    library.refresh()
    with open(t, "a") as handle:
        handle.write("{not json}\n")
    report = library.refresh()
    (failure,) = report.failed
    assert failure.path == str(t) and f"{t}:4: not JSON" in failure.reason
    assert "s1" in _index_rows(sessions)  # Rho keeps the old row of an unparseable transcript
    assert [s.id for s in library.list().sessions] == ["s1"]  # so do we (stale data)
    calls = len(files.summarized)
    again = library.refresh()
    assert [f.path for f in again.failed] == [str(t)] and len(files.summarized) == calls


def test_migrated_rho_rows_are_refreshed(make_library, sessions: Path) -> None:
    # An index from an older Rho (v1, with a titled row of a real session): the migration
    # nulls file_size, so the first sync re-summarises it and keeps the title.
    t = write_session(sessions, CWD, "fixture-session", messages=[("user", "hi")])
    db = sqlite3.connect(sessions / "index.sqlite3")
    db.executescript((RHO_FIXTURES / "index-v1.sql").read_text())
    db.execute("update sessions set workspace_key = ?, cwd = ?, path = ?", (KEY, CWD, str(t)))
    db.commit()
    db.close()
    library = make_library()
    report = library.refresh()
    assert report.index_state is IndexState.OK and report.index_upserted == 1
    row = _index_rows(sessions)["fixture-session"]
    assert row["title"] == "fixture title" and row["file_size"] == t.stat().st_size
    assert row["node_count"] == 1 and row["first_user_message"] == "hi"
    assert library.list().sessions[0].title == "fixture title"


def test_titles_set_by_rho_show_up_after_refresh(make_library, sessions: Path) -> None:
    write_session(sessions, CWD, "s1", messages=[("user", "a")])
    library = make_library()
    library.refresh()
    _sql(sessions, "update sessions set title = 'from rho'")
    report = library.refresh()
    assert report.titles_changed == 1
    assert library.list().sessions[0].title == "from rho"


# --- never blocking, never destroying ------------------------------------------------------------


def test_a_busy_index_falls_back_to_the_files_quickly(make_library, sessions: Path) -> None:
    write_session(sessions, CWD, "s1", messages=[("user", "a")])
    library = make_library(busy_timeout=0.05)
    library.refresh()
    library.rename(KEY, "s1", "Kept while busy")
    write_session(sessions, CWD, "s2", messages=[("user", "new one")])
    holder = sqlite3.connect(sessions / "index.sqlite3", isolation_level=None)
    holder.execute("begin exclusive")
    try:
        start = time.perf_counter()
        report = library.refresh()
        assert time.perf_counter() - start < 2.0
        assert report.index_state is IndexState.BUSY and report.fell_back
        assert "Rho is using" in (report.notice() or "")
        page = library.list()
        assert {s.id: s.title for s in page.sessions} == {"s1": "Kept while busy", "s2": None}
        assert page.index_state is IndexState.BUSY and page.notice
        with pytest.raises(IndexBusy):
            library.rename(KEY, "s2", "not now")
    finally:
        holder.execute("rollback")
        holder.close()
    report = library.refresh()
    assert report.index_state is IndexState.OK and report.index_upserted == 1
    assert set(_index_rows(sessions)) == {"s1", "s2"}


@pytest.mark.parametrize("damage", ["newer", "corrupt"])
def test_a_newer_or_corrupt_index_is_never_written(
    make_library, sessions: Path, damage: str
) -> None:
    write_session(sessions, CWD, "s1", messages=[("user", "a")])
    write_session(sessions, CWD, "s2", messages=[("user", "b")])
    library = make_library()
    library.refresh()
    library.rename(KEY, "s1", "Title one")
    index = sessions / "index.sqlite3"
    if damage == "newer":
        _sql(sessions, "update sessions set title = 'Newer title' where id = 's2'")
        _sql(sessions, "pragma user_version = 7")
    else:
        index.write_bytes(b"garbage" * 1000)
    before = _digest(index)
    write_session(sessions, CWD, "s3", messages=[("user", "c")])
    report = library.refresh()
    assert report.index_state is (IndexState.NEWER if damage == "newer" else IndexState.CORRUPT)
    assert report.fell_back and report.notice()
    assert _digest(index) == before
    titles = {s.id: s.title for s in library.list().sessions}
    if damage == "newer":  # read straight from the newer file
        assert titles == {"s1": "Title one", "s2": "Newer title", "s3": None}
    else:  # nothing readable: the mirror keeps what we last saw
        assert titles == {"s1": "Title one", "s2": None, "s3": None}
    with pytest.raises(Exception) as info:
        library.rename(KEY, "s3", "no")
    assert info.value.__class__.__name__ in ("IndexTooNew", "IndexCorrupt")
    assert _digest(index) == before


def test_a_deleted_index_is_recreated_with_the_titles_we_had(make_library, sessions: Path) -> None:
    write_session(sessions, CWD, "s1", messages=[("user", "a")])
    write_session(sessions, CWD, "s2", messages=[("user", "b")])
    library = make_library()
    library.refresh()
    library.rename(KEY, "s1", "Survivor")
    (sessions / "index.sqlite3").unlink()
    report = library.refresh()
    assert report.index_state is IndexState.CREATED and report.titles_restored == 1
    assert {k: v["title"] for k, v in _index_rows(sessions).items()} == {
        "s1": "Survivor",
        "s2": None,
    }


# --- listing and search ----------------------------------------------------------------------------


def test_sorting_and_paging(make_library, sessions: Path) -> None:
    write_session(sessions, CWD, "small", messages=[("user", "z")], created=300)
    write_session(
        sessions,
        CWD,
        "big",
        messages=[("user", "b" * 500), ("assistant", "x")] * 3,
        created=200,
        compactions=1,
    )
    write_session(
        sessions,
        CWD,
        "mid",
        messages=[("user", "a" * 100), ("assistant", "y")],
        created=100,
        compactions=4,
    )
    library = make_library()
    library.refresh()
    ids = lambda page: [s.id for s in page.sessions]  # noqa: E731
    assert ids(library.list(KEY)) == ["small", "big", "mid"]
    assert ids(library.list(KEY, sort="size")) == ["big", "mid", "small"]
    assert ids(library.list(KEY, sort="messages")) == ["big", "mid", "small"]
    assert ids(library.list(KEY, sort="compactions")) == ["mid", "big", "small"]
    assert ids(library.list(KEY, sort="size", descending=False)) == ["small", "mid", "big"]
    library.rename(KEY, "small", "Mango")  # titles sort with first user messages, no case
    assert ids(library.list(KEY, sort="title", descending=False)) == ["mid", "big", "small"]
    page = library.list(KEY, offset=1, limit=1)
    assert ids(page) == ["big"] and page.total == 3
    with pytest.raises(InputError):
        library.list(sort="colour")


def test_search_finds_substrings_with_snippets(make_library, sessions: Path) -> None:
    write_session(
        sessions,
        CWD,
        "s1",
        messages=[
            ("user", "Please fix parse_header in src/Reader.py"),
            ("assistant", "I changed the READER so that it tolerates a torn tail."),
        ],
    )
    write_session(sessions, CWD, "s2", messages=[("user", "unrelated question about CSS")])
    write_session(sessions, "/other", "s3", messages=[("user", "the reader again, elsewhere")])
    library = make_library()
    library.refresh()
    results = library.search("reader")
    assert sorted(h.session.id for h in results.hits) == ["s1", "s3"]
    scoped = library.search("reader", KEY)
    (hit,) = scoped.hits
    (snippet, *_) = hit.snippets
    assert snippet.field == "text"
    marked = [snippet.text[s:e] for s, e in snippet.highlights]
    assert marked == ["Reader", "READER"]
    # Short texts fit in one window: the snippet is the whole text, offsets into it.
    assert snippet.offset == 0
    assert snippet.text == (
        "Please fix parse_header in src/Reader.py\n"
        "I changed the READER so that it tolerates a torn tail."
    )
    # Substring inside identifiers, several terms (AND), quoted phrases, short terms.
    assert [h.session.id for h in library.search("arse_hea").hits] == ["s1"]
    assert [h.session.id for h in library.search("torn css").hits] == []
    assert [h.session.id for h in library.search('"torn tail" fix').hits] == ["s1"]
    assert [h.session.id for h in library.search("tail py", KEY).hits] == ["s1"]
    assert library.search("   ").hits == []


def test_short_terms_match_too(make_library, sessions: Path) -> None:
    # One- and two-character terms cannot use trigrams; they scan the text and still match.
    write_session(sessions, CWD, "s1", messages=[("user", "go on"), ("assistant", "ok xy")])
    write_session(sessions, CWD, "s2", messages=[("user", "nothing")])
    library = make_library()
    library.refresh()
    assert [h.session.id for h in library.search("go").hits] == ["s1"]
    assert [h.session.id for h in library.search("XY").hits] == ["s1"]
    assert [h.session.id for h in library.search("g").hits] == ["s1", "s2"]


def test_search_matches_titles_and_reports_truncation(make_library, sessions: Path) -> None:
    for n in range(4):
        write_session(sessions, CWD, f"s{n}", messages=[("user", f"common words {n}")], created=n)
    library = make_library()
    library.refresh()
    library.rename(KEY, "s2", "Rocket launch")
    (hit,) = library.search("rocket").hits
    assert hit.session.id == "s2" and hit.snippets[0].field == "title"
    results = library.search("common", limit=2)
    assert results.truncated and [h.session.id for h in results.hits] == ["s3", "s2"]
    assert [
        h.session.id for h in library.search("common", sort="created", descending=False).hits
    ] == ["s0", "s1", "s2", "s3"]
    for query in ("common", ""):
        with pytest.raises(InputError, match="unknown sort 'colour'"):
            library.search(query, sort="colour")


def test_resolve_by_prefix(make_library, sessions: Path) -> None:
    write_session(sessions, CWD, "abc-1", messages=[("user", "a")])
    write_session(sessions, CWD, "abd-2", messages=[("user", "b")])
    write_session(sessions, "/other", "xyz-3", messages=[("user", "c")])
    library = make_library()
    library.refresh()
    assert library.resolve("abc", KEY).id == "abc-1"
    assert library.resolve("xyz", KEY).id == "xyz-3"
    with pytest.raises(InputError, match="several"):
        library.resolve("ab", KEY)
    with pytest.raises(InputError, match="no session"):
        library.resolve("nope")


# --- rename and delete ----------------------------------------------------------------------------


def test_rename_writes_only_rho_title_column(make_library, sessions: Path) -> None:
    write_session(sessions, CWD, "s1", messages=[("user", "a")])
    library = make_library()
    library.refresh()
    before = _index_rows(sessions)["s1"]
    summary = library.rename(KEY, "s1", "  New name  ")
    assert summary.title == "New name"
    after = _index_rows(sessions)["s1"]
    assert after == {**before, "title": "New name"}
    with pytest.raises(InputError, match="empty"):
        library.rename(KEY, "s1", " \t")
    with pytest.raises(InputError, match="no session"):
        library.rename(KEY, "missing", "x")


def test_rename_of_a_session_rho_never_indexed(make_library, sessions: Path) -> None:
    write_session(sessions, CWD, "s1", messages=[("user", "a")])
    library = make_library()
    library.refresh()
    _sql(sessions, "delete from sessions")
    library.rename(KEY, "s1", "Named")
    assert _index_rows(sessions)["s1"]["title"] == "Named"


def test_delete_moves_the_unit_to_trash_and_removes_both_rows(
    make_library, sessions: Path, tmp_path: Path
) -> None:
    t = write_session(sessions, CWD, "s1", messages=[("user", "a")])
    (t.parent / "web" / "content").mkdir(parents=True)
    write_session(sessions, CWD, "s2", messages=[("user", "b")])
    library = make_library()
    library.refresh()
    library.rename(KEY, "s1", "Doomed")
    entry = library.delete(KEY, "s1")
    assert not t.parent.exists()
    assert (entry.path / t.parent.name / "session.jsonl").is_file()
    assert (entry.path / t.parent.name / "web" / "content").is_dir()
    info = json.loads((entry.path / "trash-info.json").read_text())
    assert (info["title"], info["session_id"], info["original"]) == ("Doomed", "s1", str(t.parent))
    assert entry.index_row_removed and set(_index_rows(sessions)) == {"s2"}
    assert [s.id for s in library.list().sessions] == ["s2"]
    assert entry.path.is_relative_to(tmp_path / "trash")
    # The lease file stays where it is (§14 step 7).
    assert (sessions / KEY / ".s1.active.lock").exists()
    assert library.refresh().removed == []


def test_delete_moves_a_flat_unit_with_its_web_folder(make_library, sessions: Path) -> None:
    t = write_session(sessions, CWD, "flat1", messages=[("user", "a")], flat=True)
    web = t.with_name(t.stem + ".web")
    web.mkdir()
    library = make_library()
    library.refresh()
    entry = library.delete(KEY, "flat1")
    assert not t.exists() and not web.exists()
    assert (entry.path / t.name).is_file() and (entry.path / web.name).is_dir()


def test_delete_is_refused_while_the_session_is_open(make_library, sessions: Path) -> None:
    t = write_session(sessions, CWD, "s1", messages=[("user", "a")])
    library = make_library()
    library.refresh()
    fd = os.open(sessions / KEY / ".s1.active.lock", os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)  # what Rho holds while the session is open
    try:
        with pytest.raises(SessionInUse):
            library.delete(KEY, "s1")
    finally:
        os.close(fd)
    assert t.exists() and "s1" in _index_rows(sessions)


def test_delete_refuses_live_runs_unless_forced(make_library, sessions: Path, home: Path) -> None:
    t = write_session(sessions, CWD, "s1", messages=[("user", "a")])
    nested = t.parent / "subagents" / "run1"
    nested.mkdir(parents=True)
    (nested / "result.json").write_text(json.dumps({"state": "ok"}))
    linked = home / "subagents" / "run2"
    linked.mkdir(parents=True)
    (linked / "result.json").write_text(json.dumps({"state": "running", "parent_session_id": "s1"}))
    other = home / "subagents" / "run3"
    other.mkdir()
    (other / "result.json").write_text(json.dumps({"state": "running", "parent_session_id": "zz"}))
    library = make_library()
    library.refresh()
    with pytest.raises(SubagentsRunning, match="run2 is still running"):
        library.delete(KEY, "s1")
    assert t.exists() and linked.exists()
    entry = library.delete(KEY, "s1", force=True)
    assert sorted((r.run_id, r.nested) for r in entry.runs) == [("run1", True), ("run2", False)]
    assert not linked.exists() and (entry.path / "subagents" / "run2" / "result.json").is_file()
    assert other.exists()


def test_delete_of_unknown_session(make_library, sessions: Path) -> None:
    library = make_library()
    library.refresh()
    with pytest.raises(InputError):
        library.delete(KEY, "nope")


# --- drift ---------------------------------------------------------------------------------------


def test_drift_names_every_disagreement_and_none_after_refresh(
    make_library, sessions: Path
) -> None:
    write_session(sessions, CWD, "ok", messages=[("user", "a")])
    stale = write_session(sessions, CWD, "stale", messages=[("user", "b")])
    write_session(sessions, CWD, "norow", messages=[("user", "c")])
    library = make_library()
    library.refresh()
    assert not library.drift().drifted
    _bump(stale, "grown")
    _sql(sessions, "delete from sessions where id = 'norow'")
    _sql(
        sessions,
        "insert into sessions (workspace_key, cwd, id, path, created_at, updated_at)"
        " values (?, ?, 'orphan', ?, 1, 1)",
        KEY,
        CWD,
        str(sessions / KEY / "1_orphan.jsonl"),
    )
    _sql(
        sessions,
        "insert into sessions (workspace_key, cwd, id, path, created_at, updated_at)"
        " values (?, '/not/this/one', 'moved', '/x', 1, 1)",
        KEY,
    )
    before = _digest(sessions / "index.sqlite3")
    report = library.drift()
    kinds = sorted((item.kind, item.session_id) for item in report.items)
    assert kinds == [
        ("misplaced-row", "moved"),
        ("missing-row", "norow"),
        ("orphan-row", "orphan"),
        ("stale-row", "stale"),
    ]
    (stale_item,) = [i for i in report.items if i.kind == "stale-row"]
    assert "file_size" in stale_item.detail
    assert _digest(sessions / "index.sqlite3") == before  # drift only looks
    library.refresh()
    assert not library.drift().drifted


def test_drift_reports_an_unusable_index(make_library, sessions: Path) -> None:
    write_session(sessions, CWD, "s1", messages=[("user", "a")])
    library = make_library()
    library.refresh()
    (sessions / "index.sqlite3").write_bytes(b"junk" * 500)
    report = library.drift()
    assert report.index_state is IndexState.CORRUPT
    assert [i.kind for i in report.items] == ["index-corrupt"]


def test_drift_never_migrates_an_old_index(make_library, sessions: Path) -> None:
    t = write_session(sessions, CWD, "fixture-session", messages=[("user", "hi")])
    db = sqlite3.connect(sessions / "index.sqlite3")
    db.executescript((RHO_FIXTURES / "index-v0.sql").read_text())
    db.execute("update sessions set workspace_key = ?, cwd = ?, path = ?", (KEY, CWD, str(t)))
    db.commit()
    db.close()
    before = _digest(sessions / "index.sqlite3")
    report = make_library().drift()
    assert [i.kind for i in report.items] == ["index-outdated"]
    assert "schema 0" in report.items[0].detail
    assert _digest(sessions / "index.sqlite3") == before


# --- robustness ------------------------------------------------------------------------------------


def test_failures_of_deleted_transcripts_are_forgotten(make_library, sessions: Path) -> None:
    t = write_session(sessions, CWD, "s1", messages=[("user", "a")])
    t.write_text("{broken\n")
    library = make_library()
    assert len(library.refresh().failed) == 1
    assert len(library.refresh().failed) == 1  # still broken: reported again, not re-parsed
    t.unlink()
    assert library.refresh().failed == []
    assert library._cache.failures() == {}


def test_an_unwritable_cache_folder_falls_back_to_memory(
    make_library, sessions: Path, tmp_path: Path
) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the cache folder should be")
    write_session(sessions, CWD, "s1", messages=[("user", "hello memory")])
    library = make_library(cache_dir=blocker / "cache")
    assert library.cache_notice and "in memory" in library.cache_notice
    library.refresh()
    assert [h.session.id for h in library.search("memory").hits] == ["s1"]


def test_workspaces_overview(make_library, sessions: Path) -> None:
    write_session(sessions, CWD, "a", messages=[("user", "x")], created=100)
    write_session(sessions, CWD, "b", messages=[("user", "x")], created=300)
    write_session(sessions, "/other", "c", messages=[("user", "x")], created=200)
    library = make_library()
    library.refresh()
    assert [(w.cwd, w.sessions) for w in library.workspaces()] == [(CWD, 2), ("/other", 1)]


@pytest.mark.asyncio
async def test_concurrent_use_from_worker_threads(make_library, sessions: Path) -> None:
    # The GUI calls the library through asyncio.to_thread; calls may overlap.
    import asyncio

    for n in range(30):
        write_session(sessions, CWD, f"s{n:02d}", messages=[("user", f"message {n}")])
    library = make_library()
    calls = (
        [asyncio.to_thread(library.refresh)]
        + [asyncio.to_thread(library.list, KEY, limit=10) for _ in range(5)]
        + [asyncio.to_thread(library.search, "message") for _ in range(5)]
    )
    results = await asyncio.gather(*calls)
    assert len(results[0].added) == 30
    assert library.list(KEY).total == 30
    assert len(library.search('"message 1"').hits) == 11  # the phrase: 1, 10-19
    assert len(library.search("message 1").hits) == 12  # two terms: 21 too
