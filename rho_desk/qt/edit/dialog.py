"""Editing a session as new revisions: messages, title and metadata, provider-native blocks.

* :class:`EditMessagesDialog`: delete one message or a range, or edit a message's text. A tool
  call and its results are kept together: deleting either one deletes the other (and, through
  it, everything paired with it), and the dialog says what it added. Editing an assistant
  message drops that message's provider-native replay blocks (they were produced for the
  original text), and says so.
* :class:`MetadataDialog`: the session title (Rho keeps it in its session index) and the
  snapshot's string metadata (a new revision).
* :class:`StripProviderDialog`: remove every provider-native block (portable fallbacks stay) as a
  retention policy, after showing how many of which kind and identity.

Each change is one new revision appended through the document's writer
(:func:`~rho_desk.core.revisions.edits.astore_revision`), recorded for undo. The new revision
adds nothing to Rho's display history (the user saw nothing new): the edit is in the model
history, which the conversation shows with Ctrl+M.

The rules (which messages go together, how a text is replaced) are
:mod:`rho_desk.core.revisions.rules`'s; this module only shows them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QItemSelectionModel, Qt, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from ...core.errors import InputError, error_text
from ...core.provider.handoff import strip_provider_context
from ...core.revisions.edits import store_revision, stored_state
from ...core.revisions.rules import apply_edits, pair_closure, provider_block_counts, replace_text
from ...core.wire import Message, SessionSnapshot
from ..services.outcomes import OpResult
from ..ui.blocks import Banner, BusyRow, make_table, section_title
from ..ui.screen import fit_to_screen
from ..ui.text import revision_words
from .model import EditableMessagesModel, MetadataModel

if TYPE_CHECKING:
    from ..services.context import DialogHost

__all__ = [
    "EditMessagesDialog",
    "MetadataDialog",
    "StripProviderDialog",
]


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


# --- the dialogs ------------------------------------------------------------------------------------


class _RevisionDialog(QDialog):
    """Common shape: a heading, a body, a notice, a busy row and Save/Close buttons.

    Signals:
        sig_saved(object): the change was written; carries the new ``RevisionNode``.
    """

    sig_saved = Signal(object)
    """The change was written as a new revision; carries its node."""

    def __init__(self, host: DialogHost, title: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.host = host
        self.shown: Any = None
        """The revision the dialog shows (``None`` until it has been read)."""
        self.setWindowTitle(title)
        self.heading = QLabel(title)
        self.heading.setObjectName("PanelTitle")
        self.notice = Banner("warning")
        self.notice.hide()
        self.busy = BusyRow()
        self.busy.hide()
        self.buttons = QDialogButtonBox()
        self.save_button = self.buttons.addButton(
            "&Save as New Revision", QDialogButtonBox.ButtonRole.AcceptRole
        )
        self.save_button.setObjectName("SaveRevision")
        self.set_save_text("&Save as New Revision")
        self.save_button.setToolTip(
            "Append the change as a new revision (Ctrl+Return); undo with Ctrl+Z"
        )
        self.buttons.addButton(QDialogButtonBox.StandardButton.Close).clicked.connect(self.close)
        self.save_button.clicked.connect(self.save)
        self.body = QVBoxLayout()
        layout = QVBoxLayout(self)
        layout.addWidget(self.heading)
        layout.addLayout(self.body, 1)
        layout.addWidget(self.notice)
        layout.addWidget(self.busy)
        layout.addWidget(self.buttons)

    def set_save_text(self, text: str) -> None:
        """Label the save button. Setting a label with a mnemonic (``&``) replaces the button's
        shortcut, so Ctrl+Return is set again afterwards."""
        self.save_button.setText(text)
        self.save_button.setShortcut("Ctrl+Return")

    def save(self) -> None:  # pragma: no cover - every dialog overrides it
        raise NotImplementedError

    def _store(self, label: str, change: Any, done_text: str) -> None:
        host = self.host
        if host.operation is not None:  # a running conversation or compaction would lose its base
            self.notice.show_text(f"Wait until the {host.operation} has finished.")
            return
        self.save_button.setEnabled(False)
        self.busy.busy("Saving…")

        async def write() -> OpResult[Any]:
            return await host.acommit(label, lambda writer: store_revision(writer, change)[1])

        def saved(result: OpResult[Any]) -> None:
            node = result.value
            name = revision_words(host.document.tree, node)
            self.busy.done(f"{done_text} Saved as {name} (Ctrl+Z undoes it).")
            host.notifier.info(f"{label}: {name}")
            self.sig_saved.emit(node)
            self.reload()

        def failed(exc: BaseException) -> None:
            self.busy.done("Nothing was written.")
            self.save_button.setEnabled(True)
            host.notifier.show_exception(exc, context=label)

        host.bridge.run(write(), on_success=saved, on_error=failed, context=label)

    def reload(self) -> None:
        """Show the (new) active revision: its stored state is read in a worker thread."""
        tree = self.host.document.tree
        if tree is None or tree.active_leaf is None:
            return
        leaf = tree.active_leaf
        self.save_button.setEnabled(False)

        def show(value: Any) -> None:
            self.show_state(leaf, value)
            self.shown = leaf

        self.host.bridge.run(
            self.host.document.arun_locked(self.read, tree, leaf),
            on_success=show,
            context="Reading the revision",
        )

    def read(self, tree: Any, leaf: Any) -> Any:
        """What the dialog shows of ``leaf`` (worker thread; default its stored state)."""
        return stored_state(tree, leaf)

    def show_state(
        self, leaf: Any, state: Any
    ) -> None:  # pragma: no cover - every dialog overrides it
        raise NotImplementedError


class EditMessagesDialog(_RevisionDialog):
    """Delete or edit messages of the active revision; save as a new revision."""

    def __init__(self, host: DialogHost, parent: QWidget | None = None) -> None:
        super().__init__(host, "Edit messages", parent)
        self.setObjectName("EditMessagesDialog")
        self.history: tuple[Message, ...] = ()
        self.revision = 0
        self.model = EditableMessagesModel(self)
        self.table = make_table(
            "EditMessagesTable", self.model, stretch=3, multi=True, label="Messages"
        )
        intro = QLabel(
            "Select a message or a range (Shift+click), then delete it (Del) or edit its text (F2). "
            "Tool calls and their results are deleted together."
        )
        intro.setWordWrap(True)
        intro.setProperty("muted", True)
        self.delete_button = QPushButton("&Delete")
        self.delete_button.setToolTip("Mark the selected messages for deletion (Del)")
        self.restore_button = QPushButton("&Keep")
        self.restore_button.setToolTip("Unmark the selected messages (Ctrl+K)")
        self.edit_button = QPushButton("&Edit Text")
        self.edit_button.setToolTip("Edit the current message's text (F2)")
        tools = QHBoxLayout()
        for button in (self.delete_button, self.restore_button, self.edit_button):
            tools.addWidget(button)
        tools.addStretch(1)
        self.editor = QPlainTextEdit()
        self.editor.setObjectName("MessageTextEditor")
        self.editor.setAccessibleName("Message text")
        self.editor.setPlaceholderText("Pick a message and press F2 to edit its text here.")
        self.editor.setEnabled(False)
        self.apply_button = QPushButton("&Apply Edit")
        self.apply_button.setToolTip("Use this text for the message (Ctrl+S)")
        self.apply_button.setEnabled(False)
        editor_box = QWidget()
        editor_layout = QVBoxLayout(editor_box)
        editor_layout.setContentsMargins(0, 0, 0, 0)
        self.editor_title = section_title("Message text")
        editor_layout.addWidget(self.editor_title)
        editor_layout.addWidget(self.editor, 1)
        editor_layout.addWidget(self.apply_button, 0, Qt.AlignmentFlag.AlignRight)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.table)
        split.addWidget(editor_box)
        split.setSizes([420, 180])
        self.body.addWidget(intro)
        self.body.addLayout(tools)
        self.body.addWidget(split, 1)
        self._editing: int | None = None
        fit_to_screen(self, 980, 680)

        for keys, slot in (
            ("Del", self.delete_selected),
            ("Ctrl+K", self.keep_selected),
            ("F2", self.edit_current),
            ("Ctrl+S", self.apply_edit),
        ):
            shortcut = QShortcut(QKeySequence(keys), self)
            shortcut.activated.connect(slot)
        self.delete_button.clicked.connect(self.delete_selected)
        self.restore_button.clicked.connect(self.keep_selected)
        self.edit_button.clicked.connect(self.edit_current)
        self.apply_button.clicked.connect(self.apply_edit)
        self.reload()

    def show_state(self, leaf: Any, state: SessionSnapshot) -> None:
        self.history = state.history
        self.revision = leaf.revision
        self.heading.setText(f"Edit messages of revision {leaf.revision}")
        self.model.set_history(self.history)
        self._editing = None
        self.editor.clear()
        self.editor.setEnabled(False)
        self.apply_button.setEnabled(False)
        self._update()

    # -- choosing -----------------------------------------------------------------------------------

    def selected_rows(self) -> list[int]:
        return sorted({i.row() for i in self.table.selectionModel().selectedRows()})

    def select_rows(self, first: int, last: int) -> None:
        """Select a range (tests and keyboard users)."""
        model = self.table.selectionModel()
        model.clearSelection()
        for row in range(first, last + 1):
            model.select(
                self.model.index(row, 0),
                QItemSelectionModel.SelectionFlag.Select | QItemSelectionModel.SelectionFlag.Rows,
            )
        self.table.setCurrentIndex(self.model.index(first, 0))
        model.select(
            self.model.index(first, 0),
            QItemSelectionModel.SelectionFlag.Select | QItemSelectionModel.SelectionFlag.Rows,
        )

    def delete_selected(self) -> None:
        self.mark(self.selected_rows(), True)

    def keep_selected(self) -> None:
        self.mark(self.selected_rows(), False)

    def mark(self, rows: Sequence[int], delete: bool) -> None:
        """Mark ``rows`` deleted (or kept), with every message paired with them."""
        if not rows:
            return
        closure = pair_closure(self.history, rows)
        for index in closure:
            row = self.model.rows[index]
            row.deleted = delete
            row.cascade = delete and index not in rows
            if delete and self._editing == index:
                self._stop_editing()
        self.model.refresh_rows(sorted(closure))
        extra = len(closure) - len(set(rows))
        if extra:
            verb = "Also deleting" if delete else "Also keeping"
            self.notice.show_text(
                f"{verb} {_plural(extra, 'paired message')} so that tool calls and their results "
                "stay together."
            )
        else:
            self.notice.hide()
        self._update()

    # -- editing ------------------------------------------------------------------------------------

    def edit_current(self) -> None:
        index = self.table.currentIndex()
        if not index.isValid():
            return
        row = self.model.rows[index.row()]
        if row.deleted:
            return
        self._editing = index.row()
        self.editor.setEnabled(True)
        self.apply_button.setEnabled(True)
        self.editor.setPlainText(row.message.text())
        self.editor_title.setText(f"Text of message {row.original + 1}")
        self.editor.setFocus()

    def apply_edit(self) -> None:
        index = self._editing
        if index is None:
            return
        row = self.model.rows[index]
        text = self.editor.toPlainText()
        try:
            edited = replace_text(self.history[index], text)
        except InputError as exc:
            self.notice.show_text(error_text(exc))
            return
        row.message = edited
        row.edited = edited != self.history[index]
        native = [b for b in self.history[index].provider_context() if not b.is_portable_fallback]
        if row.edited and native:
            self.notice.show_text(
                f"The edited assistant message loses its {_plural(len(native), 'provider-native block')} "
                "(they were produced for the original text)."
            )
        self.model.refresh_rows([index])
        self._stop_editing()
        self._update()

    def _stop_editing(self) -> None:
        self._editing = None
        self.editor.clear()
        self.editor.setEnabled(False)
        self.apply_button.setEnabled(False)
        self.editor_title.setText("Message text")

    # -- saving --------------------------------------------------------------------------------------

    def pending(self) -> tuple[list[int], dict[int, Message]]:
        deleted = [r.original for r in self.model.rows if r.deleted]
        edited = {r.original: r.message for r in self.model.rows if r.edited and not r.deleted}
        return deleted, edited

    def _update(self) -> None:
        deleted, edited = self.pending()
        self.save_button.setEnabled(bool(deleted or edited) and len(deleted) < len(self.history))

    def save(self) -> None:
        deleted, edited = self.pending()
        if not deleted and not edited:
            return
        if len(deleted) >= len(self.history):
            self.notice.show_text("A revision needs at least one message; keep some.")
            return
        new_history = apply_edits(self.history, deleted, edited)
        parts = []
        if deleted:
            parts.append("Delete " + _plural(len(deleted), "Message"))
        if edited:
            parts.append("Edit " + _plural(len(edited), "Message"))
        label = ", ".join(parts)
        expected = self.revision

        def change(state: SessionSnapshot) -> SessionSnapshot:
            if state.revision != expected:
                raise InputError(
                    "the session changed since the dialog read it; review the messages again"
                )
            return state.replace(history=new_history)

        self._store(label, change, f"{label}.")


class MetadataDialog(_RevisionDialog):
    """The session's title (Rho's index) and its snapshot metadata (a new revision)."""

    def __init__(self, host: DialogHost, parent: QWidget | None = None) -> None:
        super().__init__(host, "Title and metadata", parent)
        self.setObjectName("MetadataDialog")
        self.original_title = ""
        self.original: dict[str, str] = {}
        self.title = QLineEdit()
        self.title.setObjectName("SessionTitle")
        self.title.setPlaceholderText("No title: the first prompt is shown")
        self.title_note = QLabel()
        self.title_note.setProperty("muted", True)
        self.title_note.setWordWrap(True)
        form = QFormLayout()
        form.addRow("&Title:", self.title)
        form.addRow("", self.title_note)
        self.model = MetadataModel(self)
        self.table = make_table("MetadataTable", self.model, stretch=1, label="Metadata entries")
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.AllEditTriggers)
        self.add_button = QPushButton("&Add Entry")
        self.add_button.setToolTip("Add a metadata entry (Ctrl+N)")
        self.add_button.setShortcut("Ctrl+N")
        self.remove_button = QPushButton("&Remove Entry")
        self.remove_button.setToolTip("Remove the selected entry (Ctrl+Del)")
        self.remove_button.setShortcut("Ctrl+Del")
        row = QHBoxLayout()
        row.addWidget(self.add_button)
        row.addWidget(self.remove_button)
        row.addStretch(1)
        self.body.addLayout(form)
        self.body.addWidget(
            section_title("Metadata (string keys and values, stored in the snapshot)")
        )
        self.body.addWidget(self.table, 1)
        self.body.addLayout(row)
        self.add_button.clicked.connect(self._on_add_clicked)
        self.remove_button.clicked.connect(self._on_remove_clicked)
        fit_to_screen(self, 640, 480)
        self.reload()

    def show_state(self, leaf: Any, state: SessionSnapshot) -> None:
        host = self.host
        self.original = dict(state.metadata)
        self.model.set_metadata(self.original)
        summary = host.summary_for_open()
        self.original_title = (summary.title or "") if summary is not None else ""
        self.title.setText(self.original_title)
        self.title.setEnabled(summary is not None)
        self.title_note.setText(
            "Kept in Rho's session index (the session file does not hold a title)."
            if summary is not None
            else "This file is not in the listed library, so it has no index title."
        )
        self.save_button.setEnabled(True)

    def _on_add_clicked(self) -> None:
        row = self.model.add_row()
        self.table.setCurrentIndex(self.model.index(row, 0))
        self.table.edit(self.model.index(row, 0))

    def _on_remove_clicked(self) -> None:
        index = self.table.currentIndex()
        if index.isValid():
            self.model.remove_row(index.row())

    def save(self) -> None:
        duplicates = self.model.duplicate_keys()
        if duplicates:
            self.notice.show_text(f"Each key may appear once: {', '.join(duplicates)}.")
            return
        metadata = self.model.metadata()
        title = self.title.text().strip()
        host = self.host
        renamed = self.title.isEnabled() and title != self.original_title
        if renamed:
            summary = host.summary_for_open()
            assert summary is not None
            host.bridge.run(
                host.library.arename(summary.workspace_key, summary.id, title),
                on_success=lambda _r: self._title_saved(title),
                context="Renaming",
            )
        if metadata != self.original:
            self._store(
                "Edit Metadata", lambda state: state.replace(metadata=metadata), "Metadata changed."
            )
        elif not renamed:
            self.busy.done("Nothing changed.")

    def _title_saved(self, title: str) -> None:
        self.original_title = title
        self.busy.done(f"Title set to “{title}” in Rho's index." if title else "Title cleared.")


class StripProviderDialog(_RevisionDialog):
    """Show the provider-native blocks of the active revision and remove them as a new revision."""

    def __init__(self, host: DialogHost, parent: QWidget | None = None) -> None:
        super().__init__(host, "Strip provider blocks", parent)
        self.setObjectName("StripProviderDialog")
        self.explain = QLabel()
        self.explain.setWordWrap(True)
        self.counts = QLabel()
        self.counts.setObjectName("ProviderBlockCounts")
        self.counts.setTextFormat(Qt.TextFormat.RichText)
        self.counts.setWordWrap(True)
        self.counts.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        self.body.addWidget(self.explain)
        self.body.addSpacing(8)
        self.body.addWidget(self.counts)
        self.body.addStretch(1)
        self.set_save_text("&Strip as New Revision")
        fit_to_screen(self, 620, 280)
        self.total = 0
        self.reload()

    def read(self, tree: Any, leaf: Any) -> Counter[tuple[str, str]]:
        return provider_block_counts(stored_state(tree, leaf).history)

    def show_state(self, leaf: Any, counts: Counter[tuple[str, str]]) -> None:
        self.total = sum(counts.values())
        self.explain.setText(
            "Provider-native blocks (encrypted reasoning, signed thinking…) are replayed only to the exact "
            "provider, API and model that produced them. Stripping them is a retention choice: the text of "
            "every message stays, and portable fallbacks stay."
        )
        if not counts:
            self.counts.setText("<p>This revision holds no provider-native blocks.</p>")
        else:
            rows = "".join(
                f"<tr><td align='right'><b>{n}</b></td><td>&nbsp;{kind}</td><td>&nbsp;from {ident}</td></tr>"
                for (ident, kind), n in sorted(counts.items())
            )
            self.counts.setText(
                f"<p>{_plural(self.total, 'block')} will be removed:</p><table>{rows}</table>"
            )
        self.save_button.setEnabled(self.total > 0)

    def save(self) -> None:
        if not self.total:
            return
        total = self.total
        self._store(
            "Strip Provider Blocks",
            lambda state: state.replace(history=strip_provider_context(state.history)),
            f"Removed {_plural(total, 'provider block')}.",
        )
