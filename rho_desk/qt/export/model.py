"""The export dialog's tables: the content classes (what each holds, whether it leaves) and the
audit's findings.

Each is a ``QAbstractTableModel`` over plain values computed elsewhere (often in a worker
thread); none knows a widget, ``data()`` answers ``None`` for roles it does not serve, and every
one passes ``QAbstractItemModelTester`` (tests/qt/dialogs/test_models.py). Custom roles come
from the app's one :class:`~rho_desk.qt.ui.roles.Role` enum.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from PySide6.QtCore import (
    QObject,
    Qt,
    Signal,
)
from PySide6.QtGui import QBrush, QColor, QFont

from ...core.export import ALL_CLASSES, ClassStats, ContentClass, Finding, Severity
from ..ui.labels import human_bytes
from ..ui.roles import Role
from ..ui.table import ColumnsTableModel, Index

__all__ = ["CLASS_LABELS", "ClassTableModel", "FindingsModel"]

_DISPLAY = Qt.ItemDataRole.DisplayRole
_RIGHT = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)


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


class ClassTableModel(ColumnsTableModel):
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
        checked = (
            Qt.CheckState(value) == Qt.CheckState.Checked if not isinstance(value, bool) else value
        )
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


class FindingsModel(ColumnsTableModel):
    """The audit's findings: severity, rule, class, location, fingerprint (never a value)."""

    COLUMNS = ("Severity", "Rule", "Class", "Location", "Fingerprint")

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.findings: list[Finding] = []
        self.colors = {
            "danger": QColor("#cf222e"),
            "warning": QColor("#9a6700"),
            "muted": QColor("#656d76"),
        }

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
            return (
                f.severity.value,
                f.rule,
                f.cls.value if f.cls else "—",
                f.location,
                f.fingerprint or f.digest or "",
            )[column]
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
