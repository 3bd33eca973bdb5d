"""The revision timeline model: every saved revision of a session, as a tree with branches.

Rows are shown "mainline first": a node's continuation (its child on the active path, else its
newest child) is listed right after it at the same level, and every other child starts a
branch nested under it. A v1-v3 file (a line) and a long v4 chain therefore read as one flat
list, and only real branch points indent. Columns: revision, time, messages, what the revision
did, node id. The active revision and the path to it are marked through roles.
"""

from __future__ import annotations

import time
from typing import Any, Final

from PySide6.QtCore import QAbstractItemModel, QModelIndex, QObject, QPersistentModelIndex, Qt
from PySide6.QtGui import QFont

from ...core.stores.rho_files import NodeKind, RevisionNode, SessionTree
from ...core.stores.rho_files.views import user_text
from ..ui.roles import Role

__all__ = ["COLUMNS", "RevisionTreeModel", "describe_change"]

COLUMNS: Final = ("Revision", "Saved", "Model messages", "What changed", "Node")
"""The Messages column counts a revision's model context (after a compaction, the summary and
the recent turns), not the conversation as shown: its header says so."""
COL_REVISION, COL_TIME, COL_MESSAGES, COL_CHANGE, COL_NODE = range(5)


def describe_change(node: RevisionNode) -> str:
    """One line saying what a revision did."""
    parent = node.parent
    if node.restores is not None:
        return (
            f"Restored revision {node.restores.revision} (undo or redo): "
            f"{node.length:,} message{'s' * (node.length != 1)}"
        )
    if node.kind is NodeKind.COMPACTION:
        facts = node.compaction_facts
        if facts is not None:
            text = (
                f"Compacted: {facts.previous_messages:,} → {facts.current_messages:,} messages, "
                f"{facts.previous_tokens:,} → {facts.current_tokens:,} tokens"
            )
            if facts.cost_usd_micros is not None:
                text += f", ${facts.cost_usd_micros / 1e6:.4f}"
            return text
        before = parent.length if parent is not None else 0
        c = node.compaction
        tokens = ""
        if c.last_previous_tokens is not None and c.last_current_tokens is not None:
            tokens = f", {c.last_previous_tokens:,} → {c.last_current_tokens:,} tokens"
        return f"Compacted: {before:,} → {node.length:,} messages{tokens}"
    added = node.length - (parent.length if parent is not None else 0)
    prompt = next((t for e in node.display if (t := user_text(e.message))), None)
    if parent is None:
        head = f"Started with {node.length:,} message{'s' * (node.length != 1)}"
    elif added > 0:
        head = f"+{added:,} message{'s' * (added != 1)}"
    elif added == 0:
        head = (
            "Branch point (same state)"
            if len(parent.children) > 1 or node.is_complete_base
            else "Saved without new messages"
        )
    else:
        head = f"History replaced ({node.length:,} messages)"
    if prompt:
        first = prompt.splitlines()[0]
        head += f" · “{first[:70]}{'…' if len(first) > 70 else ''}”"
    return head


