"""The recorder of continued turns: each write journalled in Rho's format before it is made, the
record moved onto the saved node, a failed turn's record left behind and read back as unsaved."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from rho_desk.core.cancellation import CancellationToken
from rho_desk.core.changes import CheckpointOutcome, CheckpointRecorder, session_changes
from rho_desk.core.changes.checkpoint import Absent, CapturedRegularFile, journal_path, read_journal
from rho_desk.core.changes.journal import changed_files_text
from rho_desk.core.errors import StorageError
from rho_desk.core.stores.rho_files import create_session
from rho_desk.core.tools import (
    EXCLUSIVE_ACCESS,
    PreparedCall,
    Tool,
    ToolContext,
    ToolError,
    ToolInvocation,
    ToolOutput,
)
from rho_desk.core.tools.observed import observe_tools
from rho_desk.core.tools.permissions import DenyAll, PermissionMode
from rho_desk.core.tools.setup import tool_setup
from rho_desk.core.tools.workspace import Workspace
from rho_desk.core.wire.model import (
    AssistantMessage,
    ContentBlock,
    Message,
    ModelIdentity,
    ToolSpec,
)
from rho_desk.core.wire.snapshot import SessionSnapshot

SESSION_ID = "3c1e0b6f-6d0a-4c3e-9b7a-2f1d9e8c7a55"
IDENTITY = ModelIdentity("openai", "chat-completions", "m")


def make_session(tmp_path: Path, workspace: Path) -> Path:
    history = (
        Message.user_text("hello"),
        Message.enriched(
            AssistantMessage(content=(ContentBlock(text="Hi."),), provenance=IDENTITY)
        ),
    )
    with create_session(
        tmp_path / "rho", str(workspace), SessionSnapshot.new(SESSION_ID, 1, history, IDENTITY)
    ) as writer:
        return writer.path


def context() -> ToolContext:
    return ToolContext(
        call_id="c1", cancellation=CancellationToken(), session_id=SESSION_ID, run_id="r"
    )


async def call(tool: Tool, name: str, arguments: dict[str, Any]) -> ToolOutput:
    prepared = await tool.prepare(ToolInvocation("c1", name, arguments), context())
    return await prepared.execute(context())


def tools_by_name(tools: Any) -> Mapping[str, Tool]:
    return {t.spec().name: t for t in tools}


class SpyWrite(Tool):
    """A ``write`` that, at the moment it writes, reads the journal as a crash would leave it."""

    def __init__(self, journal: Path) -> None:
        self.journal = journal
        self.seen: list[Any] = []

    def spec(self) -> ToolSpec:
        return ToolSpec("write", "", {})

    async def prepare(self, invocation: ToolInvocation, context: ToolContext) -> PreparedCall:
        async def execute(ctx: ToolContext) -> ToolOutput:
            self.seen.append(read_journal(self.journal).checkpoints)
            Path(invocation.arguments["path"]).write_text(invocation.arguments["content"])
            return ToolOutput("wrote")

        return PreparedCall(EXCLUSIVE_ACCESS, execute)


@pytest.mark.asyncio
async def test_the_record_is_in_the_journal_before_the_write_and_survives_a_failed_turn(
    tmp_path: Path,
) -> None:
    workspace = tmp_path / "project"
    workspace.mkdir()
    (workspace / "a.txt").write_text("before\n")
    session = make_session(tmp_path, workspace)
    journal = journal_path(session.parent)
    recorder = CheckpointRecorder(clock=lambda: 1_765_000_000)
    spy = SpyWrite(journal)
    (tool,) = observe_tools([spy], Workspace(workspace), recorder)
    recorder.begin_turn(session, SESSION_ID, 1)
    await call(tool, "write", {"path": str(workspace / "a.txt"), "content": "after\n"})
    # at the moment of the write the record was already durable, with the original content
    (at_write,) = spy.seen[0]
    assert at_write.outcome is CheckpointOutcome.FAILED
    original = at_write.files[0].original
    assert isinstance(original, CapturedRegularFile) and original.bytes == b"before\n"
    turn = recorder.end_turn(CheckpointOutcome.FAILED)  # the model call failed: nothing saved
    assert turn is not None and not turn.committed
    assert [(Path(f.path).name, f.action) for f in turn.changed] == [("a.txt", "modified")]
    assert "a.txt (modified)" in changed_files_text(turn, workspace) and str(
        journal
    ) in changed_files_text(turn, workspace)
    (record,) = read_journal(journal).checkpoints
    assert (
        record.files[0].expected_after != at_write.files[0].expected_after
    )  # after-state observed
    assert (
        oct(journal.stat().st_mode & 0o777) == "0o600"
        and oct(journal.parent.stat().st_mode & 0o777) == "0o700"
    )
    # the changes view lists it as an unsaved turn, with the exact before and after
    changes = session_changes(session)
    unsaved = changes.turns[-1]
    assert not unsaved.committed and unsaved.outcome is CheckpointOutcome.FAILED
    (change,) = unsaved.files
    assert (change.path, change.before, change.after) == ("a.txt", b"before\n", b"after\n")


@pytest.mark.asyncio
async def test_real_tools_bound_to_the_saved_node_and_unchanged_files_read_back(
    tmp_path: Path,
) -> None:
    workspace = tmp_path / "project"
    workspace.mkdir()
    (workspace / "notes.txt").write_text("alpha\nbeta\n")
    session = make_session(tmp_path, workspace)
    recorder = CheckpointRecorder()
    setup = tool_setup(PermissionMode.BYPASS, DenyAll("no"), cwd=str(workspace), observer=recorder)
    tools = tools_by_name(setup.tools)
    recorder.begin_turn(session, SESSION_ID, 1)
    await call(tools["write"], "write", {"path": "new.txt", "content": "fresh\n"})
    read = await call(tools["read_file"], "read_file", {"path": "notes.txt"})
    tag = read.content.splitlines()[0].rsplit("#", 1)[1].rstrip("]")
    await call(tools["edit"], "edit", {"input": f"[notes.txt#{tag}]\nPUT 2:\n+gamma\n"})
    await call(tools["bash"], "bash", {"command": "true"})
    assert (workspace / "notes.txt").read_text() == "alpha\ngamma\n"
    recorder.bind("node-7", 2)
    turn = recorder.end_turn(CheckpointOutcome.COMPLETED)
    assert turn is not None and turn.committed
    (record,) = read_journal(journal_path(session.parent)).checkpoints
    assert (record.node_id, record.revision, record.outcome) == (
        "node-7",
        2,
        CheckpointOutcome.COMPLETED,
    )
    assert [Path(f.path).name for f in record.files] == [
        "new.txt",
        "notes.txt",
    ]  # sorted, as a BTreeMap
    assert isinstance(record.files[0].original, Absent)
    assert [(e.kind, e.source) for e in record.limitations] == [("shell_command", "bash")]
    line = journal_path(session.parent).read_bytes()
    assert json.loads(line)["version"] == 1 and line.count(b"\n") == 1


@pytest.mark.asyncio
async def test_a_write_that_cannot_be_recorded_is_not_made(tmp_path: Path) -> None:
    workspace = tmp_path / "project"
    workspace.mkdir()
    session = make_session(tmp_path, workspace)
    journal = journal_path(session.parent)
    journal.parent.mkdir(mode=0o700)
    journal.write_bytes(
        b'{"version":1,"checkpoint":{"bad"}\n{"version":1}\n'
    )  # corrupt before the last line
    recorder = CheckpointRecorder()
    setup = tool_setup(PermissionMode.BYPASS, DenyAll("no"), cwd=str(workspace), observer=recorder)
    recorder.begin_turn(session, SESSION_ID, 1)
    with pytest.raises(ToolError, match="could not record the change before making it"):
        await call(tools_by_name(setup.tools)["write"], "write", {"path": "x.txt", "content": "x"})
    assert not (workspace / "x.txt").exists()
    assert recorder.end_turn(CheckpointOutcome.FAILED) is not None


def test_rebinding_onto_an_existing_node_is_refused_and_quota_holds(tmp_path: Path) -> None:
    workspace = tmp_path / "project"
    workspace.mkdir()
    (workspace / "f").write_text("1")
    session = make_session(tmp_path, workspace)
    first = CheckpointRecorder()
    first.begin_turn(session, SESSION_ID, 1)
    asyncio.run(first.before_mutation([workspace / "f"]))
    first.bind("taken", 2)
    first.end_turn(CheckpointOutcome.COMPLETED)
    second = CheckpointRecorder()
    second.begin_turn(session, SESSION_ID, 2)
    asyncio.run(second.before_mutation([workspace / "f"]))
    with pytest.raises(StorageError, match="already exists"):
        second.bind("taken", 3)
    second.end_turn(CheckpointOutcome.FAILED)
    assert len(read_journal(journal_path(session.parent)).checkpoints) == 2
    small = CheckpointRecorder(max_session_bytes=10)
    small.begin_turn(session, SESSION_ID, 3)
    with pytest.raises(StorageError, match="quota"):
        asyncio.run(small.before_mutation([workspace / "f"]))


@pytest.mark.asyncio
async def test_a_refused_write_leaves_no_change_and_a_flat_session_is_tracked_in_memory(
    tmp_path: Path,
) -> None:
    workspace = tmp_path / "project"
    workspace.mkdir()
    (workspace / "a.txt").write_text("same\n")
    session = make_session(tmp_path, workspace)
    recorder = CheckpointRecorder()
    setup = tool_setup(
        PermissionMode.SUPERVISED, DenyAll("no terminal"), cwd=str(workspace), observer=recorder
    )
    recorder.begin_turn(session, SESSION_ID, 1)
    with pytest.raises(ToolError, match="denied"):
        await call(
            tools_by_name(setup.tools)["write"], "write", {"path": "a.txt", "content": "other\n"}
        )
    turn = recorder.end_turn(CheckpointOutcome.FAILED)
    assert turn is not None and turn.files == () and changed_files_text(turn) == ""
    assert read_journal(journal_path(session.parent)).checkpoints == ()  # no record of a non-change
    # a legacy flat file has no journal (as upstream): the turn is tracked, nothing is written
    flat = tmp_path / "1_legacy.jsonl"
    flat.write_text("")
    recorder.begin_turn(flat, SESSION_ID, 1)
    await recorder.before_mutation([workspace / "a.txt"])
    (workspace / "a.txt").write_text("changed\n")
    await recorder.after_mutation([workspace / "a.txt"])
    turn = recorder.end_turn(CheckpointOutcome.FAILED)
    assert (
        turn is not None
        and turn.journal is None
        and [f.action for f in turn.changed] == ["modified"]
    )
