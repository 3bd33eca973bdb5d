"""Every custom item-data role of the app's models, in one place (style.md practice 15)."""

from __future__ import annotations

import enum

from PySide6.QtCore import Qt

__all__ = ["Role"]

_BASE = int(Qt.ItemDataRole.UserRole)


class Role(enum.IntEnum):
    """Custom roles; a model returns ``None`` for any role it does not serve."""

    KIND = _BASE + 1
    """What a row is (a message kind, a node kind, a diff sign...)."""
    ROW = _BASE + 2
    """The row's presentation object (``ConversationRow``, ``SessionRow``...), for delegates."""
    MESSAGE = _BASE + 3
    """The wire ``Message`` of a conversation or diff row."""
    SUMMARY = _BASE + 4
    """The ``SessionSummary`` of a session-list row."""
    NODE = _BASE + 5
    """The ``RevisionNode`` of a timeline row."""
    SORT = _BASE + 6
    """A value to sort by (numbers as numbers)."""
    ACTIVE = _BASE + 7
    """True for the active revision (timeline) or the open session (browser)."""
    ON_ACTIVE_PATH = _BASE + 8
    """True for revisions on the path to the active revision."""
    EXPANDED = _BASE + 9
    """True when a conversation row shows its whole text instead of a preview."""
    MATCH = _BASE + 10
    """Find-in-session: 0 no match, 1 a match, 2 the current match."""
    TEXT = _BASE + 11
    """The row's full text (find, copy)."""
