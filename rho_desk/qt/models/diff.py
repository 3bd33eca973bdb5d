"""The difference between two revisions: messages added, removed and changed, and the token delta.

:func:`compute_diff` (no Qt; run it in a worker thread) starts from the tree's own
``RevisionDiff`` (common prefix and the two diverging tails), then also strips the common
suffix of the tails (a compaction keeps the recent messages), and pairs what is left position
by position: a pair of the same kind that differs is *changed*, the rest is *removed* from the
old revision or *added* in the new one. The token delta is the estimate (spec §3) of the new
tail minus the old one. :class:`DiffModel` lists the rows.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any, Final

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QObject, QPersistentModelIndex, Qt

from ...core.compaction import estimate_messages_tokens
from ...core.stores.rho_files import RevisionNode, SessionTree
from ...core.wire import Message
from .conversation import message_text
from .roles import Role

__all__ = ["DiffModel", "DiffResult", "DiffRow", "Sign", "compute_diff"]

MAX_ROWS: Final = 5000
COLUMNS: Final = ("", "Position", "Kind", "Message")


class Sign(enum.Enum):
    """How a message differs."""

    ADDED = "+"
    REMOVED = "−"
    CHANGED = "~"


@dataclass(frozen=True, slots=True)
class DiffRow:
    sign: Sign
    position: int
    """0-based position in the new history (added, changed) or the old one (removed)."""
    old: Message | None
    new: Message | None


@dataclass(slots=True)
class DiffResult:
    old: RevisionNode
    new: RevisionNode
    common_prefix: int
    common_suffix: int
    rows: list[DiffRow] = field(default_factory=list)
    added: int = 0
    removed: int = 0
    changed: int = 0
    token_delta: int = 0
    old_tokens: int = 0
    new_tokens: int = 0
    fields: tuple[str, ...] = ()
    """Other snapshot fields that differ (revision, provider, compaction, metadata...)."""
    truncated: bool = False

    def summary(self) -> str:
        if not (self.added or self.removed or self.changed):
            head = "Same messages"
        else:
            parts = []
            if self.added:
                parts.append(f"+{self.added:,} added")
            if self.removed:
                parts.append(f"−{self.removed:,} removed")
            if self.changed:
                parts.append(f"~{self.changed:,} changed")
            head = ", ".join(parts)
        sign = "+" if self.token_delta > 0 else ""
        text = f"{head} · tokens {self.old_tokens:,} → {self.new_tokens:,} ({sign}{self.token_delta:,})"
        if self.fields:
            text += " · also changed: " + ", ".join(self.fields)
        return text


def _kind(message: Message | None) -> str:
    return "" if message is None else message.kind.value


def compute_diff(tree: SessionTree, old: RevisionNode, new: RevisionNode) -> DiffResult:
    """How ``new``'s model history differs from ``old``'s (blocking)."""
    d = tree.diff(old, new)
    removed, added = d.removed, d.added
    suffix = 0
    limit = min(len(removed), len(added))
    while suffix < limit:
        last_old, last_new = removed[len(removed) - 1 - suffix], added[len(added) - 1 - suffix]
        if last_old is not last_new and last_old != last_new:
            break
        suffix += 1
    mid_old = removed[: len(removed) - suffix]
    mid_new = added[: len(added) - suffix]
    result = DiffResult(old, new, d.common_prefix, suffix, fields=tuple(f for f in d.changed if f != "revision"))
    base = d.common_prefix
    for i in range(max(len(mid_old), len(mid_new))):
        a = mid_old[i] if i < len(mid_old) else None
        b = mid_new[i] if i < len(mid_new) else None
        if a is not None and b is not None and a.kind is b.kind:
            row = DiffRow(Sign.CHANGED, base + i, a, b)
            result.changed += 1
            rows = [row]
        else:
            rows = []
            if a is not None:
                rows.append(DiffRow(Sign.REMOVED, base + i, a, None))
                result.removed += 1
            if b is not None:
                rows.append(DiffRow(Sign.ADDED, base + i, None, b))
                result.added += 1
        if len(result.rows) < MAX_ROWS:
            result.rows.extend(rows)
        else:
            result.truncated = True
    result.old_tokens = estimate_messages_tokens(tree.history(old))
    result.new_tokens = estimate_messages_tokens(tree.history(new))
    result.token_delta = result.new_tokens - result.old_tokens
    return result


def diff_preview(message: Message | None) -> str:
    """One line for a diff row: the text, else the tool calls it made."""
    if message is None:
        return ""
    text = " ".join(message_text(message).split())
    calls = [f"{c.name}({_args(c.arguments)})" for c in message.tool_calls()]
    if calls:
        text = (text + " · " if text else "") + ", ".join(calls)
    return text[:200]


def _args(arguments: Any) -> str:
    if isinstance(arguments, dict):
        for key in ("path", "command", "pattern", "code"):
            value = arguments.get(key)
            if isinstance(value, str):
                return value[:60]
    return "…"


class DiffModel(QAbstractTableModel):
    """Rows of a :class:`DiffResult`: sign, position, kind, text preview."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.result: DiffResult | None = None

    def set_result(self, result: DiffResult | None) -> None:
        self.beginResetModel()
        self.result = result
        self.endResetModel()

    def row(self, row: int) -> DiffRow | None:
        rows = self.result.rows if self.result is not None else []
        return rows[row] if 0 <= row < len(rows) else None

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        if parent.isValid() or self.result is None:
            return 0
        return len(self.result.rows)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole and 0 <= section < len(COLUMNS):
            return COLUMNS[section]
        return None

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        d = self.row(index.row())
        if d is None:
            return None
        message = d.new if d.new is not None else d.old
        if role == Qt.ItemDataRole.DisplayRole:
            column = index.column()
            if column == 0:
                return d.sign.value
            if column == 1:
                return f"{d.position + 1:,}"
            if column == 2:
                return _kind(message)
            if column == 3:
                return diff_preview(message)
        if role == Role.KIND:
            return d.sign.value
        if role == Role.MESSAGE:
            return message
        if role == Role.ROW:
            return d
        if role == Qt.ItemDataRole.TextAlignmentRole and index.column() in (0, 1):
            return int(Qt.AlignmentFlag.AlignCenter)
        return None

    def flags(self, index: QModelIndex | QPersistentModelIndex) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
