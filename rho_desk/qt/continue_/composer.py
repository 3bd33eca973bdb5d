"""The continue panel: a composer, a provider picker, the streaming reply, Cancel, and its banners.

It lives in a dock under the conversation (the ``session.continue`` action, Ctrl+L, shows it and
focuses the composer). It draws what the :class:`~rho_desk.qt.continue_.controller.ContinueController`
reports and sends what the user writes; it holds no engine state of its own.

* **Composer**: Ctrl+Enter sends (the editor claims that shortcut while it has focus, so it
  never opens the selected session instead); Esc cancels a running turn. The prompt stays in the
  box until its turn starts (the replay-safety question may come first).
* **Profile picker**: the profile Settings ask for ("Continue with", else the default), followed
  as soon as Settings change; a profile picked here stays while Settings ask for the same one.
* **Another session** clears the reply, the status line, the banners and the picks.
* **Status line**: after a turn, its usage as reported, else the engine's estimate, marked.
* **Live reply**: the prompt, the streamed text (deltas are coalesced and appended every few
  milliseconds so a fast stream costs a handful of repaints), reasoning summaries, tool and
  compaction activity, and "saved as revision N" after every commit.
* **Tools**: the picker chooses the permission mode for this session (the profile's by default).
  A write, an edit or a shell command waiting for approval shows an
  :class:`~.approval.ApprovalCard` under the reply, focused, answered from the keyboard; a
  running shell call shows a :class:`~.approval.ShellCard` with its live output. While a turn
  runs, Esc cancels it wherever the focus is in the window. When the session's folder is gone,
  a banner offers to choose a folder or to continue without tools.
* **Replay-safety banner**: before a provider switch that drops provider-native blocks, what
  will not be replayed (how many blocks of which kinds) and Send anyway / Keep prompt.
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import TYPE_CHECKING, Final

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtGui import (
    QFont,
    QKeyEvent,
    QKeySequence,
    QShowEvent,
    QTextBlockFormat,
    QTextCharFormat,
    QTextCursor,
)
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QDockWidget,
    QFileDialog,
    QFrame,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from ...core.provider.handoff import HandoffReport
from ...core.stores.rho_files import NodeKind, RevisionNode
from ...core.tools.permissions import DEFAULT_MODE, PermissionMode
from ...core.tools.trust import WorkspaceRefused, WorkspaceUntrusted
from ...core.usage import describe_usage
from ...core.wire import ModelUsage
from ..services.context import OperationHost
from ..services.outcomes import OpChanges
from ..ui.blocks import Banner
from ..ui.markdown import SafeTextBrowser, markdown_css, render_markdown
from ..ui.text import revision_words
from ..ui.theme import DARK, LIGHT
from .approval import ApprovalCard, ShellCard
from .controller import ConflictInfo, ContinueController, TurnState

if TYPE_CHECKING:
    from ...core.session.turn import TurnEvent
    from ...providers.profiles import ProfileSet
    from .trust import WorkspaceTrustBox

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
        if event.type() == QEvent.Type.ShortcutOverride and isinstance(event, QKeyEvent):
            if self._is_send(event):
                event.accept()
                return True
            # Ctrl+Z with nothing to undo in the box (where the focus is after every turn) is the
            # window's Undo (of the continued turn); the same for Redo
            document = self.document()
            if (
                event.matches(QKeySequence.StandardKey.Undo) and not document.isUndoAvailable()
            ) or (event.matches(QKeySequence.StandardKey.Redo) and not document.isRedoAvailable()):
                event.ignore()
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

    def __init__(
        self, controller: ContinueController, host: OperationHost, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setObjectName("ContinuePanel")
        self.setAccessibleName("Continue the conversation")
        self.controller = controller
        self.host = host
        self._buffer: list[tuple[str, str]] = []
        """Streamed pieces not drawn yet: ``(text|reasoning, text)``, in arrival order."""
        self._mode = ""
        """What the reply area is writing: ``text``, ``reasoning`` or nothing."""
        self._markdown = ""
        """The Markdown of the assistant's text being written (shown rendered, as the conversation shows it)."""
        self._markdown_length = 0
        """How many characters at the end of the reply area that text takes, rendered."""

        self.handoff = Banner("warning")
        self.handoff.setObjectName("LibraryNotice")
        self.handoff.text.setObjectName("HandoffText")
        self.send_anyway = self.handoff.add_button(
            "Send &Anyway", "Send without those blocks (Ctrl+Shift+Return)"
        )
        self.send_anyway.setObjectName("SendAnyway")
        self.send_anyway.setShortcut("Ctrl+Shift+Return")
        self.keep_prompt = self.handoff.add_button(
            "&Keep Prompt", "Do not send; the prompt stays in the composer"
        )
        self.handoff.hide()

        self.trust_box: WorkspaceTrustBox | None = None
        """The open question whether the tools may run in the session's folder."""
        self.workspace_banner = Banner("warning")
        self.workspace_banner.text.setObjectName("WorkspaceMissingText")
        # a folder chosen for another session of this workspace is offered first
        self.use_remembered = self.workspace_banner.add_button("&Use Folder Chosen Before")
        self.use_remembered.setObjectName("UseRememberedWorkspace")
        self.use_remembered.hide()
        self.choose_folder = self.workspace_banner.add_button(
            "C&hoose Folder…", "Run the tools in another folder"
        )
        self.choose_folder.setObjectName("ChooseWorkspace")
        self.without_tools = self.workspace_banner.add_button(
            "Continue &Without Tools", "Send with the tools off"
        )
        self.without_tools.setObjectName("ContinueWithoutTools")
        self.workspace_keep = self.workspace_banner.add_button("Keep Prompt", "Do not send")
        self.workspace_banner.hide()

        self.cards = QWidget()
        self.cards.setObjectName("ToolCards")
        self.cards.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Expanding)
        self.cards_layout = QVBoxLayout(self.cards)
        self.cards_layout.setContentsMargins(0, 0, 0, 0)
        self.cards_layout.setSpacing(6)
        # The cards scroll together when the dock cannot hold them all: a card is never drawn
        # smaller than its contents need (the command box under the reason field).
        self.cards_area = QScrollArea()
        self.cards_area.setObjectName("ToolCardsArea")
        self.cards_area.setFrameShape(QFrame.Shape.NoFrame)
        self.cards_area.setWidgetResizable(True)
        self.cards_area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.cards_area.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Expanding)
        self.cards_area.setWidget(self.cards)
        self.cards.setAutoFillBackground(False)
        self.cards_area.viewport().setAutoFillBackground(False)
        self.cards_area.hide()
        self.approval_card: ApprovalCard | None = None
        self._dock_before: int | None = None
        """The dock's height before an approval card made room for itself."""
        self.shell_cards: dict[str, ShellCard] = {}
        self._shell_calls: dict[str, tuple[str, str]] = {}
        """(command, folder) of each shell call started but not yet running: one waiting for
        approval shows the approval card, not a "Running…" card."""
        self.mode_picker = QComboBox()
        self.mode_picker.setObjectName("ContinueToolsPicker")
        self.mode_picker.setToolTip("What the model's coding tools may do in this conversation")
        self._profile_modes: dict[str, PermissionMode] = {}
        self.mode_picker.addItem(f"Tools: {DEFAULT_MODE.label} (profile)", None)
        for mode in PermissionMode:
            self.mode_picker.addItem(f"Tools: {mode.label}", mode.value)

        self.reply = SafeTextBrowser()
        self.reply.setObjectName("LiveReply")
        self.reply.setAccessibleName("Reply")
        self.reply.setReadOnly(True)
        self.reply.setPlaceholderText(
            "Replies stream here. Each finished turn is saved to the session file as a "
            "new revision and appears in the conversation above."
        )
        self.reply.document().setMaximumBlockCount(20_000)

        self.composer = ComposerEdit()
        self.composer.setObjectName("Composer")
        self.composer.setAccessibleName("Next prompt")
        self.composer.setAccessibleDescription("Ctrl+Enter sends, Esc cancels")
        self.composer.setPlaceholderText("Write the next prompt… (Ctrl+Enter sends, Esc cancels)")
        self.composer.setTabChangesFocus(True)
        self.composer.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        self.composer.setMaximumHeight(110)
        self.profile = QComboBox()
        self.profile.setObjectName("ContinueProfilePicker")
        self.profile.setToolTip("The provider profile this turn runs on")
        self.profile.setAccessibleName("Provider profile")
        self.profile.setMinimumWidth(200)
        self.send_button = QPushButton("&Send")
        self.send_button.setObjectName("SendPrompt")
        self.send_button.setToolTip("Send the prompt (Ctrl+Enter)")
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setObjectName("CancelRun")
        self.cancel_button.setToolTip(
            "Stop the reply; the prompt and the partial reply are kept (Esc)"
        )
        self.cancel_button.setEnabled(False)
        self.call_progress = QLabel("")
        self.call_progress.setObjectName("CallProgress")
        self.call_progress.setAccessibleName("Tool call being written")
        self.call_progress.setProperty("muted", True)
        self.call_progress.hide()
        self.status = QLabel("")
        self.status.setObjectName("ContinueStatus")
        self.status.setProperty("muted", True)
        self.status.setWordWrap(True)
        side = QVBoxLayout()
        side.addWidget(self.profile)
        side.addWidget(self.mode_picker)
        buttons = QHBoxLayout()
        buttons.addWidget(self.send_button)
        buttons.addWidget(self.cancel_button)
        side.addLayout(buttons)
        side.addStretch(1)
        row = QHBoxLayout()
        row.addWidget(self.composer, 1)
        row.addLayout(side)
        layout = QVBoxLayout(self)
        self._layout = layout
        layout.setContentsMargins(8, 6, 8, 6)
        layout.setSpacing(6)
        layout.addWidget(self.handoff)
        layout.addWidget(self.workspace_banner)
        layout.addWidget(self.reply, 1)
        layout.addWidget(self.call_progress)
        layout.addWidget(self.cards_area)
        layout.addLayout(row)
        layout.addWidget(self.status)
        mono = QFont("DejaVu Sans")
        mono.setPointSizeF(9.5)
        self.reply.setFont(mono)
        # its least is three lines (it scrolls), not a text box's default of about five: under the
        # demo library's banner with the find bar open, those lines put the window's minimum
        # past a 700-pixel screen
        self.reply.setMinimumHeight(self.reply.fontMetrics().lineSpacing() * 3 + 12)
        dark = self.palette().window().color().lightness() < 128
        self.reply.document().setDefaultStyleSheet(markdown_css(DARK if dark else LIGHT))

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
        self.choose_folder.clicked.connect(self._on_choose_folder_clicked)
        self.use_remembered.clicked.connect(self._on_use_remembered_clicked)
        self.without_tools.clicked.connect(self._on_without_tools_clicked)
        self.workspace_keep.clicked.connect(self._on_workspace_keep_clicked)
        self.mode_picker.currentIndexChanged.connect(self._on_mode_picker_changed)
        self.profile.currentIndexChanged.connect(self._update_tools_default_label)
        self._esc_filter = _EscapeCancels(self)
        self.handoff.installEventFilter(self)
        self.workspace_banner.installEventFilter(self)
        c = controller
        c.sig_workspace_missing.connect(self._on_controller_workspace_missing)
        c.sig_workspace_untrusted.connect(self._on_controller_workspace_untrusted)
        c.sig_approval_requested.connect(self._on_controller_approval_requested)
        c.sig_approval_closed.connect(self._on_controller_approval_closed)
        c.sig_state_changed.connect(self._on_controller_state_changed)
        c.sig_turn_event.connect(self._on_controller_turn_event)
        c.sig_handoff_required.connect(self._on_controller_handoff_required)
        c.sig_prompt_returned.connect(self._on_controller_prompt_returned)
        c.sig_conflict.connect(self._on_controller_conflict)
        self._picked = False
        """The profile was chosen in the picker (not the Settings' one)."""
        self._wanted: str | None = None
        """The profile Settings asked for at the last fill."""
        self._shown_path = host.document.path
        """The session whose turns the reply pane shows."""
        self._saved: str | None = None
        """Node id of the revision the last turn saved (the status names it while it is active)."""
        self.profile.activated.connect(self._on_profile_activated)
        host.bridge.sig_operation_finished.connect(self._on_bridge_operation_finished)
        host.document.sig_loaded.connect(self._on_document_loaded)
        host.document.sig_closed.connect(self._on_document_loaded)
        self._profiles_read = False
        """The picker was filled (on the first show: the profiles need the provider stack)."""
        self._on_controller_state_changed(c.state)

    # -- profiles ----------------------------------------------------------------------------------

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if not self._profiles_read:
            self.refresh_profiles()

    def refresh_profiles(self, *, reset: bool = False) -> None:
        """Fill the picker from the profiles file (read off the GUI thread).

        It shows the profile Settings asks for ("Continue with", else the default profile) and
        follows it when Settings change; a profile picked here stays picked for this session
        while it exists and Settings ask for the same one (``reset``: forget the pick).
        """
        from ..services.settings import PREFS_CONTINUE_PROFILE

        self._profiles_read = True
        setting = self.host.settings.get(PREFS_CONTINUE_PROFILE)

        def fill(loaded: ProfileSet) -> None:
            names = [p.name for p in loaded.profiles]
            wanted = setting if setting in names else loaded.default
            current = self.profile_name()
            keep = self._picked and not reset and wanted == self._wanted and current in names
            self._wanted = wanted
            self._picked = keep
            self.profile.blockSignals(True)
            self.profile.clear()
            for p in loaded.profiles:
                self.profile.addItem(f"{p.name} · {p.model}", p.name)
            self.profile.blockSignals(False)
            self._profile_modes = {p.name: p.permission_mode_for() for p in loaded.profiles}
            index = self.profile.findData(current if keep else wanted)
            self.profile.setCurrentIndex(index if index >= 0 else 0)
            self._update_tools_default_label()

        self.host.bridge.run(
            self.host.aprofile_set(), on_success=fill, context="Reading provider profiles"
        )

    def profile_name(self) -> str | None:
        data = self.profile.currentData()
        return str(data) if data else None

    def _on_profile_activated(self, _index: int) -> None:
        self._picked = True

    def _on_bridge_operation_finished(self, changes: OpChanges, _initiator: object) -> None:
        # a profile, the default or "Continue with" may have changed (a picker not yet filled
        # reads them when first shown)
        if changes.settings and self._profiles_read:
            self.refresh_profiles()
        if changes.revisions:
            self._follow_active()

    def _follow_active(self) -> None:
        """After an undo, a redo or a fork, the status names the revision active now, not the
        one the last turn saved."""
        tree = self.host.document.tree if self.host.document.is_open else None
        saved = self._saved
        if saved is None or tree is None or tree.active_leaf is None or self.controller.busy:
            return
        if not self.status.text().startswith(("Saved:", "Now active:")):
            return  # the status says something else since (a failure, a question)
        active = tree.active_leaf
        name = revision_words(tree, active)
        if active.id == saved:
            self.status.setText(f"Saved: {name} is the active one.")
        else:
            self.status.setText(f"Now active: {name} (not the revision the last turn saved).")

    def _on_document_loaded(self) -> None:
        """Another session: forget the previous one's reply, status, banners, cards and picks."""
        path = self.host.document.path if self.host.document.is_open else None
        if path == self._shown_path:
            return
        self._shown_path = path
        if self.controller.carrying_over:
            return  # a fork: the same conversation goes on in the new session
        self._buffer.clear()
        self._flush.stop()
        self._mode = ""
        self._markdown = ""
        self._saved = None
        self.reply.clear()
        self.status.setText("")
        self.handoff.hide()
        self.workspace_banner.hide()
        self._close_approval()
        self._clear_shell_cards()
        self.mode_picker.setCurrentIndex(0)
        if path is not None and self._profiles_read:  # (closing, as at shutdown, reads nothing)
            self.refresh_profiles(reset=True)

    # -- sending -------------------------------------------------------------------------------------

    def focus_composer(self) -> None:
        self.composer.setFocus(Qt.FocusReason.ShortcutFocusReason)

    def send(self) -> None:
        text = self.composer.toPlainText()
        if not text.strip():
            self.status.setText("Write a prompt first.")
            return
        # the prompt stays in the box until its turn starts (a question may come first)
        self.controller.send(text, profile=self.profile_name())

    def _on_send_anyway_clicked(self) -> None:
        self.handoff.hide()
        self.controller.confirm_handoff(self.composer.toPlainText())

    def _on_keep_prompt_clicked(self) -> None:
        self.handoff.hide()
        self.controller.decline_handoff()

    # -- what the controller reports ---------------------------------------------------------------------

    def _append(self, text: str) -> None:
        """Write ``text`` after everything streamed so far."""
        self._on_flush_timeout()
        self._mode = ""
        self._markdown = ""
        cursor = self.reply.textCursor()
        cursor.movePosition(QTextCursor.MoveOperation.End)
        self._insert_plain(cursor, text)
        self.reply.setTextCursor(cursor)
        self.reply.ensureCursorVisible()

    @staticmethod
    def _insert_plain(cursor: QTextCursor, text: str) -> None:
        """``text`` as plain lines: no format of the rendered Markdown before it (bold, a list) carries on."""
        for i, line in enumerate(text.split("\n")):
            if i:
                cursor.insertBlock(QTextBlockFormat(), QTextCharFormat())
            if line:
                cursor.insertText(line, QTextCharFormat())

    def _render_markdown(self, cursor: QTextCursor) -> None:
        """Draw the assistant's text so far again, rendered, in place of its previous drawing."""
        end = cursor.document().characterCount() - 1
        cursor.setPosition(end - self._markdown_length)
        cursor.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
        start = cursor.selectionStart()
        cursor.removeSelectedText()
        html = render_markdown(self._markdown).strip()
        if html:
            cursor.insertHtml(html)
        self._markdown_length = cursor.document().characterCount() - 1 - start

    def _line(self, text: str) -> None:
        """Write ``text`` as a line of its own."""
        self._on_flush_timeout()
        last = self.reply.document().lastBlock().text()  # empty: the reply ends with a newline
        self._append(("\n" if last else "") + text + "\n")

    def _on_controller_turn_event(self, event: TurnEvent) -> None:
        """Show one event of the turn (the controller's one turn signal)."""
        # the engine's modules load with the first turn, not with the window
        from ...core.session import turn
        from ...core.tools.words import call_subject

        if isinstance(event, turn.TurnStarted):
            self._on_controller_turn_started(event.prompt)
        elif isinstance(event, turn.TextDelta):
            self._on_controller_text_delta(event.text)
        elif isinstance(event, turn.ReasoningDelta):
            self._on_controller_reasoning_delta(event.text)
        elif isinstance(event, turn.CallsProgress):
            self._on_controller_call_progress(event.due.words())
        elif isinstance(event, turn.CallsEnded):
            self._on_controller_call_progress("")
        elif isinstance(event, turn.Retrying) and not event.reset:
            self._on_controller_activity(
                "Retrying: the request failed before any reply; it is sent again"
            )
        elif isinstance(event, turn.Retrying):
            reason = (
                event.detail.strip().splitlines()[0][:160]
                if event.detail.strip()
                else "the reply broke off"
            )
            self._on_controller_activity(f"Retrying: {reason}")
        elif isinstance(event, turn.ToolProposed):
            tools = self.controller.tools
            if tools is None or not tools.tools:
                self._on_controller_activity(
                    f"The model called {event.call.name}; tools are off for this "
                    "conversation, so it was told the tool is unavailable."
                )
        elif isinstance(event, turn.ToolStarted):
            self._on_controller_tool_started(event.call_id, event.name, event.metadata)
            self._on_controller_activity(f"● {event.name} {call_subject(event.metadata)}".rstrip())
        elif isinstance(event, turn.ToolOutput):
            self._on_controller_tool_output(event.call_id, event.message)
        elif isinstance(event, turn.ToolFinished):
            self._on_controller_tool_finished(event.call_id, event.ok, event.content)
            self._on_controller_activity(f"  {'✓' if event.ok else '✗'} {event.line}".rstrip())
        elif isinstance(event, turn.CompactionStarted):
            self._on_controller_activity(
                f"◆ Compacting the context automatically ({event.message_count:,} messages)…"
            )
        elif isinstance(event, turn.Stopped):
            self._on_controller_activity(f"■ Stopped: {event.detail}")
        elif isinstance(event, turn.Saved):
            self._on_controller_saved(event.node)
        elif isinstance(event, turn.TurnEnded):
            used = event.usage
            if used is not None and event.outcome != "failed":
                self._on_controller_usage(used.usage, used.estimated, used.calibrated)
            self._on_controller_turn_finished(event.outcome, event.detail)

    def _on_controller_turn_started(self, prompt: str) -> None:
        if self.composer.toPlainText() == prompt:
            self.composer.clear()  # the prompt is in the session now
        self.handoff.hide()
        self.workspace_banner.hide()
        self._clear_shell_cards()
        if self.reply.document().characterCount() > 1:
            self._append("\n")
        self._line("You: " + prompt.strip())
        self._mode = ""

    def _on_controller_text_delta(self, text: str) -> None:
        if self.status.text().startswith("Retrying"):
            self.status.setText("Streaming… (Esc cancels)")  # the reply streams again
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
        cursor = self.reply.textCursor()
        cursor.movePosition(QTextCursor.MoveOperation.End)
        changed = False
        for mode, text in self._buffer:
            if mode != self._mode:
                if changed:
                    self._render_markdown(cursor)
                    changed = False
                label = "Assistant: " if mode == "text" else "(reasoning summary) "
                self._insert_plain(cursor, ("\n" if self._mode else "") + label)
                self._mode = mode
                self._markdown, self._markdown_length = "", 0
            if mode == "text":
                self._markdown += text
                changed = True
            else:
                self._insert_plain(cursor, text)
        self._buffer.clear()
        if changed:
            self._render_markdown(cursor)
        self.reply.setTextCursor(cursor)
        self.reply.ensureCursorVisible()

    def _on_controller_activity(self, text: str) -> None:
        self._line(text)
        if text.startswith("Retrying") and self.controller.busy:
            # during the pause before the request is sent again, nothing streams
            self.status.setText("Retrying the request… (Esc cancels)")

    def _on_controller_call_progress(self, text: str) -> None:
        self.call_progress.setText(text)
        self.call_progress.setVisible(bool(text))

    def _on_controller_saved(self, node: RevisionNode) -> None:
        name = revision_words(self.controller.document.tree, node)
        kind = "compaction " if node.kind is NodeKind.COMPACTION else ""
        self._line(f"✓ Saved as {kind}{name}.")
        self.status.setText(f"Saved: {name} is the active one.")
        self._saved = node.id

    def _on_controller_turn_finished(self, how: str, detail: str) -> None:
        self._stop_shell_cards()
        conflict = self.controller.conflict
        if conflict is not None:
            # the banner above offers Reload and Fork: say the same thing, not "kept"
            if conflict.unsaved:
                self._line(
                    "■ Stopped: another program wrote to this session. This turn is held here, not saved: "
                    "Fork saves it, Reload drops it (see the banner above)."
                )
            else:
                self._line(
                    "■ Stopped: the session changed on disk; nothing of this turn was saved (see the banner above)."
                )
        elif how == "cancelled":
            self._line("■ Cancelled: the prompt and the partial reply were kept.")
        elif how == "failed":
            reason = (detail or "the model call failed").rstrip(" .")  # one full stop, never ".."
            self._line(f"✖ Failed: {reason}. Nothing of this turn was kept.")
            self.status.setText(
                "Failed: nothing of this turn was kept; the prompt is back in the box."
            )

    def _on_controller_usage(
        self, usage: ModelUsage | None, estimated: int, calibrated: bool
    ) -> None:
        saved = self.status.text() if self.status.text().startswith("Saved") else ""
        self.status.setText(
            " · ".join(t for t in (saved, describe_usage(usage, estimated, calibrated)) if t)
        )

    def _on_controller_handoff_required(self, report: HandoffReport, identity: str) -> None:
        self.reply.hide()  # first: the window's minimum never counts both (see _update_reply)
        self.handoff.show_text(
            f"<b>Replay safety.</b> {html.escape(report.describe(identity))} Send anyway?"
        )
        self.send_anyway.setFocus()
        self.status.setText("Waiting for your confirmation of the provider switch.")

    def _on_controller_prompt_returned(self, prompt: str) -> None:
        if not self.composer.toPlainText().strip():
            self.composer.setPlainText(prompt)
            self.composer.moveCursor(QTextCursor.MoveOperation.End)

    def _on_controller_conflict(self, info: ConflictInfo | None) -> None:
        if info is not None:
            self.status.setText(
                "Stopped: the session changed on disk. Reload or fork (see the banner above)."
            )

    def _on_controller_state_changed(self, state: TurnState) -> None:
        running = state in (TurnState.PREPARING, TurnState.RUNNING, TurnState.CANCELLING)
        self.send_button.setEnabled(not running and state is not TurnState.BLOCKED)
        self.cancel_button.setEnabled(state in (TurnState.PREPARING, TurnState.RUNNING))
        self.profile.setEnabled(not running)
        self.mode_picker.setEnabled(not running)
        app = QApplication.instance()
        if app is not None:
            if running:
                app.installEventFilter(self._esc_filter)
            else:
                app.removeEventFilter(self._esc_filter)
        texts = {
            TurnState.IDLE: "",
            TurnState.PREPARING: "Reading the key and restoring the session…",
            TurnState.RUNNING: "Streaming… (Esc cancels)",
            TurnState.CANCELLING: "Cancelling: saving the prompt and the partial reply…",
            TurnState.BLOCKED: "Stopped: the session changed on disk. Reload or fork.",
        }
        if texts[state] or (
            state is TurnState.IDLE
            and self.status.text().startswith(("Reading", "Streaming", "Retrying", "Cancelling"))
        ):
            self.status.setText(texts[state])

    # -- tools ---------------------------------------------------------------------------------------------

    def _update_tools_default_label(self, *_args: object) -> None:
        """The first entry says which mode the chosen profile gives."""
        mode = self._profile_modes.get(self.profile_name() or "", DEFAULT_MODE)
        self.mode_picker.setItemText(0, f"Tools: {mode.label} (profile)")

    def _on_mode_picker_changed(self, _index: int) -> None:
        value = self.mode_picker.currentData()
        self.controller.set_mode_override(PermissionMode(value) if value else None)

    def _on_controller_workspace_missing(self, message: str) -> None:
        text = html.escape(message[:1].upper() + message[1:])
        self.reply.hide()  # first: the window's minimum never counts both (see _update_reply)
        remembered = self.controller.remembered_workspace()
        # (with the folder chosen before, a fourth button: the text says less, the button,
        # its tip and the status line name the folder)
        ask = "" if remembered else " Choose a folder for its tools, or continue without them."
        self.workspace_banner.show_text(f"<b>The tools have no folder.</b> {text}.{ask}")
        self.use_remembered.setVisible(remembered is not None)
        if remembered:
            name = Path(remembered).name or remembered
            name = name if len(name) <= 20 else name[:19] + "…"
            self.use_remembered.setText("&Use " + name.replace("&", "&&"))
            self.use_remembered.setToolTip(
                f"Run the tools in {remembered}, chosen for this workspace before"
            )
        (self.use_remembered if remembered else self.choose_folder).setFocus()
        self.status.setText(
            f"Use {remembered} again, choose another folder for the tools, or continue without them."
            if remembered
            else "Choose a folder for the tools, or continue without them."
        )

    def _on_controller_workspace_untrusted(
        self, problem: WorkspaceUntrusted | WorkspaceRefused
    ) -> None:
        from .trust import WorkspaceTrustBox

        if self.trust_box is not None:
            self.trust_box.close()
        choice = self.controller.workspace_choice
        chosen = choice is not None and Path(choice).resolve() == Path(problem.folder).resolve()
        box = WorkspaceTrustBox(problem, self, chosen=chosen)
        box.sig_answered.connect(self._on_trust_answered)
        self.trust_box = box
        self.status.setText(
            "Trust the folder for the tools, choose another, or continue without tools."
        )
        box.open()

    def _on_trust_answered(self, answer: str) -> None:
        self.trust_box = None
        if answer == "trust":
            self.controller.trust_workspace()
        elif answer == "choose":
            self._on_choose_folder_clicked()
        elif answer == "without_tools":
            self._on_without_tools_clicked()
        else:
            self.status.setText("")
            self.controller.decline_handoff()

    def _on_choose_folder_clicked(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Folder for the session's tools")
        if folder:
            self.workspace_banner.hide()
            self.controller.choose_workspace(folder)

    def _on_use_remembered_clicked(self) -> None:
        folder = self.controller.remembered_workspace()
        if folder:
            self.workspace_banner.hide()
            self.controller.choose_workspace(folder)

    def _on_without_tools_clicked(self) -> None:
        self.workspace_banner.hide()
        self.mode_picker.blockSignals(True)
        self.mode_picker.setCurrentIndex(self.mode_picker.findData(PermissionMode.OFF.value))
        self.mode_picker.blockSignals(False)
        self.controller.continue_without_tools()

    def _on_workspace_keep_clicked(self) -> None:
        self.workspace_banner.hide()
        self.controller.decline_handoff()

    def _on_controller_approval_requested(self, request: object) -> None:
        self._close_approval()
        card = ApprovalCard(request, self)
        card.sig_answered.connect(self.controller.answer_approval)
        card.sig_resized.connect(self._on_approval_card_resized)
        self.approval_card = card
        self._update_cards()  # first: the reply makes way before the card counts in the window's minimum
        # The question first, above earlier commands' output, and outside their scroll area: its
        # answers are never scrolled out of view (the card's own text box scrolls).
        self._layout.insertWidget(self._layout.indexOf(self.cards_area), card, 1)
        card.show()
        self._on_approval_card_resized()
        card.setFocus(Qt.FocusReason.OtherFocusReason)
        full = ", F shows the full diff" if card.full_button.isVisible() else ""
        self.status.setText(
            f"Waiting for your approval: A approves, S for the session, D denies{full}."
        )

    def _on_approval_card_resized(self) -> None:
        """The card appeared or its whole diff was asked for: the dock grows to show it."""
        card = self.approval_card
        if card is None:
            return
        self._make_room(card.wanted_height())

    def _dock(self) -> tuple[QDockWidget, QMainWindow] | None:
        dock = self.parentWidget()
        while dock is not None and not isinstance(dock, QDockWidget):
            dock = dock.parentWidget()
        window = dock.parentWidget() if dock is not None else None
        if dock is None or dock.isFloating() or not isinstance(window, QMainWindow):
            return None
        return dock, window

    def _make_room(self, card_height: int) -> None:
        """Grow the dock so the card fits, up to 70% of the window, until the card is answered."""
        found = self._dock()
        if found is None:
            return
        dock, window = found
        self._layout.activate()  # the cards just added or hidden have their place
        card = self.approval_card
        others = self.height()
        if card is not None:
            others -= card.height()
        if (
            self.cards_area.isVisible()
        ):  # earlier commands' output: a few lines of it under a question
            others -= self.cards_area.height()
            others += (
                self.cards_area.minimumSizeHint().height() + self._layout.spacing()
                if card is not None
                else 0
            )
        # never more than the window can give without growing past its screen
        spare = max(0, window.height() - window.minimumSizeHint().height())
        wanted = min(others + card_height + 12, window.height() * 70 // 100, dock.height() + spare)
        if wanted > dock.height():
            if self._dock_before is None:
                self._dock_before = dock.height()
            window.resizeDocks([dock], [wanted], Qt.Orientation.Vertical)

    def _give_room_back(self) -> None:
        before, self._dock_before = self._dock_before, None
        found = self._dock()
        if before is not None and found is not None:
            found[1].resizeDocks([found[0]], [before], Qt.Orientation.Vertical)

    def _close_approval(self) -> None:
        card, self.approval_card = self.approval_card, None
        if card is not None:
            card.hide()
            card.deleteLater()
        self._update_cards()
        self._give_room_back()

    def _on_controller_approval_closed(self, _call_id: str) -> None:
        focus = QApplication.focusWidget()
        card = self.approval_card
        had_focus = (
            card is not None and focus is not None and (focus is card or card.isAncestorOf(focus))
        )
        self._close_approval()
        if had_focus or focus is None:
            self.composer.setFocus(Qt.FocusReason.OtherFocusReason)
        if self.controller.busy:
            self.status.setText("Streaming… (Esc cancels)")

    def _on_controller_tool_started(self, call_id: str, name: str, metadata: object) -> None:
        if name != "bash" or not isinstance(metadata, dict):
            return
        tools = self.controller.tools
        folder = (
            str(tools.workspace.root) if tools is not None and tools.workspace is not None else ""
        )
        # The card appears once the command runs (its first output, or its end): a call that is
        # still waiting for approval, or is denied, or is cancelled there, never ran.
        self._shell_calls[call_id] = (str(metadata.get("command", "")), folder)

    def _shell_card(self, call_id: str) -> ShellCard | None:
        card = self.shell_cards.get(call_id)
        if card is None and call_id in self._shell_calls:
            command, folder = self._shell_calls.pop(call_id)
            card = ShellCard(command, folder, self.cards)
            self.shell_cards[call_id] = card
            self.cards_layout.insertWidget(0, card)
            self._update_cards()
            self._make_room(card.sizeHint().height())  # its output in view, until the next turn
        return card

    def _on_controller_tool_output(self, call_id: str, text: str) -> None:
        card = self._shell_card(call_id)
        if card is not None:
            card.show_output(text)

    def _on_controller_tool_finished(self, call_id: str, ok: bool, content: str) -> None:
        if (
            call_id in self._shell_calls
            and not ok
            and content.startswith("process capability denied")
        ):
            del self._shell_calls[call_id]  # denied: it never ran
        card = self._shell_card(call_id)
        if card is not None:
            card.finish(ok, content)

    def _stop_shell_cards(self) -> None:
        """The turn ended: a command still shown as running was stopped with it."""
        self._shell_calls.clear()
        for card in self.shell_cards.values():
            if not card.finished:
                card.stop()

    def _clear_shell_cards(self) -> None:
        self._shell_calls.clear()
        for card in self.shell_cards.values():
            card.hide()
            card.deleteLater()
        had = bool(self.shell_cards)
        self.shell_cards.clear()
        self._update_cards()
        if had and self.approval_card is None:
            self._give_room_back()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched in (self.handoff, self.workspace_banner) and event.type() in (
            QEvent.Type.Show,
            QEvent.Type.Hide,
        ):
            self._update_reply()
        return super().eventFilter(watched, event)

    def _update_reply(self) -> None:
        """While a question is up (an approval card, a banner), the reply gives up its lines to it:
        on a 700-pixel screen the question's answers would not fit beside it, and the window's
        minimum height would rise past the screen."""
        asking = (
            self.approval_card is not None
            or not self.handoff.isHidden()
            or not self.workspace_banner.isHidden()
        )
        if self.reply.isHidden() != asking:
            self.reply.setHidden(asking)

    def _update_cards(self) -> None:
        asking = self.approval_card is not None
        shown = asking or bool(self.shell_cards)
        self.cards_area.setVisible(bool(self.shell_cards))
        self._update_reply()
        # and earlier commands' output under it keeps two lines (it scrolls)
        least = self.fontMetrics().lineSpacing() * 2 if asking else 0
        if self.cards_area.minimumHeight() != least:
            self.cards_area.setMinimumHeight(least)
        # While a card shows, it gets the room: the reply keeps a few lines (it scrolls).
        self._layout.setStretchFactor(self.reply, 0 if shown else 1)
        self._layout.setStretchFactor(self.cards_area, 1 if shown and not asking else 0)
        self.reply.setMaximumHeight(
            self.reply.fontMetrics().lineSpacing() * 4 + 12 if shown else 16_777_215
        )
        self.composer.setMaximumHeight(
            self.composer.fontMetrics().lineSpacing() * 2 + 14 if shown else 110
        )


class _EscapeCancels(QObject):
    """While a turn runs, Esc anywhere in the panel's window cancels it."""

    def __init__(self, panel: ContinuePanel) -> None:
        super().__init__(panel)
        self.panel = panel

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if kind not in (QEvent.Type.KeyPress, QEvent.Type.ShortcutOverride):
            return False
        if (
            not isinstance(event, QKeyEvent)
            or event.key() != Qt.Key.Key_Escape
            or event.modifiers()
        ):
            return False
        if not isinstance(watched, QWidget) or watched.window() is not self.panel.window():
            return False
        if not self.panel.controller.busy:
            return False
        if kind == QEvent.Type.ShortcutOverride:
            event.accept()  # keep window shortcuts from taking Esc; the key press follows
            return True
        self.panel.controller.cancel()
        return True
