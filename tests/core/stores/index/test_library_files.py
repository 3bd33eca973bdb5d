"""End to end over real Rho files: the upstream fixtures in a temporary Rho home, read by
rho-desk's session-file reader, listed, searched and reconciled into Rho's index."""

from __future__ import annotations

import json
import shutil
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from rho_desk.core.stores.index import IndexState
from rho_desk.core.stores.library import SessionInUse, SessionLibrary
from rho_desk.core.stores.rho_files.layout import workspace_key
from rho_desk.core.stores.rho_files.lease import SessionLease

from ....conftest import RHO_FIXTURES

HISTORICAL = "/historical/workspace"
KEY = workspace_key(HISTORICAL)
V1, V2, V3 = (
    "11111111-1111-4111-8111-111111111111",
    "22222222-2222-4222-8222-222222222222",
    "33333333-3333-4333-8333-333333333333",
)

# storage.md §11: the worked v4 example (3 nodes, one branch, leaf N3 after a compaction).
V4_ID = "5f0c2d7e-8a41-4c1b-9d33-0e6b7a2f9c10"


def _v4_lines(cwd: str) -> str:
    provider = {"provider": "openai", "api": "responses", "model": "gpt-5"}
    zero = {
        "completed_compactions": 0,
        "removed_messages": 0,
        "removed_tokens": 0,
        "removed_cost_usd_micros": 0,
        "last_previous_tokens": None,
        "last_current_tokens": None,
        "last_revision": None,
    }
    one = {
        **zero,
        "completed_compactions": 1,
        "removed_messages": 2,
        "removed_tokens": 60,
        "last_previous_tokens": 120,
        "last_current_tokens": 60,
        "last_revision": 3,
    }
    call = {
        "Assistant": [
            {"ToolCall": {"id": "call_1", "name": "bash", "arguments": {"command": "ls"}}}
        ]
    }
    result = {"ToolResult": {"id": "call_1", "ok": True, "content": "Cargo.toml\nsrc"}}
    two = {"EnrichedAssistant": {"content": [{"Text": "Two entries."}], "provenance": provider}}
    ask = {"User": [{"Text": "list the files"}]}
    lines = [
        {"type": "session", "version": 4, "id": V4_ID, "timestamp": "1767225600", "cwd": cwd},
        {
            "type": "node",
            "id": "N1",
            "timestamp": "1767225660",
            "kind": "commit",
            "transition": {
                "type": "snapshot",
                "snapshot": {
                    "schema_version": 2,
                    "session_id": V4_ID,
                    "revision": 1,
                    "history": [{"System": "You are a coding agent."}, ask, call, result, two],
                    "provider": provider,
                    "compaction": zero,
                    "prompt_cache_key": f"rho:{V4_ID}",
                },
            },
            "display_messages": [
                {"timestamp": "1767225660", "message": m} for m in (ask, call, result, two)
            ],
        },
        {
            "type": "node",
            "id": "N2",
            "parent_id": "N1",
            "timestamp": "1767225720",
            "kind": "commit",
            "transition": {
                "type": "snapshot_delta",
                "delta": {
                    "base_revision": 1,
                    "session_id": V4_ID,
                    "revision": 2,
                    "appended_history": [
                        {"User": [{"Text": "and the hidden ones?"}]},
                        {"EnrichedAssistant": {"content": [{"Text": "None."}]}},
                    ],
                    "provider": provider,
                    "compaction": zero,
                    "metadata": {},
                    "prompt_cache_key": f"rho:{V4_ID}",
                },
            },
            "display_messages": [
                {
                    "timestamp": "1767225720",
                    "message": {"User": [{"Text": "and the hidden ones?"}]},
                },
                {
                    "timestamp": "1767225720",
                    "message": {"EnrichedAssistant": {"content": [{"Text": "None."}]}},
                },
            ],
        },
        {"type": "set_leaf", "timestamp": "1767225780", "target_id": "N1"},
        {
            "type": "node",
            "id": "N3",
            "parent_id": "N1",
            "timestamp": "1767225800",
            "kind": "compaction",
            "compaction_facts": {
                "previous_messages": 5,
                "current_messages": 3,
                "previous_tokens": 120,
                "current_tokens": 60,
                "cost_usd_micros": None,
            },
            "transition": {
                "type": "snapshot",
                "snapshot": {
                    "schema_version": 2,
                    "session_id": V4_ID,
                    "revision": 3,
                    "history": [
                        {"System": "You are a coding agent."},
                        {
                            "User": [
                                {
                                    "Text": "Automatic compaction summary of earlier conversation"
                                    " for model context only:\n\nThe user listed files;"
                                    " there are two."
                                }
                            ]
                        },
                        two,
                    ],
                    "provider": provider,
                    "compaction": one,
                    "prompt_cache_key": f"rho:{V4_ID}",
                },
            },
            "display_messages": [],
        },
    ]
    return "".join(json.dumps(line, separators=(",", ":")) + "\n" for line in lines)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A Rho home holding the three upstream transcripts as upstream tests place them."""
    home = tmp_path / "rho"
    folder = home / "sessions" / KEY
    folder.mkdir(parents=True)
    for version, sid in ((1, V1), (2, V2), (3, V3)):
        shutil.copyfile(RHO_FIXTURES / f"session-v{version}.jsonl", folder / f"100_{sid}.jsonl")
    return home


@pytest.fixture
def library(home: Path, tmp_path: Path):
    with SessionLibrary(home, cache_dir=tmp_path / "cache", trash_dir=tmp_path / "trash") as lib:
        yield lib


def _rows(home: Path) -> dict[str, dict[str, object]]:
    db = sqlite3.connect(home / "sessions" / "index.sqlite3")
    db.row_factory = sqlite3.Row
    try:
        return {r["id"]: dict(r) for r in db.execute("select * from sessions")}
    finally:
        db.close()


def test_the_fixtures_are_listed_with_spec_values(library: SessionLibrary, home: Path) -> None:
    report = library.refresh()
    assert report.index_state is IndexState.CREATED and len(report.added) == 3
    assert not report.failed and not report.misplaced
    rows = _rows(home)
    folder = home.absolute() / "sessions" / KEY
    # storage.md §7.1: the v1 fixture's index summary.
    v1 = rows[V1]
    assert {
        k: v1[k]
        for k in (
            "workspace_key",
            "cwd",
            "path",
            "created_at",
            "updated_at",
            "message_count",
            "first_user_message",
            "last_user_message",
            "node_count",
            "branch_count",
            "active_leaf_id",
            "effective_format_version",
            "title",
        )
    } == {
        "workspace_key": KEY,
        "cwd": HISTORICAL,
        "path": str(folder / f"100_{V1}.jsonl"),
        "created_at": 100,
        "updated_at": 104,
        "message_count": 3,
        "first_user_message": "/goal legacy prompt",
        "last_user_message": "/goal legacy prompt",
        "node_count": 4,
        "branch_count": 0,
        "active_leaf_id": "legacy:00000000000001cb",
        "effective_format_version": 1,
        "title": None,
    }
    transcript = folder / f"100_{V1}.jsonl"
    assert (v1["file_size"], v1["file_mtime"]) == (
        transcript.stat().st_size,
        int(transcript.stat().st_mtime),
    )
    assert rows[V2]["message_count"] == 2 and rows[V2]["effective_format_version"] == 2  # §7.2
    assert rows[V3]["message_count"] == 2 and rows[V3]["node_count"] == 2  # §7.3
    listed = {s.id: s for s in library.list(KEY).sessions}
    assert listed[V2].provider == "fixture-provider/fixture-api/fixture-model"
    assert (listed[V2].model, listed[V2].compaction_count) == ("fixture-model", 1)
    assert listed[V1].compaction_count == 1 and listed[V3].compaction_count == 0
    assert [s.id for s in library.list(KEY).sessions] == [V3, V2, V1]  # updated 302, 204, 104


def test_a_v4_tree_and_search_over_real_text(library: SessionLibrary, home: Path) -> None:
    cwd = "/home/alice/proj"
    unit = home / "sessions" / workspace_key(cwd) / f"1767225600_{V4_ID}"
    unit.mkdir(parents=True)
    (unit / "session.jsonl").write_text(_v4_lines(cwd), "utf-8")
    library.refresh()
    row = _rows(home)[V4_ID]
    # §11: 3 nodes, 1 branch, leaf N3; the display (without the marker) has N1's 4 entries.
    assert (row["node_count"], row["branch_count"], row["active_leaf_id"]) == (3, 1, "N3")
    assert (row["message_count"], row["effective_format_version"]) == (4, 4)
    assert row["first_user_message"] == "list the files"
    (hit,) = library.search("two ENTRIES").hits
    assert hit.session.id == V4_ID and hit.session.compaction_count == 1
    assert [hit.snippets[0].text[s:e] for s, e in hit.snippets[0].highlights] == ["Two", "entries"]
    assert library.search("hidden ones").hits == []  # abandoned branch: not on the active path
    assert [h.session.id for h in library.search("legacy answer").hits] == [V1]
    assert library.search("Cargo.toml").hits == []  # tool results are not searched


def test_rho_rows_of_vanished_sessions_go_titles_of_live_ones_stay(
    library: SessionLibrary, home: Path
) -> None:
    db = sqlite3.connect(home / "sessions" / "index.sqlite3")
    db.executescript((RHO_FIXTURES / "index-v1.sql").read_text())  # a row for /fixture: gone
    db.execute(
        "insert into sessions (workspace_key, cwd, id, path, created_at, updated_at, title)"
        " values (?, ?, ?, ?, 1, 1, 'My v3 session')",
        (KEY, HISTORICAL, V3, str(home.absolute() / "sessions" / KEY / f"100_{V3}.jsonl")),
    )
    db.commit()
    db.close()
    report = library.refresh()
    assert report.index_state is IndexState.OK and report.index_deleted == 1
    rows = _rows(home)
    assert set(rows) == {V1, V2, V3} and rows[V3]["title"] == "My v3 session"
    assert rows[V3]["message_count"] == 2 and rows[V3]["updated_at"] == 302
    assert library.get(KEY, V3).title == "My v3 session"  # type: ignore[union-attr]
    with closing(sqlite3.connect(home / "sessions" / "index.sqlite3")) as db, db:
        assert db.execute("pragma user_version").fetchone() == (2,)


def test_a_corrupt_transcript_is_reported_with_line_and_reason(
    library: SessionLibrary, home: Path
) -> None:
    broken = home / "sessions" / KEY / f"100_{V3}.jsonl"
    text = broken.read_text().replace('"base_revision":1', '"base_revision":0')
    broken.write_text(text)
    report = library.refresh()
    (failure,) = report.failed
    assert failure.path == str(broken.absolute())
    assert ":3:" in failure.reason and "base revision" in failure.reason
    assert {s.id for s in library.list().sessions} == {V1, V2}


def test_delete_respects_rho_leases(library: SessionLibrary, home: Path) -> None:
    library.refresh()
    folder = home / "sessions" / KEY
    lease = SessionLease.shared(folder / f".{V2}.active.lock")  # Rho has the session open
    try:
        with pytest.raises(SessionInUse, match="refusing to delete active session"):
            library.delete(KEY, V2)
    finally:
        lease.release()
    entry = library.delete(KEY, V2)
    assert not (folder / f"100_{V2}.jsonl").exists()
    assert (entry.path / f"100_{V2}.jsonl").is_file()
    assert set(_rows(home)) == {V1, V3}


def test_drift_over_real_files(library: SessionLibrary, home: Path) -> None:
    library.refresh()
    assert not library.drift().drifted
    with open(home / "sessions" / KEY / f"100_{V1}.jsonl", "a") as handle:
        handle.write("\n")  # upstream's "stale" benchmark step: the size changes
    (item,) = library.drift().items
    assert (item.kind, item.session_id) == ("stale-row", V1)
