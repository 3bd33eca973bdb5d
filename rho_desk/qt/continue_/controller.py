"""Continuing a conversation in the window: the engine session, its runs, and saving every commit.

:class:`ContinueController` owns the embedded engine for the open session file:

* **Restore**: on the first prompt it builds a ``Rho`` runtime on the chosen provider profile
  (key read off the GUI thread) and opens a session with ``SessionOptions.from_snapshot`` of the
  active revision, as Rho resumes it. The same engine session carries the next turns; each turn
  gets a fresh provider (``Session.replace_provider``) and the compactor and automatic policy of
  the settings (``Session.set_compaction``), and closes them when it ends.
* **Replay safety**: before sending, the provider's handoff report says which provider-native
  blocks of the history it will not be sent. When there are any and the user has not accepted
  them for this session and provider identity, nothing is sent: ``sig_handoff_required`` shows
  the report and :meth:`confirm_handoff` sends.
* **Runs**: the turn is driven by :class:`~rho_desk.core.session.turn.TurnDriver`, as
  ``rho-desk continue`` drives it: it decides what is saved and when, which tool calls changed
  files, and keeps the checkpoint journal. Its events (text and reasoning deltas, tool activity,
  automatic compaction, saves, the end) stream out as one typed signal, ``sig_turn_event``.
  Cancel requests cooperative cancellation: the engine commits the user message and the aborted
  turn (seed contract), and that commit is saved.
* **Tools**: the model may use Rho's coding tools in the session's recorded folder (header
  ``cwd``), under the permission mode of the profile or the one chosen for this session
  (default ``supervised``). When the folder is gone, nothing is sent: ``sig_workspace_missing``
  offers :meth:`choose_workspace` or :meth:`continue_without_tools`. The folder must be one the
  user trusts for tools on this machine: otherwise ``sig_workspace_untrusted`` asks, and
  :meth:`trust_workspace` remembers the answer. The engine, tools, replay-safety report and
  compaction policy are set up by ``open_continuation``, as ``rho-desk continue`` sets them up. The controller is the
  tools' approver: ``sig_approval_requested`` shows a card and :meth:`answer_approval` answers
  it; cancelling the turn withdraws it (``sig_approval_closed``). A running shell call's output
  streams as ``ToolOutput`` events.
* **Saving**: after *every* commit (run completion, cancellation commit, each automatic
  compaction) the driver appends the snapshot through the document (``acommit``) before a
  ``Saved`` event says so. Before each append the active revision must still be the one the
  engine continued from.
* **Conflicts**: when Rho (or anything else) wrote to the session meanwhile, nothing is
  overwritten. The unsaved state is kept and ``sig_conflict`` offers :meth:`reload` (drop the
  unsaved turn and continue from the file's newest revision; the prompt is given back) or
  :meth:`fork` (keep it: a branch from the revision it grew from in a v4 tree, a new session
  file for a v1-v3 line).

Every task runs through the bridge (closing the window cancels it and the run with it); the
controller never blocks the GUI thread and never spins an event loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import functools
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal

from ...core.errors import Cancelled, InputError, RevisionConflict, error_text
from ...core.revisions.edits import acommit
from ...core.stores.rho_files import create_session, default_prompt_cache_key
from ...core.tools.permissions import (
    ApprovalChoice,
    ApprovalDecision,
    ApprovalRequest,
    PermissionMode,
)
from ...core.wire import SessionSnapshot
from ..services.bridge import in_thread
from ..services.context import OperationHost
from ..services.document import ReloadInfo
from ..services.messages import Notice
from ..services.outcomes import OpChanges
from ..services.settings import (
    PREFS_CONTINUE_PROFILE,
    auto_compaction_from_settings,
    remember_tool_folder,
    tool_folder_for,
)
from ..ui.text import revision_words

if TYPE_CHECKING:
    from ...core.changes import CheckpointRecorder
    from ...core.provider.handoff import HandoffReport
    from ...core.session import Rho, Run, Session
    from ...core.session.turn import TurnDriver, TurnEvent
    from ...core.tools.setup import ToolSetup
    from ...core.usage.writer import UsageRecording
    from ...providers.continuation import Continuation

# The engine, the tools and the checkpoint journal load with the first turn, not with the window
# (``tests/qt/test_launch.py`` holds the window's first paint to that).

__all__ = ["ConflictInfo", "ContinueController", "TurnState"]


class TurnState(enum.Enum):
    """What the controller is doing."""

    IDLE = "idle"  # ready for a prompt
    PREPARING = "preparing"  # reading the key, restoring the session
    RUNNING = "running"  # a run streams
    CANCELLING = "cancelling"  # cancel requested; waiting for the cancellation commit
    BLOCKED = "blocked"  # a conflict waits for reload or fork


@dataclass(frozen=True, slots=True)
class ConflictInfo:
    """Why continuing stopped, and what is at stake."""

    message: str
    unsaved: bool
    """The engine holds a committed turn the file does not have (fork keeps it)."""
    base_revision: int | None
    """The revision the engine continued from."""


class ContinueController(QObject):
    """Runs the conversation of the open document (see the module docstring).

    Signals:
        sig_state_changed(object): the :class:`TurnState` changed.
        sig_turn_event(object): what the turn does, one
            :data:`~rho_desk.core.session.turn.TurnEvent` at a time, from ``TurnStarted`` to
            ``TurnEnded`` (also sent alone when a turn ends before its run started).
        sig_handoff_required(object, str): the :class:`HandoffReport` and the provider identity.
        sig_conflict(object): a :class:`ConflictInfo` (``None`` when resolved).
        sig_prompt_returned(str): a prompt that was not kept (reload): put it back in the composer.

    Args:
        host: the action host (bridge, document, settings, notifier, profiles).
    """

    sig_state_changed = Signal(object)
    """The :class:`TurnState` changed."""
    sig_turn_event = Signal(object)
    """One :data:`~rho_desk.core.session.turn.TurnEvent`: the turn started, streamed, called a
    tool, compacted, saved, ended."""
    sig_handoff_required = Signal(object, str)
    """Provider blocks would be dropped: ``(HandoffReport, identity)``; confirm to send."""
    sig_conflict = Signal(object)
    """A :class:`ConflictInfo`, or ``None`` once resolved."""
    sig_prompt_returned = Signal(str)
    """A prompt whose turn was dropped; the composer takes it back."""
    sig_workspace_missing = Signal(str)
    """The session's folder is gone (the message); choose a folder or continue without tools."""
    sig_workspace_untrusted = Signal(object)
    """The tools' folder is not trusted (a ``WorkspaceUntrusted``) or never may be (a
    ``WorkspaceRefused``); nothing was sent: :meth:`trust_workspace`, :meth:`choose_workspace`,
    :meth:`continue_without_tools`, or keep the prompt (:meth:`decline_handoff`)."""
    sig_approval_requested = Signal(object)
    """An :class:`ApprovalRequest` waits for :meth:`answer_approval`."""
    sig_approval_closed = Signal(str)
    """The approval for this call id was answered or withdrawn."""

    def __init__(self, host: OperationHost, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.host = host
        self.document = host.document
        self.state = TurnState.IDLE
        self.rho: Rho | None = None
        self.session: Session | None = None
        self.base_id: str | None = None
        """Node id of the revision the engine session is at (what it continues from)."""
        self.path: Path | None = None
        self.driver: TurnDriver | None = None
        """The running turn's driver (it saves the turn's commits; :meth:`cancel` reaches it)."""
        self.profile_name: str | None = None
        self.identity: str | None = None
        self.unsaved: SessionSnapshot | None = None
        self.conflict: ConflictInfo | None = None
        self.pending_prompt: str | None = None
        self.last_prompt: str | None = None
        self.external_change = False
        self._confirmed: set[tuple[str, str]] = set()
        self._task: asyncio.Task[Any] | None = None
        self._saving = False
        self.tools_override: PermissionMode | None = None
        """The permission mode chosen for this session (``None``: the profile's, else supervised)."""
        self.workspace_choice: str | None = None
        """A folder chosen for the tools because the recorded one is gone."""
        self.tools: ToolSetup | None = None
        self.continuation: Continuation | None = None
        """The last turn's engine, tools and checks (its engine carries the next turn)."""
        self._trust_next = False
        self.turn_mode: PermissionMode | None = None
        """The mode the last turn ran under."""
        self._approval: tuple[ApprovalRequest, asyncio.Future[ApprovalDecision]] | None = None
        self._session_approvals: dict[tuple[str, str], tuple[frozenset[Path], frozenset[str]]] = {}
        """(session file, tools folder) -> the approvals given "for this session" there, kept while
        the app runs: switching to another session and back, or an undo, does not forget them
        (never written to disk: a restart asks again)."""
        self._journal: CheckpointRecorder | None = None
        self._failure: Notice | None = None
        """The notice of the last failed turn, withdrawn once a turn succeeds."""
        self.carrying_over = False
        """A fork is opening the new session this conversation goes on in."""
        self._open_path: Path | None = host.document.path
        self._usage_warned: Path | None = None
        """The session whose unwritten usage ledger was last reported (said once per session)."""
        self._question: Callable[[], object] | None = None
        """What the turn that just ended asks (the replay-safety question, a missing or untrusted
        folder), asked once the turn is over: every answer starts a turn, which one still
        running would refuse."""
        host.document.open_guard = self._refuse_open_while_busy
        self.document.sig_reloaded.connect(self._on_document_reloaded)
        self.document.sig_loaded.connect(self._on_document_loaded)
        self.document.sig_closed.connect(self._on_document_closed)

    @staticmethod
    def _usage_recording(path: Path | None, cwd: str | None) -> UsageRecording | None:
        """Where the turn's requests are recorded: the usage ledger of the session's Rho home."""
        from ...core.usage.writer import recording_for_session

        return recording_for_session(path, workspace=cwd)

    def _report_unrecorded_usage(self) -> None:
        """Say once per session when the ledger could not be written (the turn went on)."""
        recording = self.rho.config.usage_recording if self.rho is not None else None
        if recording is None or not recording.diagnostics or self._usage_warned == self.path:
            return
        self._usage_warned = self.path
        self.host.notifier.warning(
            f"This session's spend is not recorded in the usage ledger: {recording.diagnostics[-1]}"
        )

    @property
    def run(self) -> Run | None:
        """The running turn's run, if a turn runs."""
        return self.driver.run if self.driver is not None else None

    @property
    def _recorder(self) -> CheckpointRecorder:
        """Journals every write of a turn before it is made (the session's checkpoint journal)."""
        if self._journal is None:
            from ...core.changes import CheckpointRecorder

            self._journal = CheckpointRecorder()
        return self._journal

    # -- state -----------------------------------------------------------------------------------

    @property
    def busy(self) -> bool:
        return self.state in (TurnState.PREPARING, TurnState.RUNNING, TurnState.CANCELLING)

    def _set_state(self, state: TurnState) -> None:
        if state is not self.state:
            self.state = state
            self.sig_state_changed.emit(state)

    # -- sending -----------------------------------------------------------------------------------

    def send(self, text: str, *, profile: str | None = None, confirmed: bool = False) -> bool:
        """Start a turn for ``text`` (returns False when it cannot start now)."""
        if self.busy or not text.strip() or not self.document.is_open:
            return False
        if self.conflict is not None:
            self.sig_conflict.emit(self.conflict)
            return False
        if not self.host.claim("conversation"):
            self.host.notifier.warning(f"Wait until the {self.host.operation} has finished.")
            return False
        self.pending_prompt = text
        self._question = None
        self._set_state(TurnState.PREPARING)
        self._task = self.host.bridge.run(
            self._aturn(text, profile, confirmed),
            on_error=self._on_turn_error,
            on_success=self._on_turn_done,
            context="Continuing the conversation",
        )
        self._task.add_done_callback(self._on_turn_task_done)
        return True

    def confirm_handoff(self, text: str | None = None) -> bool:
        """Send the prompt that waited for the replay-safety confirmation (``text``: as edited since)."""
        text = text if text and text.strip() else self.pending_prompt
        return bool(text) and self.send(text or "", profile=self.profile_name, confirmed=True)

    def decline_handoff(self) -> None:
        """Keep the prompt; send nothing."""
        if self.pending_prompt:
            self.sig_prompt_returned.emit(self.pending_prompt)

    def cancel(self) -> None:
        """Stop the turn: cooperative cancellation (its commit is saved), or stop preparing."""
        if self.driver is not None and self.driver.run is not None:
            self._set_state(TurnState.CANCELLING)
            self.driver.cancel()
        elif self.state is TurnState.PREPARING and self._task is not None:
            self._task.cancel()

    async def _aturn(self, text: str, profile_name: str | None, confirmed: bool) -> str:
        document = self.document
        opened: Continuation | None = None
        try:
            tree = document.tree
            if tree is None or tree.active_leaf is None:
                raise InputError("no session revision to continue")
            if getattr(document, "agent", None) is not None:
                raise InputError(
                    "another agent's session is continued as a Rho session: press Ctrl+L to import it first"
                )
            leaf = tree.active_leaf
            if self.session is not None and (self.path != document.path or self.base_id != leaf.id):
                if self.external_change and self.path == document.path:
                    self._raise_conflict(
                        "Rho (or another program) wrote to this session since you continued it. Reload to "
                        "continue from its newest revision, or fork to continue from the one you had.",
                        unsaved=False,
                    )
                    self.sig_prompt_returned.emit(text)  # not sent: the composer keeps it
                    return "blocked"
                await self._adetach()  # our own change (compaction, edit, undo): restore afresh
            from ...core.tools.trust import WorkspaceRefused, WorkspaceUntrusted
            from ...core.tools.workspace import WorkspaceMissing
            from ...providers.continuation import open_continuation
            from ...providers.profiles import ProfileStore

            store: ProfileStore = self.host.profiles
            name = (
                profile_name
                if profile_name is not None
                else self.host.settings.get(PREFS_CONTINUE_PROFILE)
            )
            profile = await in_thread(store.get, name) if name else await in_thread(store.default)
            if profile is None:
                raise InputError("no provider profile is configured; add one in Settings (Ctrl+,)")
            self.profile_name = profile.name
            previous = self.continuation if self.session is not None else None

            async def restore() -> SessionSnapshot:
                return await document.arun_locked(tree.snapshot, leaf)

            trust_now, self._trust_next = self._trust_next, False
            try:
                turn = await open_continuation(
                    profile,
                    cwd=tree.header.cwd if tree.header is not None else None,
                    restore=restore,
                    approver=self,
                    tools=self.tools_override,
                    workspace=self.workspace_choice,
                    trust=self.host.trust,
                    trust_workspace=trust_now,
                    compaction=auto_compaction_from_settings(self.host.settings),
                    previous=previous,
                    session_file=str(document.path),
                    observer=self._recorder,
                    usage=self._usage_recording(
                        document.path, tree.header.cwd if tree.header is not None else None
                    ),
                )
            except WorkspaceMissing as exc:
                self._ask(self.sig_workspace_missing.emit, exc.message)
                return "workspace"
            except (WorkspaceUntrusted, WorkspaceRefused) as exc:
                self._ask(self.sig_workspace_untrusted.emit, exc)
                return "trust"
            opened = turn
            recorded = tree.header.cwd if tree.header is not None else None
            if self.workspace_choice is not None and recorded:
                # offered again for the next session of this workspace
                remember_tool_folder(self.host.settings, recorded, self.workspace_choice)
            self._restore_approvals(turn.tools)
            self.identity = turn.identity
            self.tools, self.turn_mode = turn.tools, turn.mode
            if turn.rebuilt:
                # A new engine: the first turn, or other tools or another folder on the same state.
                self.rho, self.session = turn.rho, turn.session
                if previous is None:
                    self.base_id, self.path = leaf.id, document.path
                    self.external_change = False
                document.attach_engine(turn.session, None)
            self.continuation = turn
            session = turn.session
            report: HandoffReport = turn.handoff
            key = (session.id, self.identity)
            if report.has_omissions() and key not in self._confirmed and not confirmed:
                self._ask(self.sig_handoff_required.emit, report, self.identity)
                return "handoff"
            self._confirmed.add(key)
            self.pending_prompt = None
            self.last_prompt = text
            return await self._arun(session, text)
        finally:
            self.driver = None
            if opened is not None:
                await opened.aclose_turn()
            self.host.release("conversation")

    async def _arun(self, session: Session, text: str) -> str:
        from ...core.changes.journal import changed_files_text
        from ...core.session import turn

        driver = turn.TurnDriver(
            self.document,
            self.base_id,
            recorder=self._recorder,
            hop=in_thread,
            check=self._check_save,
            saving=self._writing,
        )
        self.driver = driver
        async with contextlib.aclosing(
            driver.drive(session, text, session_file=self.document.path)
        ) as shown:
            async for event in shown:
                if isinstance(event, turn.TurnStarted):
                    self._set_state(TurnState.RUNNING)
                elif isinstance(event, turn.Saved):
                    self.base_id = event.node.id
                    self.host.bridge.emit_changes(self.document.note_written(event.node))
                elif isinstance(event, turn.SaveConflict):
                    self.unsaved = event.snapshot
                    self._raise_conflict(
                        "Rho (or another program) wrote to this session while you continued it. Your turn is kept "
                        "but not saved: reload (drops it) or fork (saves it as a branch or a new session).",
                        unsaved=True,
                        error=event.error,
                    )
                elif isinstance(event, turn.TurnEnded):
                    self.unsaved = driver.unsaved or self.unsaved
                    self._report_unrecorded_usage()
                    ended = event
                self.sig_turn_event.emit(event)
        outcome, detail = ended.outcome, ended.detail
        if outcome == "failed":
            # A fatal error commits nothing of the turn (seed contract): give the prompt back.
            root = self.tools.workspace.root if self.tools and self.tools.workspace else None
            changed = changed_files_text(ended.recorded, root) if ended.recorded is not None else ""
            note = (
                f" ({changed})"
                if changed
                else " (what the tools did to files stays done)"
                if ended.changed_files
                else ""
            )
            self._failed(
                self.host.notifier.error(
                    f"The model call failed; nothing of this turn was kept{note}: {detail}"
                )
            )
            self.sig_prompt_returned.emit(text)
        elif outcome == "completed":
            self._failed(None)
            if detail:
                self.host.notifier.warning(
                    f"The turn stopped early: {detail}. What it did is saved."
                )
        return outcome

    def _check_save(self) -> None:
        """The turn's commits belong to the file it continued: never written into another one."""
        if self.document.path != self.path:
            raise RevisionConflict("another session was opened; this turn was not saved")

    @contextlib.contextmanager
    def _writing(self) -> Iterator[None]:
        """Our own writes: the document's reload signals during them are not another program's."""
        self._saving = True
        try:
            yield
        finally:
            self._saving = False

    def _failed(self, notice: Notice | None) -> None:
        """Remember the notice of a failed turn; a later success (``None``) withdraws it."""
        previous, self._failure = self._failure, notice
        if previous is not None and previous is not notice:
            self.host.notifier.withdraw(previous)

    # -- tools -----------------------------------------------------------------------------------------

    def set_mode_override(self, mode: PermissionMode | None) -> None:
        """Choose the permission mode for this session (``None``: the profile's)."""
        self.tools_override = mode

    def choose_workspace(self, folder: str) -> bool:
        """Run the tools in ``folder`` (the recorded one is gone) and send the waiting prompt."""
        self.workspace_choice = folder
        text = self.pending_prompt
        return bool(text) and self.send(text or "", profile=self.profile_name)

    def remembered_workspace(self) -> str | None:
        """The folder chosen earlier for the tools of a session of this one's (missing) recorded
        folder, when it still exists."""
        tree = self.document.tree
        recorded = tree.header.cwd if tree is not None and tree.header is not None else None
        return tool_folder_for(self.host.settings, recorded) if recorded else None

    def trust_workspace(self) -> bool:
        """Trust the tools' folder on this machine and send the waiting prompt (a folder tools
        never run in stays refused: the turn asks again)."""
        self._trust_next = True
        text = self.pending_prompt
        return bool(text) and self.send(text or "", profile=self.profile_name)

    def continue_without_tools(self) -> bool:
        """Turn the tools off for this session and send the waiting prompt."""
        self.tools_override = PermissionMode.OFF
        text = self.pending_prompt
        return bool(text) and self.send(text or "", profile=self.profile_name)

    async def request(self, request: ApprovalRequest) -> ApprovalDecision:
        """The tools' approver: show a card and wait for :meth:`answer_approval`."""
        future: asyncio.Future[ApprovalDecision] = asyncio.get_running_loop().create_future()
        self._approval = (request, future)
        self.sig_approval_requested.emit(request)
        try:
            return await future
        finally:
            self._approval = None
            self.sig_approval_closed.emit(request.call_id)

    @property
    def pending_approval(self) -> ApprovalRequest | None:
        return self._approval[0] if self._approval is not None else None

    def answer_approval(self, choice: str | ApprovalChoice, reason: str = "") -> None:
        """Answer the waiting approval: ``allow_once``, ``allow_for_session`` or ``deny``."""
        if self._approval is None or self._approval[1].done():
            return
        choice = ApprovalChoice(choice)
        self._approval[1].set_result(
            ApprovalDecision(choice, reason.strip() if choice is ApprovalChoice.DENY else "")
        )

    # -- saving ------------------------------------------------------------------------------------

    def _raise_conflict(
        self, message: str, *, unsaved: bool, error: BaseException | None = None
    ) -> None:
        base = None
        tree = self.document.tree
        if tree is not None and self.base_id in tree.nodes:
            base = tree.nodes[self.base_id].revision
        self.conflict = ConflictInfo(message, unsaved, base)
        self._set_state(TurnState.BLOCKED)
        self.sig_conflict.emit(self.conflict)

    # -- resolving conflicts -------------------------------------------------------------------------

    def reload(self) -> asyncio.Task[OpChanges]:
        """Drop the engine's unsaved state and continue from the file's newest revision."""
        return self.host.bridge.run(self.areload(), context="Reloading the session")

    async def areload(self) -> OpChanges:
        prompt = self.last_prompt if self.unsaved is not None else None
        await self._adetach()
        self.unsaved = None
        self._clear_conflict()
        result = await self.document.areload(full=True)
        self.document.clear_conflict()
        if prompt:
            self.sig_prompt_returned.emit(prompt)
        changes = getattr(result, "changes", None)
        return (
            changes if isinstance(changes, OpChanges) else OpChanges(revisions=True, messages=True)
        )

    def fork(self) -> asyncio.Task[OpChanges]:
        """Keep the engine's state: a branch (v4) or a new session file (v1-v3)."""
        return self.host.bridge.run(self.afork(), context="Forking the conversation")

    async def afork(self) -> OpChanges:
        document = self.document
        base_id, unsaved = self.base_id, self.unsaved
        await document.areload(full=True)
        document.clear_conflict()
        tree = document.tree
        if tree is None:
            raise InputError("no session is open")
        base = tree.nodes.get(base_id) if base_id is not None else None
        if base is None:
            base = tree.active_leaf
        if base is None:
            raise InputError("the session has no revision to fork from", source=str(document.path))
        if unsaved is None:
            # Nothing unsaved: branch from the revision the conversation had reached.
            await self._adetach()
            self._clear_conflict()
            result = await document.afork(base)
            value = result.value
            if isinstance(value, Path):
                await self._aopen_fork(value)
                self.host.notifier.info(f"Forked into a new session: {value.parent.name}")
            return OpChanges(
                library=True, revisions=True, messages=True, document=isinstance(value, Path)
            )
        if tree.is_tree:
            node = await acommit(
                document, None, lambda writer: writer.fork(base, unsaved), hop=in_thread
            )
            self.unsaved = None
            self.base_id = node.id
            self.external_change = False
            self._clear_conflict()
            self.host.notifier.info(
                f"Your turn is saved on a new branch ({revision_words(document.tree, node)})"
            )
            return document.note_written(node)
        home = document.home or document.fork_home
        header = tree.header
        if home is None or header is None:
            raise InputError(
                "no Rho data directory to create the fork in", source=str(document.path)
            )
        new_id = str(uuid.uuid4())
        key = unsaved.prompt_cache_key
        if key == default_prompt_cache_key(unsaved.session_id):
            key = default_prompt_cache_key(new_id)
        snapshot = unsaved.replace(session_id=new_id, prompt_cache_key=key)

        def create() -> Path:
            writer = create_session(
                home,
                header.cwd,
                snapshot,
                agent_id=header.agent_id,
                agent_fingerprint=header.agent_fingerprint,
            )
            try:
                return writer.path
            finally:
                writer.close()

        async with self.host.bridge.exclusive():
            path = await in_thread(create)
        await self._adetach()
        self.unsaved = None
        self._clear_conflict()
        await self._aopen_fork(path)
        self.host.notifier.info(f"Your turn is saved in a new session: {path.parent.name}")
        return OpChanges(library=True, document=True, revisions=True, messages=True)

    async def _aopen_fork(self, path: Path) -> None:
        """Open the new session a fork made: the same conversation goes on there."""
        self.carrying_over = True
        try:
            await self.document.aopen(path)
        finally:
            self.carrying_over = False

    def _clear_conflict(self) -> None:
        if self.conflict is not None:
            self.conflict = None
            self.sig_conflict.emit(None)
        if self.state is TurnState.BLOCKED:
            self._set_state(TurnState.IDLE)

    # -- engine lifetime ------------------------------------------------------------------------------

    def _approvals_key(self, tools: ToolSetup) -> tuple[str, str] | None:
        path = self.path or self.document.path
        if path is None or tools.workspace is None:
            return None
        return str(path), str(tools.workspace.root)

    def _restore_approvals(self, tools: ToolSetup) -> None:
        key = self._approvals_key(tools)
        if key is not None and key in self._session_approvals:
            tools.authorizer.grant(self._session_approvals[key])

    def _forget_tools(self) -> None:
        tools = self.tools
        key = self._approvals_key(tools) if tools is not None else None
        if tools is not None and key is not None:
            self._session_approvals[key] = tools.authorizer.approvals()
        self.continuation = None
        self.tools = None
        self.tools_override = None
        self.workspace_choice = None

    async def _adetach(self) -> None:
        rho, self.rho = self.rho, None
        self._forget_tools()
        self.session = None
        self.base_id = None
        self.path = None
        self.external_change = False
        if rho is not None:
            rho.shutdown()
        if self.document.engine_session is not None:
            self.document.detach_engine()

    def detach(self) -> None:
        """Forget the engine session (no task needed: nothing to await when idle)."""
        if self.busy:
            return
        rho, self.rho = self.rho, None
        self._forget_tools()
        self.session = None
        self.base_id = None
        self.path = None
        self.unsaved = None
        self.external_change = False
        if rho is not None:
            rho.shutdown()
        self._clear_conflict()

    # -- outcomes and document signals -----------------------------------------------------------------

    def _ask(self, signal: Callable[..., object], *args: Any) -> None:
        """Ask the user ``signal(*args)`` once this turn has ended (see ``_question``)."""
        self._question = functools.partial(signal, *args)

    def _on_turn_done(self, how: str) -> None:
        if self.state is not TurnState.BLOCKED:
            self._set_state(TurnState.IDLE)
        question, self._question = self._question, None
        if question is not None:
            question()

    def _on_turn_task_done(self, task: asyncio.Task[Any]) -> None:
        """A turn cancelled while it prepared (Esc before anything was sent) ends like any other:
        the bridge reports no cancellation, and a task cancelled before it started never ran its
        own cleanup. One the window's closing cancelled ends without a word: what a turn's end
        sets off (the session list's refresh) would start work on the closed bridge."""
        if not task.cancelled():
            return
        self.host.release("conversation")
        if self.host.bridge.closed:
            self._question = None
            self._set_state(TurnState.IDLE)
            return
        self._on_turn_error(asyncio.CancelledError())

    def _on_turn_error(self, exc: BaseException) -> None:
        self._question = None
        if self.state is not TurnState.BLOCKED:
            self._set_state(TurnState.IDLE)
        if isinstance(exc, Cancelled | asyncio.CancelledError):
            self.sig_turn_event.emit(_ended("cancelled", ""))
            if self.pending_prompt:
                self.sig_prompt_returned.emit(self.pending_prompt)
            return
        text = error_text(exc)
        self.sig_turn_event.emit(_ended("failed", text))
        if self.pending_prompt:
            self.sig_prompt_returned.emit(self.pending_prompt)
        self._failed(self.host.notifier.show_exception(exc, context="Continuing the conversation"))

    def _on_document_reloaded(self, info: ReloadInfo) -> None:
        if self.session is None or self._saving:
            return
        if info.full or info.new_nodes or info.leaf_moved:
            self.external_change = True

    def _refuse_open_while_busy(self, path: Path | None) -> None:
        """The document's guard: no other session opens, and this one is not closed, while a turn
        runs (its commits belong to the open file; they are never written into another one)."""
        if self.busy:
            name = (
                self.document.path.parent.name if self.document.path is not None else "this session"
            )
            then = f"open {Path(path).name} again" if path is not None else "close it"
            raise InputError(
                f"a turn is running on {name}: cancel it (Esc) or let it finish, then {then}"
            )

    def _on_document_loaded(self) -> None:
        if self.document.path != self._open_path:
            # another session: nothing of the previous one's turn is offered any more, and its
            # failure notice (which only a later turn of that session would have withdrawn) goes
            self._open_path = self.document.path
            self.pending_prompt = None
            self.last_prompt = None
            self._failed(None)
        if self.path is not None and self.document.path != self.path:
            if self.driver is not None:
                self.driver.cancel()  # its commit can no longer be saved to the file it came from
            self.detach()

    def _on_document_closed(self) -> None:
        self._on_document_loaded()


def _ended(outcome: str, detail: str) -> TurnEvent:
    """The end of a turn that stopped before its run started (nothing was sent or saved)."""
    from ...core.session.turn import TurnEnded

    return TurnEnded(outcome, detail, "", None, False, None)
