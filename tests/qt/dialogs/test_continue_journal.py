"""A turn continued in the window journals each write before making it; when the turn then fails,
the error names the files it changed, and the journal keeps them for the Changes view."""

from __future__ import annotations

from pathlib import Path

from rho_desk.core.changes import CheckpointOutcome, session_changes
from rho_desk.core.changes.checkpoint import journal_path, read_journal
from rho_desk.core.tools.permissions import PermissionMode

from ...providers.loopback import Loopback, Reply
from ..helpers import v3_session
from .conftest import until
from .test_continue_tools import _open, tool_reply


def test_a_failed_turn_names_the_files_it_changed(
    make_window, run, tmp_path: Path, loopback: Loopback, loopback_profile
) -> None:
    workspace = tmp_path / "project"
    workspace.mkdir()
    target = workspace / "notes.txt"
    target.write_text("alpha\n")
    path = v3_session(tmp_path / "home", cwd=str(workspace))
    context, controller, panel = _open(make_window, run, path, PermissionMode.BYPASS)
    loopback.queue(
        tool_reply("call_w", "write", {"path": "notes.txt", "content": "omega\n"}),
        Reply(
            status=401, body=b'{"error": {"message": "bad key", "type": "invalid_request_error"}}'
        ),
    )
    panel.composer.setPlainText("rewrite the notes")
    panel.send()
    run(until(lambda: not controller.busy))
    assert target.read_text() == "omega\n"
    journal = journal_path(path.parent)
    assert any(
        "nothing of this turn was kept" in n.text
        and "notes.txt (modified)" in n.text
        and str(journal) in n.text
        for n in context.notifier.history
    )
    (record,) = read_journal(journal).checkpoints
    assert record.outcome is CheckpointOutcome.FAILED
    unsaved = session_changes(path).turns[-1]
    assert not unsaved.committed and [(f.path, f.before, f.after) for f in unsaved.files] == [
        ("notes.txt", b"alpha\n", b"omega\n")
    ]
