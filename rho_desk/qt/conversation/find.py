"""The find bar (Ctrl+F): search the open conversation's messages, step through the matches.

The search itself runs in a worker thread (100k messages take a few hundred milliseconds);
typing restarts it after a short pause, and a stale result is dropped. Matching is a
case-insensitive substring test over each message's text (text blocks, tool output, the system
prompt) and its tool calls (name and arguments, as the detail pane shows them).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Final

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QLineEdit, QToolButton, QWidget

from ...core.wire import Message
from ..ui.labels import message_text
from ..ui.resources import Icon, icon
from ..ui.widgets import name_line_edit_buttons

__all__ = ["FindBar", "find_rows", "searchable_text"]

DEBOUNCE_MS: Final = 150
MIN_CHARS: Final = 1


def searchable_text(message: Message) -> str:
    """What Find looks in: the row's text, then each tool call's name and JSON arguments."""
    text = message_text(message)
    calls = [
        f"{call.name} {json.dumps(call.arguments, ensure_ascii=False)}"
        for call in message.tool_calls()
    ]
    return "\n".join([text, *calls]) if calls else text


def find_rows(messages: Sequence[Message], needle: str) -> list[int]:
    """Rows whose searchable text contains ``needle`` (case-insensitive); blocking, run it off-thread."""
    folded = needle.casefold()
    if not folded:
        return []
    return [i for i, m in enumerate(messages) if folded in searchable_text(m).casefold()]


class FindBar(QFrame):
    """A search field with a match counter and previous/next buttons.

    Signals:
        sig_search_requested(str): run a search for this text (debounced).
        sig_next(): go to the next match. sig_previous(): go to the previous one.
        sig_closed(): the bar was closed (Esc).
    """

    sig_search_requested = Signal(str)
    """Search for this text (after the typing pause)."""
    sig_next = Signal()
    """Go to the next match (Enter, F3)."""
    sig_previous = Signal()
    """Go to the previous match (Shift+Enter, Shift+F3)."""
    sig_closed = Signal()
    """The bar was closed (Esc or the close button)."""

    def __init__(self, parent: QWidget | None = None, icon_color: str = "#444444") -> None:
        super().__init__(parent)
        self.setObjectName("FindBar")
        self.field = QLineEdit()
        self.field.setObjectName("FindField")
        self.field.setPlaceholderText("Find in this conversation")
        self.field.setClearButtonEnabled(True)
        self.find_icon = self.field.addAction(
            icon(Icon.SEARCH, icon_color), QLineEdit.ActionPosition.LeadingPosition
        )
        self.find_icon.setText("Find")
        self.field.setAccessibleName("Find in this conversation")
        self.field.setAccessibleDescription(
            "Enter: next match, Shift+Enter: previous match, Esc: close"
        )
        name_line_edit_buttons(self.field)
        self.setAccessibleName("Find bar")
        self.count = QLabel("")
        self.count.setProperty("muted", True)
        self.count.setMinimumWidth(120)
        self.previous_button = QToolButton()
        self.previous_button.setText("▲")
        self.previous_button.setToolTip("Previous match (Shift+Enter, Shift+F3)")
        self.previous_button.setAccessibleName("Previous match")
        self.next_button = QToolButton()
        self.next_button.setText("▼")
        self.next_button.setToolTip("Next match (Enter, F3)")
        self.next_button.setAccessibleName("Next match")
        self.close_button = QToolButton()
        self.close_button.setIcon(icon(Icon.CLOSE, icon_color))
        self.close_button.setToolTip("Close (Esc)")
        self.close_button.setAccessibleName("Close the find bar")
        self.close_button.setAutoRaise(True)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(10, 5, 6, 5)
        layout.setSpacing(6)
        layout.addWidget(self.field, 1)
        layout.addWidget(self.count)
        layout.addWidget(self.previous_button)
        layout.addWidget(self.next_button)
        layout.addWidget(self.close_button)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(DEBOUNCE_MS)
        self._timer.timeout.connect(self._on_timer_timeout)
        self.field.textChanged.connect(self._on_field_text_changed)
        # The field sees Return first and emits returnPressed for Shift+Return too; a filter
        # takes Shift+Return before it, so that key goes back exactly one match.
        self.field.installEventFilter(self)
        self.field.returnPressed.connect(self.sig_next)
        self.next_button.clicked.connect(self.sig_next)
        self.previous_button.clicked.connect(self.sig_previous)
        self.close_button.clicked.connect(self.close_bar)
        self.hide()

    @property
    def text(self) -> str:
        return self.field.text()

    def set_icon_color(self, color: str) -> None:
        """Draw the magnifier and the close button in ``color`` (the theme's text colour)."""
        self.find_icon.setIcon(icon(Icon.SEARCH, color))
        self.close_button.setIcon(icon(Icon.CLOSE, color))

    def open_bar(self) -> None:
        self.show()
        self.field.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.field.selectAll()

    def close_bar(self) -> None:
        self.hide()
        self.sig_closed.emit()

    def search_now(self) -> None:
        """Skip the typing pause (tests, Enter on a new text)."""
        self._timer.stop()
        self._on_timer_timeout()

    def set_count(self, current: int | None, total: int, *, searching: bool = False) -> None:
        if searching:
            self.count.setText("searching…")
        elif not self.text:
            self.count.setText("")
        elif total == 0:
            self.count.setText("no matches")
        elif current is None:
            self.count.setText(f"{total:,} match{'es' * (total != 1)}")
        else:
            self.count.setText(f"{current + 1:,} of {total:,}")
        # a screen reader hears the count with the field ("Find in this conversation, 3 of 12")
        count = self.count.text()
        self.field.setAccessibleDescription(
            (f"{count}. " if count else "")
            + "Enter: next match, Shift+Enter: previous match, Esc: close"
        )

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if (
            watched is self.field
            and event.type() == QEvent.Type.KeyPress
            and event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter)  # type: ignore[attr-defined]
            and event.modifiers() & Qt.KeyboardModifier.ShiftModifier  # type: ignore[attr-defined]
        ):
            self.sig_previous.emit()
            return True
        return super().eventFilter(watched, event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() == Qt.Key.Key_Escape:
            self.close_bar()
            return
        super().keyPressEvent(event)

    def _on_field_text_changed(self, _text: str) -> None:
        self._timer.start()

    def _on_timer_timeout(self) -> None:
        self.sig_search_requested.emit(self.text)
