"""The operations on the open session that the dialogs and the continued conversation share.

:class:`SessionOperations` implements :class:`~rho_desk.qt.services.context.DialogHost` (and so
:class:`~rho_desk.qt.services.context.OperationHost`): the dialogs and the continue controller
receive it typed by those protocols, never by this class. It holds:

* the narrow services (bridge, document, settings, notifier, theme, library, team, provider
  profiles, trusted folders);
* one-operation-at-a-time: a compaction and a continued conversation never overlap
  (:meth:`~SessionOperations.claim`, :meth:`~SessionOperations.release`);
* the one way a dialog writes a revision (:meth:`~SessionOperations.acommit`), and the revision
  undo history of the open file: the dialogs' changes and each continued turn, undone and redone
  (:meth:`~SessionOperations.undo`, :meth:`~SessionOperations.redo`, a large restore asked first);
* after a continued turn, or any write to the open file: the session's card reconciled with what
  its file holds, the conversation shown at its end;
* the answers to a conflict (reload, fork), which the conflict banner offers.

``sig_undo_changed`` says when the Undo/Redo state may have changed; the session commands
(:mod:`rho_desk.qt.window.session_commands`) update the actions' text and enabled state.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QMessageBox, QWidget

from ...core.revisions.edits import acommit
from ...core.revisions.undo import LARGE_RESTORE_BYTES, NothingToUndo, RevisionHistory, UndoStatus
from ...core.stores.rho_files import RevisionNode, SessionWriter
from ...core.stores.summary import SessionSummary
from ..services.bridge import in_thread
from ..services.outcomes import OpChanges, OpResult
from ..ui.labels import human_bytes

if TYPE_CHECKING:
    from ...core.agents.importer import ImportResult
    from ...core.session.turn import TurnEvent
    from ...core.tools.trust import TrustStore
    from ...providers.profiles import ProfileSet, ProfileStore, ProviderProfile
    from ..continue_.controller import ContinueController
    from ..services.context import Services
    from ..services.document import SessionDocument

__all__ = ["SessionOperations", "arestore"]


async def arestore(
    history: RevisionHistory, document: SessionDocument, *, redo: bool = False
) -> OpResult[str]:
    """Undo (or redo) the last change of ``document`` and tell the views what moved (the restore
    itself is :mod:`rho_desk.core.revisions.edits`', shared with the command line).

    Raises:
        NothingToUndo: nothing to undo or redo, or the session moved on since.
        RevisionConflict: the file changed on disk (nothing written).
    """
    step = await (
        history.aredo(document, hop=in_thread) if redo else history.aundo(document, hop=in_thread)
    )
    return OpResult(step.label, document.note_written(step.node))


class SessionOperations(QObject):
    """What the app does to the open session (see the module docstring).

    Args:
        window: the parent of the question asked before a large restore.
        summary_for: the library's summary of a session file, if the browser lists it.
        show_end: show the conversation at its end the next time it is built.

    Signals:
        sig_undo_changed(): the Undo/Redo state may have changed.
    """

    sig_undo_changed = Signal()
    """Undo or redo became (un)available or changed its label."""

    def __init__(
        self,
        services: Services,
        *,
        window: QWidget,
        summary_for: Callable[[Path], SessionSummary | None],
        show_end: Callable[[], None],
    ) -> None:
        super().__init__(window)
        self.window = window
        self.bridge = services.bridge
        self.document = services.document
        self.settings = services.settings
        self.notifier = services.notifier
        self.theme = services.theme
        self.library = services.library
        self.team = services.team
        self._summary_for = summary_for
        self._show_end = show_end
        self._profiles: ProfileStore | None = None
        self.restore_box: QMessageBox | None = None
        """The open question before a large restore, if any."""
        self.continue_box: QMessageBox | None = None
        """The open question before an agent's session is continued as a Rho session, if any."""
        self.undo_stack = services.undo
        """Edit ▸ Undo's one stack: this file's revision changes and the window's other actions."""
        self.history = self.undo_stack.history
        self.undo_stack.sig_changed.connect(self.sig_undo_changed)
        self.operation: str | None = None
        """The long operation running now ("compaction", "conversation"), if any."""
        self.export_dir: Path | None = None
        self.controller: ContinueController | None = None
        """The continued conversation, once :meth:`follow` was given it."""
        self._turn_before: RevisionNode | None = None
        """The revision active when the running turn started (what undo returns to)."""
        self._turn_after: str | None = None
        """Node id of the running turn's last saved commit."""
        self._card_queued = False
        """A refresh of the open session's card is waiting to start."""

    def follow(self, controller: ContinueController) -> None:
        """Record each continued turn for undo and reconcile after it; follow the document's
        loads and the bridge's writes (connected once the controller and its views are)."""
        self.controller = controller
        controller.sig_turn_event.connect(self._on_controller_turn_event)
        self.document.sig_loaded.connect(self._on_document_loaded)
        self.document.sig_closed.connect(self._on_document_loaded)
        self.bridge.sig_operation_finished.connect(self._on_bridge_operation_finished)

    # -- one operation at a time ------------------------------------------------------------------------

    def claim(self, operation: str) -> bool:
        """Start a long operation unless another one runs."""
        if self.operation is not None:
            return False
        self.operation = operation
        return True

    def release(self, operation: str) -> None:
        if self.operation == operation:
            self.operation = None

    # -- shared services ---------------------------------------------------------------------------------

    @property
    def profiles(self) -> ProfileStore:
        """The provider profiles file (its module, with the provider stack, loads on first use)."""
        if self._profiles is None:
            from ...providers.profiles import ProfileStore

            self._profiles = ProfileStore()
        return self._profiles

    @property
    def trust(self) -> TrustStore:
        """The folders trusted for the model's tools (read at each use: Settings may revoke one)."""
        from ...core.tools.trust import TrustStore

        return TrustStore()

    async def aprofile_set(self) -> ProfileSet:
        """The profiles file (default profile included), read off the GUI thread."""
        return await in_thread(self.profiles.load)

    async def aprofiles(self) -> tuple[ProviderProfile, ...]:
        loaded = await self.aprofile_set()
        return tuple(loaded.profiles)

    def summary_for_open(self) -> SessionSummary | None:
        """The library's summary of the open file, if the browser lists it."""
        path = self.document.path
        if path is None:
            return None
        return self._summary_for(path)

    def open_data_dir(self, folder: Path) -> None:
        """List another Rho home (the settings dialog's data directory)."""
        self.document.fork_home = folder
        self.bridge.run(self.library.aopen(folder), context="Opening the data directory")

    # -- writing a revision ------------------------------------------------------------------------------

    async def acommit(
        self,
        label: str,
        produce: Callable[[SessionWriter], RevisionNode],
        *,
        base: str | None = None,
    ) -> OpResult[RevisionNode]:
        """The one way a dialog writes a revision: ``produce(writer)`` through
        :func:`~rho_desk.core.revisions.edits.acommit` (the active revision checked against ``base``, the
        writer and the tree lock held), recorded for undo as ``label``, and the views told.

        Raises:
            RevisionConflict: the session changed (nothing written).
        """

        def write(writer: SessionWriter) -> tuple[RevisionNode | None, RevisionNode]:
            return writer.tree.active_leaf, produce(writer)

        before, node = await acommit(self.document, base, write, hop=in_thread)
        if before is not None and before.id != node.id:
            self.history.record(label, before, node)
        return OpResult(node, self.document.note_written(node))

    # -- undo and redo ----------------------------------------------------------------------------------

    def undo_status(self) -> UndoStatus:
        """What Undo and Redo would do now: the window's last action while it is the last thing
        done (``services.undo``), else the open file's last revision change (nothing without a
        writable open session)."""
        if not self.document.is_open or self.document.read_only:
            revisions = UndoStatus()
        else:
            revisions = self.history.status(self.document.tree)
        top = self.undo_stack.top()
        if top is not None:
            return UndoStatus(top.label if top.undo is not None else None, revisions.redo)
        return revisions

    def cannot_undo(self) -> str | None:
        """The last thing done, when it cannot be undone (Edit ▸ Undo says so, disabled)."""
        top = self.undo_stack.top()
        return top.label if top is not None and top.undo is None else None

    def undo(self, on_success: Callable[[OpResult[str]], object] | None = None) -> None:
        """Undo the last thing done: the window's last action, or the open file's last revision
        change (restore the revision before it, see ``core/revisions/undo.py``)."""
        top = self.undo_stack.top()
        if top is None:
            self._step(False, "Undone", on_success)
            return
        if top.undo is None:
            self.notifier.info(f"{top.label} cannot be undone.")
            return
        if self.operation is not None:
            self.notifier.warning(f"Wait until the {self.operation} has finished.")
            return
        undo, stack = top.undo, self.undo_stack

        async def run() -> object:
            return await undo()

        def done(_result: object) -> None:
            stack.done_with(top)
            self.notifier.info(f"Undone: {top.label}")
            if on_success is not None:
                on_success(OpResult(top.label, OpChanges()))

        self.bridge.run(run(), on_success=done, context=f"Undoing {top.label}")

    def redo(self, on_success: Callable[[OpResult[str]], object] | None = None) -> None:
        self._step(True, "Redone", on_success)

    def _step(
        self, redo: bool, verb: str, on_success: Callable[[OpResult[str]], object] | None
    ) -> None:
        if self.operation is not None:
            self.notifier.warning(f"Wait until the {self.operation} has finished.")
            return
        word = "redo" if redo else "undo"

        def done(result: OpResult[str]) -> None:
            self.notifier.info(f"{verb}: {result.value}")
            self.sig_undo_changed.emit()
            if on_success is not None:
                on_success(result)

        def failed(exc: BaseException) -> None:
            if isinstance(exc, NothingToUndo):
                self.sig_undo_changed.emit()  # "nothing to undo" is not an error (style.md practice 4)
                return
            self.notifier.show_exception(exc, context=f"{verb.rstrip('e')}ing")

        def restore() -> None:
            self.bridge.run(
                arestore(self.history, self.document, redo=redo),
                on_success=done,
                on_error=failed,
                context=verb,
            )

        def sized(sizes: tuple[int, int | None]) -> None:
            size, current = sizes
            if size <= LARGE_RESTORE_BYTES:
                restore()
                return

            def declined() -> None:
                self.notifier.info(f"Nothing was written: the {word} was not confirmed.")

            self.confirm_large_restore(size, current, word, restore, declined)

        async def asizes() -> tuple[int, int | None]:
            """What the restore appends, and the file's size now (both read off the GUI thread)."""
            size = await self.history.arestore_size(self.document, redo=redo, hop=in_thread)
            path = self.document.path
            return size, (await in_thread(_file_size, path) if path is not None else None)

        self.bridge.run(asizes(), on_success=sized, on_error=failed, context=verb)

    def confirm_large_restore(
        self,
        size: int,
        current: int | None,
        word: str,
        proceed: Callable[[], object],
        declined: Callable[[], object],
    ) -> None:
        """Ask before a restore that appends a large copy of an earlier state (a v1-v3 line): a
        window-modal box (no nested event loop); ``proceed`` runs on Yes, ``declined`` otherwise."""
        now = human_bytes(current) if current is not None else "the file"
        box = QMessageBox(
            QMessageBox.Icon.Question,
            f"{word.capitalize()} rewrites a large state",
            f"This session is a version 1–3 line, which cannot point back to an earlier revision: "
            f"to {word}, rho-desk appends the whole earlier state again, about {human_bytes(size)} "
            f"(the file is {now} now). Nothing already written changes.\n\n{word.capitalize()} anyway?",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel,
            self.window,
        )
        box.setObjectName("LargeRestoreBox")
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)

        def finished(_code: int) -> None:
            if box.standardButton(box.clickedButton()) == QMessageBox.StandardButton.Yes:
                proceed()
            else:
                declined()

        box.finished.connect(finished)
        self.restore_box = box
        box.open()

    # -- another agent's session, continued as a Rho session ---------------------------------------------

    def import_home(self) -> Path:
        """Where an agent's session is imported to be continued: the listed Rho home, else Rho's."""
        from ...core.stores.rho_files.layout import rho_home

        return (
            self.library.home
            if self.library.is_open and self.library.home is not None
            else rho_home()
        )

    def continue_as_rho(self, then: Callable[[], object]) -> None:
        """Ask, then import the open agent's session as a Rho session (``core.agents.importer``),
        open that, and run ``then`` (show the composer). A window-modal box, no nested loop."""
        from ...core.agents.base import AGENT_LABELS

        agent = self.document.agent
        if agent is None or self.document.path is None:
            return
        home = self.import_home()
        label = AGENT_LABELS.get(agent, agent)
        box = QMessageBox(
            QMessageBox.Icon.Question,
            "Continue as a Rho session",
            f"This is a {label} session, which rho-desk only reads. To continue it, rho-desk imports it "
            f"as a Rho session into {home}: every message, tool call and its result, image, reasoning "
            "and compaction, with a receipt beside it of what was left out (rho-desk-import.json). "
            f"The {label} session itself is not changed; importing it again later adds only what is "
            "new.\n\nContinue as a Rho session?",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel,
            self.window,
        )
        box.setObjectName("ContinueAsRhoBox")
        box.button(QMessageBox.StandardButton.Yes).setText("Continue as a &Rho Session")
        box.setDefaultButton(QMessageBox.StandardButton.Yes)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)

        def finished(_code: int) -> None:
            if box.standardButton(box.clickedButton()) == QMessageBox.StandardButton.Yes:
                self.bridge.run(
                    self.aimport_open(home),
                    on_success=lambda _r: then(),
                    context=f"Importing the {label} session",
                )

        box.finished.connect(finished)
        self.continue_box = box
        box.open()

    async def aimport_open(self, home: Path) -> OpResult[ImportResult]:
        """Import the open agent's session into ``home`` (or bring an earlier import up to date),
        list it, and open the Rho session.

        Raises:
            InputError: nothing of another agent's is open, or its log is malformed.
            StorageError: the import could not be written (nothing half-written is left).
        """
        from ...core.agents.importer import import_session
        from ...core.errors import InputError

        source, agent = self.document.path, self.document.agent
        if source is None or agent is None:
            raise InputError("no other agent's session is open")
        result = await in_thread(import_session, source, home=home, agent=agent)
        changes = OpChanges(library=True)
        if self.library.is_open and self.library.home == home:
            async with self.bridge.exclusive():
                refreshed = await self.library.arefresh(
                    result.transcript.parent.parent.name
                )  # its workspace
            changes |= refreshed.changes
        changes |= await self.document.aopen(result.transcript)
        what = (
            "Already imported: nothing new"
            if result.noop
            else f"Imported as a Rho session ({result.added} revision{'s' * (result.added != 1)} written)"
        )
        self.notifier.info(f"{what}; {result.transcript.parent.name}")
        return OpResult(result, changes)

    # -- continued turns: undo, the session card, the conversation ----------------------------------------

    def _on_controller_turn_event(self, event: TurnEvent) -> None:
        from ...core.session import turn  # loaded with the first turn

        if isinstance(event, turn.TurnStarted):
            self._on_controller_turn_started(event.prompt)
        elif isinstance(event, turn.Saved):
            self._on_controller_saved(event.node)
        elif isinstance(event, turn.TurnEnded):
            self._on_controller_turn_finished(event.outcome, event.detail)

    def _on_controller_turn_started(self, _prompt: str) -> None:
        tree = self.document.tree
        self._turn_before = tree.active_leaf if tree is not None else None
        self._turn_after = None
        # the turn continues the active revision: show it from the start (not an older one
        # until the turn ends), at its end, where the new messages come
        if self._turn_before is not None and self.document.selected is not self._turn_before:
            self._show_end()
            self.document.select(self._turn_before)

    def _on_controller_saved(self, node: RevisionNode) -> None:
        """One undo step per turn, from the revision before it to its last commit (an automatic
        compaction inside the turn is part of it)."""
        before, history = self._turn_before, self.history
        if before is not None and before.id != node.id:
            if (
                self._turn_after is not None
                and history.done
                and history.done[-1].after == self._turn_after
            ):
                history.done.pop()  # the turn's earlier commit: the step now ends at this one
            history.record("Continued Turn", before, node)
            self._turn_after = node.id
            self.sig_undo_changed.emit()
        self._show_end()

    def _on_controller_turn_finished(self, how: str, _detail: str) -> None:
        self._turn_before = self._turn_after = None
        if how != "failed":
            self.refresh_card()

    def _on_bridge_operation_finished(self, changes: OpChanges, _initiator: object) -> None:
        # A write to the open file (a compaction, an edit, an undo or redo, a fork: its revisions
        # changed, or a new session was made and opened) moves its card: its count, its last
        # prompt, its date. Opening a file changes no card. A continued turn's card is
        # refreshed once, at the turn's end, not at each of its commits.
        written = (changes.revisions and not changes.document) or (
            changes.library and changes.document
        )
        if written and not (self.controller is not None and self.controller.busy):
            self.refresh_card()

    def refresh_card(self) -> None:
        """Reconcile the open session's workspace so its card shows what its file holds now."""
        document = self.document
        if (
            self._card_queued
            or not self.library.is_open
            or not document.is_open
            or document.read_only
        ):
            return
        self._card_queued = True
        self.bridge.run(self._arefresh_card(), context="Updating the session list")

    async def _arefresh_card(self) -> OpChanges:
        self._card_queued = False  # a write from now on asks again
        summary = self.summary_for_open()
        key = summary.workspace_key if summary is not None else None
        header = self.document.tree.header if self.document.tree is not None else None
        if key is None and header is not None:
            key = self.library.workspace_key(header.cwd)  # a new session (a fork) not listed yet
        async with self.bridge.exclusive():
            result = await self.library.arefresh(key)
        return result.changes

    def _on_document_loaded(self) -> None:
        path = self.document.path
        if path != self.history.path:
            self.undo_stack.reset(path)
        self.sig_undo_changed.emit()

    # -- conflicts --------------------------------------------------------------------------------------

    def resolve_reload(self) -> None:
        """Reload after a conflict: the conversation's own reload while it holds a turn, else the
        document read again in full."""
        c = self.controller
        if c is not None and (
            c.session is not None or c.unsaved is not None or c.conflict is not None
        ):
            c.reload()
        else:
            self.document.clear_conflict()
            self.document.reload(full=True)

    def resolve_fork(self) -> None:
        """Fork after a conflict: the conversation's own fork while it holds a turn, else the
        shown revision forked from the file as it is now (a new session is opened)."""
        c = self.controller
        if c is not None and (c.session is not None or c.unsaved is not None):
            c.fork()
        else:
            self.document.clear_conflict()

            async def fork_selected() -> OpChanges:
                await self.document.areload(full=True)
                node = self.document.selected
                if node is None:
                    return OpChanges()
                result = await self.document.afork(node)
                if isinstance(result.value, Path):
                    await self.document.aopen(result.value)
                return result.changes | OpChanges(document=True)

            self.bridge.run(fork_selected(), context="Forking")


def _file_size(path: Path) -> int | None:
    try:
        return path.stat().st_size
    except OSError:
        return None