class RevisionTreeModel(QAbstractItemModel):
    """The revisions of one :class:`SessionTree` (see the module docstring)."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._tree: SessionTree | None = None
        self._children: dict[int, list[RevisionNode]] = {0: []}
        """id(visual parent) (0 for the top level) -> rows under it."""
        self._parent: dict[int, RevisionNode | None] = {}
        self._row: dict[int, int] = {}
        self._on_path: set[int] = set()
        self._change: dict[int, str] = {}
        self.depth = 0
        """How deep the branches nest (0: a line), for the Revision column's width."""
        self.diff_base: RevisionNode | None = None
        self._bold: QFont | None = None

    # -- contents -----------------------------------------------------------------------------------

    @property
    def tree(self) -> SessionTree | None:
        return self._tree

    def set_tree(self, tree: SessionTree | None) -> None:
        """Show ``tree`` (``None``: nothing). A reset; call again after the tree changed.

        The diff base belongs to one session: another tree drops it, and a re-read of the same
        session keeps it when the re-read tree still has that node.
        """
        self.beginResetModel()
        base = self.diff_base
        if base is not None and tree is not self._tree:
            same = (
                tree is not None
                and self._tree is not None
                and tree.session_id == self._tree.session_id
            )
            self.diff_base = tree.nodes.get(base.id) if same and tree is not None else None
        self._tree = tree
        self._build()
        self.endResetModel()

    def _build(self) -> None:
        self._children = {0: []}
        self._parent = {}
        self._row = {}
        self._change = {}
        self.depth = 0
        tree = self._tree
        if tree is None:
            self._on_path = set()
            return
        self._on_path = {id(n) for n in tree.path()}
        on_path = self._on_path

        def continuation(node: RevisionNode) -> RevisionNode | None:
            if not node.children:
                return None
            for child in node.children:
                if id(child) in on_path:
                    return child
            return node.children[-1]

        # Iterative: each chain starts at a root or a branch child and hangs under a visual parent.
        starts: list[tuple[RevisionNode, RevisionNode | None, int]] = [
            (r, None, 0) for r in reversed(tree.roots)
        ]
        while starts:
            start, holder, depth = starts.pop()
            self.depth = max(self.depth, depth)
            rows = self._children.setdefault(id(holder) if holder is not None else 0, [])
            node: RevisionNode | None = start
            branches: list[tuple[RevisionNode, RevisionNode | None, int]] = []
            while node is not None:
                self._parent[id(node)] = holder
                self._row[id(node)] = len(rows)
                rows.append(node)
                nxt = continuation(node)
                for child in node.children:
                    if child is not nxt:
                        branches.append((child, node, depth + 1))
                node = nxt
            starts.extend(reversed(branches))

    def index_of(self, node: RevisionNode, column: int = 0) -> QModelIndex:
        if id(node) not in self._row:
            return QModelIndex()
        return self.createIndex(self._row[id(node)], column, node)

    def node(self, index: QModelIndex | QPersistentModelIndex) -> RevisionNode | None:
        if not index.isValid():
            return None
        return index.internalPointer()  # type: ignore[no-any-return]

    def set_diff_base(self, node: RevisionNode | None) -> None:
        old, self.diff_base = self.diff_base, node
        for n in (old, node):
            if n is not None and id(n) in self._row:
                self.dataChanged.emit(self.index_of(n, 0), self.index_of(n, len(COLUMNS) - 1))

    # -- Qt model API -----------------------------------------------------------------------------------

    def index(
        self, row: int, column: int, parent: QModelIndex | QPersistentModelIndex = QModelIndex()
    ) -> QModelIndex:
        if column < 0 or column >= len(COLUMNS) or row < 0:
            return QModelIndex()
        holder = self.node(parent) if parent.isValid() else None
        rows = self._children.get(id(holder) if holder is not None else 0, [])
        if row >= len(rows):
            return QModelIndex()
        return self.createIndex(row, column, rows[row])

    def parent(self, index: QModelIndex | QPersistentModelIndex = QModelIndex()) -> QModelIndex:  # type: ignore[override]
        node = self.node(index)
        if node is None:
            return QModelIndex()
        holder = self._parent.get(id(node))
        if holder is None:
            return QModelIndex()
        return self.createIndex(self._row[id(holder)], 0, holder)

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:
        if parent.isValid():
            if parent.column() != 0:
                return 0
            node = self.node(parent)
            return len(self._children.get(id(node), ()))
        return len(self._children.get(0, ()))

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:
        return len(COLUMNS)

    def hasChildren(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> bool:
        return self.rowCount(parent) > 0

    def revision_label_width(self, metrics: Any) -> int:
        """Pixels the widest Revision label can take (``metrics``: the view's ``QFontMetrics``)."""
        tree = self._tree
        top = max((n.revision for n in tree.nodes.values()), default=0) if tree is not None else 0
        return int(metrics.horizontalAdvance(f"r{top} · 000000 ● ◇ base"))

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if (
            orientation == Qt.Orientation.Horizontal
            and role == Qt.ItemDataRole.DisplayRole
            and 0 <= section < len(COLUMNS)
        ):
            return COLUMNS[section]
        if (
            orientation == Qt.Orientation.Horizontal
            and role == Qt.ItemDataRole.ToolTipRole
            and section == COL_MESSAGES
        ):
            return (
                "Messages in the revision's model context (what the model is sent; after a compaction, the "
                "summary and the recent turns). The conversation counts the messages as shown."
            )
        return None

    def flags(self, index: QModelIndex | QPersistentModelIndex) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable

    def data(
        self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        node = self.node(index)
        if node is None or self._tree is None:
            return None
        column = index.column()
        active = node is self._tree.active_leaf
        if role == Qt.ItemDataRole.DisplayRole:
            if column == COL_REVISION:
                marks = " ●" if active else ""
                if node is self.diff_base:
                    marks += " ◇ base"
                shared = (
                    f" · {node.id[:6]}" if self._tree.shares_revision(node) else ""
                )  # two r9s: which is which
                return f"r{node.revision}{shared}{marks}"
            if column == COL_TIME:
                return (
                    time.strftime("%b %d %H:%M:%S", time.localtime(node.time))
                    if node.time
                    else node.timestamp
                )
            if column == COL_MESSAGES:
                return f"{node.length:,}"
            if column == COL_CHANGE:
                hit = self._change.get(id(node))
                if hit is None:
                    hit = self._change[id(node)] = describe_change(node)
                return hit
            if column == COL_NODE:
                if node.virtual:  # a v1-v3 line has no node ids: where the record is says which
                    return f"line {node.line}" if node.line else "—"
                return f"{node.id[:8]} (line {node.line})" if node.line else node.id[:8]
        if role == Qt.ItemDataRole.ToolTipRole:
            lines = [
                f"Node {node.id}",
                f"Revision {node.revision} · {node.kind.value} · {node.transition}",
            ]
            if node.line:
                lines.append(f"Line {node.line} of the file")
            if active:
                lines.append("The active revision: what Rho resumes")
            elif id(node) not in self._on_path:
                lines.append("On a side branch (not on the path to the active revision)")
            return "\n".join(lines)
        if role == Qt.ItemDataRole.FontRole and active:
            if self._bold is None:
                self._bold = QFont()
                self._bold.setBold(True)
            return self._bold
        if role == Qt.ItemDataRole.TextAlignmentRole and column == COL_MESSAGES:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Role.NODE:
            return node
        if role == Role.KIND:
            return node.kind.value
        if role == Role.ACTIVE:
            return active
        if role == Role.ON_ACTIVE_PATH:
            return id(node) in self._on_path
        if role == Role.SORT:
            return node.revision
        return None
