"""``import``: another agent's session as a Rho session the Rho reader accepts, with its receipt."""

from __future__ import annotations

import json
import shutil
import sqlite3
import uuid
from contextlib import closing
from pathlib import Path

import msgspec
import pytest

from rho_desk.core.agents import AGENTS, open_session
from rho_desk.core.agents.build import _NAMESPACE, node_id_for
from rho_desk.core.agents.importer import (
    RECEIPT_NAME,
    ImportReceipt,
    import_session,
    rho_session_id,
)
from rho_desk.core.errors import InputError
from rho_desk.core.stores.rho_files import check_paths, read_session
from rho_desk.core.stores.rho_files.layout import workspace_key

from .conftest import main_sessions


@pytest.mark.parametrize("agent", AGENTS)
def test_an_import_is_a_rho_session_the_rho_reader_accepts(
    agent: str, sessions: dict[str, Path], tmp_path: Path
) -> None:
    home = tmp_path / "rho"
    result = import_session(sessions[agent], home=home)
    assert result.created and result.added > 0
    transcript = result.transcript
    # Rho's own layout: <home>/sessions/<workspace key>/<created>_<id>/session.jsonl, named by its id
    assert transcript.parent.parent.name == workspace_key(open_session(sessions[agent]).log.cwd)
    assert transcript.parent.name.endswith(
        "_" + rho_session_id(agent, open_session(sessions[agent]).log.session_id)
    )
    session = read_session(transcript)  # strict, with the name check Rho makes
    assert session.tree.header is not None and session.tree.header.version == 4
    assert not session.notes
    source = open_session(sessions[agent]).tree
    assert (
        session.tree.node_count == source.node_count
        and session.tree.branch_count == source.branch_count
    )
    assert session.tree.history() == source.history()
    assert [e.message for e in session.tree.display()] == [e.message for e in source.display()]
    targets = check_paths([home])
    assert [t.path for t in targets] == [transcript]
    assert not [f for t in targets for f in t.findings if f.problem]


@pytest.mark.parametrize("agent", AGENTS)
def test_the_index_lists_the_import_as_rho_would(
    agent: str, sessions: dict[str, Path], tmp_path: Path
) -> None:
    home = tmp_path / "rho"
    result = import_session(sessions[agent], home=home)
    with closing(sqlite3.connect(home / "sessions" / "index.sqlite3")) as db, db:
        rows = db.execute("select id, path, message_count from sessions").fetchall()
    db.close()
    assert [(r[0], r[1]) for r in rows] == [(result.receipt.session_id, str(result.transcript))]
    assert rows[0][2] > 0


@pytest.mark.parametrize("agent", AGENTS)
def test_the_receipt_says_what_was_kept_and_dropped(
    agent: str, sessions: dict[str, Path], tmp_path: Path
) -> None:
    result = import_session(sessions[agent], home=tmp_path / "rho")
    assert result.receipt_path == result.transcript.parent / RECEIPT_NAME
    receipt = msgspec.json.decode(result.receipt_path.read_bytes(), type=ImportReceipt)
    assert receipt.source.agent == agent
    assert receipt.source.digest.startswith("sha256:") and len(receipt.source.digest) == 71
    kept = receipt.kept
    assert (
        kept.tool_calls
        and kept.tool_results
        and kept.images
        and kept.reasoning
        and kept.compactions
    )
    assert receipt.dropped and all(count > 0 for count in receipt.dropped.values())
    assert receipt.not_carried  # token usage stays in the source
    assert len(receipt.runs) == 1 and receipt.runs[0].added == kept.revisions
    document = json.loads(result.receipt_path.read_text("utf-8"))
    assert document["format"] == "rho-desk.import-receipt" and document["format_version"] == 1


@pytest.mark.parametrize("agent", AGENTS)
def test_importing_the_same_source_again_writes_nothing(
    agent: str, sessions: dict[str, Path], tmp_path: Path
) -> None:
    home = tmp_path / "rho"
    first = import_session(sessions[agent], home=home)
    before = first.transcript.read_bytes(), first.receipt_path.read_bytes()
    again = import_session(sessions[agent], home=home)
    assert again.noop and again.transcript == first.transcript
    assert (first.transcript.read_bytes(), first.receipt_path.read_bytes()) == before


def _grow(path: Path, agent: str, keep: int) -> list[bytes]:
    """Cut the log at ``path`` to its first ``keep`` lines; return the rest."""
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(lines[:keep]))
    return lines[keep:]


