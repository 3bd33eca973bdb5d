"""The edit dialog's tables: the working copy of the history being edited, and the snapshot's metadata."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QModelIndex, QObject, Qt
from PySide6.QtGui import QBrush, QColor, QFont

from ...core.wire import Message
from ..ui.labels import KIND_LABELS, describe
from ..ui.roles import Role
from ..ui.table import ColumnsTableModel, Index

__all__ = ["EditRow", "EditableMessagesModel", "MetadataModel"]

_DISPLAY = Qt.ItemDataRole.DisplayRole
_RIGHT = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)


@dataclass(slots=True)
class EditRow:
    """One message of the working copy in the edit dialog."""

    original: int
    """Its index in the revision's model history."""
    message: Message
    deleted: bool = False
    edited: bool = False
    cascade: bool = False
    """Deleted only to keep a tool call and its results together."""


class EditableMessagesModel(ColumnsTableModel):
    """The working copy of a history being edited: deletions are marked, edits shown."""

    COLUMNS = ("#", "Kind", "State", "Message")

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.rows: list[EditRow] = []
        self.deleted_color = QColor("#cf222e")
        self.edited_color = QColor("#3b5bdb")

    def set_history(self, history: Sequence[Message]) -> None:
        self.beginResetModel()
        self.rows = [EditRow(i, m) for i, m in enumerate(history)]
        self.endResetModel()

    def refresh_rows(self, rows: Sequence[int] | None = None) -> None:
        if not self.rows:
            return
        if rows:
            first, last = min(rows), max(rows)
        else:
            first, last = 0, len(self.rows) - 1
        self.dataChanged.emit(self.index(first, 0), self.index(last, len(self.COLUMNS) - 1))

    def _count(self) -> int:
        return len(self.rows)

    def data(self, index: Index, role: int = _DISPLAY) -> Any:
        if not self._valid(index):
            return None
        row = self.rows[index.row()]
        column = index.column()
        if role == _DISPLAY:
            if column == 0:
                return str(row.original + 1)
            if column == 1:
                return KIND_LABELS[row.message.kind]
            if column == 2:
                if row.deleted:
                    return "delete (pair)" if row.cascade else "delete"
                return "edited" if row.edited else ""
            return describe(row.message, 160)
        if role == Qt.ItemDataRole.FontRole and row.deleted:
            font = QFont()
            font.setStrikeOut(True)
            return font
        if role == Qt.ItemDataRole.ForegroundRole and (row.deleted or row.edited):
            return QBrush(self.deleted_color if row.deleted else self.edited_color)
        if role == Qt.ItemDataRole.TextAlignmentRole and column == 0:
            return _RIGHT
        if role == Role.MESSAGE:
            return row.message
        if role == Role.ROW:
            return row
        if role == Role.TEXT:
            return row.message.text()
        return None


class MetadataModel(ColumnsTableModel):
    """Editable string metadata of a snapshot (key, value); rows can be added and removed."""

    COLUMNS = ("Key", "Value")

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.items: list[list[str]] = []

    def set_metadata(self, metadata: dict[str, str]) -> None:
        self.beginResetModel()
        self.items = [[k, v] for k, v in metadata.items()]
        self.endResetModel()

    def metadata(self) -> dict[str, str]:
        """The edited metadata (rows with an empty key are dropped; a later key wins)."""
        return {k.strip(): v for k, v in self.items if k.strip()}

    def duplicate_keys(self) -> list[str]:
        keys = [k.strip() for k, _ in self.items if k.strip()]
        return sorted({k for k in keys if keys.count(k) > 1})

    def add_row(self) -> int:
        row = len(self.items)
        self.beginInsertRows(QModelIndex(), row, row)
        self.items.append(["", ""])
        self.endInsertRows()
        return row

    def remove_row(self, row: int) -> None:
        if 0 <= row < len(self.items):
            self.beginRemoveRows(QModelIndex(), row, row)
            del self.items[row]
            self.endRemoveRows()

    def _count(self) -> int:
        return len(self.items)

    def data(self, index: Index, role: int = _DISPLAY) -> Any:
        if not self._valid(index):
            return None
        if role in (_DISPLAY, Qt.ItemDataRole.EditRole):
            return self.items[index.row()][index.column()]
        return None

    def flags(self, index: Index) -> Qt.ItemFlag:
        flags = super().flags(index)
        if index.isValid():
            flags |= Qt.ItemFlag.ItemIsEditable
        return flags

    def setData(self, index: Index, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:
        if not self._valid(index) or role != Qt.ItemDataRole.EditRole or not isinstance(value, str):
            return False
        self.items[index.row()][index.column()] = value
        self.dataChanged.emit(index, index, [Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.EditRole])
        return True
