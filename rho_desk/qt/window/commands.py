"""App-level commands: what the File, Library, Revision and Help actions do.

Handlers that belong to one view live in that view (find, J/K, expand); the ones here span
views or talk to the user: open a file (non-modal ``QFileDialog.open``), recent files, drag and
drop, reload, rename and move to trash (non-modal confirmation, then the library off-thread),
make a revision active, fork, theme, shortcuts help. Every dialog is opened with ``open()`` or
``show()`` and answered through its ``finished`` signal: no ``exec()``, no static
``QMessageBox`` call, no nested event loop (style.md practice 7).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QInputDialog,
    QLabel,
    QLineEdit,
    QMessageBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ... import __version__
from ...core.errors import InputError
from ...core.stores.summary import SessionSummary
from ...core.system.fsio import atomic_write
from ..conversation.row_cache import forget_rows
from ..services.bridge import in_thread
from ..services.outcomes import OpChanges, OpResult
from ..services.settings import PREFS_THEME
from ..ui.screen import fit_to_screen
from ..ui.text import plural

if TYPE_CHECKING:
    from ...core.stores.library import TrashEntry
    from ..services.bridge import EngineBridge
    from ..services.document import SessionDocument
    from ..services.library import LibraryService
    from ..services.messages import Notifier
    from ..services.settings import Settings
    from ..services.undo import UndoStack
    from ..ui.theme import ThemeManager
    from .actions import Actions

__all__ = ["Commands"]

_THEMES = ("system", "light", "dark")


class Commands:
    """The handlers of the app-level actions.

    Args:
        window: the parent of the dialogs these open; ``file.quit`` closes it.
        selected: the session selected in the browser, if any.
        recent_changed: called after a file joined the recent files.
    """

    def __init__(
        self,
        actions: Actions,
        *,
        window: QWidget,
        document: SessionDocument,
        library: LibraryService,
        bridge: EngineBridge,
        notifier: Notifier,
        settings: Settings,
        theme: ThemeManager,
        selected: Callable[[], SessionSummary | None],
        recent_changed: Callable[[], None],
        undo: UndoStack,
    ) -> None:
        self.actions = actions
        self.undo = undo
        """Edit ▸ Undo's stack: rename, move to trash and the trash window's changes join it."""
        self.window = window
        self.document = document
        self.library = library
        self.bridge = bridge
        self.notifier = notifier
        self.settings = settings
        self.theme = theme
        self._selected_summary = selected
        self._recent_changed = recent_changed
        self.dialog: QWidget | None = None
        """The last dialog opened (tests answer it)."""

    def attach(self) -> None:
        a = self.actions
        a.attach("file.open", self.open_dialog)
        a.attach("file.reload", lambda: self.document.reload(full=True))
        a.attach("file.close", self.close_document)
        a.attach("file.quit", self.window.close)
        a.attach("file.export_settings", self.export_settings_dialog)
        a.attach("file.import_settings", self.import_settings_dialog)
        a.attach("view.theme", self.cycle_theme)
        a.attach("revision.make_active", self.make_active)
        a.attach("revision.fork", self.fork)
        a.attach("help.shortcuts", self.show_shortcuts)
        a.attach("help.about", self.show_about)
        a.attach("library.rename", self.rename_selected)
        a.attach("library.trash", self.trash_selected)
        a.attach("library.trash_view", self.show_trash)
        a.attach("file.repair", self.repair)

    # -- files ------------------------------------------------------------------------------------------

    def open_path(self, path: Path) -> None:
        """Open ``path`` and remember it among the recent files once it loaded."""
        path = Path(path)

        def remember(result: object) -> None:
            self.settings.add_recent_file(str(path))
            self._recent_changed()

        self.bridge.run(
            self.document.aopen(path), on_success=remember, context=f"Opening {path.name}"
        )

    def open_dialog(self) -> None:
        start = str(self.library.home or Path.home())
        dialog = QFileDialog(
            self.window,
            "Open a session file",
            start,
            "Session files (*.jsonl *.json);;All files (*)",
        )
        dialog.setFileMode(QFileDialog.FileMode.ExistingFile)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.fileSelected.connect(lambda name: self.open_path(Path(name)))
        self.dialog = dialog
        dialog.open()

    def close_document(self) -> None:
        self.bridge.run(self.document.aclose(guarded=True), context="Closing the session")

    def repair(self) -> None:
        """Write a repaired copy of the open file beside it, open it, and show the report."""
        from ...core.stores.rho_files.repair import RepairReport, repair_session
        from ..recovery.view import RepairReportDialog

        path = self.document.path
        if path is None:
            return

        def done(report: RepairReport) -> None:
            if report.output is None:
                self.notifier.info(f"{path.name} loads cleanly: nothing to repair")
                return
            self.open_path(report.output)
            dialog = RepairReportDialog(report, self.window)
            self.dialog = dialog
            dialog.show()

        self.bridge.run_in_thread(
            repair_session, path, on_success=done, context=f"Repairing {path.name}"
        )

    # -- library ------------------------------------------------------------------------------------------

    def _selected(self) -> SessionSummary | None:
        return self._selected_summary()

    def rename_selected(self) -> None:
        summary = self._selected()
        if summary is None:
            return
        dialog = QInputDialog(self.window)
        dialog.setWindowTitle("Rename session")
        dialog.setLabelText("Title (stored in Rho's session index):")
        dialog.setTextValue(summary.title or summary.first_user_message or "")
        dialog.setTextEchoMode(QLineEdit.EchoMode.Normal)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.textValueSelected.connect(lambda text: self._rename(summary, text))
        self.dialog = dialog
        dialog.open()

    def _rename(self, summary: SessionSummary, title: str) -> None:
        library, before = self.library, summary.title

        def renamed(_result: object) -> None:
            self.notifier.info(f"Renamed to “{title.strip()}”")
            label = f"Rename to “{title.strip()[:60]}”"
            if before:  # Rho's index holds no empty title: a first title cannot be taken back
                self.undo.record(
                    label, lambda: library.arename(summary.workspace_key, summary.id, before)
                )
            else:
                self.undo.record(label)

        self.bridge.run(
            library.arename(summary.workspace_key, summary.id, title, agent=summary.agent),
            on_success=renamed,
            context="Renaming",
        )

    def show_trash(self) -> None:
        from ..recovery.view import TrashDialog

        dialog = TrashDialog(self.library, self.bridge, self.notifier, self.window, undo=self.undo)
        self.dialog = dialog
        dialog.show()

    def trash_selected(self) -> None:
        summary = self._selected()
        if summary is None:
            return
        name = summary.title or summary.first_user_message or summary.id[:8]
        box = QMessageBox(
            QMessageBox.Icon.Question,
            "Move to trash",
            f"Move “{name[:80]}” to rho-desk's trash?",
            QMessageBox.StandardButton.Cancel,
            self.window,
        )
        box.setInformativeText(
            "The session folder moves out of Rho's data directory; its row leaves the index. "
            "You can restore it from Library ▸ Deleted Sessions."
        )
        delete = box.addButton("Move to Trash", QMessageBox.ButtonRole.DestructiveRole)
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)

        def finished(_code: int) -> None:
            if box.clickedButton() is delete:
                self._trash(summary)

        box.finished.connect(finished)
        self.dialog = box
        box.open()

    def _trash(self, summary: SessionSummary) -> None:
        document = self.document

        async def run() -> OpResult[TrashEntry]:
            if document.path is not None and str(document.path) == summary.path:
                await document.aclose(guarded=True)  # release our own lease first
            result = await self.library.atrash(
                summary.workspace_key, summary.id, agent=summary.agent
            )
            await in_thread(forget_rows, Path(summary.path))
            return result

        label = (
            summary.title or " ".join((summary.first_user_message or "").split())[:80] or summary.id
        )
        library = self.library

        def moved(result: OpResult[TrashEntry]) -> None:
            self.notifier.info(
                f"Moved “{label}” to the trash (Edit ▸ Undo or Library ▸ Deleted Sessions restores it)"
            )
            entry = result.value.path
            self.undo.record(f"Move to Trash “{label[:60]}”", lambda: library.auntrash(entry))

        self.bridge.run(run(), on_success=moved, context="Moving to the trash")

    # -- revisions ------------------------------------------------------------------------------------------

    def make_active(self) -> None:
        document = self.document
        node = document.selected
        if node is None:
            return
        self.bridge.run(
            document.amake_active(node),
            context="Making the revision active",
            on_success=lambda r: (
                r.value and self.notifier.info(f"Revision {node.revision} is now the active one")
            ),
        )

    def fork(self) -> None:
        document = self.document
        node = document.selected
        if node is None:
            return

        def done(result: OpResult[Any]) -> None:
            value = result.value
            if isinstance(value, Path):
                self.notifier.info(
                    f"Forked revision {node.revision} into a new session: {value.parent.name}"
                )
                self.open_path(value)
            else:
                self.notifier.info(
                    f"New branch from revision {node.revision}; it is now the active one"
                )

        self.bridge.run(document.afork(node), on_success=done, context="Forking")

    # -- settings export and import -------------------------------------------------------------------

    def export_settings_dialog(self) -> None:
        dialog = QFileDialog(
            self.window,
            "Export settings",
            str(Path.home() / "rho-desk-settings.json"),
            "Settings (*.json);;All files (*)",
        )
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        dialog.setDefaultSuffix("json")
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.fileSelected.connect(lambda name: self.export_settings(Path(name)))
        self.dialog = dialog
        dialog.open()

    def export_settings(self, path: Path) -> None:
        """Write every preference to ``path`` (atomically, off the GUI thread)."""
        # pydantic: loaded when used, not at start-up
        from ..services.settings_document import export_settings

        data = export_settings(self.settings)
        self.bridge.run(
            in_thread(atomic_write, path, data),
            on_success=lambda _r: self.notifier.info(f"Settings exported to {path.name}"),
            context="Exporting the settings",
        )

    def import_settings_dialog(self) -> None:
        dialog = QFileDialog(
            self.window, "Import settings", str(Path.home()), "Settings (*.json);;All files (*)"
        )
        dialog.setFileMode(QFileDialog.FileMode.ExistingFile)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.fileSelected.connect(lambda name: self.import_settings(Path(name)))
        self.dialog = dialog
        dialog.open()

    def import_settings(self, path: Path) -> None:
        """Apply the preferences in ``path`` (all of them, or none if the file is invalid)."""
        # pydantic: loaded when used, not at start-up
        from ..services.settings_document import import_settings

        async def read() -> bytes:
            try:
                return await in_thread(path.read_bytes)
            except OSError as exc:
                raise InputError(exc.strerror or type(exc).__name__, source=str(path)) from None

        def apply(data: bytes) -> None:
            keys = import_settings(self.settings, data, source=str(path))
            self.theme.set_preference(self.settings.get(PREFS_THEME))
            self.notifier.info(
                f"Imported {plural(len(keys), 'setting')} from {path.name}; "
                "some take effect the next time rho-desk starts"
            )
            self.bridge.emit_changes(OpChanges(settings=True))

        self.bridge.run(read(), on_success=apply, context=f"Importing {path.name}")

    # -- view ------------------------------------------------------------------------------------------

    def cycle_theme(self) -> None:
        settings = self.settings
        current = settings.get(PREFS_THEME)
        new = _THEMES[(_THEMES.index(current) + 1) % len(_THEMES)]
        settings.set(PREFS_THEME, new)
        self.theme.set_preference(new)
        self.notifier.info(f"Theme: {new}")
        self.bridge.emit_changes(OpChanges(settings=True))

    def show_shortcuts(self) -> None:
        rows = self.actions.shortcut_table()
        dialog = QDialog(self.window)
        dialog.setWindowTitle("Keyboard shortcuts")
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        table = QTableWidget(len(rows), 3)
        table.setHorizontalHeaderLabels(["Menu", "Action", "Shortcut"])
        table.setAccessibleName("Keyboard shortcuts")
        for r, values in enumerate(rows):
            for c, value in enumerate(values):
                table.setItem(r, c, QTableWidgetItem(value))
        table.resizeColumnsToContents()
        table.horizontalHeader().setStretchLastSection(True)
        table.verticalHeader().hide()
        table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(dialog.close)
        layout = QVBoxLayout(dialog)
        layout.addWidget(QLabel("Every action and its shortcut (J/K move through messages)."))
        layout.addWidget(table)
        layout.addWidget(buttons)
        fit_to_screen(dialog, 620, 640)
        self.dialog = dialog
        dialog.show()

    def show_about(self) -> None:
        box = QMessageBox(
            QMessageBox.Icon.Information,
            "About rho-desk",
            f"rho-desk {__version__}",
            QMessageBox.StandardButton.Close,
            self.window,
        )
        box.setInformativeText(
            "Inspect, compact, export and continue the sessions of the Rho coding agent.\n"
            "MIT licence. Qt for Python (LGPLv3), qasync, msgspec, markdown-it-py."
        )
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.dialog = box
        box.open()
