"""Damaged sessions and deleted ones: the notice above a damaged or torn session, the repair
report, and the trash window.

* :class:`SessionNotice` sits above the open session's tabs. A damaged file (opened read-only up
  to its last good revision) gets a red notice naming the bad line and a **Repair…** button; a
  torn last line gets a yellow notice saying it was ignored, as Rho ignores it.
* :class:`RepairReportDialog` shows what a repair kept and dropped (``core`` writes the copy).
* :class:`TrashDialog` lists rho-desk's trash, restores a session (back into Rho's index, title
  included) and empties the trash after a confirmation.

The work itself is ``core``'s (``rho_files.repair``, ``stores.trash``); this module only shows it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from ...core.stores.trash import TrashItem, empty_trash, list_trash, restore
from ..services.bridge import in_thread
from ..services.outcomes import OpChanges, OpResult
from ..ui.resources import Icon, pixmap
from ..ui.screen import fit_to_screen
from ..ui.theme import Theme
from .trash_model import TrashModel

if TYPE_CHECKING:
    from ...core.stores.rho_files.repair import RepairReport
    from ..services.bridge import EngineBridge
    from ..services.document import SessionDocument
    from ..services.library import LibraryService
    from ..services.messages import Notifier
    from ..services.undo import UndoStack

__all__ = ["RepairReportDialog", "SessionNotice", "TrashDialog"]


class SessionNotice(QFrame):
    """What is wrong with the open file, if anything (hidden otherwise).

    Signals:
        sig_repair_requested(): the user clicked Repair.
    """

    sig_repair_requested = Signal()

    def __init__(self, theme: Theme, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("SessionNotice")
        self.level = ""
        self.mark = QLabel()
        self.text = QLabel()
        self.text.setWordWrap(True)
        self.text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.repair_button = QPushButton("Repair…")
        self.repair_button.setToolTip(
            "Write a repaired copy beside the file (the original is kept) and open it"
        )
        self.repair_button.setAccessibleName("Repair the damaged session")
        self.repair_button.clicked.connect(self.sig_repair_requested)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(12, 6, 12, 6)
        layout.addWidget(self.mark)
        layout.addWidget(self.text, 1)
        layout.addWidget(self.repair_button)
        self.theme = theme
        self.hide()

    def set_theme(self, theme: Theme) -> None:
        self.theme = theme
        self._paint()

    def show_document(self, document: SessionDocument) -> None:
        """Show the notice the open file deserves (or hide)."""
        damage, torn, tree = document.damage, document.torn, document.tree
        leaf = tree.active_leaf if tree is not None else None
        upto = (
            f"revision {leaf.revision}"
            if leaf is not None
            else "its header (no revision before it)"
        )
        if damage is not None:
            self.level = "error"
            self.text.setText(
                f"<b>This session is damaged at line {damage.line}</b>: {_escape(damage.reason)}. "
                f"It is open read-only, up to its last good revision ({upto}). "
                "Repair writes a copy that keeps every record that still fits."
            )
            self.repair_button.show()
        elif document.newer is not None:
            newer = document.newer
            self.level = "warning"
            self.text.setText(
                f"<b>Line {newer.line} was written by a newer Rho</b>: {_escape(newer.reason)}. "
                "The rest of the session reads as usual; it is open read-only, so that nothing "
                f"rho-desk writes contradicts it. The record:<br><code>{_escape(_elide(newer.raw))}</code>"
            )
            self.text.setToolTip(newer.raw)
            self.repair_button.hide()
        elif torn is not None:
            self.level = "warning"
            self.text.setText(
                f"<b>The last line ({torn.line}) is unfinished</b>: a write was cut short "
                f"({torn.length:,} bytes). It is ignored, as Rho ignores it; the session reads up to {upto}."
            )
            self.repair_button.hide()
        else:
            self.level = ""
            self.hide()
            return
        self.setAccessibleName(
            "Damaged session notice"
            if self.level == "error"
            else "Newer Rho record notice"
            if document.newer is not None and damage is None
            else "Torn last line notice"
        )
        self._paint()
        self.show()

    def _paint(self) -> None:
        t = self.theme
        background, edge = (
            (t.danger_soft, t.danger) if self.level == "error" else (t.warning_soft, t.warning)
        )
        self.setStyleSheet(
            f"#SessionNotice {{ background: {background}; border-bottom: 1px solid {edge}; }}"
            f" #SessionNotice QLabel {{ color: {t.text}; }}"
        )
        which = Icon.ERROR if self.level == "error" else Icon.WARNING
        self.mark.setPixmap(pixmap(which, edge, 16, self.devicePixelRatioF()))


def _elide(text: str, limit: int = 400) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


class RepairReportDialog(QDialog):
    """What a repair kept and dropped, line by line (non-modal)."""

    def __init__(self, report: RepairReport, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("RepairReportDialog")
        self.setWindowTitle("Repair report")
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        plan = report.plan
        dropped = len(plan.dropped)
        head = QLabel(
            f"<b>Repaired {report.source.name}</b>: kept {plan.kept_lines} of {plan.total_lines} lines, "
            f"dropped {dropped}. The original is unchanged."
            if report.backup is None
            else f"<b>Repaired {report.source.name} in place</b>: the original is kept as {report.backup.name}."
        )
        head.setWordWrap(True)
        self.body = QPlainTextEdit(report.text())
        self.body.setReadOnly(True)
        self.body.setAccessibleName("Repair report")
        font = QFont("monospace")
        font.setStyleHint(QFont.StyleHint.Monospace)
        self.body.setFont(font)
        self.body.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.close)
        layout = QVBoxLayout(self)
        layout.addWidget(head)
        layout.addWidget(self.body, 1)
        layout.addWidget(buttons)
        fit_to_screen(self, 760, 400)


class TrashDialog(QDialog):
    """rho-desk's trash: restore a session, or empty the trash (after a confirmation).

    ``undo``: Edit ▸ Undo's stack. A restore joins it (its undo moves the session to the trash
    again); emptying the trash ends it (nothing before can be undone past it).
    """

    def __init__(
        self,
        library: LibraryService,
        bridge: EngineBridge,
        notifier: Notifier,
        parent: QWidget | None = None,
        *,
        undo: UndoStack | None = None,
    ) -> None:
        super().__init__(parent)
        self.undo = undo
        self.library = library
        self.bridge = bridge
        self.notifier = notifier
        self.setObjectName("TrashDialog")
        self.setWindowTitle("Deleted sessions")
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.confirm: QMessageBox | None = None
        """The open "empty the trash?" question (tests answer it)."""
        self.model = TrashModel(self)
        self.table = QTableView()
        self.table.setObjectName("TrashTable")
        self.table.setAccessibleName("Deleted sessions")
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().hide()
        self.table.horizontalHeader().setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.table.selectionModel().selectionChanged.connect(self._update_buttons)
        self.empty_label = QLabel("")
        self.empty_label.setWordWrap(True)
        self.restore_button = QPushButton("&Restore")
        self.restore_button.setToolTip(
            "Move the session back where it was and re-add it to Rho's index"
        )
        self.restore_button.clicked.connect(self.restore_selected)
        self.empty_button = QPushButton("&Empty Trash…")
        self.empty_button.setToolTip("Delete every session in the trash for good")
        self.empty_button.clicked.connect(self.ask_empty)
        close = QPushButton("&Close")
        close.clicked.connect(self.close)
        buttons = QHBoxLayout()
        buttons.addWidget(self.restore_button)
        buttons.addWidget(self.empty_button)
        buttons.addStretch(1)
        buttons.addWidget(close)
        layout = QVBoxLayout(self)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.empty_label)
        layout.addLayout(buttons)
        fit_to_screen(self, 760, 360)
        self.reload()

    def reload(self) -> None:
        self.bridge.run(self._aload(), context="Reading the trash")

    async def _aload(self) -> None:
        self.show_items(await in_thread(list_trash))

    @property
    def items(self) -> list[TrashItem]:
        return self.model.rows

    def show_items(self, items: list[TrashItem]) -> None:
        self.model.set_rows(items)
        self.table.resizeColumnsToContents()
        self.table.horizontalHeader().setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.empty_label.setText("" if items else "The trash is empty.")
        if items:
            self.table.selectRow(0)
        self._update_buttons()

    def selected(self) -> TrashItem | None:
        rows = self.table.selectionModel().selectedRows()
        return self.model.row_at(rows[0].row()) if rows else None

    def _update_buttons(self) -> None:
        self.restore_button.setEnabled(self.selected() is not None)
        self.empty_button.setEnabled(bool(self.items))

    def restore_selected(self) -> None:
        item = self.selected()
        if item is None:
            return

        async def run() -> OpResult[Any]:
            restored = await in_thread(restore, item)
            if self.library.is_open:
                await self.library.arefresh()
            return OpResult(restored, OpChanges(library=True))

        library = self.library

        def done(_result: OpResult[Any]) -> None:
            self.notifier.info(f"Restored “{item.label}”; Rho's index lists it again")
            if self.undo is not None:
                label = f"Restore “{item.label[:60]}” From the Trash"
                if library.is_open:
                    self.undo.record(
                        label, lambda: library.atrash(item.workspace_key, item.session_id)
                    )
                else:
                    self.undo.record(label)
            self.reload()

        self.bridge.run(run(), on_success=done, context="Restoring the session")

    def ask_empty(self) -> None:
        box = QMessageBox(
            QMessageBox.Icon.Warning,
            "Empty the trash",
            f"Delete {len(self.items)} session(s) in the trash for good?",
            QMessageBox.StandardButton.Cancel,
            self,
        )
        box.setInformativeText("They cannot be restored afterwards.")
        delete = box.addButton("Delete for Good", QMessageBox.ButtonRole.DestructiveRole)
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)

        def answered(_code: int) -> None:
            if box.clickedButton() is delete:
                self._empty()

        box.finished.connect(answered)
        self.confirm = box
        box.open()

    def _empty(self) -> None:
        items = list(self.items)

        async def run() -> int:
            return await in_thread(empty_trash, items)

        def done(count: object) -> None:
            self.notifier.info(f"Deleted {count} session(s) for good")
            if self.undo is not None:
                self.undo.record(f"Empty Trash ({count} session(s) deleted for good)")
            self.reload()

        self.bridge.run(run(), on_success=done, context="Emptying the trash")
