"""Item models of the Changes tab: the files a session touched (each with its changes by turn), and
the library's "sessions that touched this file" search results.

:class:`TouchedFilesModel` is a two-level tree over a :class:`~rho_desk.core.changes.SessionChanges`:
a file per top-level row (in order of first change), its changes across turns as children. The
rows are built once per session (no Qt in the data: plain tuples); a change's content is worked
out only for the rows painted (and the selected one's diff, by the view, in a worker thread).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Final

from PySide6.QtCore import (
    QAbstractItemModel,
    QAbstractTableModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
)

from ...core.changes import FileChange, SessionChanges, TurnChanges
from ...core.changes.index import TouchedFile
from ..ui.roles import Role

__all__ = ["LibraryTouchedModel", "TouchedFilesModel"]

Index = QModelIndex | QPersistentModelIndex
_FILE_COLUMNS: Final = ("File", "Turn", "Change")
_NO_PARENT: Final = 0xFFFFFFFF


def turn_text(turn: TurnChanges) -> str:
    label = turn.label
    if turn.outcome is not None and turn.committed and turn.outcome.value != "completed":
        label += f" ({turn.outcome.value})"
    return label


class TouchedFilesModel(QAbstractItemModel):
    """Files (top level) and their changes by turn (children)."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.changes: SessionChanges | None = None
        self._files: list[tuple[str, list[tuple[TurnChanges, FileChange]]]] = []

    def set_changes(self, changes: SessionChanges | None) -> None:
        self.beginResetModel()
        self.changes = changes
        files: dict[str, list[tuple[TurnChanges, FileChange]]] = {}
        if changes is not None:
            for turn in changes.turns:
                for change in turn.files:
                    files.setdefault(change.path, []).append((turn, change))
        self._files = list(files.items())
        self.endResetModel()

    # -- lookups for the view --------------------------------------------------------------------------

    def change_at(self, index: Index) -> tuple[TurnChanges, FileChange] | None:
        if not index.isValid() or index.internalId() == _NO_PARENT:
            return None
        return self._files[index.internalId()][1][index.row()]

    def file_at(self, index: Index) -> str | None:
        if not index.isValid():
            return None
        if index.internalId() == _NO_PARENT:
            return self._files[index.row()][0]
        return self._files[index.internalId()][0]

    def index_of(self, path: str, turn: int | None = None) -> QModelIndex:
        """The file's row, or its change in ``turn`` when given (invalid if absent)."""
        for row, (name, changes) in enumerate(self._files):
            if name != path:
                continue
            top = self.index(row, 0)
            if turn is None:
                return top
            for child, (t, _c) in enumerate(changes):
                if t.turn == turn:
                    return self.index(child, 0, top)
            return top
        return QModelIndex()

    def first_of_turn(self, turn: int) -> QModelIndex:
        """The first change made in ``turn`` (invalid if the turn changed no file)."""
        for row, (_name, changes) in enumerate(self._files):
            for child, (t, _c) in enumerate(changes):
                if t.turn == turn:
                    return self.index(child, 0, self.index(row, 0))
        return QModelIndex()

    # -- QAbstractItemModel ----------------------------------------------------------------------------

    def index(self, row: int, column: int, parent: Index = QModelIndex()) -> QModelIndex:
        if column < 0 or column >= len(_FILE_COLUMNS) or row < 0:
            return QModelIndex()
        if not parent.isValid():
            return (
                self.createIndex(row, column, _NO_PARENT)
                if row < len(self._files)
                else QModelIndex()
            )
        if parent.internalId() != _NO_PARENT or parent.column() != 0:
            return QModelIndex()
        owner = parent.row()
        if row >= len(self._files[owner][1]):
            return QModelIndex()
        return self.createIndex(row, column, owner)

    def parent(self, child: Index = QModelIndex()) -> QModelIndex:  # type: ignore[override]
        if not child.isValid() or child.internalId() == _NO_PARENT:
            return QModelIndex()
        return self.createIndex(child.internalId(), 0, _NO_PARENT)

    def rowCount(self, parent: Index = QModelIndex()) -> int:
        if not parent.isValid():
            return len(self._files)
        if parent.internalId() == _NO_PARENT and parent.column() == 0:
            return len(self._files[parent.row()][1])
        return 0

    def columnCount(self, parent: Index = QModelIndex()) -> int:
        return len(_FILE_COLUMNS)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if (
            orientation == Qt.Orientation.Horizontal
            and role == Qt.ItemDataRole.DisplayRole
            and 0 <= section < len(_FILE_COLUMNS)
        ):
            return _FILE_COLUMNS[section]
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        column = index.column()
        if index.internalId() == _NO_PARENT:
            name, changes = self._files[index.row()]
            if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.AccessibleTextRole):
                if column == 0:
                    return name
                if column == 1:
                    return f"{len(changes)} turn" + ("s" if len(changes) != 1 else "")
                return None
            if role == Qt.ItemDataRole.ToolTipRole and column == 0:
                # the view spans the file's row over the columns: its turn count is said here too
                count = f"{len(changes)} turn" + ("s" if len(changes) != 1 else "")
                return f"{changes[0][1].abs_path}\nchanged in {count}"
            if role == Role.SORT:
                return (name, len(changes), 0)[column]
            return None
        turn, change = self._files[index.internalId()][1][index.row()]
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.AccessibleTextRole):
            if column == 0:
                return turn.prompt or turn_text(turn)
            if column == 1:
                return turn_text(turn)
            return change.action.value
        if role == Qt.ItemDataRole.ToolTipRole:
            where = (
                "from the checkpoint journal"
                if change.source.value == "checkpoint"
                else "from the tool calls"
            )
            return f"{turn_text(turn)}: {turn.prompt}\n{change.path} ({where})"
        if role == Role.KIND:
            return change.source.value
        if role == Role.SORT:
            return (turn.prompt, turn.turn or 0, change.source.value)[column]
        return None


_TOUCHED_COLUMNS: Final = ("File", "Session", "Turns")


class LibraryTouchedModel(QAbstractTableModel):
    """The library-wide search: every (file, session) that matched, newest session first."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.rows: list[TouchedFile] = []
        self.titles: dict[str, str] = {}
        """Session id -> the title the library shows for it."""

    def set_rows(self, rows: list[TouchedFile], titles: dict[str, str] | None = None) -> None:
        self.beginResetModel()
        self.rows = rows
        self.titles = titles or {}
        self.endResetModel()

    def session_text(self, row: TouchedFile) -> str:
        """The session's title as the library shows it, else the start of its id."""
        title = self.titles.get(row.session_id or "")
        return title or (row.session_id or Path(row.session_path).parent.name)[:8]

    def rowCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(_TOUCHED_COLUMNS)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if (
            orientation == Qt.Orientation.Horizontal
            and role == Qt.ItemDataRole.DisplayRole
            and 0 <= section < len(_TOUCHED_COLUMNS)
        ):
            return _TOUCHED_COLUMNS[section]
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self.rows):
            return None
        row = self.rows[index.row()]
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.AccessibleTextRole):
            if index.column() == 0:
                return row.shown
            if index.column() == 1:
                return self.session_text(row)
            return ", ".join("unsaved" if t is None else str(t) for t in row.turns)
        if role == Qt.ItemDataRole.ToolTipRole:
            return f"{row.file}\n{self.session_text(row)}\n{row.session_path}"
        if role == Role.ROW:
            return row
        return None
