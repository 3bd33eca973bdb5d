"""The difference between two revisions as a table: :class:`RevisionDiffModel` lists the rows of a
:class:`~rho_desk.core.revisions.diff.DiffResult` (computed in core, in a worker thread)."""

from __future__ import annotations

from typing import Any, Final

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QObject, QPersistentModelIndex, Qt

from ...core.revisions.diff import DiffResult, DiffRow
from ...core.wire import Message
from ..ui.labels import KIND_LABELS, message_text
from ..ui.roles import Role

__all__ = ["RevisionDiffModel"]

COLUMNS: Final = ("", "Position", "Kind", "Message")


def _kind(message: Message | None) -> str:
    """The message's kind in words (``Assistant``, ``Tool result``), not its type's name."""
    return "" if message is None else KIND_LABELS[message.kind]


def diff_preview(message: Message | None) -> str:
    """One line for a diff row: the text, else the tool calls it made."""
    if message is None:
        return ""
    text = " ".join(message_text(message).split())
    calls = [f"{c.name}({_args(c.arguments)})" for c in message.tool_calls()]
    if calls:
        text = (text + " · " if text else "") + ", ".join(calls)
    return text[:200]


def _args(arguments: Any) -> str:
    if isinstance(arguments, dict):
        for key in ("path", "command", "pattern", "code"):
            value = arguments.get(key)
            if isinstance(value, str):
                return value[:60]
    return "…"


class RevisionDiffModel(QAbstractTableModel):
    """Rows of a :class:`DiffResult`: sign, position, kind, text preview."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.result: DiffResult | None = None

    def set_result(self, result: DiffResult | None) -> None:
        self.beginResetModel()
        self.result = result
        self.endResetModel()

    def row(self, row: int) -> DiffRow | None:
        rows = self.result.rows if self.result is not None else []
        return rows[row] if 0 <= row < len(rows) else None

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:
        if parent.isValid() or self.result is None:
            return 0
        return len(self.result.rows)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if (
            orientation == Qt.Orientation.Horizontal
            and role == Qt.ItemDataRole.DisplayRole
            and 0 <= section < len(COLUMNS)
        ):
            return COLUMNS[section]
        return None

    def data(
        self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if not index.isValid():
            return None
        d = self.row(index.row())
        if d is None:
            return None
        message = d.new if d.new is not None else d.old
        if role == Qt.ItemDataRole.DisplayRole:
            column = index.column()
            if column == 0:
                return d.sign.value
            if column == 1:
                return f"{d.position + 1:,}"
            if column == 2:
                return _kind(message)
            if column == 3:
                return diff_preview(message)
        if role == Role.KIND:
            return d.sign.value
        if role == Role.MESSAGE:
            return message
        if role == Role.ROW:
            return d
        if role == Qt.ItemDataRole.TextAlignmentRole and index.column() in (0, 1):
            return int(Qt.AlignmentFlag.AlignCenter)
        return None

    def flags(self, index: QModelIndex | QPersistentModelIndex) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
