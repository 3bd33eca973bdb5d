"""Where the action dialogs meet the app: their actions, shared state, the continue dock, the banner.

:class:`ActionHost` is built once by :func:`rho_desk.qt.app.build_context`, after the main
window. It attaches the actions that open a dialog or change the session (compact, export,
continue, edit, title and metadata, strip provider blocks, settings, undo, redo), opens each
dialog non-modally (one at a time per kind; ``show()``, never ``exec()``), and holds what the
dialogs share:

* the narrow services (bridge, document, settings, notifier, theme, library, provider profiles);
* the revision undo history of the open file (the dialogs' changes and each continued turn), and
  the Undo/Redo actions' state and text;
* after a continued turn: the session's card reconciled, the conversation shown at its end;
* one-operation-at-a-time: a compaction and a continued conversation never overlap;
* the continue dock (composer and live reply, bottom) and the conflict banner (top), added to the
  main window as dock widgets around its central layout.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, cast

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QDockWidget, QMessageBox, QSizePolicy, QWidget

from ...core.edits import LARGE_RESTORE_BYTES, NothingToUndo, RevisionHistory, UndoStatus, acommit
from ...core.errors import RevisionConflict
from ...core.stores.rho_files import RevisionNode, SessionWriter
from ...core.stores.summary import SessionSummary
from ..controllers.continue_session import ConflictInfo, ContinueController
from ..services.bridge import in_thread
from ..services.changes import Changes, OpResult
from ..views.composer import ContinuePanel
from .common import human_bytes
from .revisions import arestore
from .widgets import Banner

if TYPE_CHECKING:
    from ...core.tools.trust import TrustStore
    from ...providers.profiles import ProfileSet, ProfileStore, ProviderProfile
    from ..controllers.actions import Actions
    from ..services.context import Services
    from ..views.main_window import MainWindow

__all__ = ["ActionHost", "ConflictBanner"]


class ConflictBanner(Banner):
    """"The session changed on disk" with Reload, Fork and Dismiss.

    Signals:
        sig_reload_requested(), sig_fork_requested(), sig_dismissed()
    """

    sig_reload_requested = Signal()
    """Reload was clicked."""
    sig_fork_requested = Signal()
    """Fork was clicked."""
    sig_dismissed = Signal()
    """Dismiss was clicked."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("warning", parent)
        self.setObjectName("LibraryNotice")
        self.reload_button = self.add_button("&Reload", "Read the file again and continue from its newest revision (F5)")
        self.reload_button.setObjectName("ConflictReload")
        self.fork_button = self.add_button("F&ork", "Keep your side: a new branch (v4) or a new session (v1–v3)")
        self.fork_button.setObjectName("ConflictFork")
        self.dismiss_button = self.add_button("Dismiss")
        self.reload_button.clicked.connect(self.sig_reload_requested)
        self.fork_button.clicked.connect(self.sig_fork_requested)
        self.dismiss_button.clicked.connect(self.sig_dismissed)


