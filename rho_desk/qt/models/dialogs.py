"""The item models of the action dialogs: compaction preview, export classes and findings,
message editing, provider profiles and metadata.

Each is a ``QAbstractTableModel`` over plain values computed elsewhere (often in a worker
thread); none knows a widget, ``data()`` answers ``None`` for roles it does not serve, and every
one passes ``QAbstractItemModelTester`` (tests/qt/dialogs/test_models.py). Custom roles come
from the app's one :class:`~rho_desk.qt.models.roles.Role` enum.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Final

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
    Signal,
)
from PySide6.QtGui import QBrush, QColor, QFont

from ...core.export import ALL_CLASSES, ClassStats, ContentClass, Finding, Severity
from ...core.wire import Message
from ..dialogs.common import KIND_LABELS, describe, human_bytes
from .roles import Role

__all__ = [
    "CLASS_LABELS",
    "ClassTableModel",
    "CompactionPreviewModel",
    "EditRow",
    "EditableMessagesModel",
    "Fate",
    "FindingsModel",
    "MetadataModel",
    "ProfileListModel",
]

Index = QModelIndex | QPersistentModelIndex
_DISPLAY = Qt.ItemDataRole.DisplayRole
_RIGHT = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)


class _Table(QAbstractTableModel):
    """A flat table with fixed column titles."""

    COLUMNS: ClassVar[tuple[str, ...]] = ()

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else self._count()

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = _DISPLAY) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == _DISPLAY and 0 <= section < len(self.COLUMNS):
            return self.COLUMNS[section]
        return None

    def flags(self, index: Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable

    def _count(self) -> int:
        raise NotImplementedError

    def _valid(self, index: Index) -> bool:
        return index.isValid() and 0 <= index.row() < self._count() and 0 <= index.column() < len(self.COLUMNS)


# --- compaction preview --------------------------------------------------------------------------


class Fate(enum.Enum):
    """What a compaction does to one message."""

    SYSTEM = "kept (system)"  # the leading system prompt: always kept
    REMOVED = "replaced"  # folded into the digest or summary
    KEPT = "kept"  # part of the recent budget, kept verbatim


class CompactionPreviewModel(_Table):
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

    def set_preview(self, messages: Sequence[Message], tokens: Sequence[int], system: int, removed: int) -> None:
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


# --- export --------------------------------------------------------------------------------------

CLASS_LABELS = {
    ContentClass.INSTRUCTIONS: "System and project instructions",
    ContentClass.USER: "User messages",
    ContentClass.ASSISTANT: "Assistant messages",
    ContentClass.TOOL_RECORDS: "Tool calls and results (files, diffs, output, URLs)",
    ContentClass.IMAGES: "Images (base64 data)",
    ContentClass.DOCUMENTS: "Document text, names, MIME types, notices",
    ContentClass.REASONING_SUMMARIES: "Reasoning summaries",
    ContentClass.PROVIDER_CONTEXT: "Provider replay blocks (opaque)",
    ContentClass.METADATA: "Custom metadata and prompt-cache key",
}


class ClassTableModel(_Table):
    """The nine content classes with a check box each, and their counts and sizes.

    Signals:
        sig_selection_changed(): a class was checked or unchecked.
    """

    COLUMNS = ("Content class", "Name", "Strings", "Size")
    sig_selection_changed = Signal()
    """The set of included classes changed."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.included: set[ContentClass] = set(ALL_CLASSES)
        self.stats: ClassStats | None = None

    def set_stats(self, stats: ClassStats | None) -> None:
        self.stats = stats
        if self._count():
            self.dataChanged.emit(self.index(0, 2), self.index(self._count() - 1, 3))

    def set_included(self, classes: set[ContentClass] | frozenset[ContentClass]) -> None:
        self.included = set(classes)
        self.dataChanged.emit(self.index(0, 0), self.index(self._count() - 1, 0))
        self.sig_selection_changed.emit()

    def _count(self) -> int:
        return len(ALL_CLASSES)

    def data(self, index: Index, role: int = _DISPLAY) -> Any:
        if not self._valid(index):
            return None
        cls = ALL_CLASSES[index.row()]
        column = index.column()
        stats = self.stats
        if role == _DISPLAY:
            if column == 0:
                return CLASS_LABELS[cls]
            if column == 1:
                return cls.value
            if stats is None:
                return "…"
            if column == 2:
                return f"{stats.strings[cls]:,}"
            return human_bytes(stats.bytes[cls])
        if role == Qt.ItemDataRole.CheckStateRole and column == 0:
            return Qt.CheckState.Checked if cls in self.included else Qt.CheckState.Unchecked
        if role == Qt.ItemDataRole.TextAlignmentRole and column in (2, 3):
            return _RIGHT
        if role == Qt.ItemDataRole.ToolTipRole:
            return f"--include/--exclude name: {cls.value}"
        if role == Role.KIND:
            return cls
        if role == Role.SORT and stats is not None:
            return stats.bytes[cls] if column == 3 else stats.strings[cls]
        return None

    def flags(self, index: Index) -> Qt.ItemFlag:
        flags = super().flags(index)
        if index.isValid() and index.column() == 0:
            flags |= Qt.ItemFlag.ItemIsUserCheckable
        return flags

    def setData(self, index: Index, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:
        if not self._valid(index) or index.column() != 0 or role != Qt.ItemDataRole.CheckStateRole:
            return False
        cls = ALL_CLASSES[index.row()]
        checked = Qt.CheckState(value) == Qt.CheckState.Checked if not isinstance(value, bool) else value
        if checked:
            self.included.add(cls)
        else:
            self.included.discard(cls)
        self.dataChanged.emit(index, index, [Qt.ItemDataRole.CheckStateRole])
        self.sig_selection_changed.emit()
        return True


_SEVERITY_TONES = {
    Severity.CRITICAL: "danger",
    Severity.HIGH: "danger",
    Severity.MEDIUM: "warning",
    Severity.LOW: "muted",
}


RULE_WORDS: Final = {
    "excluded-content-echo": "Text of a class left out that also appears in what is kept (a reasoning summary "
                             "repeating its provider's replay block, an answer quoting a left-out tool output). "
                             "It does not stop the export.",
    "excluded-class-present": "Content of a class left out, where that class lives: the export is blocked.",
    "image-mime-mismatch": "An image whose bytes are not of the type it declares.",
}
"""A finding's rule in plain words, for its tooltip (the rule names are the receipt's)."""


class FindingsModel(_Table):
    """The audit's findings: severity, rule, class, location, fingerprint (never a value)."""

    COLUMNS = ("Severity", "Rule", "Class", "Location", "Fingerprint")

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.findings: list[Finding] = []
        self.colors = {"danger": QColor("#cf222e"), "warning": QColor("#9a6700"), "muted": QColor("#656d76")}

    def set_findings(self, findings: Sequence[Finding]) -> None:
        self.beginResetModel()
        self.findings = sorted(findings, key=Finding.sort_key)
        self.endResetModel()

    def set_colors(self, danger: str, warning: str, muted: str) -> None:
        self.colors = {"danger": QColor(danger), "warning": QColor(warning), "muted": QColor(muted)}

    def _count(self) -> int:
        return len(self.findings)

    def data(self, index: Index, role: int = _DISPLAY) -> Any:
        if not self._valid(index):
            return None
        f = self.findings[index.row()]
        column = index.column()
        if role == _DISPLAY:
            return (f.severity.value, f.rule, f.cls.value if f.cls else "—", f.location,
                    f.fingerprint or f.digest or "")[column]  # fmt: skip
        if role == Qt.ItemDataRole.ForegroundRole and column == 0:
            return QBrush(self.colors[_SEVERITY_TONES[f.severity]])
        if role == Qt.ItemDataRole.FontRole and column == 0 and f.severity.blocks:
            font = QFont()
            font.setBold(True)
            return font
        if role == Qt.ItemDataRole.ToolTipRole:
            words = RULE_WORDS.get(f.rule)
            return f.describe() + (f"\n{words}" if words else "")
        if role == Role.KIND:
            return f.severity
        if role == Role.SORT:
            return f.sort_key()
        return None


# --- editing messages ----------------------------------------------------------------------------


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


class EditableMessagesModel(_Table):
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


# --- settings ------------------------------------------------------------------------------------


_KIND_LABELS: Final = {"openai-compatible": "OpenAI", "anthropic": "Anthropic"}
"""Short labels for the Kind column (the full kind is its tooltip)."""


class ProfileListModel(_Table):
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
                return f"{profile.name} (the default profile)" if profile.name == self.default else profile.name
            if column in (1, 2):
                return profile.kind.value if column == 1 else profile.model
        if role == Qt.ItemDataRole.FontRole and column == 0 and profile.name == self.default:
            font = QFont()
            font.setBold(True)
            return font
        if role == Role.ROW:
            return profile
        return None


class MetadataModel(_Table):
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