@pytest.mark.parametrize(
    ("agent", "keep"), [("claude-code", 10), ("codex", 19), ("gemini", 9), ("pi", 11)]
)
def test_a_source_that_grew_imports_only_what_is_new(
    agent: str, keep: int, homes: dict[str, Path], tmp_path: Path
) -> None:
    source = main_sessions(homes)[agent]
    rest = _grow(source, agent, keep)
    home = tmp_path / "rho"
    first = import_session(source, home=home)
    before = first.transcript.read_bytes()
    with open(source, "ab") as handle:
        handle.writelines(rest)
    second = import_session(source, home=home)
    assert not second.created and second.added > 0
    data = second.transcript.read_bytes()
    assert data.startswith(before) and len(data) > len(
        before
    )  # appended to: the first import's bytes stand
    grown = read_session(second.transcript)
    whole = open_session(source).tree
    assert grown.tree.history() == whole.history()
    assert len(second.receipt.runs) == 2 and second.receipt.runs[1].added == second.added
    assert import_session(source, home=home).noop


def test_an_opencode_session_that_grew_imports_only_what_is_new(
    homes: dict[str, Path], tmp_path: Path
) -> None:
    source = main_sessions(homes)["opencode"]
    database = homes["opencode"] / "opencode.db"
    with closing(sqlite3.connect(database)) as db, db:
        saved = db.execute("select * from message where id >= 'msg_c0f1a0000009'").fetchall()
        parts = db.execute("select * from part where message_id >= 'msg_c0f1a0000009'").fetchall()
        db.execute("delete from part where message_id >= 'msg_c0f1a0000009'")
        db.execute("delete from message where id >= 'msg_c0f1a0000009'")
        db.execute("update session set revert = null")
    db.close()
    home = tmp_path / "rho"
    first = import_session(source, home=home)
    with closing(sqlite3.connect(database)) as db, db:
        db.executemany("insert into message values (?, ?, ?, ?, ?)", saved)
        db.executemany("insert into part values (?, ?, ?, ?, ?, ?)", parts)
    db.close()
    second = import_session(source, home=home)
    assert not second.created and second.added > 0
    assert read_session(first.transcript).tree.history() == open_session(source).tree.history()


