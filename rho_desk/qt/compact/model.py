"""The compaction preview's table: every message of the history with what the compaction does to it."""

from __future__ import annotations

import enum
from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QBrush, QColor, QFont

from ...core.wire import Message
from ..ui.labels import KIND_LABELS, describe
from ..ui.roles import Role
from ..ui.table import ColumnsTableModel, Index

__all__ = ["CompactionPreviewModel", "Fate"]

_DISPLAY = Qt.ItemDataRole.DisplayRole
_RIGHT = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)


class Fate(enum.Enum):
    """What a compaction does to one message."""

    SYSTEM = "kept (system)"  # the leading system prompt: always kept
    REMOVED = "replaced"  # folded into the digest or summary
    KEPT = "kept"  # part of the recent budget, kept verbatim


class CompactionPreviewModel(ColumnsTableModel):
    """Every message of the history with what the compaction would do to it.

    Texts are built lazily for the rows a view asks for, so a 100k-message history costs only
    the token list computed in the worker thread.
    """

    COLUMNS = ("#", "Kind", "Compaction", "Tokens", "Message")

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.messages: Sequence[Message] = ()
        self.tokens: Sequence[int] = ()
        self.system = 0
        self.removed = 0
        self.removed_color = QColor("#cf222e")
        self.kept_color = QColor("#1a7f37")

    def set_preview(
        self, messages: Sequence[Message], tokens: Sequence[int], system: int, removed: int
    ) -> None:
        self.beginResetModel()
        self.messages, self.tokens, self.system, self.removed = messages, tokens, system, removed
        self.endResetModel()

    def set_colors(self, removed: str, kept: str) -> None:
        self.removed_color, self.kept_color = QColor(removed), QColor(kept)
        if self._count():
            self.dataChanged.emit(self.index(0, 2), self.index(self._count() - 1, 2))

    def fate(self, row: int) -> Fate:
        if row < self.system:
            return Fate.SYSTEM
        return Fate.REMOVED if row < self.system + self.removed else Fate.KEPT

    def _count(self) -> int:
        return len(self.messages)

    def data(self, index: Index, role: int = _DISPLAY) -> Any:
        if not self._valid(index):
            return None
        row, column = index.row(), index.column()
        message = self.messages[row]
        if role == _DISPLAY:
            if column == 0:
                return str(row + 1)
            if column == 1:
                return KIND_LABELS[message.kind]
            if column == 2:
                return self.fate(row).value
            if column == 3:
                return f"{self.tokens[row]:,}" if row < len(self.tokens) else ""
            return describe(message)
        if role == Qt.ItemDataRole.TextAlignmentRole and column in (0, 3):
            return _RIGHT
        if role == Qt.ItemDataRole.ForegroundRole and column == 2:
            return QBrush(self.removed_color if self.fate(row) is Fate.REMOVED else self.kept_color)
        if role == Qt.ItemDataRole.FontRole and self.fate(row) is Fate.REMOVED and column == 4:
            font = QFont()
            font.setStrikeOut(True)
            return font
        if role == Role.MESSAGE:
            return message
        if role == Role.KIND:
            return self.fate(row)
        if role == Role.SORT:
            return row
        return None
