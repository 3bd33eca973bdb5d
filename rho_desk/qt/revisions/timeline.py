"""The revision timeline tab: every saved revision, the diff of two of them, fork and make active.

Selecting a revision shows it everywhere (the document's selection drives the conversation and
the statistics). The diff pane compares the selected revision with the diff base (Ctrl+Shift+D
marks one), or with its parent when no base is marked; it is computed in a worker thread.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QItemSelectionModel, QModelIndex, QPersistentModelIndex, Qt, Signal
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTableView,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from ...core.errors import InputError
from ...core.revisions.diff import Sign, compute_diff
from ...core.stores.rho_files import NodeKind, RevisionNode
from ..services.bridge import EngineBridge
from ..services.document import SessionDocument
from ..ui.labels import message_text
from ..ui.resources import Icon, pixmap
from ..ui.roles import Role
from ..ui.text import plural
from ..ui.theme import Theme
from ..ui.widgets import ElidedLabel, EmptyState
from .diff_model import RevisionDiffModel
from .tree_model import COL_CHANGE, COL_MESSAGES, COL_REVISION, RevisionTreeModel

__all__ = ["RevisionTimelineView"]


class RevisionDelegate(QStyledItemDelegate):
    """Draws the kind icon and the active/side-branch marks of the revision column."""

    def __init__(self, theme: Theme, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.theme = theme

    def initStyleOption(
        self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> None:
        super().initStyleOption(option, index)
        t = self.theme
        on_path = index.data(Role.ON_ACTIVE_PATH)
        if not on_path:
            option.palette.setColor(option.palette.ColorRole.Text, QColor(t.muted))
        if index.column() == COL_REVISION:
            kind = index.data(Role.KIND)
            color = (
                t.accent
                if kind == NodeKind.COMPACTION.value
                else (t.success if on_path else t.muted)
            )
            which = (
                Icon.ACTIVE
                if index.data(Role.ACTIVE)
                else Icon.COMPACTION
                if kind == NodeKind.COMPACTION.value
                else Icon.COMMIT
            )
            option.icon = pixmap(which, color, 16)  # type: ignore[assignment]
            option.features |= QStyleOptionViewItem.ViewItemFeature.HasDecoration
            option.decorationSize = option.decorationSize.expandedTo(option.decorationSize)

    def paint(
        self,
        painter: QPainter,
        option: QStyleOptionViewItem,
        index: QModelIndex | QPersistentModelIndex,
    ) -> None:
        if index.column() == COL_CHANGE and index.data(Role.KIND) == NodeKind.COMPACTION.value:
            painter.fillRect(option.rect, QColor(self.theme.marker))
        super().paint(painter, option, index)


class DiffDelegate(QStyledItemDelegate):
    def __init__(self, theme: Theme, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.theme = theme

    def paint(
        self,
        painter: QPainter,
        option: QStyleOptionViewItem,
        index: QModelIndex | QPersistentModelIndex,
    ) -> None:
        sign = index.data(Role.KIND)
        t = self.theme
        color = {
            Sign.ADDED.value: t.success_soft,
            Sign.REMOVED.value: t.danger_soft,
            Sign.CHANGED.value: t.warning_soft,
        }.get(sign)
        if color:
            painter.fillRect(option.rect, QColor(color))
        super().paint(painter, option, index)


class RevisionTimelineView(QWidget):
    """The Revisions tab.

    Signals:
        sig_show_conversation(): the user asked to see the selected revision's conversation.
        sig_diff_shown(object): a diff is on screen (its :class:`DiffResult`).
    """

    sig_show_conversation = Signal()
    """Show the selected revision's conversation (double click, or the button)."""
    sig_diff_shown = Signal(object)
    """A :class:`DiffResult` is on screen."""

    def __init__(
        self,
        document: SessionDocument,
        bridge: EngineBridge,
        theme: Theme,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("RevisionTimeline")
        self.document = document
        self.bridge = bridge
        self.theme = theme
        self.model = RevisionTreeModel(self)
        self.diff_model = RevisionDiffModel(self)
        self._diff_generation = 0
        self._diff_tree: Any = None
        """The tree the diff pane's state belongs to (diff state never outlives its session)."""
        self._syncing = False
        self._stale = True
        """The document changed while the tab was hidden (or before the view was made, when the tab
        was first shown): catch up when it is shown (a 4,000-node tree costs tens of milliseconds
        to rebuild; a hidden tab should not make opening slower)."""

        self.summary = ElidedLabel("", mode=Qt.TextElideMode.ElideRight)
        self.summary.setProperty("muted", True)
        self.make_active_button = QPushButton("Make active")
        self.make_active_button.setToolTip(
            "Make the selected revision the one Rho resumes (Ctrl+Shift+A)"
        )
        self.fork_button = QPushButton("Fork from here")
        self.fork_button.setToolTip("Branch from the selected revision (Ctrl+Shift+B)")
        self.base_button = QPushButton("Mark as diff base")
        self.base_button.setToolTip("Compare later selections against this revision (Ctrl+Shift+D)")
        self.show_button = QPushButton("Show conversation")
        self.show_button.setToolTip("Open the selected revision in the Conversation tab (Ctrl+1)")
        bar = QFrame()
        bar.setObjectName("RevisionBar")
        bar_layout = QHBoxLayout(bar)
        bar_layout.setContentsMargins(10, 6, 10, 6)
        bar_layout.addWidget(self.summary, 1)
        for b in (self.show_button, self.base_button, self.fork_button, self.make_active_button):
            bar_layout.addWidget(b)

        self.tree = QTreeView()
        self.tree.setObjectName("RevisionTree")
        self.tree.setAccessibleName("Revisions")
        self.tree.setModel(self.model)
        self.tree.setItemDelegate(RevisionDelegate(theme, self.tree))
        self.tree.setUniformRowHeights(True)
        self.tree.setAlternatingRowColors(True)
        self.tree.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.tree.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.tree.setRootIsDecorated(True)
        self.tree.setIndentation(18)
        self.tree.setFrameShape(QFrame.Shape.NoFrame)
        header = self.tree.header()
        header.setStretchLastSection(False)
        # fixed widths: ResizeToContents would ask every row of a 4,000-node tree for its size
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(COL_CHANGE, QHeaderView.ResizeMode.Stretch)
        for column, width in ((0, 124), (1, 130), (2, 92), (4, 150)):
            header.resizeSection(column, width)

        self.diff_title = QLabel("Diff")
        self.diff_title.setObjectName("SectionTitle")
        self.diff_summary = QLabel("Select a revision to compare it with its parent.")
        self.diff_summary.setObjectName("DiffSummary")
        self.diff_summary.setWordWrap(True)
        self.diff_table = QTableView()
        self.diff_table.setObjectName("DiffTable")
        self.diff_table.setAccessibleName("Diff against the parent revision")
        self.diff_table.setModel(self.diff_model)
        self.diff_table.setItemDelegate(DiffDelegate(theme, self.diff_table))
        self.diff_table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.diff_table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.diff_table.verticalHeader().hide()
        self.diff_table.setShowGrid(False)
        self.diff_table.setFrameShape(QFrame.Shape.NoFrame)
        dh = self.diff_table.horizontalHeader()
        dh.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        dh.setStretchLastSection(True)
        self.diff_preview = QPlainTextEdit()
        self.diff_preview.setReadOnly(True)
        self.diff_preview.setObjectName("DiffPreview")
        self.diff_preview.setAccessibleName("Diff of the selected message")
        self.diff_preview.setPlaceholderText(
            "Select a row to see the message (old and new for a changed one)."
        )
        diff_split = QSplitter(Qt.Orientation.Horizontal)
        diff_split.addWidget(self.diff_table)
        diff_split.addWidget(self.diff_preview)
        diff_split.setSizes([560, 340])
        diff_box = QWidget()
        diff_layout = QVBoxLayout(diff_box)
        diff_layout.setContentsMargins(10, 8, 10, 6)
        diff_layout.setSpacing(4)
        diff_layout.addWidget(self.diff_title)
        diff_layout.addWidget(self.diff_summary)
        diff_layout.addWidget(diff_split, 1)

        self.splitter = QSplitter(Qt.Orientation.Vertical)
        self.splitter.setObjectName("RevisionsSplitter")
        self.splitter.addWidget(self.tree)
        self.splitter.addWidget(diff_box)
        self.splitter.setSizes([420, 300])
        self.splitter.setChildrenCollapsible(False)
        self.empty = EmptyState("No session open", "The revisions of the open session appear here.")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(bar)
        layout.addWidget(self.splitter, 1)
        layout.addWidget(self.empty, 1)
        self._show_body(False)

        document.sig_loaded.connect(self._on_document_tree_changed)
        document.sig_tree_changed.connect(self._on_document_tree_changed)
        document.sig_revision_selected.connect(self._on_document_revision_selected)
        document.sig_closed.connect(self._on_document_closed)
        self.tree.selectionModel().currentChanged.connect(self._on_tree_current_changed)
        self.tree.doubleClicked.connect(lambda _i: self.sig_show_conversation.emit())
        self.diff_table.selectionModel().currentChanged.connect(self._on_diff_current_changed)
        self.show_button.clicked.connect(self.sig_show_conversation)
        self.base_button.clicked.connect(self.mark_diff_base)
        self.make_active_button.clicked.connect(self._on_make_active_clicked)
        self.fork_button.clicked.connect(self._on_fork_clicked)
        self.make_active_handler: Any = None
        """Set by the main window: what Make active runs (the action's handler)."""
        self.fork_handler: Any = None

    # -- public API ------------------------------------------------------------------------------------

    def set_theme(self, theme: Theme) -> None:
        self.theme = theme
        for view in (self.tree, self.diff_table):
            delegate = view.itemDelegate()
            delegate.theme = theme  # type: ignore[attr-defined]
            view.viewport().update()

    def mark_diff_base(self) -> None:
        node = self.document.selected
        if node is None:
            return
        self.model.set_diff_base(None if self.model.diff_base is node else node)
        self._update_buttons()
        self.diff_selected()

    def diff_selected(self) -> None:
        """Compare the selected revision with the base (or its parent)."""
        node = self.document.selected
        tree = self.document.tree
        if tree is not self._diff_tree:
            self._reset_diff(tree)
        if node is None or tree is None or not tree.owns(node):
            return
        base = self.model.diff_base
        if base is not None and not tree.owns(base):  # a base from another read of the file
            self.model.set_diff_base(None)
            base = None
        base = base if base is not None and base is not node else node.parent
        if base is None:
            self.diff_model.set_result(None)
            self.diff_title.setText("Diff")
            self.diff_summary.setText(
                f"Revision {node.revision} is the first one: nothing to compare with."
            )
            return
        self._diff_generation += 1
        generation = self._diff_generation
        self.diff_title.setText(f"Diff · r{base.revision} → r{node.revision}")
        self.diff_summary.setText("Comparing…")
        self.bridge.run(self._adiff(generation, tree, base, node), context="Comparing revisions")

    def _reset_diff(self, tree: Any) -> None:
        """Forget the diff pane's state: it belonged to another session (or none)."""
        self._diff_tree = tree
        self._diff_generation += 1  # a comparison still running for the old tree is dropped
        if self.model.diff_base is not None and (
            tree is None or not tree.owns(self.model.diff_base)
        ):
            self.model.set_diff_base(None)
        self.diff_model.set_result(None)
        self.diff_preview.clear()
        self.diff_title.setText("Diff")
        self.diff_summary.setText("Select a revision to compare it with its parent.")

    async def _adiff(
        self, generation: int, tree: Any, old: RevisionNode, new: RevisionNode
    ) -> None:
        try:
            result = await self.document.arun_locked(compute_diff, tree, old, new)
        except InputError:
            if generation == self._diff_generation:
                self.diff_summary.setText("These revisions are no longer in the open session.")
            return
        if generation != self._diff_generation or tree is not self.document.tree:
            return
        self.diff_model.set_result(result)
        self.diff_preview.clear()
        text = result.summary()
        if result.truncated:
            text += " · showing the first rows only"
        self.diff_summary.setText(text)
        self.sig_diff_shown.emit(result)

    # -- slots -----------------------------------------------------------------------------------------

    def _show_body(self, on: bool) -> None:
        self.splitter.setVisible(on)
        self.empty.setVisible(not on)
        for b in (self.make_active_button, self.fork_button, self.base_button, self.show_button):
            b.setEnabled(on)

    def showEvent(self, event: Any) -> None:
        super().showEvent(event)
        if self._stale:
            self._stale = False
            self._on_document_tree_changed()
            self._on_document_revision_selected(self.document.selected)

    def _on_document_tree_changed(self) -> None:
        if not self.isVisible():
            self._stale = True
            if self.model.tree is not self.document.tree:
                self.model.set_tree(None)  # let go of a replaced tree now (cheap)
                self._reset_diff(None)
            return
        tree = self.document.tree
        self.model.set_tree(tree)
        self._fit_revision_column()
        if tree is not self._diff_tree:
            self._reset_diff(tree)
        self._show_body(tree is not None)
        if tree is None:
            return
        # expand the branch points only (expandAll walks every row)
        for node in tree.nodes.values():
            if len(node.children) > 1:
                self.tree.expand(self.model.index_of(node))
        compactions = sum(1 for n in tree.nodes.values() if n.kind is NodeKind.COMPACTION)
        restores = sum(1 for n in tree.nodes.values() if n.restores is not None)
        kind = "a tree (v4)" if tree.is_tree else "a line (v1–v3)"
        self.summary.setText(
            f"{plural(tree.node_count, 'revision')} · {plural(tree.branch_count, 'branch point')} · "
            f"{plural(compactions, 'compaction')}"
            + (f" · {plural(restores, 'restore')}" if restores else "")
            + f" · {kind}"
        )
        self.summary.setToolTip(
            self.summary.text()
            + (
                ""
                if tree.is_tree
                else ".\nA version 1–3 file is a line of revisions: a fork becomes a new session."
            )
        )
        self._select_in_tree(self.document.selected)

    def _fit_revision_column(self) -> None:
        """The Revision column fits its widest label ("r12 · 3fa2c1 ● ◇ base") at the deepest
        branch, so the base mark is never cut."""
        tree = self.tree
        wanted = (
            self.model.revision_label_width(tree.fontMetrics())
            + tree.indentation() * (self.model.depth + 1)
            + 24
        )
        header = tree.header()
        if header.sectionSize(0) < wanted:
            header.resizeSection(0, wanted)
        # and the Messages column its title ("Model messages", in the header's bold)
        bold = QFont(header.font())
        bold.setBold(True)
        title = str(self.model.headerData(COL_MESSAGES, Qt.Orientation.Horizontal))
        needed = QFontMetrics(bold).horizontalAdvance(title) + 24
        if header.sectionSize(COL_MESSAGES) < needed:
            header.resizeSection(COL_MESSAGES, needed)

    def _on_document_closed(self) -> None:
        self.model.set_tree(None)
        self._reset_diff(None)
        self._show_body(False)

    def _on_document_revision_selected(self, node: RevisionNode | None) -> None:
        if not self.isVisible():
            self._stale = True
            return
        self._select_in_tree(node)
        self._update_buttons()
        self.diff_selected()

    def _select_in_tree(self, node: RevisionNode | None) -> None:
        if node is None:
            return
        index = self.model.index_of(node)
        if not index.isValid():
            return
        self._syncing = True
        try:
            self.tree.selectionModel().setCurrentIndex(
                index,
                QItemSelectionModel.SelectionFlag.ClearAndSelect
                | QItemSelectionModel.SelectionFlag.Rows,
            )
            self.tree.scrollTo(index)
        finally:
            self._syncing = False

    def _on_tree_current_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if self._syncing:
            return
        node = self.model.node(current)
        if node is not None and node is not self.document.selected:
            self.document.select(node)

    def _update_buttons(self) -> None:
        tree = self.document.tree
        node = self.document.selected
        writable = tree is not None and not self.document.read_only
        self.make_active_button.setEnabled(
            writable and tree is not None and tree.is_tree and node is not tree.active_leaf
        )
        self.fork_button.setEnabled(writable and node is not None)
        self.base_button.setText(
            "Clear diff base"
            if node is not None and node is self.model.diff_base
            else "Mark as diff base"
        )

    def _on_make_active_clicked(self) -> None:
        if self.make_active_handler is not None:
            self.make_active_handler()

    def _on_fork_clicked(self) -> None:
        if self.fork_handler is not None:
            self.fork_handler()

    def _on_diff_current_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        row = self.diff_model.row(current.row()) if current.isValid() else None
        if row is None:
            self.diff_preview.clear()
            return
        if row.sign is Sign.CHANGED:
            text = (
                f"— old (position {row.position + 1}) —\n{message_text(row.old) if row.old else ''}\n\n"
                f"— new —\n{message_text(row.new) if row.new else ''}"
            )
        else:
            message = row.new or row.old
            text = message_text(message) if message is not None else ""
        self.diff_preview.setPlainText(text[:200_000])
