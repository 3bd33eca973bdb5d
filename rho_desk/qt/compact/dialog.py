"""The compaction dialog: choose a compactor, preview what it would do, run it, cancel or undo it.

Preview (computed in a worker thread, recomputed when the settings or the session change): every
message of the active revision marked kept, replaced or kept-as-system; the token estimates
before and after (spec §3 figures, no request overhead); the draft digest of the local
compactor, or, for a provider profile, the same digest as the stand-in the estimate is based on
(the provider writes the real summary only when the compaction runs).

A compaction that would not shrink the context is refused before it runs (the preview says
why and Compact stays disabled); for a provider summary, whose size is known only once written,
the same check runs on the result, and nothing is saved when it fails.

Run: ``core.compaction.manual`` (the one manual compaction path, shared with
``rho-desk compact``): the engine's manual compaction on a throw-away runtime around the stored
state, then ``save_compaction`` appends the result as a new complete base after checking that
the active revision is still the one compacted. A busy row with a Cancel button (Esc) stops it.
Afterwards the cards and the right pane show what was written: the real figures, and the digest
or summary itself with its size. Undo (the button, or Ctrl+Z) restores the previous revision
(``core.revisions.edits``): a ``set_leaf`` in a v4 tree, a copy of the earlier state in a v1-v3 line.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from ...core.compaction.local import CompactionPreview, LocalCompactor, RecentBudget
from ...core.compaction.manual import (
    CompactionRefused,
    CompactionResult,
    ManualCompaction,
    SessionChanged,
    save_compaction,
)
from ...core.compaction.tokens import message_tokens
from ...core.errors import Cancelled, error_text
from ...core.revisions.edits import stored_state
from ...core.stores.rho_files import RevisionNode
from ...core.wire import Message
from ...providers.compactors import open_compactor
from ..services.bridge import in_thread
from ..services.outcomes import OpResult
from ..services.settings import (
    LOCAL_COMPACTOR,
    PREFS_COMPACTION_COMPACTOR,
    PREFS_COMPACTION_KEEP_MESSAGES,
    PREFS_COMPACTION_KEEP_TOKENS,
)
from ..ui.blocks import Banner, BusyRow, FigureCard, budget_spin_boxes, make_table, section_title
from ..ui.screen import fit_to_screen
from ..ui.text import revision_words, session_title, shorten
from .model import CompactionPreviewModel

if TYPE_CHECKING:
    from ..services.context import DialogHost

__all__ = ["CompactionDialog", "PreviewData", "SessionChanged", "compute_preview"]


@dataclass(frozen=True, slots=True)
class PreviewData:
    """A preview and what the table needs, computed off the GUI thread."""

    node_id: str
    revision: int
    preview: CompactionPreview
    history: tuple[Any, ...]
    tokens: tuple[int, ...]


def compute_preview(
    history: tuple[Message, ...], node: RevisionNode, budget: RecentBudget
) -> PreviewData:
    """The local preview of compacting ``history``, ``node``'s stored one (blocking; run it in a
    thread). The summarizing compactor partitions the same way, so this is its preview too."""
    preview = LocalCompactor(budget).preview(history)
    return PreviewData(
        node.id, node.revision, preview, history, tuple(message_tokens(m) for m in history)
    )


def _share(before: int, after: int) -> str:
    """`` (−59%)`` for a shrink, `` (+3%)`` for a growth, nothing without a "before"."""
    if not before:
        return ""
    change = (after - before) * 100 / before
    return f" ({'+' if change > 0 else '−'}{abs(change):.0f}%)" if change else " (±0%)"


class CompactionDialog(QDialog):
    """Preview and run a compaction of the open session's active revision.

    Signals:
        sig_compacted(object): a compaction was written; carries the new ``RevisionNode``.
    """

    sig_compacted = Signal(object)
    """A compaction was written; carries the new node."""

    def __init__(self, host: DialogHost, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.host = host
        self.setObjectName("CompactionDialog")
        self.setWindowTitle("Compact session")
        self.data: PreviewData | None = None
        self._generation = 0
        self._compaction: ManualCompaction | None = None
        self._task: asyncio.Task[Any] | None = None
        self.last_result: CompactionResult | None = None

        self.heading = QLabel()
        self.heading.setObjectName("PanelTitle")
        intro = QLabel(
            "The older part of the history is replaced by one message. The system prompt and the most "
            "recent messages are kept word for word; a tool call is never separated from its results."
        )
        intro.setWordWrap(True)
        intro.setProperty("muted", True)

        self.compactor = QComboBox()
        self.compactor.setObjectName("CompactorChoice")
        self.compactor.addItem("Local digest (offline, no model call)", LOCAL_COMPACTOR)
        self.keep_tokens, self.keep_messages = budget_spin_boxes()
        settings = host.settings
        self.keep_tokens.setValue(settings.get(PREFS_COMPACTION_KEEP_TOKENS))
        self.keep_messages.setValue(settings.get(PREFS_COMPACTION_KEEP_MESSAGES))
        keep = QHBoxLayout()
        keep.addWidget(self.keep_tokens)
        keep.addWidget(QLabel("and at most"))
        keep.addWidget(self.keep_messages)
        keep.addStretch(1)
        keep_label = QLabel("&Keep recent:")
        keep_label.setBuddy(self.keep_tokens)
        form = QFormLayout()
        form.addRow("&Compactor:", self.compactor)
        form.addRow(keep_label, keep)

        self.card_messages = FigureCard("messages before → after")
        self.card_tokens = FigureCard("estimated tokens before → after")
        self.card_removed = FigureCard("messages replaced")
        cards = QHBoxLayout()
        for card in (self.card_messages, self.card_tokens, self.card_removed):
            cards.addWidget(card)

        self.model = CompactionPreviewModel(self)
        self.table = make_table(
            "CompactionPreviewTable", self.model, stretch=4, label="Messages kept or replaced"
        )
        self.digest_title = section_title("Draft digest")
        self.digest = QPlainTextEdit()
        self.digest.setObjectName("DraftDigest")
        self.digest.setAccessibleName("Draft digest")
        self.digest.setReadOnly(True)
        self.digest.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.addWidget(section_title("Messages"))
        left_layout.addWidget(self.table, 1)
        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        right_layout.addWidget(self.digest_title)
        right_layout.addWidget(self.digest, 1)
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(left)
        self.splitter.addWidget(right)
        self.splitter.setSizes([560, 420])

        self.preview_busy = BusyRow()
        self.preview_busy.setObjectName("PreviewBusy")
        self.preview_busy.hide()
        self.notice = Banner("warning")
        self.notice.hide()
        self.busy = BusyRow()
        self.busy.hide()
        self.cancel_button = QPushButton("&Cancel compaction")
        self.cancel_button.setObjectName("CancelCompaction")
        self.cancel_button.setToolTip("Stop the compaction; nothing is written (Esc)")
        self.cancel_button.hide()
        busy_row = QHBoxLayout()
        busy_row.addWidget(self.busy, 1)
        busy_row.addWidget(self.cancel_button)

        self.buttons = QDialogButtonBox()
        self.compact_button = self.buttons.addButton(
            "C&ompact", QDialogButtonBox.ButtonRole.AcceptRole
        )
        self.compact_button.setObjectName("RunCompaction")
        self.compact_button.setToolTip(
            "Run the compaction and save it as a new revision (Ctrl+Return)"
        )
        self.compact_button.setShortcut("Ctrl+Return")
        self.undo_button = self.buttons.addButton("&Undo", QDialogButtonBox.ButtonRole.ActionRole)
        self.undo_button.setToolTip("Make the revision before the compaction active again (Ctrl+Z)")
        self.undo_button.setShortcut("Ctrl+Z")
        self.undo_button.setEnabled(False)
        self.close_button = self.buttons.addButton(QDialogButtonBox.StandardButton.Close)

        layout = QVBoxLayout(self)
        layout.addWidget(self.heading)
        layout.addWidget(intro)
        layout.addLayout(form)
        layout.addLayout(cards)
        layout.addWidget(self.preview_busy)
        layout.addWidget(self.splitter, 1)
        layout.addWidget(self.notice)
        layout.addLayout(busy_row)
        layout.addWidget(self.buttons)
        fit_to_screen(self, 1040, 700)

        self.compact_button.clicked.connect(self.start)
        self.cancel_button.clicked.connect(self.cancel_run)
        self.undo_button.clicked.connect(self._on_undo_clicked)
        self.close_button.clicked.connect(self.close)
        self.compactor.currentIndexChanged.connect(self._on_compactor_changed)
        self.keep_tokens.valueChanged.connect(self._on_budget_changed)
        self.keep_messages.valueChanged.connect(self._on_budget_changed)
        host.document.sig_tree_changed.connect(self._on_document_changed)
        host.document.sig_loaded.connect(self._on_document_changed)
        host.theme.sig_theme_changed.connect(self._on_theme_changed)
        self._on_theme_changed(host.theme.theme)
        self._load_profiles()
        self.refresh()

    # -- state -------------------------------------------------------------------------------------

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    def budget(self) -> RecentBudget | None:
        """The recent part to keep; ``None`` when neither box sets a limit (nothing to compact).

        The command line refuses the same input (both 0) with exit status 2.
        """
        tokens, messages = self.keep_tokens.value(), self.keep_messages.value()
        if not tokens and not messages:
            return None
        return RecentBudget(max_tokens=tokens or None, max_messages=messages or None)

    def compactor_name(self) -> str:
        return str(self.compactor.currentData() or "")

    def _load_profiles(self) -> None:
        wanted = self.host.settings.get(PREFS_COMPACTION_COMPACTOR)

        def fill(profiles: Any) -> None:
            for profile in profiles:
                self.compactor.addItem(
                    f"Summary by {profile.name} ({profile.identity_provider}/{profile.model})",
                    profile.name,
                )
            index = self.compactor.findData(wanted)
            if index >= 0:
                self.compactor.setCurrentIndex(index)

        self.host.bridge.run(
            self.host.aprofiles(), on_success=fill, context="Reading provider profiles"
        )

    # -- preview -----------------------------------------------------------------------------------

    def refresh(self) -> None:
        """Recompute the preview for the active revision (off the GUI thread)."""
        document = self.host.document
        tree = document.tree
        if tree is None or tree.active_leaf is None or self.running:
            return
        self._generation += 1
        generation = self._generation
        node, budget = tree.active_leaf, self.budget()
        self.compact_button.setEnabled(False)
        self._show_heading(node.revision)
        if budget is None:
            self.preview_busy.hide()
            self.data = None
            self.notice.show_text(
                "Set at least one limit: with no limit on either, every message counts as recent "
                "and there is nothing to compact."
            )
            return

        # a long session takes a while (about 2 s for 100,000 messages): say so meanwhile
        self.preview_busy.busy(f"Computing the preview of {node.length:,} messages…")

        async def compute() -> PreviewData:
            # the history is read holding the tree lock (the document's API), the preview without it
            history = await document.arun_locked(lambda: stored_state(tree, node).history)
            return await in_thread(compute_preview, history, node, budget)

        def show(data: PreviewData) -> None:
            if generation == self._generation:
                self.preview_busy.hide()
                self._show_preview(data)

        def failed(exc: BaseException) -> None:
            if generation == self._generation:
                self.preview_busy.done("The preview failed: " + error_text(exc))

        self.host.bridge.run(
            compute(), on_success=show, on_error=failed, context="Previewing the compaction"
        )

    def _show_heading(self, revision: int) -> None:
        """ "Compact revision 6 of “Churn: retention by cohort”": the session's title, as the
        window's header says it, not its id."""
        tree = self.host.document.tree
        fallback = (
            f"session {tree.session_id[:8]}"
            if tree is not None and tree.session_id
            else "this session"
        )
        title = session_title(self.host.summary_for_open(), "")
        self.heading.setText(
            f"Compact revision {revision} of " + (f"“{shorten(title, 80)}”" if title else fallback)
        )

    def _show_preview(self, data: PreviewData) -> None:
        self.data = data
        p = data.preview
        self._show_heading(data.revision)
        self.model.set_preview(
            data.history, data.tokens, len(p.partition.system), len(p.partition.older)
        )
        # messages as the session card and the header count them: the system prompt is not one
        self.system_messages = len(p.partition.system)
        self.card_messages.set(self._messages(p.previous_messages, p.current_messages))
        self.card_tokens.set(
            f"{p.previous_tokens:,} → {p.current_tokens:,}{_share(p.previous_tokens, p.current_tokens)}"
        )
        self.card_removed.set(
            f"{len(p.removed):,}", f"messages replaced by one ({len(p.kept):,} kept)"
        )
        provider = bool(self.compactor_name())
        refusal = p.refusal("the local digest" if provider else "the digest")
        if p.nothing_to_compact:
            self.digest_title.setText("Nothing to compact")
            self.digest.setPlainText(refusal or "")
        elif provider:
            self.digest_title.setText("Estimate: the provider writes the summary when you compact")
            self.digest.setPlainText(
                'The "after" figure uses rho-desk\'s local digest of the same messages as a stand-in; '
                "the provider's summary replaces it when the compaction runs, and the figures written "
                "are shown then.\n\n" + p.replacement_message.text()  # type: ignore[union-attr]
            )
        else:
            self.digest_title.setText("Draft digest (what replaces the older messages)")
            self.digest.setPlainText(p.replacement_message.text())  # type: ignore[union-attr]
        self.card_tokens.caption.setText(
            "estimated tokens before → after" + (" (after: estimate)" if provider else "")
        )
        # A provider's summary may come out smaller than the local stand-in: only a preview with
        # nothing to replace is final for it; the written result is checked again after the run.
        blocked = p.nothing_to_compact or (not provider and not p.shrinks)
        self.compact_button.setEnabled(not blocked and not self.running)
        # "Nothing to compact" is said once, in the pane where the digest would be
        if refusal is not None and not p.nothing_to_compact and (blocked or provider):
            self.notice.show_text(
                refusal
                if blocked
                else "The local estimate says: "
                + refusal[0].lower()
                + refusal[1:]
                + " The provider's summary is checked the same way before anything is written."
            )
        else:
            self.notice.setVisible(False)

    # -- running -----------------------------------------------------------------------------------

    def start(self) -> None:
        """Run the compaction (the Compact button)."""
        data, budget = self.data, self.budget()
        if data is None or budget is None or data.preview.nothing_to_compact or self.running:
            return
        if not self.compactor_name() and not data.preview.shrinks:
            return
        if not self.host.claim("compaction"):
            self.notice.show_text(f"Wait until the {self.host.operation} has finished.")
            return
        # the choices here are this compaction's: the defaults, which automatic compaction uses
        # too, change only in Settings
        self._set_running(
            True,
            "Compacting with the "
            + ("provider's summary" if self.compactor_name() else "local digest")
            + "…",
        )
        self._task = self.host.bridge.run(
            self._arun(data.node_id, budget),
            on_success=self._on_run_done,
            on_error=self._on_run_failed,
            context="Compacting",
        )
        self._task.add_done_callback(self._on_run_task_done)

    async def _arun(self, node_id: str, budget: RecentBudget) -> OpResult[RevisionNode]:
        document = self.host.document
        try:
            tree = document.tree
            node = tree.nodes.get(node_id) if tree is not None else None
            if tree is None or node is None or tree.active_leaf is not node:
                raise SessionChanged(
                    "the active revision changed before the compaction started; nothing was written"
                )
            state = await document.arun_locked(stored_state, tree, node)
            from ...core.usage.writer import recording_for_session

            usage = recording_for_session(
                document.path, workspace=tree.header.cwd if tree.header is not None else None
            )
            opened = await open_compactor(self.compactor_name(), budget, recording=usage)
            try:
                self._compaction = ManualCompaction(state, opened.compactor)
                result = await self._compaction.run()
            finally:
                self._compaction = None
                await opened.aclose()
            written = await self.host.acommit(
                "Compaction", lambda writer: save_compaction(writer, node_id, result)
            )
            self.last_result = result
            return written
        finally:
            self.host.release("compaction")

    def cancel_run(self) -> None:
        """Stop a running compaction (nothing is written)."""
        compaction = self._compaction
        if compaction is not None:
            compaction.cancel()  # fires the compaction's cancellation token
        elif self.running and self._task is not None:
            self._task.cancel()  # still opening the compactor (reading a key...)

    def _set_running(self, on: bool, text: str = "") -> None:
        self.compact_button.setEnabled(
            not on and self.data is not None and not self.data.preview.nothing_to_compact
        )
        self.cancel_button.setVisible(on)
        self.compactor.setEnabled(not on)
        self.keep_tokens.setEnabled(not on)
        self.keep_messages.setEnabled(not on)
        if on:
            self.busy.busy(text)
            self.undo_button.setEnabled(False)

    def _on_run_done(self, result: OpResult[RevisionNode]) -> None:
        node = result.value
        written = self.last_result
        assert written is not None
        outcome = written.outcome
        self._set_running(False)
        self.show_written(written)
        cost = f", cost ${outcome.cost_usd_micros / 1e6:.4f}" if outcome.cost_usd_micros else ""
        self.busy.done(
            f"Compacted: {self._messages(outcome.previous_messages, outcome.current_messages)} messages, "
            f"{outcome.previous_tokens:,} → {outcome.current_tokens:,} estimated tokens{cost}. "
            f"Saved as {revision_words(self.host.document.tree, node)}."
        )
        self.undo_button.setEnabled(True)
        self.host.notifier.info(f"Compacted into {revision_words(self.host.document.tree, node)}")
        self.sig_compacted.emit(node)

    def _messages(self, before: int, after: int) -> str:
        """``before → after``, not counting the system prompt (kept by every compaction), as the
        session's card and header count messages."""
        system = getattr(self, "system_messages", 0)
        return f"{max(before - system, 0):,} → {max(after - system, 0):,}"

    def show_written(self, result: CompactionResult) -> None:
        """Show what was written: the real figures and the digest or summary itself."""
        outcome = result.outcome
        self.card_messages.set(self._messages(outcome.previous_messages, outcome.current_messages))
        share = _share(outcome.previous_tokens, outcome.current_tokens)
        self.card_tokens.set(f"{outcome.previous_tokens:,} → {outcome.current_tokens:,}{share}")
        self.card_tokens.caption.setText("estimated tokens before → after (written)")
        summary = "summary" if self.compactor_name() else "digest"
        self.card_removed.set(
            f"{outcome.previous_messages - outcome.current_messages + 1:,}",
            f"messages replaced by a {result.replacement_tokens:,}-token {summary}",
        )
        if result.replacement is not None:
            self.digest_title.setText(
                f"Written {summary} ({result.replacement_tokens:,} estimated tokens)"
            )
            self.digest.setPlainText(result.replacement.text())
        self.notice.setVisible(False)
        # the table still shows the revision that was compacted: compacting it again would fail
        # (it is no longer the active one); changing a setting previews the new revision
        self.data = None
        self.compact_button.setEnabled(False)

    def _on_run_task_done(self, task: asyncio.Task[Any]) -> None:
        """A compaction cancelled while it opened (Cancel before the compactor ran) ends like
        any other: the bridge reports no cancellation, and a task cancelled before it started
        never released its claim. One the window's closing cancelled starts nothing more."""
        if not task.cancelled():
            return
        self.host.release("compaction")
        if not self.host.bridge.closed:
            self._on_run_failed(asyncio.CancelledError())

    def _on_run_failed(self, exc: BaseException) -> None:
        self._set_running(False)
        if isinstance(exc, Cancelled | asyncio.CancelledError):
            self.busy.done("Cancelled: nothing was written.")
            self.refresh()
            return
        if isinstance(exc, CompactionRefused):
            self.busy.done("Refused: nothing was written.")
            self.notice.show_text(exc.text())
            return
        self.busy.done("The compaction failed: nothing was written.")
        self.host.notifier.show_exception(exc, context="Compacting")
        if isinstance(exc, SessionChanged):
            self.refresh()

    def _on_undo_clicked(self) -> None:
        def done(_result: object) -> None:
            self.undo_button.setEnabled(False)
            self.busy.done("Undone: the revision before the compaction is active again.")

        self.host.undo(on_success=done)

    # -- reacting ------------------------------------------------------------------------------------

    def _on_compactor_changed(self, _index: int) -> None:
        if self.data is not None:
            self._show_preview(self.data)
        else:
            self.refresh()

    def _on_budget_changed(self, _value: int) -> None:
        self.refresh()

    def _on_document_changed(self, *_args: object) -> None:
        if self.isVisible() and not self.running:
            self.refresh()

    def _on_theme_changed(self, theme: Any) -> None:
        self.model.set_colors(theme.danger, theme.success)

    def keyPressEvent(self, event: Any) -> None:
        if event.key() == Qt.Key.Key_Escape and self.running:
            self.cancel_run()  # Esc stops the run first; a second Esc closes
            return
        super().keyPressEvent(event)

    def closeEvent(self, event: Any) -> None:
        self.cancel_run()
        super().closeEvent(event)
