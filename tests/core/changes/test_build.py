"""Changes per session, per turn, per file: reconstructed from tool calls, and from a journal."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from rho_desk.core.changes import (
    ChangeAction,
    ChangeSource,
    CheckpointOutcome,
    CheckpointRecorder,
    session_changes,
)
from rho_desk.core.changes.checkpoint import RestoreClassification
from rho_desk.core.changes.restore import (
    RestoreConflict,
    preview_restore,
    restore_file,
    undo_restore,
)
from rho_desk.core.stores.rho_files import read_session
from rho_desk.core.tools.trust import TrustStore

from .helpers import SESSION_ID, coding_session


def trusted(workspace: Path) -> TrustStore:
    """A trust store (beside ``workspace``) that trusts it for tools."""
    store = TrustStore(workspace.parent / "trust")
    store.trust(workspace)
    return store


def test_tool_calls_give_writes_hashline_edits_and_hidden_shell_changes(tmp_path: Path) -> None:
    workspace = tmp_path / "w"
    workspace.mkdir()
    path = coding_session(tmp_path / "rho", workspace)
    changes = session_changes(path)
    assert changes.journal is None and changes.turn_count == 4
    assert [t.turn for t in changes.turns] == [1, 2, 3, 4]
    (created,) = changes.turn(1).files  # type: ignore[union-attr]
    assert (created.path, created.action, created.before, created.after) == (
        "app.py",
        ChangeAction.CREATED,
        None,
        b"def main():\n    print('hi')\n",
    )
    (edited,) = changes.turn(2).files  # type: ignore[union-attr]
    assert edited.action is ChangeAction.MODIFIED and edited.source is ChangeSource.TOOL_CALLS
    assert edited.after == b"def main():\n    print('hello')\n"
    assert edited.call_ids == ("c3",)
    assert "-    print('hi')\n+    print('hello')\n" in edited.patch()
    turn3 = changes.turn(3)
    assert (
        turn3 is not None
        and not turn3.files
        and [h.command for h in turn3.hidden] == ["pytest -q && rm -rf build"]
    )
    (unknown,) = changes.turn(4).files  # type: ignore[union-attr]  # the refused write is not a change
    assert (
        unknown.action is ChangeAction.UNKNOWN
        and unknown.path == "README.md"
        and unknown.patch() == ""
    )
    assert "not in the session" in unknown.note
    assert list(changes.files()) == ["app.py", "README.md"]
    assert [c.turn for c in changes.files()["app.py"]] == [1, 2]
    assert changes.turn(2).message_index == 4  # type: ignore[union-attr]
    tree = read_session(path).tree
    assert tree.display(trimmed=False)[4].message.user is not None


def test_a_journal_turn_wins_and_restore_follows_rhos_rule_with_undo(tmp_path: Path) -> None:
    workspace = tmp_path / "w"
    workspace.mkdir()
    path = coding_session(tmp_path / "rho", workspace)
    leaf = read_session(path).tree.active_leaf
    assert leaf is not None
    # a turn continued in rho-desk edits app.py; its record is bound to a node of the session
    recorder = CheckpointRecorder()
    recorder.begin_turn(path, SESSION_ID, 4)
    asyncio.run(recorder.before_mutation([workspace / "app.py"]))
    (workspace / "app.py").write_text("print('third')\n")
    asyncio.run(recorder.after_mutation([workspace / "app.py"]))
    recorder.bind(leaf.id, leaf.revision)
    recorder.end_turn(CheckpointOutcome.COMPLETED)
    changes = session_changes(path)
    turn = changes.turn(4)
    assert (
        turn is not None and turn.outcome is CheckpointOutcome.COMPLETED and turn.node_id == leaf.id
    )
    journal_change = next(c for c in turn.files if c.source is ChangeSource.CHECKPOINT)
    assert (
        journal_change.before == b"def main():\n    print('hello')\n"
        and journal_change.after == b"print('third')\n"
    )
    assert any(c.path == "README.md" for c in turn.files)  # the derived change stays listed
    preview = preview_restore(journal_change, trusted(workspace), workspace=str(workspace))
    assert preview.classification is RestoreClassification.MODIFY
    assert "-print('third')\n" in preview.diff and "+    print('hello')\n" in preview.diff
    receipt = restore_file(preview, trusted(workspace))
    assert (workspace / "app.py").read_text() == "def main():\n    print('hello')\n"
    (workspace / "app.py").write_text("edited after the restore\n")
    with pytest.raises(RestoreConflict, match="changed since the restore"):
        undo_restore(receipt)  # never over a change made since
    assert (workspace / "app.py").read_text() == "edited after the restore\n"
    (workspace / "app.py").write_text("def main():\n    print('hello')\n")
    undo_restore(receipt)
    assert (workspace / "app.py").read_text() == "print('third')\n"
    # edited by someone since: no restore, and the stale preview cannot be applied either
    (workspace / "app.py").write_text("mine\n")
    assert (
        preview_restore(journal_change, trusted(workspace), workspace=str(workspace)).classification
        is RestoreClassification.CONFLICT
    )
    with pytest.raises(RestoreConflict):
        restore_file(preview, trusted(workspace))
    assert (workspace / "app.py").read_text() == "mine\n"


def test_a_record_of_an_earlier_turn_lands_on_it_and_the_turn_count_holds(tmp_path: Path) -> None:
    workspace = tmp_path / "w"
    workspace.mkdir()
    path = coding_session(tmp_path / "rho", workspace)
    tree = read_session(path).tree
    first = tree.path()[0]  # the node that saved turn 1
    recorder = CheckpointRecorder()
    recorder.begin_turn(path, SESSION_ID, 1)
    asyncio.run(recorder.before_mutation([workspace / "notes.md"]))
    (workspace / "notes.md").write_text("n\n")
    asyncio.run(recorder.after_mutation([workspace / "notes.md"]))
    recorder.bind(first.id, first.revision)
    recorder.end_turn(CheckpointOutcome.COMPLETED)
    changes = session_changes(path)
    assert changes.turn_count == 4
    assert sorted(c.path for c in changes.turn(1).files) == ["app.py", "notes.md"]  # type: ignore[union-attr]


def test_restore_of_a_reconstructed_creation_deletes_and_undo_recreates(tmp_path: Path) -> None:
    workspace = tmp_path / "w"
    workspace.mkdir()
    path = coding_session(tmp_path / "rho", workspace)
    (workspace / "app.py").write_text("def main():\n    print('hi')\n")  # as turn 1 left it
    created = session_changes(path).turn(1).files[0]  # type: ignore[union-attr]
    preview = preview_restore(created, trusted(workspace), workspace=str(workspace))
    assert preview.classification is RestoreClassification.DELETE
    receipt = restore_file(preview, trusted(workspace))
    assert not (workspace / "app.py").exists()
    undo_restore(receipt)
    assert (workspace / "app.py").read_text() == "def main():\n    print('hi')\n"
    # turn 2's reconstructed after-state is on disk only after turn 2
    assert (
        preview_restore(
            session_changes(path).turn(2).files[0], trusted(workspace), workspace=str(workspace)
        ).classification
        is RestoreClassification.CONFLICT
    )  # type: ignore[union-attr]
    unknown = session_changes(path).turn(4).files[0]  # type: ignore[union-attr]
    assert not preview_restore(unknown, trusted(workspace), workspace=str(workspace)).possible


def test_a_repeated_call_id_pairs_with_its_own_result(tmp_path: Path) -> None:
    """A stopped turn's unanswered call and the next turn's call share an id (providers reuse
    them): the result belongs to the later call, and the stopped one changed nothing known."""
    from rho_desk.core.stores.rho_files import create_session
    from rho_desk.core.wire.model import AbortedAssistant, ContentBlock, Message, ModelUsage
    from rho_desk.core.wire.snapshot import SessionSnapshot

    from .helpers import IDENTITY, assistant, result

    stopped = Message.aborted(
        AbortedAssistant(
            content=(ContentBlock.of_tool_call("dup", "write", {"path": "a.txt", "content": "A"}),),
            reasoning="",
            tool_calls=(),
            usage=ModelUsage(),
        )
    )
    history = (
        Message.user_text("write a"),
        stopped,
        Message.user_text("write b instead"),
        assistant(("dup", "write", {"path": "b.txt", "content": "B"})),
        result("dup", "created b.txt"),
    )
    with create_session(
        tmp_path / "rho", str(tmp_path / "w"), SessionSnapshot.new(SESSION_ID, 1, history, IDENTITY)
    ) as writer:
        path = writer.path
    changes = session_changes(path)
    assert [(t.turn, [f.path for f in t.files]) for t in changes.turns] == [(2, ["b.txt"])]
    assert changes.turn(2).files[0].action is ChangeAction.CREATED  # type: ignore[union-attr]


def test_restore_writes_only_inside_a_trusted_folder(tmp_path: Path) -> None:
    """A session file (or its journal) from elsewhere names the paths a restore would write:
    outside a folder trusted for tools nothing can be restored, and a preview made while it was
    trusted cannot be applied once the trust is revoked."""
    workspace = tmp_path / "w"
    workspace.mkdir()
    path = coding_session(tmp_path / "rho", workspace)
    (workspace / "app.py").write_text("def main():\n    print('hi')\n")  # as turn 1 left it
    created = session_changes(path).turn(1).files[0]  # type: ignore[union-attr]
    untrusted = preview_restore(
        created, TrustStore(tmp_path / "nobody-trusted-anything"), workspace=str(workspace)
    )
    assert not untrusted.possible and "not a folder trusted for tools" in untrusted.reason
    store = trusted(workspace)
    preview = preview_restore(created, store, workspace=str(workspace))
    assert preview.possible
    store.revoke(workspace)
    with pytest.raises(RestoreConflict, match="not a folder trusted"):
        restore_file(preview, store)
    assert (workspace / "app.py").exists()


def test_a_workspace_not_on_this_machine_is_named_as_the_reason(tmp_path: Path) -> None:
    """N6: Restore blamed "a system folder" (it judged /home, the nearest folder that exists) when
    the session's workspace, /home/maya/src/payments-api in the demo, is not on this machine."""
    workspace = tmp_path / "project"
    workspace.mkdir()
    path = coding_session(tmp_path / "rho", workspace)
    created = session_changes(path).turn(1).files[0]  # type: ignore[union-attr]
    gone = "/home/someone-else/src/payments-api"
    preview = preview_restore(created, trusted(workspace), workspace=gone)
    assert not preview.possible
    assert (
        preview.reason
        == f"the session's workspace {gone} is not on this machine, and a restore writes only there"
    )
    assert "system folder" not in preview.reason


def test_a_refused_shell_command_is_not_a_change_not_visible(tmp_path: Path) -> None:
    """N15: a command denied at its approval card never ran: it is not counted among the shell
    commands whose changes are not visible; one that ran (and failed) still is."""
    from rho_desk.core.stores.rho_files import create_session
    from rho_desk.core.wire.model import Message
    from rho_desk.core.wire.snapshot import SessionSnapshot

    from .helpers import IDENTITY, assistant, result

    history = (
        Message.user_text("clean up"),
        assistant(("r1", "bash", {"command": "rm -rf build"})),
        result("r1", "process capability denied: use the Makefile", ok=False),
        assistant(("r2", "bash", {"command": "make clean"})),
        result("r2", "exit status 2\nmake: *** No rule to make target 'clean'.", ok=False),
    )
    with create_session(
        tmp_path / "rho", str(tmp_path / "w"), SessionSnapshot.new(SESSION_ID, 1, history, IDENTITY)
    ) as writer:
        path = writer.path
    changes = session_changes(path)
    assert [(t.turn, [h.command for h in t.hidden]) for t in changes.turns] == [(1, ["make clean"])]
