"""The compactions of a revision as a table: :class:`CompactionTableModel` lists the rows of
:func:`rho_desk.core.compaction.stats.compute_stats`."""

from __future__ import annotations

import time
from typing import Any, Final

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QObject, QPersistentModelIndex, Qt

from ...core.compaction.stats import CompactionRow
from ..ui.roles import Role

__all__ = ["CompactionTableModel"]

_COLUMNS: Final = (
    "#",
    "Revision",
    "Saved",
    "Messages",
    "Est. tokens",
    "Removed tokens",
    "Cost",
    "Source",
)


class CompactionTableModel(QAbstractTableModel):
    """One row per compaction on the path to the shown revision."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.rows: list[CompactionRow] = []

    def set_rows(self, rows: list[CompactionRow]) -> None:
        self.beginResetModel()
        self.rows = list(rows)
        self.endResetModel()

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(_COLUMNS)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if (
            orientation == Qt.Orientation.Horizontal
            and role == Qt.ItemDataRole.DisplayRole
            and 0 <= section < len(_COLUMNS)
        ):
            return _COLUMNS[section]
        return None

    def data(
        self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self.rows):
            return None
        r = self.rows[index.row()]
        c = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            if c == 0:
                return str(r.number)
            if c == 1:
                return f"r{r.node.revision}"
            if c == 2:
                return (
                    time.strftime("%b %d %H:%M", time.localtime(r.node.time))
                    if r.node.time
                    else r.node.timestamp
                )
            if c == 3:
                return f"{r.messages_before:,} → {r.messages_after:,}"
            if c == 4:
                if r.tokens_before is None or r.tokens_after is None:
                    return "unknown"
                return f"{r.tokens_before:,} → {r.tokens_after:,}"
            if c == 5:
                if r.tokens_before is None or r.tokens_after is None:
                    return ""
                return f"{max(0, r.tokens_before - r.tokens_after):,}"
            if c == 6:
                return "" if r.cost_usd_micros is None else f"${r.cost_usd_micros / 1e6:.4f}"
            if c == 7:
                return "facts in the file" if r.from_facts else "derived from counters"
        if role == Qt.ItemDataRole.TextAlignmentRole and c in (0, 3, 4, 5, 6):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Role.NODE:
            return r.node
        if role == Role.SORT:
            return r.node.revision
        return None

    def flags(self, index: QModelIndex | QPersistentModelIndex) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
