"""The session list model: one row per session of the library (a listing or search hits)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PySide6.QtCore import QAbstractListModel, QModelIndex, QObject, QPersistentModelIndex, Qt

from ...core.agents.base import AGENT_LABELS
from ...core.stores.search import SearchHit, Snippet
from ...core.stores.summary import SessionSummary
from ..ui.roles import Role
from ..ui.text import listed_title

__all__ = ["SessionListModel", "SessionRow", "workspace_label"]


def workspace_label(cwd: str) -> str:
    """The last two parts of a workspace path (``src/payments-api``)."""
    parts = [p for p in cwd.replace("\\", "/").split("/") if p]
    return "/".join(parts[-2:]) if parts else cwd or "(no workspace)"


@dataclass(frozen=True, slots=True)
class SessionRow:
    """What the session delegate paints for one row."""

    summary: SessionSummary
    snippets: tuple[Snippet, ...]
    is_open: bool


class SessionListModel(QAbstractListModel):
    """Rows of :class:`SessionSummary`, with search snippets when the list is a search result."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._rows: list[SessionRow] = []
        self._open_path: str | None = None

    def set_sessions(self, sessions: Sequence[SessionSummary]) -> None:
        self.beginResetModel()
        self._rows = [SessionRow(s, (), s.path == self._open_path) for s in sessions]
        self.endResetModel()

    def set_hits(self, hits: Sequence[SearchHit]) -> None:
        self.beginResetModel()
        self._rows = [
            SessionRow(h.session, h.snippets, h.session.path == self._open_path) for h in hits
        ]
        self.endResetModel()

    def set_open_path(self, path: Path | str | None) -> None:
        """Mark the session that is open in the window."""
        self._open_path = None if path is None else str(path)
        for i, row in enumerate(self._rows):
            is_open = row.summary.path == self._open_path
            if row.is_open != is_open:
                self._rows[i] = SessionRow(row.summary, row.snippets, is_open)
                index = self.index(i)
                self.dataChanged.emit(index, index, [Role.ROW, Role.ACTIVE])

    def summary(self, row: int) -> SessionSummary | None:
        return self._rows[row].summary if 0 <= row < len(self._rows) else None

    def text_match(self, row: int) -> tuple[int, str] | None:
        """Where a search hit's first match in the conversation lies (see ``SearchHit.first_text_match``)."""
        if not 0 <= row < len(self._rows):
            return None
        r = self._rows[row]
        return SearchHit(r.summary, r.snippets).first_text_match()

    def row_of_path(self, path: Path | str) -> int:
        target = str(path)
        return next((i for i, r in enumerate(self._rows) if r.summary.path == target), -1)

    def summaries(self) -> list[SessionSummary]:
        return [r.summary for r in self._rows]

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
        row = self._rows[index.row()]
        s = row.summary
        if role == Qt.ItemDataRole.DisplayRole:
            return listed_title(s)
        if role == Qt.ItemDataRole.ToolTipRole:
            return f"{s.path}\n{s.cwd}" + (
                f"\n{AGENT_LABELS.get(s.agent, s.agent)} session (read-only)"
                if s.agent != "rho"
                else ""
            )
        if role == Role.ROW:
            return row
        if role == Role.SUMMARY:
            return s
        if role == Role.ACTIVE:
            return row.is_open
        if role == Role.SORT:
            return s.updated_at
        if role == Qt.ItemDataRole.AccessibleTextRole:
            agent = f"{AGENT_LABELS.get(s.agent, s.agent)} session, " if s.agent != "rho" else ""
            return f"{listed_title(s)}, {agent}{workspace_label(s.cwd)}, {s.message_count} messages"
        return None

    def flags(self, index: QModelIndex | QPersistentModelIndex) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
