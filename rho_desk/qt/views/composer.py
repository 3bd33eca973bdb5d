"""The continue panel: a composer, a provider picker, the streaming reply, Cancel, and its banners.

It lives in a dock under the conversation (the ``session.continue`` action, Ctrl+L, shows it and
focuses the composer). It draws what the :class:`~rho_desk.qt.continue_session.ContinueController`
reports and sends what the user writes; it holds no engine state of its own.

* **Composer**: Ctrl+Enter sends (the editor claims that shortcut while it has focus, so it
  never opens the selected session instead); Esc cancels a running turn.
* **Live reply**: the prompt, the streamed text (deltas are coalesced and appended every few
  milliseconds so a fast stream costs a handful of repaints), reasoning summaries, tool and
  compaction activity, and "saved as revision N" after every commit.
* **Replay-safety banner**: before a provider switch that drops provider-native blocks, what
  will not be replayed (how many blocks of which kinds) and Send anyway / Keep prompt.
"""

from __future__ import annotations

from typing import Final

from PySide6.QtCore import QEvent, Qt, QTimer, Signal
from PySide6.QtGui import QFont, QKeyEvent, QTextCursor
from PySide6.QtWidgets import (
    QComboBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from ...core.handoff import HandoffReport
from ...core.stores.rho_files import NodeKind, RevisionNode
from ...providers.profiles import ProfileSet
from ..continue_session import ConflictInfo, ContinueController, TurnState
from ..dialogs.widgets import Banner
from ..services import OperationHost

__all__ = ["ComposerEdit", "ContinuePanel"]

FLUSH_MS: Final = 30
_SEND_KEYS: Final = (Qt.Key.Key_Return, Qt.Key.Key_Enter)


class ComposerEdit(QPlainTextEdit):
    """The prompt editor: Ctrl+Enter sends, Esc asks to cancel.

    Signals:
        sig_send_requested(): Ctrl+Enter was pressed.
        sig_cancel_requested(): Esc was pressed.
    """

    sig_send_requested = Signal()
    """Ctrl+Enter (or Ctrl+keypad Enter)."""
    sig_cancel_requested = Signal()
    """Esc."""

    def event(self, event: QEvent) -> bool:
        # Claim Ctrl+Enter before the window's shortcuts see it (Ctrl+Return also opens the
        # session selected in the browser when the focus is elsewhere).
        if event.type() == QEvent.Type.ShortcutOverride and isinstance(event, QKeyEvent) and self._is_send(event):
            event.accept()
            return True
        return super().event(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if self._is_send(event):
            self.sig_send_requested.emit()
            return
        if event.key() == Qt.Key.Key_Escape:
            self.sig_cancel_requested.emit()
            return
        super().keyPressEvent(event)

    @staticmethod
    def _is_send(event: QKeyEvent) -> bool:
        mods = event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier
        return event.key() in _SEND_KEYS and mods == Qt.KeyboardModifier.ControlModifier


class ContinuePanel(QFrame):
    """Composer and live reply over a :class:`ContinueController`."""

    def __init__(self, controller: ContinueController, host: OperationHost, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("ContinuePanel")
        self.controller = controller
        self.host = host
        self._buffer: list[tuple[str, str]] = []
        """Streamed pieces not drawn yet: ``(text|reasoning, text)``, in arrival order."""
        self._mode = ""
        """What the reply area is writing: ``text``, ``reasoning`` or nothing."""

        self.handoff = Banner("warning")
        self.handoff.setObjectName("LibraryNotice")
        self.handoff.text.setObjectName("HandoffText")
        self.send_anyway = self.handoff.add_button("Send &Anyway", "Send without those blocks (Ctrl+Shift+Return)")
        self.send_anyway.setObjectName("SendAnyway")
        self.send_anyway.setShortcut("Ctrl+Shift+Return")
        self.keep_prompt = self.handoff.add_button("&Keep Prompt", "Do not send; the prompt stays in the composer")
        self.handoff.hide()

        self.reply = QPlainTextEdit()
        self.reply.setObjectName("LiveReply")
        self.reply.setReadOnly(True)
        self.reply.setPlaceholderText("Replies stream here. Each finished turn is saved to the session file as a "
                                      "new revision and appears in the conversation above.")  # fmt: skip
        self.reply.setMaximumBlockCount(20_000)

        self.composer = ComposerEdit()
        self.composer.setObjectName("Composer")
        self.composer.setPlaceholderText("Write the next prompt… (Ctrl+Enter sends, Esc cancels)")
        self.composer.setTabChangesFocus(True)
        self.composer.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        self.composer.setMaximumHeight(110)
        self.profile = QComboBox()
        self.profile.setObjectName("ContinueProfilePicker")
        self.profile.setToolTip("The provider profile this turn runs on")
        self.profile.setMinimumWidth(200)
        self.send_button = QPushButton("&Send")
        self.send_button.setObjectName("SendPrompt")
        self.send_button.setToolTip("Send the prompt (Ctrl+Enter)")
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setObjectName("CancelRun")
        self.cancel_button.setToolTip("Stop the reply; the prompt and the partial reply are kept (Esc)")
        self.cancel_button.setEnabled(False)
        self.status = QLabel("")
        self.status.setObjectName("ContinueStatus")
        self.status.setProperty("muted", True)
        self.status.setWordWrap(True)
        side = QVBoxLayout()
        side.addWidget(self.profile)
        buttons = QHBoxLayout()
        buttons.addWidget(self.send_button)
        buttons.addWidget(self.cancel_button)
        side.addLayout(buttons)
        side.addStretch(1)
        row = QHBoxLayout()
        row.addWidget(self.composer, 1)
        row.addLayout(side)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 6, 8, 6)
        layout.setSpacing(6)
        layout.addWidget(self.handoff)
        layout.addWidget(self.reply, 1)
        layout.addLayout(row)
        layout.addWidget(self.status)
        mono = QFont("DejaVu Sans")
        mono.setPointSizeF(9.5)
        self.reply.setFont(mono)

        self._flush = QTimer(self)
        self._flush.setSingleShot(True)
        self._flush.setInterval(FLUSH_MS)
        self._flush.timeout.connect(self._on_flush_timeout)

        self.composer.sig_send_requested.connect(self.send)
        self.composer.sig_cancel_requested.connect(controller.cancel)
        self.send_button.clicked.connect(self.send)
        self.cancel_button.clicked.connect(controller.cancel)
        self.send_anyway.clicked.connect(self._on_send_anyway_clicked)
        self.keep_prompt.clicked.connect(self._on_keep_prompt_clicked)
        c = controller
        c.sig_state_changed.connect(self._on_controller_state_changed)
        c.sig_turn_started.connect(self._on_controller_turn_started)
        c.sig_text_delta.connect(self._on_controller_text_delta)
        c.sig_reasoning_delta.connect(self._on_controller_reasoning_delta)
        c.sig_activity.connect(self._on_controller_activity)
        c.sig_saved.connect(self._on_controller_saved)
        c.sig_turn_finished.connect(self._on_controller_turn_finished)
        c.sig_handoff_required.connect(self._on_controller_handoff_required)
        c.sig_prompt_returned.connect(self._on_controller_prompt_returned)
        c.sig_conflict.connect(self._on_controller_conflict)
        self.refresh_profiles()
        self._on_controller_state_changed(c.state)

    # -- profiles ----------------------------------------------------------------------------------

    def refresh_profiles(self) -> None:
        """Fill the picker from the profiles file (read off the GUI thread)."""
        from ..dialogs.prefs import PREFS_CONTINUE_PROFILE

        wanted = self.host.settings.get(PREFS_CONTINUE_PROFILE)

        def fill(loaded: ProfileSet) -> None:
            current = self.profile_name() or wanted or loaded.default
            self.profile.clear()
            for p in loaded.profiles:
                self.profile.addItem(f"{p.name} · {p.model}", p.name)
            index = self.profile.findData(current)
            self.profile.setCurrentIndex(index if index >= 0 else 0)

        self.host.bridge.run(self.host.aprofile_set(), on_success=fill, context="Reading provider profiles")

    def profile_name(self) -> str | None:
        data = self.profile.currentData()
        return str(data) if data else None

    # -- sending -------------------------------------------------------------------------------------

    def focus_composer(self) -> None:
        self.composer.setFocus(Qt.FocusReason.ShortcutFocusReason)

    def send(self) -> None:
        text = self.composer.toPlainText()
        if not text.strip():
            self.status.setText("Write a prompt first.")
            return
        if self.controller.send(text, profile=self.profile_name()):
            self.composer.clear()

    def _on_send_anyway_clicked(self) -> None:
        self.handoff.hide()
        self.controller.confirm_handoff()

    def _on_keep_prompt_clicked(self) -> None:
        self.handoff.hide()
        self.controller.decline_handoff()

    # -- what the controller reports ---------------------------------------------------------------------

    def _append(self, text: str) -> None:
        """Write ``text`` after everything streamed so far."""
        self._on_flush_timeout()
        self._mode = ""
        cursor = self.reply.textCursor()
        cursor.movePosition(QTextCursor.MoveOperation.End)
        cursor.insertText(text)
        self.reply.setTextCursor(cursor)
        self.reply.ensureCursorVisible()

    def _line(self, text: str) -> None:
        """Write ``text`` as a line of its own."""
        self._on_flush_timeout()
        last = self.reply.document().lastBlock().text()  # empty: the reply ends with a newline
        self._append(("\n" if last else "") + text + "\n")

    def _on_controller_turn_started(self, prompt: str) -> None:
        self.handoff.hide()
        if self.reply.document().characterCount() > 1:
            self._append("\n")
        self._line("You: " + prompt.strip())
        self._mode = ""

    def _on_controller_text_delta(self, text: str) -> None:
        self._buffer.append(("text", text))
        if not self._flush.isActive():
            self._flush.start()

    def _on_controller_reasoning_delta(self, text: str) -> None:
        self._buffer.append(("reasoning", text))
        if not self._flush.isActive():
            self._flush.start()

    def _on_flush_timeout(self) -> None:
        if not self._buffer:
            return
        pieces: list[str] = []
        for mode, text in self._buffer:
            if mode != self._mode:
                label = "Assistant: " if mode == "text" else "(reasoning summary) "
                pieces.append(("\n" if self._mode else "") + label)
                self._mode = mode
            pieces.append(text)
        self._buffer.clear()
        cursor = self.reply.textCursor()
        cursor.movePosition(QTextCursor.MoveOperation.End)
        cursor.insertText("".join(pieces))
        self.reply.setTextCursor(cursor)
        self.reply.ensureCursorVisible()

    def _on_controller_activity(self, text: str) -> None:
        self._line(text)

    def _on_controller_saved(self, node: RevisionNode) -> None:
        kind = "compaction" if node.kind is NodeKind.COMPACTION else "revision"
        self._line(f"✓ Saved as {kind} {node.revision}.")
        self.status.setText(f"Saved: revision {node.revision} is the active one.")

    def _on_controller_turn_finished(self, how: str, detail: str) -> None:
        if how == "cancelled":
            self._line("■ Cancelled: the prompt and the partial reply were kept.")
        elif how == "failed":
            reason = (detail or "the model call failed").rstrip(" .")  # one full stop, never ".."
            self._line(f"✖ Failed: {reason}. Nothing of this turn was kept.")

    def _on_controller_handoff_required(self, report: HandoffReport, identity: str) -> None:
        kinds = ", ".join(report.omitted_kinds) or "provider context"
        n = report.omitted_provider_context
        self.handoff.show_text(
            f"<b>Replay safety.</b> {identity} cannot be sent {n} provider-native block{'s' if n != 1 else ''} of "
            f"this history ({kinds}): they were produced by another provider or model and are left out. The text "
            "of every message is still sent. Send anyway?"
        )
        self.send_anyway.setFocus()
        self.status.setText("Waiting for your confirmation of the provider switch.")

    def _on_controller_prompt_returned(self, prompt: str) -> None:
        if not self.composer.toPlainText().strip():
            self.composer.setPlainText(prompt)
            self.composer.moveCursor(QTextCursor.MoveOperation.End)

    def _on_controller_conflict(self, info: ConflictInfo | None) -> None:
        if info is not None:
            self.status.setText("Stopped: the session changed on disk. Reload or fork (see the banner above).")

    def _on_controller_state_changed(self, state: TurnState) -> None:
        running = state in (TurnState.PREPARING, TurnState.RUNNING, TurnState.CANCELLING)
        self.send_button.setEnabled(not running and state is not TurnState.BLOCKED)
        self.cancel_button.setEnabled(state in (TurnState.PREPARING, TurnState.RUNNING))
        self.profile.setEnabled(not running)
        texts = {
            TurnState.IDLE: "",
            TurnState.PREPARING: "Reading the key and restoring the session…",
            TurnState.RUNNING: "Streaming… (Esc cancels)",
            TurnState.CANCELLING: "Cancelling: saving the prompt and the partial reply…",
            TurnState.BLOCKED: "Stopped: the session changed on disk. Reload or fork.",
        }
        if texts[state] or (state is TurnState.IDLE and self.status.text().startswith(("Reading", "Streaming", "Cancelling"))):
            self.status.setText(texts[state])

