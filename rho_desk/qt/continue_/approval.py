"""Cards in the continue panel for the model's tool calls: an approval card and a live shell card.

**Approval card** (a write, an edit, or a shell command waiting under ``supervised`` or
``allow_edits``): what the call will do (the diff that will be applied, or the command and its
folder), and keyboard-first answers: **A** or Enter approves once, **S** approves the path (or the
shell tool) for the rest of the session, **D** denies (with the reason typed in the field, if
any; Enter in the field denies too), **F** shows the full diff. Esc cancels the turn, as it does
anywhere in the window while a turn runs.

**Shell card**: the running command, its folder and its output as it arrives (Rho's
``stdout:`` / ``stderr:`` sections), then how it ended.
"""

from __future__ import annotations

from typing import Any, Final

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import (
    QKeyEvent,
    QTextCursor,
)
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from ...core.text.visible import numbered, one_line, visible
from ..ui.patch import PatchHighlighter, mono_font

__all__ = ["ApprovalCard", "ShellCard"]

PREVIEW_LINES: Final = 14


class _TextBox(QPlainTextEdit):
    """A read-only text box that asks for no more than its minimum height: in the cards' scroll
    area (which gives the cards their preferred height) the card's buttons stay in view, and the
    box takes whatever room is left beyond that."""

    def sizeHint(self) -> QSize:
        return QSize(
            super().sizeHint().width(), self.minimumHeight() or super().sizeHint().height()
        )


class ApprovalCard(QFrame):
    """One pending approval. Emits ``sig_answered(choice, reason)`` with ``choice`` one of
    ``allow_once``, ``allow_for_session`` or ``deny``."""

    sig_answered = Signal(str, str)
    """``(allow_once|allow_for_session|deny, reason)``."""
    sig_resized = Signal()
    """The card wants another height (the whole diff was asked for, or the preview again)."""

    def __init__(self, request: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("ApprovalCard")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Expanding)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.request = request
        self._full = False
        self._wanted_body = 0
        is_write = request.capability.value == "write"
        self._diff = is_write
        self.title = QLabel()
        self.title.setObjectName("ApprovalTitle")
        self.title.setWordWrap(True)
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        # what the model and the session file chose is shown with its controls visible
        # (core/text/visible.py): what is approved is what runs
        if is_write:
            self.title.setText(f"Approve this change? {one_line(request.summary)}")
        else:
            self.title.setText(f"Run this command in {one_line(str(request.folder))}?")
        self.body = _TextBox()
        self.body.setObjectName("ApprovalBody")
        self.body.setAccessibleName(
            "The change to approve" if is_write else "The command to approve"
        )
        self.body.setReadOnly(True)
        self.body.setFont(mono_font())
        self.body.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.body.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.body.setFocusPolicy(Qt.FocusPolicy.ClickFocus)
        if is_write:
            self._highlighter = PatchHighlighter(self.body.document())
        self.reason = QLineEdit()
        self.reason.setObjectName("ApprovalReason")
        self.reason.setAccessibleName("Reason for a denial")
        self.reason.setPlaceholderText("Reason for a denial (optional; the model reads it)")
        self.reason.returnPressed.connect(self.deny)
        scope = "this file" if is_write else "the shell"
        self.approve_button = QPushButton("&Approve")
        self.approve_button.setObjectName("ApproveOnce")
        self.approve_button.setToolTip("Run this call once (A or Enter)")
        self.session_button = QPushButton(f"Approve {scope} for this &Session")
        self.session_button.setObjectName("ApproveForSession")
        self.session_button.setToolTip(f"Do not ask again for {scope} in this conversation (S)")
        self.deny_button = QPushButton("&Deny")
        self.deny_button.setObjectName("DenyCall")
        self.deny_button.setToolTip("Refuse; the model is told why (D)")
        self.full_button = QPushButton("Show &Full Diff")
        self.full_button.setObjectName("ShowFullDiff")
        self.full_button.setToolTip("Show the whole change (F)")
        self.full_button.setVisible(is_write)
        full = " · F full diff" if is_write else ""  # a command has no diff
        self.hint = hint = QLabel(
            f"A approve · S for the session · D deny{full} · Esc cancels the turn"
        )
        hint.setProperty("muted", True)
        hint.setWordWrap(True)
        # the keys beside the buttons, not on a line of their own: the card stays short enough for
        # its answers to be in view in a small dock
        buttons = QHBoxLayout()
        buttons.addWidget(self.approve_button)
        buttons.addWidget(self.session_button)
        buttons.addWidget(self.deny_button)
        buttons.addWidget(hint, 1)
        buttons.addWidget(self.full_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 6, 10, 6)
        layout.setSpacing(4)
        layout.addWidget(self.title)
        layout.addWidget(self.body, 1)
        layout.addWidget(self.reason)
        layout.addLayout(buttons)
        for button in (
            self.approve_button,
            self.session_button,
            self.deny_button,
            self.full_button,
        ):
            button.setFocusPolicy(Qt.FocusPolicy.TabFocus)
        self.approve_button.clicked.connect(self.approve_once)
        self.session_button.clicked.connect(self.approve_for_session)
        self.deny_button.clicked.connect(self.deny)
        self.full_button.clicked.connect(self.toggle_full)
        self._fill()

    def wanted_height(self) -> int:
        """The card's height with the whole preview in view."""
        return self.sizeHint().height() - self.body.sizeHint().height() + self._wanted_body

    @property
    def full_text(self) -> str:
        request = self.request
        if request.capability.value == "write":
            return visible(request.diff or "")
        command = numbered(request.command or "")
        lines = command.count("\n") + 1
        head = f"$ {command}" if lines == 1 else f"$ a command of {lines} lines:\n{command}"
        return f"{head}\n\nfolder: {one_line(str(request.folder))}"

    def _fill(self) -> None:
        text = self.full_text
        lines = text.splitlines()
        # a command is shown whole (it scrolls): F is only for a diff
        if not self._full and len(lines) > PREVIEW_LINES and self._diff:
            hidden = len(lines) - PREVIEW_LINES
            text = (
                "\n".join(lines[:PREVIEW_LINES])
                + f"\n… {hidden} more line{'s' if hidden != 1 else ''} (F shows all)"
            )
        self.body.setPlainText(text)
        self.body.moveCursor(QTextCursor.MoveOperation.Start)
        # Room for two lines at least (it scrolls: on a 700-pixel screen the card's answers stay
        # in view under it), and what the preview shows when there is room.
        line = self.body.fontMetrics().lineSpacing()
        shown = min(
            len(text.splitlines()), 30 if self._full or not self._diff else PREVIEW_LINES + 1
        )
        self.body.setMinimumHeight(line * min(shown + 1, 2) + 12)
        self._wanted_body = line * (shown + 1) + 12
        self.full_button.setText("Show &Less" if self._full else "Show &Full Diff")

    def toggle_full(self) -> None:
        self._full = not self._full
        self._fill()
        self.updateGeometry()
        self.sig_resized.emit()

    @property
    def showing_full(self) -> bool:
        return self._full

    def approve_once(self) -> None:
        self._answer("allow_once")

    def approve_for_session(self) -> None:
        self._answer("allow_for_session")

    def deny(self) -> None:
        self._answer("deny", self.reason.text().strip())

    def _answer(self, choice: str, reason: str = "") -> None:
        if not self.isEnabled():
            return
        self.setEnabled(False)
        self.sig_answered.emit(choice, reason)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        key = event.key()
        if event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier:
            super().keyPressEvent(event)
            return
        if key in (Qt.Key.Key_A, Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Y):
            self.approve_once()
        elif key == Qt.Key.Key_S:
            self.approve_for_session()
        elif key in (Qt.Key.Key_D, Qt.Key.Key_N):
            self.deny()
        elif key == Qt.Key.Key_F and self._diff:
            self.toggle_full()
        else:
            super().keyPressEvent(event)


