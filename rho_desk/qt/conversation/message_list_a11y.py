"""What a screen reader gets from the message list: a list with one item per message.

Qt gives accessible rows only to its own item views (``QListView``, ``QTableView``,
``QTreeView``); a custom ``QAbstractItemView`` such as :class:`MessageListView` is a bare
"filler" with no children. :func:`install` registers an accessibility factory that gives the view
a *list* interface whose children are the messages, each a *list item* named by the model's
accessible text ("You, Nov 23, 02:14: Fix the flaky test"), selected and focused when current,
with its place on screen. Row interfaces are made when a screen reader asks for them and kept for
the view's lifetime (Qt's accessibility cache refers to them by id); a row past the end of the
current history reports itself invalid.
"""

from __future__ import annotations

from typing import Protocol, cast

from PySide6.QtCore import QObject, QPoint, QRect
from PySide6.QtGui import QAccessible, QAccessibleInterface, QWindow
from PySide6.QtWidgets import QAbstractItemView


class _RowNamer(Protocol):
    """The view names its rows (``MessageListView.accessible_row_text``)."""

    def accessible_row_text(self, row: int) -> str: ...


__all__ = ["MessageListAccessible", "MessageRowAccessible", "install"]


class MessageRowAccessible(QAccessibleInterface):
    """One message of the list: a list item."""

    def __init__(self, owner: MessageListAccessible, row: int) -> None:
        super().__init__()
        self.owner = owner
        self.row = row

    def isValid(self) -> bool:
        model = self.owner.view.model()
        return model is not None and 0 <= self.row < model.rowCount()

    def object(self) -> QObject | None:  # type: ignore[override]
        return None

    def window(self) -> QWindow | None:  # type: ignore[override]
        return self.owner.window()

    def parent(self) -> QAccessibleInterface:
        return self.owner

    def child(self, _index: int) -> QAccessibleInterface | None:  # type: ignore[override]
        return None

    def childCount(self) -> int:
        return 0

    def indexOfChild(self, _child: QAccessibleInterface) -> int:
        return -1

    def childAt(self, _x: int, _y: int) -> QAccessibleInterface | None:  # type: ignore[override]
        return None

    def focusChild(self) -> QAccessibleInterface | None:  # type: ignore[override]
        return None

    def text(self, kind: QAccessible.Text) -> str:
        if kind == QAccessible.Text.Name and self.isValid():
            return cast(_RowNamer, self.owner.view).accessible_row_text(self.row)
        return ""

    def setText(self, _kind: QAccessible.Text, _text: str) -> None:
        pass

    def rect(self) -> QRect:
        view = self.owner.view
        model = view.model()
        if not self.isValid() or model is None:
            return QRect()
        box = view.visualRect(model.index(self.row, 0)).intersected(view.viewport().rect())
        if box.isEmpty():
            return QRect()
        return QRect(view.viewport().mapToGlobal(box.topLeft()), box.size())

    def role(self) -> QAccessible.Role:
        return QAccessible.Role.ListItem

    def state(self) -> QAccessible.State:
        state = QAccessible.State()
        state.focusable = True
        state.selectable = True
        view = self.owner.view
        if self.isValid() and view.currentIndex().row() == self.row:
            state.selected = True
            state.focused = view.hasFocus()
        if self.rect().isEmpty():
            state.invisible = True
            state.offscreen = True
        return state

    def relations(
        self, _match: QAccessible.RelationFlag = QAccessible.RelationFlag.AllRelations
    ) -> list[tuple[QAccessibleInterface, QAccessible.RelationFlag]]:
        return []


class MessageListAccessible(QAccessibleInterface):
    """The message list: a list whose children are the messages."""

    def __init__(self, view: QAbstractItemView) -> None:
        super().__init__()
        self.view = view
        self._rows: dict[int, MessageRowAccessible] = {}

    def isValid(self) -> bool:
        return True

    def object(self) -> QObject:
        return self.view

    def window(self) -> QWindow | None:  # type: ignore[override]
        return self.view.window().windowHandle()

    def parent(self) -> QAccessibleInterface | None:  # type: ignore[override]
        parent = self.view.parentWidget()
        return QAccessible.queryAccessibleInterface(parent) if parent is not None else None

    def child(self, index: int) -> QAccessibleInterface | None:  # type: ignore[override]
        if not 0 <= index < self.childCount():
            return None
        row = self._rows.get(index)
        if row is None:
            row = self._rows[index] = MessageRowAccessible(self, index)
        return row

    def childCount(self) -> int:
        model = self.view.model()
        return model.rowCount() if model is not None else 0

    def indexOfChild(self, child: QAccessibleInterface) -> int:
        return child.row if isinstance(child, MessageRowAccessible) and child.owner is self else -1

    def childAt(self, x: int, y: int) -> QAccessibleInterface | None:  # type: ignore[override]
        point = self.view.viewport().mapFromGlobal(QPoint(x, y))
        index = self.view.indexAt(point)
        return self.child(index.row()) if index.isValid() else None

    def focusChild(self) -> QAccessibleInterface | None:  # type: ignore[override]
        current = self.view.currentIndex()
        return self.child(current.row()) if current.isValid() and self.view.hasFocus() else None

    def text(self, kind: QAccessible.Text) -> str:
        if kind == QAccessible.Text.Name:
            return self.view.accessibleName()
        if kind == QAccessible.Text.Description:
            return self.view.accessibleDescription()
        return ""

    def setText(self, _kind: QAccessible.Text, _text: str) -> None:
        pass

    def rect(self) -> QRect:
        if not self.view.isVisible():
            return QRect()
        return QRect(self.view.mapToGlobal(QPoint(0, 0)), self.view.size())

    def role(self) -> QAccessible.Role:
        return QAccessible.Role.List

    def state(self) -> QAccessible.State:
        state = QAccessible.State()
        state.focusable = True
        state.focused = self.view.hasFocus()
        state.invisible = not self.view.isVisible()
        return state

    def relations(
        self, _match: QAccessible.RelationFlag = QAccessible.RelationFlag.AllRelations
    ) -> list[tuple[QAccessibleInterface, QAccessible.RelationFlag]]:
        return []


_live: list[MessageListAccessible] = []
"""Every interface made: Qt's cache holds raw pointers to them and deletes a view's own when the
view goes, so Python keeps them for the process's lifetime (one per message list ever made)."""
_views: set[type[QAbstractItemView]] = set()
"""The view classes given list interfaces (the factory is registered with the first)."""


def _factory(_key: str, obj: QObject) -> QAccessibleInterface | None:
    if not isinstance(obj, QAbstractItemView) or not isinstance(obj, tuple(_views)):
        return None
    iface = MessageListAccessible(obj)  # Qt asks once per view and caches the answer
    _live.append(iface)
    return iface


def install(view_class: type[QAbstractItemView]) -> None:
    """Give ``view_class``'s views (which have ``accessible_row_text``) their rows; call before
    the first one is shown (the factory is registered once per process)."""
    if not _views:
        QAccessible.installFactory(_factory)
    _views.add(view_class)
