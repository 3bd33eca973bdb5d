"""The bundled demo library: every file loads strictly and the promised features are all there."""

from __future__ import annotations

import base64
import sqlite3
from pathlib import Path

from PySide6.QtGui import QImage

from rho_desk.core.changes import read_journal
from rho_desk.core.stores.demo import demo_fingerprint, prepare_demo_copy
from rho_desk.core.stores.rho_files import NodeKind, discover_units, iter_workspaces, read_session
from rho_desk.core.wire import Message

from ..cli.helpers_files import rho_desk
from .conftest import DEMO_SOURCE


def _files() -> list:
    return [
        read_session(u.transcript)
        for ws in iter_workspaces(DEMO_SOURCE)
        for u in discover_units(ws)
    ]


def _messages(file) -> list[Message]:
    seen: dict[int, Message] = {}
    for node in file.tree.nodes.values():
        for m in file.tree.history(node):
            seen[id(m)] = m
        for e in node.display:
            seen[id(e.message)] = e.message
    return list(seen.values())


def test_every_demo_file_loads_strictly_and_every_schema_is_there() -> None:
    files = _files()
    assert len(files) >= 7
    assert all(not f.notes for f in files)  # no torn tails, nothing tolerated
    assert {f.tree.header_version for f in files} == {1, 2, 3, 4}
    cwds = {f.tree.header.cwd for f in files}
    assert (
        len(cwds) >= 3
        and any("payments-api" in c for c in cwds)
        and any("notebooks" in c for c in cwds)
    )


def test_demo_checkpoint_journals_show_changes_and_an_unsaved_turn() -> None:
    from rho_desk.core.changes import session_changes

    journals = sorted(DEMO_SOURCE.rglob("workspace-checkpoints/checkpoints.jsonl"))
    assert len(journals) == 2
    changes = [session_changes(j.parent.parent) for j in journals]
    assert all(c.journal is not None for c in changes)
    assert any(
        not t.committed for c in changes for t in c.turns
    )  # a failed turn that was not saved
    diffs = [f.patch() for c in changes for t in c.turns for f in t.files]
    assert sum(1 for d in diffs if d.startswith("diff --git")) >= 4


def test_demo_features_exist() -> None:
    files = _files()
    messages = [m for f in files for m in _messages(f)]
    assert sum(1 for m in messages for _ in m.tool_calls()) >= 20
    assert sum(1 for m in messages if m.tool_result is not None and not m.tool_result.ok) >= 1
    images = [b.image for m in messages for b in m.content if b.image is not None]
    assert images and QImage.fromData(base64.b64decode(images[0].data)).width() > 0
    aborted = [m.aborted_assistant for m in messages if m.aborted_assistant is not None]
    assert aborted and any(len(a.tool_calls) >= 2 for a in aborted)
    assert any(
        pc.id not in {c.id for c in m_calls}
        for a in aborted
        for pc in a.tool_calls
        for m_calls in [[b.tool_call for b in a.content if b.tool_call is not None]]
    )  # a partial call
    providers = {
        str(b.identity.provider)
        for m in messages
        for b in m.provider_context()
        if not b.is_portable_fallback
    }
    assert {"openai", "anthropic"} <= providers
    kinds = {b.kind for m in messages for b in m.provider_context()}
    assert {"openai_response_output_item", "anthropic_content_block"} <= kinds
    assert any(f.tree.branch_count for f in files)
    facts = [
        n.compaction_facts
        for f in files
        for n in f.tree.nodes.values()
        if n.kind is NodeKind.COMPACTION
    ]
    assert any(x is not None and x.cost_usd_micros for x in facts)
    assert any(
        n.kind is NodeKind.COMPACTION and n.transition == "replace_history"
        for f in files
        for n in f.tree.nodes.values()
    )
    assert any(
        m.enriched_assistant is not None and m.enriched_assistant.reasoning_summary
        for m in messages
    )


