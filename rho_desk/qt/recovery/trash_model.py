"""The trash as a table: what a person knows each deleted session by (its title, else its first
prompt), when it was deleted and last active, how long it is, and where it lived."""

from __future__ import annotations

import time

from PySide6.QtCore import QObject

from ...core.stores.trash import TrashItem
from ..ui.table import RowTableModel

__all__ = ["TrashModel"]


def _when(stamp: int | None) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(stamp)) if stamp else "–"


def _label(item: TrashItem) -> str:
    text = item.label
    return text if len(text) <= 90 else text[:89] + "…"


class TrashModel(RowTableModel[TrashItem]):
    """One row per trash entry (most recently deleted first, as ``list_trash`` gives them)."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.columns = (
            ("Deleted", lambda i: _when(i.deleted_at), lambda i: i.deleted_at, False),
            ("Session", _label, lambda i: i.label.casefold(), False),
            (
                "Messages",
                lambda i: "–" if i.messages is None else f"{i.messages:,}",
                lambda i: i.messages or 0,
                True,
            ),
            ("Last active", lambda i: _when(i.updated_at), lambda i: i.updated_at or 0, False),
            (
                "Workspace",
                lambda i: i.cwd or i.workspace_key,
                lambda i: i.cwd or i.workspace_key,
                False,
            ),
        )
        self.tooltip = lambda i: f"{i.label}\nsession {i.session_id}\nwas {i.original}"
