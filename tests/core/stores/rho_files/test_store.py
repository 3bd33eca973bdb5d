"""The SessionStore over Rho files, the summary for the index, check and deletion."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from rho_desk.core.errors import InputError, RevisionConflict
from rho_desk.core.stores.base import SessionStore
from rho_desk.core.stores.rho_files import (
    RhoFileSessionStore,
    SessionInUse,
    Severity,
    SubagentsRunning,
    check_paths,
    delete_session,
    discover_units,
    read_session,
    register_check,
    summarize,
    workspace_dir,
)
from rho_desk.core.stores.rho_files.check import expand_paths, registered_checks
from rho_desk.core.wire import Message, ModelIdentity, SessionSnapshot

from ....conftest import RHO_FIXTURES
from .helpers import SID, V4_EXAMPLE, header, line, transcript, v4_simple

P = ModelIdentity("p", "a", "m")


def place(home: Path, cwd: str, name: str, data: bytes) -> Path:
    folder = workspace_dir(home, cwd) / name
    folder.mkdir(parents=True)
    (folder / "session.jsonl").write_bytes(data)
    return folder / "session.jsonl"


def grow(snapshot: SessionSnapshot, text: str) -> SessionSnapshot:
    return snapshot.replace(
        revision=snapshot.revision + 1, history=snapshot.history + (Message.user_text(text),)
    )


# -- the store ------------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_new_session_round_trip(tmp_path: Path) -> None:
    store = RhoFileSessionStore(tmp_path, workspace="/home/alice/proj", clock=lambda: 1767225600)
    assert isinstance(store, SessionStore)
    assert await store.load("nope") is None
    first = SessionSnapshot.new("s-1", 0, [Message.system_text("sys")], P)
    await store.save(first)
    second = grow(first, "hello")
    await store.save(second)
    assert await store.load("s-1") == second.with_prompt_cache_key("rho:s-1")
    (unit,) = discover_units(workspace_dir(tmp_path, "/home/alice/proj"))
    assert unit.name == "1767225600_s-1"
    tree = read_session(unit.transcript).tree
    assert tree.header_version == 3 and [n.transition for n in tree.nodes.values()] == [
        "snapshot",
        "snapshot_delta",
    ]
    await store.aclose()
    # a fresh store finds it by id, in any workspace
    other = RhoFileSessionStore(tmp_path)
    assert (await other.load("s-1")) == second.with_prompt_cache_key("rho:s-1")
    await other.aclose()


@pytest.mark.asyncio
async def test_store_continues_a_rho_v4_session(tmp_path: Path) -> None:
    path = place(tmp_path, "/home/alice/proj", f"1767225600_{SID}", V4_EXAMPLE.encode())
    async with RhoFileSessionStore(tmp_path, clock=lambda: 1767226000) as store:
        snapshot = await store.load(SID)
        assert snapshot is not None and snapshot.revision == 3
        await store.save(grow(snapshot, "continue"))
        writer = store.writer(SID)
        assert writer is not None and writer.tree.active_leaf is not None
        assert (
            writer.tree.active_leaf.parent is not None and writer.tree.active_leaf.parent.id == "N3"
        )
    tree = read_session(path).tree
    assert tree.node_count == 4 and tree.snapshot().revision == 4


@pytest.mark.asyncio
async def test_store_conflict_then_reload(tmp_path: Path) -> None:
    path = place(tmp_path, "/w", f"1_{SID}", v4_simple(2))
    store = RhoFileSessionStore(tmp_path)
    snapshot = await store.load(SID)
    assert snapshot is not None
    with open(path, "ab") as other:  # another writer (Rho) appended meanwhile
        other.write(line({"type": "set_leaf", "timestamp": "9", "target_id": "n1"}))
    with pytest.raises(RevisionConflict):
        await store.save(grow(snapshot, "mine"))
    reloaded = await store.load(SID)  # re-read: the leaf moved to n1
    assert reloaded is not None and reloaded.revision == 1
    await store.save(grow(reloaded, "again"))
    assert read_session(path).tree.branch_count == 1
    await store.aclose()


@pytest.mark.asyncio
async def test_store_needs_a_workspace_for_new_sessions(tmp_path: Path) -> None:
    store = RhoFileSessionStore(tmp_path)
    with pytest.raises(InputError, match="no workspace"):
        await store.save(SessionSnapshot.new("fresh", 0, [], P))


@pytest.mark.asyncio
async def test_an_open_store_holds_the_lease(tmp_path: Path) -> None:
    place(tmp_path, "/w", f"1_{SID}", v4_simple(1))
    store = RhoFileSessionStore(tmp_path)
    await store.load(SID)
    (unit,) = discover_units(workspace_dir(tmp_path, "/w"))
    with pytest.raises(SessionInUse):
        delete_session(unit, home=tmp_path)
    await store.aclose()
    delete_session(unit, home=tmp_path)
    assert not unit.unit_path.exists()


# -- the summary (§10.5) ----------------------------------------------------------------------------


def test_summary_of_the_v4_example(tmp_path: Path) -> None:
    path = place(tmp_path, "/home/alice/proj", f"1767225600_{SID}", V4_EXAMPLE.encode())
    s = summarize(path)
    assert (s.id, s.workspace_key, s.path) == (SID, "-home-alice-proj-55e702b525f26764", str(path))
    assert (s.created_at, s.updated_at, s.message_count) == (1767225600, 1767225800, 4)
    assert (s.node_count, s.branch_count, s.active_leaf_id, s.effective_format_version) == (
        3,
        1,
        "N3",
        4,
    )
    assert (s.first_user_message, s.last_user_message) == ("list the files", "list the files")
    assert (s.provider, s.model, s.compaction_count) == ("openai/responses/gpt-5", "gpt-5", 1)
    assert s.file_size == path.stat().st_size and s.file_mtime == int(path.stat().st_mtime)
    assert (
        "Two entries." in s.search_text and "Cargo.toml" not in s.search_text
    )  # tool output is not prose
    assert s.title is None


def test_summary_times_fall_back(tmp_path: Path) -> None:
    data = transcript({**header(version=3), "timestamp": "not a number"})
    path = tmp_path / "77_s.jsonl"
    path.write_bytes(data.replace(SID.encode(), b"s"))
    s = summarize(path)
    assert s.updated_at == int(path.stat().st_mtime)  # no parseable timestamp at all
    assert s.created_at == 77  # the name's prefix
    assert (s.message_count, s.node_count, s.active_leaf_id) == (0, 0, None)


# -- check ----------------------------------------------------------------------------------------------


def test_check_reports_torn_tails_and_corrupt_lines(tmp_path: Path) -> None:
    good = place(tmp_path, "/w", f"1_{SID}", v4_simple(2))
    torn = tmp_path / "torn.jsonl"
    torn.write_bytes(v4_simple(3)[:-25])
    corrupt = tmp_path / "corrupt.jsonl"
    corrupt.write_bytes(v4_simple(3).replace(b'"kind":"commit"', b'"kind":"squash"', 1))
    snap = tmp_path / "bad.json"
    snap.write_text('{"schema_version": 3}')
    targets = {
        t.path.name: t for t in check_paths([tmp_path / "torn.jsonl", corrupt, snap, tmp_path])
    }
    assert targets["session.jsonl"].findings == [] and targets["session.jsonl"].summary is not None
    (finding,) = targets["torn.jsonl"].findings
    assert (finding.code, finding.severity, finding.line) == ("torn-tail", Severity.WARNING, 4)
    (finding,) = targets["corrupt.jsonl"].findings
    assert (finding.code, finding.severity, finding.line) == ("load-error", Severity.ERROR, 2)
    assert "squash" in finding.message and "$.kind" in finding.message
    assert targets["bad.json"].findings[0].code == "load-error"
    assert good in expand_paths(tmp_path)


def test_more_checks_plug_in(tmp_path: Path) -> None:
    from rho_desk.core.stores.rho_files import Finding

    path = place(tmp_path, "/w", f"1_{SID}", v4_simple(1))

    def drift(target: object) -> list[Finding]:
        return [Finding(str(target.path), "index-drift", Severity.WARNING, "row is stale")]  # type: ignore[attr-defined]

    register_check("test-drift", drift)
    try:
        assert "test-drift" in registered_checks()
        (target,) = check_paths([path])
        assert [f.code for f in target.findings] == ["index-drift"]
    finally:
        from rho_desk.core.stores.rho_files import check as check_module

        check_module._CHECKS[:] = [(n, c) for n, c in check_module._CHECKS if n != "test-drift"]


def test_expand_paths(tmp_path: Path) -> None:
    home = tmp_path / "home"
    a = place(home, "/w1", "1_a", b"")
    b = place(home, "/w2", "2_b", b"")
    assert sorted(expand_paths(home)) == sorted([a, b])
    assert expand_paths(a.parent.parent) == [a]
    with pytest.raises(InputError):
        expand_paths(tmp_path / "missing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match=r"No Rho sessions in .*: looked for"):
        expand_paths(tmp_path / "empty")


# -- deletion (§14) ---------------------------------------------------------------------------------------


def run(folder: Path, parent: str, state: str) -> Path:
    folder.mkdir(parents=True)
    (folder / "result.json").write_text(json.dumps({"parent_session_id": parent, "state": state}))
    return folder


def test_delete_removes_runs_then_the_unit(tmp_path: Path) -> None:
    home = tmp_path / "home"
    path = place(home, "/w", "1_victim", transcript(header(sid="victim")))
    nested = run(path.parent / "subagents" / "r1", "victim", "completed")
    linked = run(home / "subagents" / "g1", "victim", "failed")
    other = run(home / "subagents" / "g2", "someone-else", "running")
    calls = []
    (unit,) = discover_units(path.parent.parent)
    report = delete_session(
        unit, home=home, before_remove=lambda sid, u: calls.append((sid, u.unit_path.exists()))
    )
    assert calls == [("victim", True)] and report.removed_runs == (linked,)
    assert (
        not path.parent.exists() and not linked.exists() and not nested.exists() and other.exists()
    )
    assert (path.parent.parent / ".victim.active.lock").exists()


def test_delete_refuses_running_runs_unless_forced(tmp_path: Path) -> None:
    home = tmp_path / "home"
    path = place(home, "/w", "1_busy", transcript(header(sid="busy")))
    run(home / "subagents" / "g1", "busy", "running")
    (unit,) = discover_units(path.parent.parent)
    with pytest.raises(SubagentsRunning, match="still running"):
        delete_session(unit, home=home)
    assert path.exists()
    with pytest.raises(InputError, match="current session"):
        delete_session(unit, home=home, current_session_id="busy")
    delete_session(unit, home=home, force=True)
    assert not path.exists()


def test_delete_flat_unit_with_web_companion(tmp_path: Path) -> None:
    ws = workspace_dir(tmp_path, "/w")
    ws.mkdir(parents=True)
    shutil.copy(
        RHO_FIXTURES / "session-v3.jsonl", ws / "300_33333333-3333-4333-8333-333333333333.jsonl"
    )
    (ws / "300_33333333-3333-4333-8333-333333333333.web" / "content").mkdir(parents=True)
    (unit,) = discover_units(ws)
    delete_session(unit)
    assert sorted(p.name for p in ws.iterdir()) == [
        ".33333333-3333-4333-8333-333333333333.active.lock"
    ]


@pytest.mark.asyncio
async def test_load_rereads_a_file_rewritten_in_place(tmp_path: Path) -> None:
    import os

    path = place(tmp_path, "/w", f"1_{SID}", v4_simple(2))
    store = RhoFileSessionStore(tmp_path)
    assert (await store.load(SID)).revision == 2  # type: ignore[union-attr]
    data = path.read_bytes().replace(b'"u2"', b'"U2"')  # same size, same inode
    st = path.stat()
    with open(path, "r+b") as handle:
        handle.write(data)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
    reloaded = await store.load(SID)
    assert reloaded is not None and reloaded.history[2].text() == "U2"
    await store.aclose()
