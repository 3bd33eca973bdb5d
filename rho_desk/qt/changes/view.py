"""The Changes tab: what the agent changed in the workspace, per file and per turn, with diffs.

:class:`ChangesView` follows the shared document: for the open session it builds the
:class:`~rho_desk.core.changes.SessionChanges` in a worker thread (Rho's checkpoint journal when
the session has one, else the tool calls) and lists the files touched, each with its changes
across turns. Selecting a change shows its unified diff, coloured; "Go to Turn" shows the turn in
the conversation (and the ``view.turn_changes`` action comes back from a message to its turn's
changes). "Restore Before This Turn…" shows what a restore would write and does it only when the
file is still as the turn left it (Rho's rule); "Undo Restore" puts back what was on disk.

The search field looks across the library: every session that touched a file whose path holds
the text (rho-desk's touched-paths index, kept in step with the files, in a worker thread).

Signals:
    sig_message_requested(int): show this row of the active revision's display history.
    sig_open_requested(object, str): open this session (a ``Path``) and select this file in it.
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

from PySide6.QtCore import QEvent, QModelIndex, QObject, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QStackedWidget,
    QTableView,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from ...core.changes import FileChange, SessionChanges, TurnChanges, changes_of_session, turn_of_row
from ...core.changes.index import PathIndex, index_file_for
from ...core.changes.restore import (
    RestorePreview,
    RestoreReceipt,
    preview_restore,
    restore_file,
    undo_restore,
)
from ...core.text.visible import one_line, visible
from ..services.bridge import EngineBridge, in_thread
from ..services.document import HistoryMode, SessionDocument
from ..services.undo import Step, UndoStack
from ..ui.patch import PatchHighlighter, mono_font
from ..ui.screen import fit_to_screen
from ..ui.widgets import PathDelegate
from .model import LibraryTouchedModel, TouchedFilesModel, turn_text

__all__ = ["ChangesView", "RestoreDialog", "reveal_message", "turn_of_current_row"]


class RestoreDialog(QDialog):
    """Shows what a restore would write (the diff, the mode, an executable or a hook flagged);
    ``accepted`` means: do it. A file inside ``.git/`` is restored only once its path is typed."""

    def __init__(self, preview: RestorePreview, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("RestoreDialog")
        self.setWindowTitle("Restore File")
        self.preview = preview
        change = preview.change
        path = html.escape(one_line(change.path))
        title = QLabel(
            f"Restore <b>{path}</b> to its content before {'turn ' + str(change.turn) if change.turn else 'this turn'}?"
            if preview.possible
            else f"<b>{path}</b> cannot be restored: {html.escape(one_line(preview.reason))}."
        )
        title.setTextFormat(Qt.TextFormat.RichText)
        title.setWordWrap(True)
        self.notes = QLabel(
            "\n".join(f"• {note}" for note in preview.notes) if preview.possible else ""
        )
        self.notes.setObjectName("RestoreNotes")
        self.notes.setTextFormat(Qt.TextFormat.PlainText)
        self.notes.setWordWrap(True)
        self.notes.setVisible(bool(self.notes.text()))
        self.name = QLineEdit()
        self.name.setObjectName("RestoreName")
        self.name.setPlaceholderText(change.path)
        self.name.setAccessibleName("Type the file's path to restore it")
        named = QLabel(f"{preview.named}. Type its path to restore it anyway:")
        named.setTextFormat(Qt.TextFormat.PlainText)
        named.setWordWrap(True)
        for widget in (named, self.name):
            widget.setVisible(bool(preview.named) and preview.possible)
        self.body = QPlainTextEdit(
            visible(preview.diff)
            or (
                "The file will be deleted (the turn created it)."
                if preview.classification.value == "delete"
                else ""
            )
        )
        self.body.setReadOnly(True)
        self.body.setFont(mono_font())
        self.body.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.body.setAccessibleName("What the restore changes")
        self._highlighter = PatchHighlighter(self.body.document())
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.restore_button = buttons.addButton("&Restore", QDialogButtonBox.ButtonRole.AcceptRole)
        self.restore_button.setEnabled(preview.possible and not preview.named)
        self.name.textChanged.connect(
            lambda text: self.restore_button.setEnabled(preview.possible and text == change.path)
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(title)
        layout.addWidget(self.notes)
        layout.addWidget(named)
        layout.addWidget(self.name)
        layout.addWidget(self.body, 1)
        layout.addWidget(buttons)
        fit_to_screen(self, 760, 520)


class ChangesView(QWidget):
    """The Changes tab (see the module docstring)."""

    sig_message_requested = Signal(int)
    """Show this row of the active revision's display history in the conversation."""
    sig_open_requested = Signal(object, str)
    """Open this session (``Path``) and select this file (absolute path) in its changes."""

    def __init__(
        self,
        document: SessionDocument,
        bridge: EngineBridge,
        library: Any,
        parent: QWidget | None = None,
        *,
        undo: UndoStack | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("ChangesView")
        self.document = document
        self.bridge = bridge
        self.library = library
        self.undo = undo
        """Edit ▸ Undo's stack: each restore joins it, its undo the same as Undo Restore's."""
        self.changes: SessionChanges | None = None
        self.receipts: list[RestoreReceipt] = []
        self._steps: dict[int, Step] = {}
        """The Edit ▸ Undo step of each receipt (by ``id``), taken off when the restore is undone."""
        self._generation = 0
        self._stale = True
        self._select_after: tuple[str | None, int | None] | None = None
        self._index: PathIndex | None = None
        self._index_home: Path | None = None
        self.restore_dialog: RestoreDialog | None = None

        self.summary = QLabel("Open a session to see what the agent changed.")
        self.summary.setObjectName("ChangesSummary")
        self.summary.setWordWrap(True)
        self.search = QLineEdit()
        self.search.setObjectName("ChangesSearch")
        self.search.setPlaceholderText(
            "Sessions that touched a file… (path or part of it, across the library)"
        )
        self.search.setAccessibleName("Search files changed across the library")
        self.search.setClearButtonEnabled(True)
        self._search_timer = bridge.timer(self, 250, self._run_search)
        self.search.textChanged.connect(lambda _t: self._search_timer.start())

        self.model = TouchedFilesModel(self)
        self.tree = QTreeView()
        self.tree.setObjectName("ChangesTree")
        self.tree.setAccessibleName("Files the agent changed, by turn")
        self.tree.setModel(self.model)
        self.tree.setUniformRowHeights(True)
        self.tree.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        # A file's row spans the three columns (its turns below say which turn made which change),
        # and a long path gives up its folders before its file name ("app/web…/refunds.py", not
        # "app/web…unds.py"). Below a file, Turn and Change are as wide as their text and the
        # turn's prompt takes what they leave (see _fit_columns)
        self.tree.setItemDelegateForColumn(
            0, PathDelegate(self.tree, applies=lambda index: not index.parent().isValid())
        )
        self.tree.header().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.tree.header().setSectionResizeMode(1, QHeaderView.ResizeMode.Interactive)
        self.tree.header().setSectionResizeMode(2, QHeaderView.ResizeMode.Interactive)
        self.tree.header().setStretchLastSection(False)
        self.tree.setTextElideMode(Qt.TextElideMode.ElideRight)  # a turn's prompt: its start
        self.model.modelReset.connect(self._fit_columns)
        self.tree.header().geometriesChanged.connect(self._fit_columns)
        self.tree.viewport().installEventFilter(self)  # refit when the tree is resized
        self.tree.selectionModel().currentChanged.connect(self._on_tree_current_changed)
        self.tree.activated.connect(lambda _i: self.go_to_turn())
        self.library_model = LibraryTouchedModel(self)
        self.results = QTableView()
        self.results.setObjectName("ChangesLibraryResults")
        self.results.setAccessibleName("Sessions that touched a matching file")
        self.results.setModel(self.library_model)
        self.results.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.results.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.results.setItemDelegateForColumn(0, PathDelegate(self.results))
        # the file and the session's title share the width (a long title is elided, whole in its tooltip)
        self.results.horizontalHeader().setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.results.horizontalHeader().setSectionResizeMode(
            2, QHeaderView.ResizeMode.ResizeToContents
        )
        self.results.verticalHeader().hide()
        self.results.activated.connect(self._on_result_activated)
        self.left = QStackedWidget()
        self.left.addWidget(self.tree)
        self.left.addWidget(self.results)

        self.heading = QLabel("")
        self.heading.setObjectName("ChangesHeading")
        self.heading.setWordWrap(True)
        self.heading.setTextFormat(Qt.TextFormat.PlainText)
        self.diff = QPlainTextEdit()
        self.diff.setObjectName("ChangesDiff")
        self.diff.setAccessibleName("Unified diff of the selected change")
        self.diff.setReadOnly(True)
        self.diff.setFont(mono_font())
        self.diff.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self._highlighter = PatchHighlighter(self.diff.document())
        self.turn_button = QPushButton("&Go to Turn")
        self.turn_button.setToolTip("Show the turn that made this change in the conversation")
        self.turn_button.clicked.connect(self.go_to_turn)
        self.restore_button = QPushButton(
            "Restore &Before This Turn…"
        )  # Alt+S is the Session menu's, Alt+R a revision's
        self.restore_button.setToolTip(
            "Put the file back as it was before this turn (only if it is still as the turn left it)"
        )
        self.restore_button.clicked.connect(self.request_restore)
        self.undo_button = QPushButton("&Undo Restore")
        self.undo_button.setToolTip("Put back what was on disk before the last restore")
        self.undo_button.clicked.connect(self.undo_last_restore)
        buttons = QHBoxLayout()
        buttons.addWidget(self.turn_button)
        buttons.addStretch(1)
        buttons.addWidget(self.restore_button)
        buttons.addWidget(self.undo_button)
        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        right_layout.addWidget(self.heading)
        right_layout.addWidget(self.diff, 1)

        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.setObjectName("ChangesSplitter")
        self.splitter.addWidget(self.left)
        self.splitter.addWidget(right)
        self.splitter.setSizes([470, 530])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.addWidget(self.summary)
        layout.addWidget(self.search)
        layout.addWidget(self.splitter, 1)
        # under both panes: in the diff's pane alone, their width left the file tree 170 pixels
        # of a 1024-pixel screen
        layout.addLayout(buttons)
        self._update_buttons()

        document.sig_loaded.connect(self._on_document_changed)
        document.sig_reloaded.connect(lambda _i: self._on_document_changed())
        document.sig_tree_changed.connect(self._on_document_changed)
        document.sig_closed.connect(self._on_document_closed)

    # -- loading ---------------------------------------------------------------------------------------

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.tree.viewport() and event.type() == QEvent.Type.Resize:
            self._fit_columns()
        return False

    def _fit_columns(self) -> None:
        """Turn and Change as wide as their text, so long as a turn's prompt keeps a quarter of the
        tree: Change at most a quarter, Turn ("unsaved turn (failed)", "revision 3 (another
        branch)") what is left. Text that still does not fit is elided; its tooltip is whole."""
        width = self.tree.viewport().width()
        if width <= 0:
            return
        header = self.tree.header()
        wanted = [max(self.tree.sizeHintForColumn(c), header.sectionSizeHint(c)) for c in (1, 2)]
        change = min(wanted[1], width // 4)
        turn = min(wanted[0], width - width // 4 - change)
        self.tree.setColumnWidth(1, turn)
        self.tree.setColumnWidth(2, change)

    def _on_document_changed(self) -> None:
        self._stale = True
        if self.isVisible():
            self.refresh()

    def showEvent(self, event: Any) -> None:
        super().showEvent(event)
        if self._stale:
            self.refresh()

    def refresh(self) -> None:
        """Rebuild the changes of the open session (in a worker thread)."""
        self._stale = False
        tree, path = self.document.tree, self.document.path
        self._generation += 1
        if tree is None or path is None:
            self._on_document_closed()
            return
        generation = self._generation
        self.summary.setText("Reading the changes…")
        self.bridge.run(
            self._aload(generation, tree, path), context="Reading the session's changes"
        )

    async def _aload(self, generation: int, tree: Any, path: Path) -> None:
        changes = await self.document.arun_locked(changes_of_session, tree, path)
        if generation != self._generation:
            return
        self.show_changes(changes)

    def show_changes(self, changes: SessionChanges) -> None:
        self.changes = changes
        self.model.set_changes(changes)
        for row in range(self.model.rowCount()):
            self.tree.setFirstColumnSpanned(row, QModelIndex(), True)
        self.tree.expandAll()
        files = len(self.model._files)
        turns = sum(1 for t in changes.turns if t.files)
        hidden = sum(len(t.hidden) for t in changes.turns)
        where = (
            "from the checkpoint journal and the tool calls"
            if changes.journal
            else "from the tool calls (no checkpoint journal)"
        )
        unsaved = sum(1 for t in changes.turns if not t.committed)
        text = f"{files} file{'s' if files != 1 else ''} changed in {turns} turn{'s' if turns != 1 else ''}, {where}"
        if hidden:
            text += f"; {hidden} shell command{'s' if hidden != 1 else ''} whose changes are not visible"
        if unsaved:
            text += f"; {unsaved} unsaved (failed) turn{'s' if unsaved != 1 else ''}"
        self.summary.setText(text + ".")
        wanted = self._select_after
        self._select_after = None
        index = QModelIndex()
        if wanted is not None:
            file, turn = wanted
            if file is not None:
                shown = next(
                    (c.path for t in changes.turns for c in t.files if c.abs_path == file), file
                )
                index = self.model.index_of(shown, turn)
                if index.isValid() and self.model.rowCount(index):
                    index = self.model.index(0, 0, index)
            elif turn is not None:
                index = self.model.first_of_turn(turn)
        if not index.isValid() and self.model.rowCount():
            top = self.model.index(0, 0)
            index = self.model.index(0, 0, top) if self.model.rowCount(top) else top
        if index.isValid():
            self.tree.setCurrentIndex(index)
        else:
            self._show_change(None)

    def _on_document_closed(self) -> None:
        self._generation += 1
        self.changes = None
        self.model.set_changes(None)
        self.summary.setText("Open a session to see what the agent changed.")
        self._show_change(None)

    # -- the selected change -------------------------------------------------------------------------------

    def current(self) -> tuple[TurnChanges, FileChange] | None:
        return self.model.change_at(self.tree.currentIndex())

    def _on_tree_current_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        picked = self.model.change_at(current)
        if picked is None and current.isValid() and self.model.rowCount(current):
            picked = self.model.change_at(
                self.model.index(self.model.rowCount(current) - 1, 0, current)
            )
        self._show_change(picked)

    def _show_change(self, picked: tuple[TurnChanges, FileChange] | None) -> None:
        if picked is None:
            self.heading.setText("")
            self.diff.setPlainText("")
            self._update_buttons()
            return
        turn, change = picked
        self.heading.setText(f"{change.path} — {turn_text(turn)}: {turn.prompt}".rstrip(": "))
        generation = self._generation

        def compute() -> str:
            diff = change.patch()
            if diff:
                return diff
            if change.binary:
                return "(binary content)"
            return f"({change.note or change.action.value})"

        async def show() -> None:
            text = await in_thread(compute)
            if generation == self._generation and self.current() in (picked, None):
                self.diff.setPlainText(text)
                self._update_buttons()

        self.diff.setPlainText("")
        self.bridge.run(show(), context="Showing the change")
        self._update_buttons()

    def _update_buttons(self) -> None:
        picked = self.current()
        self.turn_button.setEnabled(picked is not None and picked[0].message_index is not None)
        self.restore_button.setEnabled(
            (picked is not None and picked[0].turn is not None)
            or (picked is not None and not picked[0].committed)
        )
        self.undo_button.setEnabled(bool(self.receipts))

    # -- navigation --------------------------------------------------------------------------------------

    def go_to_turn(self) -> None:
        picked = self.current()
        if picked is not None and picked[0].message_index is not None:
            self.sig_message_requested.emit(picked[0].message_index)

    def show_turn(self, turn: int) -> None:
        """Select the first change of ``turn`` (after the changes are built, if they are not yet)."""
        if self.changes is None or self._stale:
            self._select_after = (None, turn)
            self.refresh()
            return
        index = self.model.first_of_turn(turn)
        if index.isValid():
            self.tree.setCurrentIndex(index)
            self.tree.scrollTo(index)
        else:
            self.summary.setText(f"Turn {turn} changed no file.")

    def select_file(self, abs_path: str) -> None:
        self._select_after = (abs_path, None)
        if self.changes is not None and not self._stale:
            self.show_changes(self.changes)

    # -- restore -----------------------------------------------------------------------------------------

    def request_restore(self) -> None:
        picked = self.current()
        if picked is None:
            return

        workspace = self.changes.workspace if self.changes is not None else None

        async def preview() -> None:
            result = await in_thread(lambda: preview_restore(picked[1], workspace=workspace))
            dialog = self.restore_dialog = RestoreDialog(result, self)
            dialog.accepted.connect(lambda: self._restore(result, dialog.name.text() or None))
            dialog.open()

        self.bridge.run(preview(), context="Preparing the restore")

    def _restore(self, preview: RestorePreview, named: str | None = None) -> None:
        async def run() -> None:
            receipt = await in_thread(lambda: restore_file(preview, named=named))
            self.receipts.append(receipt)
            if self.undo is not None:
                self._steps[id(receipt)] = self.undo.record(
                    f"Restore {receipt.display[:80]}", lambda: self._aundo(receipt)
                )
            self.summary.setText(
                f"Restored {receipt.display} to its content before the turn. Undo Restore puts it back."
            )
            self._update_buttons()

        self.bridge.run(run(), context=f"Restoring {preview.change.path}")

    def undo_last_restore(self) -> None:
        if not self.receipts:
            return
        receipt = self.receipts[-1]

        async def run() -> None:
            await self._aundo(receipt)
            step = self._steps.pop(id(receipt), None)
            if step is not None and self.undo is not None:
                self.undo.done_with(step)

        self.bridge.run(run(), context=f"Undoing the restore of {receipt.display}")

    async def _aundo(self, receipt: RestoreReceipt) -> None:
        """Put back what the restore of ``receipt`` replaced (Undo Restore, or Edit ▸ Undo)."""
        await in_thread(undo_restore, receipt)
        if receipt in self.receipts:
            self.receipts.remove(receipt)
        self._steps.pop(id(receipt), None)
        self.summary.setText(f"Put {receipt.display} back as it was before the restore.")
        self._update_buttons()

    # -- the library search ------------------------------------------------------------------------------

    def _run_search(self) -> None:
        text = self.search.text().strip()
        if not text:
            self.left.setCurrentWidget(self.tree)
            return
        self.left.setCurrentWidget(self.results)
        home = getattr(self.library, "home", None)
        if home is None:
            self.library_model.set_rows([])
            return
        from ...core.stores.search import default_cache_dir

        def search() -> list[Any]:
            if self._index is None or self._index_home != home:
                if self._index is not None:
                    self._index.close()
                self._index = PathIndex.open(index_file_for(home, default_cache_dir()))
                self._index_home = home
            self._index.sync(PathIndex.transcripts(home))
            return self._index.search(text)

        async def run() -> None:
            rows = await in_thread(search)
            titles = await self._titles()
            if self.search.text().strip() == text:
                self.library_model.set_rows(rows, titles)

        self.bridge.run(run(), context="Searching the files changed across the library")

    async def _titles(self) -> dict[str, str]:
        """The library's sessions' titles by id, as its cards show them (nothing on failure: the
        results stand without them)."""
        try:
            page = await self.library.alist(None)
        except Exception:
            return {}
        titles = {}
        for summary in page.sessions:
            lines = (summary.title or summary.first_user_message or "").splitlines()
            if lines:
                titles[summary.id] = f"{lines[0][:70]} · {Path(summary.cwd).name}"
        return titles

    def _on_result_activated(self, index: QModelIndex) -> None:
        row = self.library_model.rows[index.row()] if index.isValid() else None
        if row is None:
            return
        self.search.clear()
        self._select_after = (row.file, None)
        self.sig_open_requested.emit(Path(row.session_path), row.file)

    def close_index(self) -> None:
        if self._index is not None:
            self._index.close()
            self._index = None


def reveal_message(document: SessionDocument, conversation: Any, row: int) -> None:
    """Show ``row`` of the active revision's display history in ``conversation``."""
    tree = document.tree
    if tree is None:
        return
    if document.selected is tree.active_leaf and document.mode is HistoryMode.DISPLAY:
        conversation.select_row(row)
        conversation.list.scroll_to_row(row, QAbstractItemView.ScrollHint.PositionAtCenter)
        return

    def once(_count: int) -> None:
        conversation.sig_rows_shown.disconnect(once)
        conversation.select_row(row)
        conversation.list.scroll_to_row(row, QAbstractItemView.ScrollHint.PositionAtCenter)

    conversation.sig_rows_shown.connect(once)
    document.set_mode(HistoryMode.DISPLAY)
    document.select(None)


def turn_of_current_row(conversation: Any) -> int:
    """The turn of the message selected in ``conversation`` (1 when none is)."""
    rows = conversation.model.rows
    row = conversation.current_row()
    if rows is None or row < 0:
        return 1
    return turn_of_row(list(rows.messages), row)