class ActionHost(QObject):
    """The dialogs' side of the app (see the module docstring).

    Signals:
        sig_undo_changed(): the Undo/Redo state may have changed.
    """

    sig_undo_changed = Signal()
    """Undo or redo became (un)available or changed its label."""

    def __init__(self, window: MainWindow, actions: Actions, services: Services) -> None:
        super().__init__(window)
        self.window = window
        self.actions = actions
        self.bridge = services.bridge
        self.document = services.document
        self.settings = services.settings
        self.notifier = services.notifier
        self.theme = services.theme
        self.library = services.library
        self.team = services.team
        self._profiles: ProfileStore | None = None
        self.restore_box: QMessageBox | None = None
        """The open question before a large restore, if any."""
        self.history = RevisionHistory()
        self.operation: str | None = None
        """The long operation running now ("compaction", "conversation"), if any."""
        self.export_dir: Path | None = None
        self.dialogs: dict[str, QWidget] = {}

        self.controller = ContinueController(self, self)
        self.panel = ContinuePanel(self.controller, self)
        self.dock = QDockWidget("Continue conversation", self.window)
        self.dock.setObjectName("ContinueDock")
        self.dock.setWidget(self.panel)
        self.dock.setAllowedAreas(Qt.DockWidgetArea.BottomDockWidgetArea | Qt.DockWidgetArea.RightDockWidgetArea)
        self.window.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, self.dock)
        self.dock.hide()
        self.window.installEventFilter(self)  # keeps the dock's share when the window shrinks

        self.banner = ConflictBanner()
        self.banner.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)  # a strip, not a pane
        self.banner_dock = QDockWidget("Session changed on disk", self.window)
        self.banner_dock.setObjectName("ConflictDock")
        self.banner_dock.setTitleBarWidget(QWidget())
        self.banner_dock.setFeatures(QDockWidget.DockWidgetFeature.NoDockWidgetFeatures)
        self.banner_dock.setWidget(self.banner)
        self.window.addDockWidget(Qt.DockWidgetArea.TopDockWidgetArea, self.banner_dock)
        self.banner_dock.hide()

        self.banner.sig_reload_requested.connect(self.resolve_reload)
        self.banner.sig_fork_requested.connect(self.resolve_fork)
        self.banner.sig_dismissed.connect(self.banner_dock.hide)
        self.controller.sig_conflict.connect(self._on_controller_conflict)
        self._turn_before: RevisionNode | None = None
        """The revision active when the running turn started (what undo returns to)."""
        self._turn_after: str | None = None
        """Node id of the running turn's last saved commit."""
        self.controller.sig_turn_started.connect(self._on_controller_turn_started)
        self.controller.sig_saved.connect(self._on_controller_saved)
        self.controller.sig_turn_finished.connect(self._on_controller_turn_finished)
        self.document.sig_conflict_changed.connect(self._on_document_conflict_changed)
        self.document.sig_loaded.connect(self._on_document_loaded)
        self.document.sig_closed.connect(self._on_document_loaded)
        self.document.sig_tree_changed.connect(self._update_undo)
        self.sig_undo_changed.connect(self._update_undo)
        self._card_queued = False
        """A refresh of the open session's card is waiting to start."""
        # the window recomputes every action's enabled state after operations; refine ours after it
        self.bridge.sig_operation_finished.connect(self._on_bridge_operation_finished)
        self._attach()

    # -- actions --------------------------------------------------------------------------------------

    def _attach(self) -> None:
        a = self.actions
        a.attach("session.compact", lambda: self.show_dialog("compact"))
        a.attach("session.export", lambda: self.show_dialog("export"))
        a.attach("session.edit", lambda: self.show_dialog("edit"))
        a.attach("session.metadata", lambda: self.show_dialog("metadata"))
        a.attach("session.strip_provider", lambda: self.show_dialog("strip"))
        a.attach("edit.settings", lambda: self.show_dialog("settings"))
        a.attach("session.continue", self.show_continue)
        # Enabled only with a step to take, on top of the spec's document/writable flags; the
        # generic flag updates consult these too, so they cannot re-enable an empty Undo.
        a.attach("edit.undo", self.undo, enabled_when=lambda: bool(self._undo_status().undo))
        a.attach("edit.redo", self.redo, enabled_when=lambda: bool(self._undo_status().redo))
        self._update_undo()

    def dialog_factory(self, kind: str) -> Callable[[], QWidget]:
        from .compaction import CompactionDialog
        from .edit import EditMessagesDialog, MetadataDialog, StripProviderDialog
        from .export import ExportDialog
        from .settings import SettingsDialog

        factories: dict[str, Callable[[], QWidget]] = {
            "compact": lambda: CompactionDialog(self, self.window),
            "export": lambda: ExportDialog(self, self.window),
            "edit": lambda: EditMessagesDialog(self, self.window),
            "metadata": lambda: MetadataDialog(self, self.window),
            "strip": lambda: StripProviderDialog(self, self.window),
            "settings": lambda: SettingsDialog(self, self.window),
        }
        return factories[kind]

    def show_dialog(self, kind: str) -> QWidget:
        """Open the ``kind`` dialog non-modally (or raise the open one)."""
        current = self.dialogs.get(kind)
        if current is not None and current.isVisible():
            current.raise_()
            current.activateWindow()
            return current
        if current is not None:
            current.deleteLater()
        dialog = self.dialog_factory(kind)()
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        ident = id(dialog)
        dialog.destroyed.connect(lambda _obj=None, k=kind, d=ident: self._forget(k, d))
        self.dialogs[kind] = dialog
        dialog.show()
        return dialog

    def _forget(self, kind: str, ident: int) -> None:
        current = self.dialogs.get(kind)
        if current is not None and id(current) == ident:
            del self.dialogs[kind]

    def _dock_cap(self) -> int:
        """The continue dock's height: at most 28% of the window (270 px on a large one), so on a
        700 px laptop screen the conversation keeps the larger share, with several cards in view."""
        return max(150, min(270, self.window.height() * 28 // 100))

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if (watched is self.window and event.type() == QEvent.Type.Resize and self.dock.isVisible()
                and not self.dock.isFloating()
                and self.window.dockWidgetArea(self.dock) == Qt.DockWidgetArea.BottomDockWidgetArea):  # fmt: skip
            resized = cast(QResizeEvent, event)
            if resized.size().height() < resized.oldSize().height() and self.dock.height() > self._dock_cap():
                self.window.resizeDocks([self.dock], [self._dock_cap()], Qt.Orientation.Vertical)
        return False

    def show_continue(self) -> None:
        """Show the continue dock and put the cursor in the composer (Ctrl+L)."""
        if not self.dock.isVisible():
            self.dock.show()
            self.window.resizeDocks([self.dock], [self._dock_cap()], Qt.Orientation.Vertical)
        self.dock.raise_()
        self.panel.focus_composer()

    # -- shared services ---------------------------------------------------------------------------------

    def claim(self, operation: str) -> bool:
        """Start a long operation unless another one runs."""
        if self.operation is not None:
            return False
        self.operation = operation
        return True

    def release(self, operation: str) -> None:
        if self.operation == operation:
            self.operation = None

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
        return self.window.browser.summary_for(path)

    def open_data_dir(self, folder: Path) -> None:
        """List another Rho home (the settings dialog's data directory)."""
        self.document.fork_home = folder
        self.bridge.run(self.library.aopen(folder), context="Opening the data directory")

    # -- writing a revision ------------------------------------------------------------------------------

    async def acommit(self, label: str, produce: Callable[[SessionWriter], RevisionNode], *,
                      base: str | None = None) -> OpResult[RevisionNode]:  # fmt: skip
        """The one way a dialog writes a revision: ``produce(writer)`` through
        :func:`~rho_desk.core.edits.acommit` (the active revision checked against ``base``, the
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

    def undo(self, on_success: Callable[[OpResult[str]], object] | None = None) -> None:
        """Undo the last change: restore the revision before it (see ``core/edits.py``)."""
        self._step(False, "Undone", on_success)

    def redo(self, on_success: Callable[[OpResult[str]], object] | None = None) -> None:
        self._step(True, "Redone", on_success)

    def _step(self, redo: bool, verb: str, on_success: Callable[[OpResult[str]], object] | None) -> None:
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
                self._update_undo()  # "nothing to undo" is not an error (style.md practice 4)
                return
            self.notifier.show_exception(exc, context=f"{verb.rstrip('e')}ing")

        def restore() -> None:
            self.bridge.run(arestore(self.history, self.document, redo=redo), on_success=done, on_error=failed,
                            context=verb)  # fmt: skip

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

    def confirm_large_restore(self, size: int, current: int | None, word: str, proceed: Callable[[], object],
                              declined: Callable[[], object]) -> None:  # fmt: skip
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

    def _undo_status(self) -> UndoStatus:
        if not self.document.is_open or self.document.is_snapshot_document:
            return UndoStatus()
        return self.history.status(self.document.tree)

    def _update_undo(self) -> None:
        status = self._undo_status()
        for action_id, label, word in (("edit.undo", status.undo, "Undo"), ("edit.redo", status.redo, "Redo")):
            self.actions[action_id].setText(f"&{word} {label}" if label else f"&{word}")
        self.actions.refresh("edit.undo", "edit.redo")

    # -- continued turns: undo, the session card, the conversation ----------------------------------------

    def _on_controller_turn_started(self, _prompt: str) -> None:
        tree = self.document.tree
        self._turn_before = tree.active_leaf if tree is not None else None
        self._turn_after = None
        # the turn continues the active revision: show it from the start (not an older one
        # until the turn ends), at its end, where the new messages come
        if self._turn_before is not None and self.document.selected is not self._turn_before:
            self.window.conversation.show_end_on_next_build()
            self.document.select(self._turn_before)

    def _on_controller_saved(self, node: RevisionNode) -> None:
        """One undo step per turn, from the revision before it to its last commit (an automatic
        compaction inside the turn is part of it)."""
        before, history = self._turn_before, self.history
        if before is not None and before.id != node.id:
            if self._turn_after is not None and history.done and history.done[-1].after == self._turn_after:
                history.done.pop()  # the turn's earlier commit: the step now ends at this one
            history.record("Continued Turn", before, node)
            self._turn_after = node.id
            self.sig_undo_changed.emit()
        self.window.conversation.show_end_on_next_build()

    def _on_controller_turn_finished(self, how: str, _detail: str) -> None:
        self._turn_before = self._turn_after = None
        if how != "failed":
            self.refresh_card()

    def _on_bridge_operation_finished(self, changes: Changes, _initiator: object) -> None:
        self._update_undo()
        # A write to the open file (a compaction, an edit, an undo or redo, a fork: its revisions
        # changed, or a new session was made and opened) moves its card: its count, its last
        # prompt, its date. Opening a file changes no card. A continued turn's card is
        # refreshed once, at the turn's end, not at each of its commits.
        written = (changes.revisions and not changes.document) or (changes.library and changes.document)
        if written and not self.controller.busy:
            self.refresh_card()

    def refresh_card(self) -> None:
        """Reconcile the open session's workspace so its card shows what its file holds now."""
        document = self.document
        if self._card_queued or not self.library.is_open or not document.is_open or document.is_snapshot_document:
            return
        self._card_queued = True
        self.bridge.run(self._arefresh_card(), context="Updating the session list")

    async def _arefresh_card(self) -> Changes:
        self._card_queued = False  # a write from now on asks again
        summary = self.summary_for_open()
        key = summary.workspace_key if summary is not None else None
        header = self.document.tree.header if self.document.tree is not None else None
        if key is None and header is not None:
            key = self.library.workspace_key(header.cwd)  # a new session (a fork) not listed yet
        async with self.bridge.exclusive():
            result = await self.library.arefresh(key)
        return result.changes

    # -- conflicts --------------------------------------------------------------------------------------

    def _on_document_conflict_changed(self, conflict: RevisionConflict | None) -> None:
        if conflict is None:
            if self.controller.conflict is None:
                self.banner_dock.hide()
            return
        self._show_banner(
            "<b>This session changed on disk</b> since rho-desk read it (Rho, or another program, wrote to it). "
            "Nothing was overwritten. Reload (F5) to see the new revisions, or fork to keep working from yours."
        )

    def _on_controller_conflict(self, info: ConflictInfo | None) -> None:
        if info is None:
            if self.document.conflict is None:
                self.banner_dock.hide()
            return
        self._show_banner(f"<b>Continuing stopped.</b> {info.message}")

    def _show_banner(self, text: str) -> None:
        self.banner.text.setText(text)
        self.banner_dock.show()
        # as tall as its wrapped text at the window's width, no taller (a strip, not a pane)
        height = self.banner.heightForWidth(self.window.width())
        height = height if height > 0 else self.banner.sizeHint().height()
        self.banner_dock.setMaximumHeight(height + 2)
        self.window.resizeDocks([self.banner_dock], [height], Qt.Orientation.Vertical)

    def resolve_reload(self) -> None:
        self.banner_dock.hide()
        c = self.controller
        if c.session is not None or c.unsaved is not None or c.conflict is not None:
            c.reload()
        else:
            self.document.clear_conflict()
            self.document.reload(full=True)

    def resolve_fork(self) -> None:
        self.banner_dock.hide()
        c = self.controller
        if c.session is not None or c.unsaved is not None:
            c.fork()
        else:
            self.document.clear_conflict()

            async def fork_selected() -> Changes:
                await self.document.areload(full=True)
                node = self.document.selected
                if node is None:
                    return Changes()
                result = await self.document.afork(node)
                if isinstance(result.value, Path):
                    await self.document.aopen(result.value)
                return result.changes | Changes(document=True)

            self.bridge.run(fork_selected(), context="Forking")

    def _on_document_loaded(self) -> None:
        path = self.document.path
        if path != self.history.path:
            self.history.reset(path)
        if self.document.conflict is None and self.controller.conflict is None:
            self.banner_dock.hide()
        self._update_undo()


def _file_size(path: Path) -> int | None:
    try:
        return path.stat().st_size
    except OSError:
        return None
