"""The Team list model: one row per session published to the team library (a listing or search
results), each a card like the Local list's."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QAbstractListModel, QModelIndex, QObject, QPersistentModelIndex, Qt

from ..ui.roles import Role

__all__ = ["TeamEntry", "TeamListModel", "TeamRow"]


@dataclass(frozen=True, slots=True)
class TeamRow:
    """What a Team list card shows, as a Local card shows it: title and time, where and who,
    the matching snippet (its matches highlighted) or the revision line, and badges."""

    title: str
    when: str
    meta: str
    text: str
    highlights: tuple[tuple[int, int], ...]
    badges: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class TeamEntry:
    """One published session in the list: which it is, its card, and what it says in words."""

    team: str
    session_id: str
    card: TeamRow
    spoken: str
    """The card's lines, the snippet without marks: the row's text for a screen reader."""
    tooltip: str


class TeamListModel(QAbstractListModel):
    """Rows of :class:`TeamEntry`: the display and accessible text, the tooltip, and the card
    (:attr:`Role.ROW`) the Team delegate paints."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._rows: list[TeamEntry] = []

    def set_entries(self, entries: Sequence[TeamEntry]) -> None:
        self.beginResetModel()
        self._rows = list(entries)
        self.endResetModel()

    def clear(self) -> None:
        self.set_entries(())

    def entry(self, row: int) -> TeamEntry | None:
        return self._rows[row] if 0 <= row < len(self._rows) else None

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._rows)

    def data(
        self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if (
            not index.isValid()
            or index.parent().isValid()
            or not 0 <= index.row() < len(self._rows)
        ):
            return None
        entry = self._rows[index.row()]
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.AccessibleTextRole):
            return entry.spoken
        if role == Qt.ItemDataRole.ToolTipRole:
            return entry.tooltip
        if role == Role.ROW:
            return entry.card
        return None

    def flags(self, index: QModelIndex | QPersistentModelIndex) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
