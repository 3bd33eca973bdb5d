"""The app's two table shapes: :class:`RowTableModel`, plain rows, each column a header and
functions of a row (the read-only tables: usage, payback, the trash); :class:`ColumnsTableModel`,
a flat table with fixed column titles whose subclass answers ``data()`` (the dialogs' tables)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, ClassVar, Final, Generic, TypeVar

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QObject, QPersistentModelIndex, Qt

from .roles import Role

__all__ = ["Column", "ColumnsTableModel", "Index", "RowTableModel"]

Index = QModelIndex | QPersistentModelIndex
_DISPLAY = Qt.ItemDataRole.DisplayRole

R = TypeVar("R")
_RIGHT: Final = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)

Column = tuple[str, Callable[[Any], str], Callable[[Any], Any], bool]
"""(header, text of a row, sort value of a row, right-aligned)."""


class RowTableModel(QAbstractTableModel, Generic[R]):
    """Rows of ``R``; each column: (header, text of a row, sort value of a row, right-aligned)."""

    columns: Sequence[Column] = ()
    tooltip: Callable[[Any], str] | None = None
    """A row's tooltip (the same on every column), if any."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.rows: list[R] = []

    def set_rows(self, rows: Sequence[R]) -> None:
        self.beginResetModel()
        self.rows = list(rows)
        self.endResetModel()

    def row_at(self, row: int) -> R | None:
        return self.rows[row] if 0 <= row < len(self.rows) else None

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.columns)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if (
            orientation == Qt.Orientation.Horizontal
            and role == Qt.ItemDataRole.DisplayRole
            and 0 <= section < len(self.columns)
        ):
            return self.columns[section][0]
        return None

    def data(
        self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if (
            not index.isValid()
            or not 0 <= index.row() < len(self.rows)
            or not 0 <= index.column() < len(self.columns)
        ):
            return None
        item = self.rows[index.row()]
        _header, text, sort, right = self.columns[index.column()]
        if role == Qt.ItemDataRole.DisplayRole:
            return text(item)
        if role == Qt.ItemDataRole.TextAlignmentRole and right:
            return _RIGHT
        if role == Qt.ItemDataRole.ToolTipRole and self.tooltip is not None:
            return self.tooltip(item)
        if role == Role.SORT:
            return sort(item)
        if role == Role.ROW:
            return item
        return None

    def flags(self, index: QModelIndex | QPersistentModelIndex) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable


class ColumnsTableModel(QAbstractTableModel):
    """A flat table with fixed column titles."""

    COLUMNS: ClassVar[tuple[str, ...]] = ()

    def rowCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else self._count()

    def columnCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = _DISPLAY) -> Any:
        if (
            orientation == Qt.Orientation.Horizontal
            and role == _DISPLAY
            and 0 <= section < len(self.COLUMNS)
        ):
            return self.COLUMNS[section]
        return None

    def flags(self, index: Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable

    def _count(self) -> int:
        raise NotImplementedError

    def _valid(self, index: Index) -> bool:
        return (
            index.isValid()
            and 0 <= index.row() < self._count()
            and 0 <= index.column() < len(self.COLUMNS)
        )
