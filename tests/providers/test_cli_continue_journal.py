"""``rho-desk continue`` journals every write before it is made; a failed turn names the files."""

from __future__ import annotations

from pathlib import Path

import pytest

from rho_desk.core.stores.rho_files import read_session

from .loopback import Loopback, Reply
from .test_cli_continue import make_session, rho_desk, text_reply, tool_reply


@pytest.mark.asyncio
async def test_a_failed_turn_names_and_journals_the_files_it_changed(
    server: Loopback, tmp_path: Path
) -> None:
    from rho_desk.core.changes.checkpoint import (
        CapturedRegularFile,
        CheckpointOutcome,
        journal_path,
        read_journal,
    )

    workspace = tmp_path / "project"
    workspace.mkdir()
    (workspace / "notes.txt").write_text("alpha\n")
    path = make_session(tmp_path, workspace)
    server.queue(
        tool_reply("call_1", "write", {"path": "notes.txt", "content": "gamma\n"}),
        Reply(status=401, body=b'{"error": {"message": "bad key"}}'),
    )
    base = ["--base-url", server.url + "/v1", "--model", "m", "--tools", "bypass"]
    status, _out, err = await rho_desk(
        tmp_path, "continue", str(path), "-m", "rewrite notes", *base
    )
    assert status == 1, err
    journal = journal_path(path.parent)
    assert "nothing of this turn was kept" in err
    assert (
        f"the turn changed 1 file, which stay changed: notes.txt (modified); recorded in {journal}"
        in err
    )
    assert (workspace / "notes.txt").read_text() == "gamma\n"
    assert (
        read_session(path).tree.snapshot().revision == 2
    )  # the history keeps nothing (seed contract)
    (record,) = read_journal(journal).checkpoints
    assert (
        record.outcome is CheckpointOutcome.FAILED
        and record.node_id not in read_session(path).tree.nodes
    )
    original = record.files[0].original
    assert isinstance(original, CapturedRegularFile) and original.bytes == b"alpha\n"
    status, out, err = await rho_desk(tmp_path, "changes", str(path))
    assert status == 0, err
    assert "unsaved turn (failed)\n  M notes.txt  +1 -1\n" in out
    # --json says it as an event; a completed turn binds its record to the saved node
    server.queue(
        tool_reply("call_2", "write", {"path": "notes.txt", "content": "delta\n"}),
        text_reply("Done."),
    )
    status, out, err = await rho_desk(
        tmp_path, "continue", str(path), "-m", "again", *base, "--json"
    )
    assert status == 0, err
    records = read_journal(journal).checkpoints
    leaf = read_session(path).tree.active_leaf
    assert leaf is not None and (records[-1].node_id, records[-1].outcome) == (
        leaf.id,
        CheckpointOutcome.COMPLETED,
    )
