"""The Settings dialog's table of provider profiles."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QFont

from ..ui.roles import Role
from ..ui.table import ColumnsTableModel, Index

__all__ = ["ProfileListModel"]

_DISPLAY = Qt.ItemDataRole.DisplayRole
_RIGHT = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)


_KIND_LABELS: Final = {"openai-compatible": "OpenAI", "anthropic": "Anthropic"}
"""Short labels for the Kind column (the full kind is its tooltip)."""


class ProfileListModel(ColumnsTableModel):
    """Provider profiles by name (the default in bold), with kind, model and whether a key is stored."""

    COLUMNS = ("Profile", "Kind", "Model", "Key")

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.profiles: list[Any] = []
        self.default: str | None = None
        self.keys: dict[str, str] = {}
        """Profile name -> "keyring", "environment", "not needed", "missing" or "unknown"."""

    def set_profiles(self, profiles: Sequence[Any], default: str | None) -> None:
        self.beginResetModel()
        self.profiles = list(profiles)
        self.default = default
        self.endResetModel()

    def set_key_state(self, name: str, state: str) -> None:
        self.keys[name] = state
        for row, profile in enumerate(self.profiles):
            if profile.name == name:
                self.dataChanged.emit(self.index(row, 3), self.index(row, 3))

    def row_of(self, name: str) -> int:
        return next((i for i, p in enumerate(self.profiles) if p.name == name), -1)

    def _count(self) -> int:
        return len(self.profiles)

    def data(self, index: Index, role: int = _DISPLAY) -> Any:
        if not self._valid(index):
            return None
        profile = self.profiles[index.row()]
        column = index.column()
        if role == _DISPLAY:
            if column == 0:
                return profile.name
            if column == 1:
                return _KIND_LABELS.get(profile.kind.value, profile.kind.value)
            if column == 2:
                return profile.model
            return self.keys.get(profile.name, "…")
        if role == Qt.ItemDataRole.ToolTipRole:
            if column == 0:
                return (
                    f"{profile.name} (the default profile)"
                    if profile.name == self.default
                    else profile.name
                )
            if column in (1, 2):
                return profile.kind.value if column == 1 else profile.model
        if role == Qt.ItemDataRole.FontRole and column == 0 and profile.name == self.default:
            font = QFont()
            font.setBold(True)
            return font
        if role == Role.ROW:
            return profile
        return None