def test_the_bundle_ships_no_index_and_a_fresh_copy_builds_it_with_titles(tmp_path: Path) -> None:
    # Rho's index names absolute paths: none ships, nothing names the machine that built it (the
    # one database that ships is the usage ledger, scripts/demo_ledger.py; no -wal/-shm beside it)
    assert [p.relative_to(DEMO_SOURCE).as_posix() for p in DEMO_SOURCE.rglob("*.sqlite3*")] == [
        "usage.sqlite3"
    ]
    root = str(Path(__file__).resolve().parents[2]).encode()
    assert not [p for p in DEMO_SOURCE.rglob("*") if p.is_file() and root in p.read_bytes()]
    copy = prepare_demo_copy(tmp_path / "demo", source=DEMO_SOURCE)
    db = sqlite3.connect(f"file:{copy / 'sessions' / 'index.sqlite3'}?mode=ro", uri=True)
    try:
        titles = [r[0] for r in db.execute("select title from sessions where title is not null")]
        paths = [r[0] for r in db.execute("select path from sessions")]
    finally:
        db.close()
    assert len(titles) == 3 and len(paths) == len(_files())
    assert all(p.startswith(str(copy)) for p in paths)
    # a fresh copy passes `rho-desk check` with no finding at all (no warnings either)
    result = rho_desk("check", copy)
    assert result.returncode == 0, result.stdout
    assert f"checked {len(_files())} file(s): 0 with problems, 0 finding(s)" in result.stdout


def test_the_app_works_on_a_private_copy_and_never_writes_the_bundle(tmp_path: Path) -> None:
    before = demo_fingerprint(DEMO_SOURCE)
    copy = prepare_demo_copy(tmp_path / "demo", source=DEMO_SOURCE)
    assert copy != DEMO_SOURCE and (copy / "sessions" / "index.sqlite3").is_file()
    assert prepare_demo_copy(tmp_path / "demo", source=DEMO_SOURCE) == copy  # made once
    (copy / "sessions" / "index.sqlite3").write_bytes(b"changed in the copy")
    assert demo_fingerprint(DEMO_SOURCE) == before


def test_the_build_script_reproduces_the_same_sessions(tmp_path: Path) -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location("demo_build", DEMO_SOURCE.parent / "build.py")
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    out = module.build(tmp_path / "home")
    rebuilt = sorted(p.relative_to(out).as_posix() for p in out.rglob("*.jsonl"))
    bundled = sorted(p.relative_to(DEMO_SOURCE).as_posix() for p in DEMO_SOURCE.rglob("*.jsonl"))
    assert rebuilt == bundled
    for name in bundled:  # same histories (node ids of forks made by the writer are random)
        if "workspace-checkpoints" in name:  # the same checkpoints, bound to the rebuilt nodes
            a_journal, b_journal = (
                read_journal(out / name).checkpoints,
                read_journal(DEMO_SOURCE / name).checkpoints,
            )
            assert [(c.revision, c.outcome, c.files, c.limitations) for c in a_journal] == [
                (c.revision, c.outcome, c.files, c.limitations) for c in b_journal
            ]
            continue
        a, b = read_session(out / name).tree, read_session(DEMO_SOURCE / name).tree
        assert a.history() == b.history() and a.node_count == b.node_count


def test_the_demo_ledger_matches_the_demo_sessions() -> None:
    """Every demo session has requests in the bundled ledger, in its own workspace, and the
    ledger is Rho's schema at the version we read (regenerate it with scripts/demo_ledger.py)."""
    from rho_desk.core.usage.ledger import UsageLedger

    with UsageLedger(DEMO_SOURCE / "usage.sqlite3", cache_dir=False) as ledger:
        assert ledger.version == 1
        for transcript in DEMO_SOURCE.rglob("*.jsonl"):
            if "workspace-checkpoints" in transcript.parts:
                continue  # Rho's checkpoint journals, not transcripts
            tree = read_session(transcript).tree
            requests = ledger.session_requests(str(tree.session_id), children=False)
            assert requests, transcript
            assert {r.workspace_path for r in requests} == {
                tree.header.cwd if tree.header else None
            }
            assert any(r.purpose == "agent" for r in requests)
        purposes = {
            str(r[0]) for r in ledger.query("SELECT DISTINCT purpose FROM ledger.usage_events")
        }
    assert purposes >= {"agent", "compaction", "title", "subagent"}