def test_import_to_a_file(sessions: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "imported.jsonl"
    result = import_session(sessions["codex"], output=out)
    assert (
        result.transcript == out and result.receipt_path == tmp_path / "imported.jsonl.import.json"
    )
    assert read_session(out).tree.node_count == open_session(sessions["codex"]).tree.node_count
    assert import_session(sessions["codex"], output=out).noop


def test_a_file_named_for_another_id_is_refused(sessions: dict[str, Path], tmp_path: Path) -> None:
    with pytest.raises(InputError, match="does not match"):
        import_session(sessions["pi"], output=tmp_path / "100_other-id.jsonl")
    assert not (tmp_path / "100_other-id.jsonl").exists()


def test_a_rho_session_is_not_imported(tmp_path: Path) -> None:
    from ...conftest import RHO_FIXTURES

    with pytest.raises(InputError, match="not a session of Claude Code"):
        import_session(RHO_FIXTURES / "session-v3.jsonl", home=tmp_path)


def test_the_imported_session_moves_with_its_home(
    sessions: dict[str, Path], tmp_path: Path
) -> None:
    """The receipt is inside the session folder: moving or deleting the session takes it along."""
    home = tmp_path / "rho"
    result = import_session(sessions["gemini"], home=home)
    shutil.rmtree(result.transcript.parent)
    again = import_session(sessions["gemini"], home=home)
    assert again.created


def test_a_large_session_is_written_whole_in_pieces(tmp_path: Path) -> None:
    """A transcript of several MB is written as it is encoded, a piece at a time: every record
    arrives, in order, and the file reads back as the same tree."""
    source = tmp_path / "rollout-2026-03-01T10-00-00-019c2b7e-5a10-7c3d-9e21-4b8f6a2d1c99.jsonl"
    stamp = "2026-03-01T10:00:00.000Z"
    lines = [
        {
            "timestamp": stamp,
            "type": "session_meta",
            "payload": {
                "id": "019c2b7e-5a10-7c3d-9e21-4b8f6a2d1c99",
                "timestamp": stamp,
                "cwd": "/home/dev/big",
            },
        }
    ]
    for turn in range(400):
        text = f"turn {turn} " + "x" * 4000
        lines += [
            {
                "timestamp": stamp,
                "type": "response_item",
                "payload": {
                    "type": "message",
                    "role": "user",
                    "content": [{"type": "input_text", "text": f"prompt {turn}"}],
                },
            },
            {
                "timestamp": stamp,
                "type": "response_item",
                "payload": {
                    "type": "function_call",
                    "name": "shell",
                    "call_id": f"call_{turn}",
                    "arguments": "{}",
                },
            },
            {
                "timestamp": stamp,
                "type": "response_item",
                "payload": {
                    "type": "function_call_output",
                    "call_id": f"call_{turn}",
                    "output": text,
                },
            },
            {
                "timestamp": stamp,
                "type": "response_item",
                "payload": {
                    "type": "message",
                    "role": "assistant",
                    "content": [{"type": "output_text", "text": f"answer {turn}"}],
                },
            },
        ]
    source.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    out = tmp_path / "imported.jsonl"
    result = import_session(source, output=out)
    assert out.stat().st_size > 3 * 1024 * 1024  # many pieces
    session = read_session(out)
    built = open_session(source).tree
    assert session.tree.node_count == built.node_count == 400 == result.added
    assert session.tree.history() == built.history()
    assert [e.message for e in session.tree.display()] == [e.message for e in built.display()]


@pytest.mark.parametrize(
    ("session_id", "entry_id"),
    [("7d3e9a51-2b6c-4f08", "L12"), ("ses_x", ""), ("ünï", "ça/ø"), ("", "")],
)
def test_node_ids_are_the_name_based_uuids_earlier_imports_wrote(
    session_id: str, entry_id: str
) -> None:
    """What makes a re-import a no-op across versions: the same ids as ``uuid.uuid5`` gives."""
    assert node_id_for(session_id, entry_id) == str(
        uuid.uuid5(_NAMESPACE, f"{session_id}\x00{entry_id}")
    )


def test_the_digest_is_taken_beside_the_read_and_its_failure_is_told(
    sessions: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The source's digest is made in a thread of its own while the log is read: its value is
    the file's, and a digest that cannot be made fails the import (nothing written)."""
    import hashlib

    from rho_desk.core.agents import importer
    from rho_desk.core.errors import StorageError

    source = sessions["codex"]
    result = import_session(source, output=tmp_path / "a.jsonl")
    assert (
        result.receipt.source.digest == "sha256:" + hashlib.sha256(source.read_bytes()).hexdigest()
    )

    def unreadable(path: Path, agent: str) -> tuple[str, int]:
        raise StorageError(f"{path}: cannot read: planted")

    monkeypatch.setattr(importer, "source_digest", unreadable)
    with pytest.raises(StorageError, match="planted"):
        import_session(source, output=tmp_path / "b.jsonl")
    assert not (tmp_path / "b.jsonl").exists()


def test_the_transcript_is_its_records_encoded_line_by_line(tmp_path: Path) -> None:
    """What ``import`` writes is each record's JSON and a newline, in order, over many chunks."""
    from rho_desk.core.agents import build as build_module
    from rho_desk.core.agents import importer, read_log

    source = tmp_path / "rollout-2026-03-01T10-00-00-019c2b7e-5a10-7c3d-9e21-4b8f6a2d1c98.jsonl"
    stamp = "2026-03-01T10:00:00.000Z"
    lines: list[dict[str, object]] = [
        {"timestamp": stamp, "type": "session_meta",
         "payload": {"id": "019c2b7e-5a10-7c3d-9e21-4b8f6a2d1c98", "timestamp": stamp, "cwd": "/w"}},
    ]  # fmt: skip
    for turn in range(300):
        lines += [
            {"timestamp": stamp, "type": "response_item",
             "payload": {"type": "message", "role": "user",
                         "content": [{"type": "input_text", "text": f"prompt {turn} é\u202e"}]}},
            {"timestamp": stamp, "type": "response_item",
             "payload": {"type": "function_call", "name": "shell", "call_id": f"c{turn}",
                         "arguments": "{}"}},
            {"timestamp": stamp, "type": "response_item",
             "payload": {"type": "function_call_output", "call_id": f"c{turn}",
                         "output": f"out {turn} " + "y" * (turn * 37 % 5000)}},
        ]  # fmt: skip
    source.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    out = tmp_path / "imported.jsonl"
    old = importer._CHUNK
    importer._CHUNK = 64 * 1024  # many chunks, each of several records
    try:
        result = import_session(source, output=out)
    finally:
        importer._CHUNK = old
    built = build_module.build(read_log(source), session_id=result.receipt.session_id)
    expected = b"".join(msgspec.json.encode(r) + b"\n" for r in built.records)
    assert len(expected) > 20 * 64 * 1024
    assert out.read_bytes() == expected