class ShellCard(QFrame):
    """A running (then finished) shell call and its output."""

    def __init__(self, command: str, folder: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("ShellCard")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.title = QLabel()
        self.title.setObjectName("ShellTitle")
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        self.title.setWordWrap(True)
        self.command = numbered(command)
        self.folder = one_line(folder)
        self.finished = False
        self.title.setText(f"Running in {self.folder} (Esc stops it)\n$ {self.command}")
        self.output = _TextBox()
        self.output.setObjectName("ShellOutput")
        self.output.setAccessibleName("Command output")
        self.output.setReadOnly(True)
        self.output.setFont(mono_font())
        self.output.setMaximumBlockCount(5_000)
        self.output.setFocusPolicy(Qt.FocusPolicy.ClickFocus)
        self.output.setMinimumHeight(self.output.fontMetrics().lineSpacing() * 5)
        self.output.setPlaceholderText("Waiting for output…")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 6, 10, 6)
        layout.setSpacing(4)
        layout.addWidget(self.title)
        layout.addWidget(self.output, 1)

    def show_output(self, text: str) -> None:
        bar = self.output.verticalScrollBar()
        at_end = bar.value() >= bar.maximum() - 2
        self.output.setPlainText(text)
        if at_end:
            self.output.moveCursor(QTextCursor.MoveOperation.End)
            self.output.ensureCursorVisible()

    def stop(self) -> None:
        """The turn ended (cancelled) while the command was shown as running."""
        self.finished = True
        self.title.setText(f"Stopped with the turn in {self.folder}\n$ {self.command}")
        self.output.setPlaceholderText("No output.")

    def finish(self, ok: bool, content: str) -> None:
        self.finished = True
        self.title.setText(f"{'Finished' if ok else 'Failed'} in {self.folder}\n$ {self.command}")
        if content:
            self.show_output(content)
