"""The conversation tab: which revision is shown, the message list, the detail pane, find.

:class:`ConversationView` follows the shared :class:`~rho_desk.qt.services.document.SessionDocument`:
when the file, the selected revision or the history mode changes it builds the rows of the new
history in a worker thread (``build_rows`` under ``bulk_load``; for a big file opened again
unchanged, what the last build kept in rho-desk's cache: ``row_cache``) and swaps them into its
:class:`~rho_desk.qt.conversation.model.ConversationModel`; a live append becomes an insert at
the end, so the user's place and selection survive. The revision bar says which revision is on
screen and steps through them; J/K step through messages, O expands one, Ctrl+F finds. A search
hit opened from the browser selects the message that matched and highlights the term
(:meth:`ConversationView.reveal_match`).

A big session opened while no other is open is shown before its file is read, when the row
cache holds its rows as the file is now (``row_cache.load_preview``): every row's place, the
first screen's messages, the rest saying they are loading. Actions on the session stay disabled
until the file is read (the document is not open yet); the rows built from the whole history
then replace the preview in place, keeping the selected row and the scroll position.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

from PySide6.QtCore import QItemSelectionModel, QModelIndex, Qt, QUrl, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QButtonGroup,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QSplitter,
    QStackedWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from ...core.errors import InputError
from ...core.stores.rho_files import NodeKind, RevisionNode
from ...core.stores.rho_files.errors import NotASessionFile
from ...core.stores.rho_files.records import StoredDisplayMessage
from ...core.stores.rho_files.summary import message_count
from ...core.stores.rho_files.views import message_at_offset
from ...core.wire import Message, ModelIdentity
from ..services.bridge import EngineBridge, in_thread
from ..services.document import HistoryMode, SessionDocument
from ..services.workers import bulk_load
from ..ui.resources import Icon, pixmap
from ..ui.theme import Theme
from ..ui.widgets import ElidedLabel, EmptyState
from .find import FindBar, find_rows, searchable_text
from .message_detail import MessageDetailView
from .message_list import MessageListView, layout_rows
from .model import ConversationModel, ConversationRows, RowKind, build_rows
from .row_cache import (
    RowsKey,
    adopt_preview,
    has_kept_rows,
    load_preview,
    load_rows,
    store_rows,
)

__all__ = ["ConversationView", "RevisionBar", "describe_node", "revision_lines"]

T = TypeVar("T")


def match_row(rows: ConversationRows, offset: int, needle: str) -> int:
    """The row of a search hit: the message holding ``offset`` of the session's search text
    (the library's search skips the compaction markers), if its text has ``needle``; else the
    first row that has it (the file changed since it was indexed); -1 if none has."""
    kept = [i for i in range(len(rows)) if rows.kinds[i] != RowKind.MARKER]
    at = message_at_offset([rows.messages[i] for i in kept], offset)
    folded = needle.casefold()
    if at is not None and folded in searchable_text(rows.messages[kept[at]]).casefold():
        return kept[at]
    hits = find_rows(rows.messages, needle)
    return hits[0] if hits else -1


def describe_node(
    node: RevisionNode, active: RevisionNode | None, published_at: float | None = None
) -> str:
    """The revision bar's line; a revision that records no time (a published model context) is
    dated by its publication when that is known, and said to be so."""
    return revision_lines(node, active, published_at)[0]


def revision_lines(
    node: RevisionNode, active: RevisionNode | None, published_at: float | None = None
) -> tuple[str, ...]:
    """The revision bar's line (:func:`describe_node`), then shorter ones for a narrow window,
    each keeping the time whole: without "commit" (a compaction still says so), with "r8" for
    "Revision 8", without "active" (the bar's Show active button says so by its absence)."""
    if node.time:
        stamp = time.strftime("%b %d %Y, %H:%M", time.localtime(node.time))
    elif published_at:
        stamp = "published " + time.strftime("%b %d %Y, %H:%M", time.localtime(published_at))
    else:
        stamp = "time unknown"
    compaction = node.kind is NodeKind.COMPACTION
    kind = "compaction" if compaction else "commit"
    tail = " · active" if node is active else ""
    short_kind = " · compaction" if compaction else ""
    return (
        f"Revision {node.revision} · {kind} · {stamp}{tail}",
        f"Revision {node.revision}{short_kind} · {stamp}{tail}",
        f"r{node.revision}{short_kind} · {stamp}{tail}",
        f"r{node.revision}{short_kind} · {stamp}",
        f"r{node.revision} · {stamp}",
    )


class RevisionBar(QFrame):
    """Which revision is on screen; previous/next/active; display or model history.

    Signals:
        sig_step(int): move -1/+1 along the revision path. sig_show_active(): jump to the active one.
        sig_mode(object): the user picked a :class:`HistoryMode`.
    """

    sig_step = Signal(int)
    """Move this many revisions along the path (-1 back, +1 forward)."""
    sig_show_active = Signal()
    """Show the active revision."""
    sig_mode = Signal(object)
    """The user picked display or model history."""

    def __init__(self, theme: Theme, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("RevisionBar")
        self.previous_button = QToolButton()
        self.previous_button.setText("◀")
        self.previous_button.setToolTip("Previous revision ([)")
        self.previous_button.setAccessibleName("Previous revision")
        self.next_button = QToolButton()
        self.next_button.setText("▶")
        self.next_button.setToolTip("Next revision (])")
        self.next_button.setAccessibleName("Next revision")
        self.label = ElidedLabel("", mode=Qt.TextElideMode.ElideRight)
        self.label.setObjectName("RevisionLabel")
        self.active_button = QToolButton()
        self.active_button.setText("Show active")
        self.active_button.setToolTip("Show the revision Rho would resume (\\)")
        self.counts = ElidedLabel("", mode=Qt.TextElideMode.ElideLeft)
        self.counts.setAlignment(Qt.AlignmentFlag.AlignRight)
        self.counts.setProperty("muted", True)
        self.live = QLabel()
        self.live.setToolTip("Live: changes another program appends to this file appear here")
        self.live.setAccessibleName("Live")
        self.display_button = QPushButton("Display")
        self.model_button = QPushButton("Model")
        self.display_button.setToolTip("What the user saw (Ctrl+M toggles)")
        self.model_button.setToolTip("What the model was sent (Ctrl+M toggles)")
        group = QButtonGroup(self)
        for b in (self.display_button, self.model_button):
            b.setCheckable(True)
            group.addButton(b)
        group.setExclusive(True)
        self.display_button.setChecked(True)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(10, 5, 10, 5)
        layout.setSpacing(6)
        layout.addWidget(self.previous_button)
        layout.addWidget(self.next_button)
        # the revision's line takes the width the counts leave (at 1024 pixels a 3:2 share
        # cut its time to "Nov …" beside a short "30 messages")
        self.counts.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.active_button)
        layout.addWidget(self.counts)
        layout.addWidget(self.live)
        layout.addSpacing(8)
        layout.addWidget(self.display_button)
        layout.addWidget(self.model_button)
        self.previous_button.clicked.connect(lambda: self.sig_step.emit(-1))
        self.next_button.clicked.connect(lambda: self.sig_step.emit(1))
        self.active_button.clicked.connect(self.sig_show_active)
        self.display_button.clicked.connect(lambda: self.sig_mode.emit(HistoryMode.DISPLAY))
        self.model_button.clicked.connect(lambda: self.sig_mode.emit(HistoryMode.MODEL))
        self.set_theme(theme)

    def set_theme(self, theme: Theme) -> None:
        self.live.setPixmap(pixmap(Icon.LIVE, theme.success, 14, self.devicePixelRatioF()))

    def show_state(self, document: SessionDocument) -> None:
        tree = document.tree
        node = document.selected
        if tree is None or node is None:
            self.label.setText("")
            self.counts.setText("")
            self.active_button.hide()
            return
        active = tree.active_leaf
        self.label.set_texts(*revision_lines(node, active, document.published_at))
        self.active_button.setVisible(node is not active)
        self.previous_button.setEnabled(node.parent is not None)
        self.next_button.setEnabled(bool(node.children))
        self.live.setVisible(not document.is_snapshot_document)
        self.display_button.setChecked(document.mode is HistoryMode.DISPLAY)
        self.model_button.setChecked(document.mode is HistoryMode.MODEL)

    def show_counts(
        self, rows: int, mode: HistoryMode, build_ms: float, messages: int | None = None
    ) -> None:
        """``messages``: the display count the browser and ``rho-desk show`` give (same function)."""
        if mode is HistoryMode.DISPLAY and messages is not None:
            self.counts.setText(f"{messages:,} messages")
            extra = rows - messages
            note = (
                f"; {extra:,} more row{'s' * (extra != 1)} (compaction markers, an unfinished tool turn)"
                if extra
                else ""
            )
            self.counts.setToolTip(f"{rows:,} rows laid out in {build_ms:.0f} ms{note}")
            return
        what = "displayed messages" if mode is HistoryMode.DISPLAY else "model messages"
        self.counts.setText(f"{rows:,} {what}")
        self.counts.setToolTip(f"laid out in {build_ms:.0f} ms")


class ConversationView(QWidget):
    """The conversation of the selected revision: list, detail pane, find bar.

    Signals:
        sig_rows_shown(int): a new history is on screen (its row count), after its first paint.
        sig_current_row_changed(int): the selected message changed.
    """

    sig_rows_shown = Signal(int)
    """A new history was painted for the first time; carries its row count."""
    sig_preview_shown = Signal(int)
    """A preview (``ConversationRows.preview``) was painted for the first time; its row count."""
    sig_current_row_changed = Signal(int)
    """The selected message row changed (-1: none)."""

    def __init__(
        self,
        document: SessionDocument,
        bridge: EngineBridge,
        theme: Theme,
        parent: QWidget | None = None,
        *,
        open_url: Callable[[QUrl], object] | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("ConversationView")
        self.document = document
        self.bridge = bridge
        self.theme = theme
        self.model = ConversationModel(self)
        self.list = MessageListView(theme)
        self.list.setModel(self.model)
        self.list.setAccessibleName("Messages")
        self.list.layout_runner = self._run_layout
        self.detail = MessageDetailView(theme, open_url=open_url)
        self.detail.set_model(self.model)
        self.bar = RevisionBar(theme)
        self.find_bar = FindBar(icon_color=theme.text)
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.setObjectName("ConversationSplitter")
        self.splitter.addWidget(self.list)
        self.splitter.addWidget(self.detail)
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 2)
        self.splitter.setChildrenCollapsible(False)
        self.list.setMinimumWidth(300)
        self.detail.setMinimumWidth(260)
        self.splitter.setSizes([520, 420])
        self.empty = EmptyState(
            "No session open",
            "Pick a session in the browser, drop a session file here, or press Ctrl+O.",
        )
        self.loading = EmptyState("Loading…", "Reading the session file.")
        self.failed = EmptyState("", "")
        self.failed.setObjectName("LoadFailedState")
        body = QWidget()
        body_layout = QVBoxLayout(body)
        body_layout.setContentsMargins(0, 0, 0, 0)
        body_layout.setSpacing(0)
        body_layout.addWidget(self.bar)
        body_layout.addWidget(self.splitter, 1)
        body_layout.addWidget(self.find_bar)
        self.stack = QStackedWidget()
        self.stack.addWidget(self.empty)
        self.stack.addWidget(self.loading)
        self.stack.addWidget(body)
        self.stack.addWidget(self.failed)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.stack)

        self._generation = 0
        self._find_generation = 0
        self._matches: list[int] = []
        self._match_index: int | None = None
        self._pending_paint: int | None = None
        self._pending_count: tuple[int, RevisionNode, int, float] | None = None
        """A display count to compute after the next paint: generation, revision, rows, build ms."""
        self._restore_row: int | None = None
        self._building = False
        self._reveal: tuple[str, int, str] | None = None
        """A search match to show once the rows of that file are built: path, offset, text."""
        self._show_end = False
        """The next build shows its last row (a turn was just added)."""
        self.last_build_ms = 0.0
        self.rows_kept = False
        """The rows shown came from the row cache (``row_cache``), not from a build."""
        self._opened = False
        """The next build is the first of a newly opened file (its rows are kept)."""
        self._preview_path: Path | None = None
        """The file a preview is shown (or being read) for."""
        self._pending_preview: int | None = None

        document.sig_loaded.connect(self._on_document_loaded)
        document.sig_revision_selected.connect(self._on_document_revision_selected)
        document.sig_history_mode_changed.connect(self._on_document_history_mode_changed)
        document.sig_reloaded.connect(self._on_document_reloaded)
        document.sig_loading_changed.connect(self._on_document_loading_changed)
        document.sig_opening.connect(self._on_document_opening)
        document.sig_closed.connect(self._on_document_closed)
        document.sig_load_failed.connect(self._on_document_load_failed)
        document.sig_tree_changed.connect(lambda: self.bar.show_state(document))
        self.list.selectionModel().currentChanged.connect(self._on_list_current_changed)
        self.list.sig_row_activated.connect(self.model.toggle_expanded)
        self.list.sig_painted.connect(self._on_list_painted)
        self.detail.sig_row_requested.connect(self.select_row)
        self.detail.sig_link_refused.connect(self._on_detail_link_refused)
        self.bar.sig_step.connect(self._on_bar_step)
        self.bar.sig_show_active.connect(lambda: self.document.select(None))
        self.bar.sig_mode.connect(self.document.set_mode)
        self.find_bar.sig_search_requested.connect(self._on_find_search_requested)
        self.find_bar.sig_next.connect(self.find_next)
        self.find_bar.sig_previous.connect(self.find_previous)
        self.find_bar.sig_closed.connect(self._on_find_closed)

    # -- public API (actions call these) ---------------------------------------------------------

    def set_theme(self, theme: Theme) -> None:
        self.theme = theme
        self.list.set_theme(theme)
        self.detail.set_theme(theme)
        self.bar.set_theme(theme)
        self.find_bar.set_icon_color(theme.text)

    def current_row(self) -> int:
        index = self.list.currentIndex()
        return index.row() if index.isValid() else -1

    def select_row(self, row: int) -> None:
        if not 0 <= row < self.model.rowCount():
            return
        index = self.model.index(row, 0)
        self.list.selectionModel().setCurrentIndex(
            index, QItemSelectionModel.SelectionFlag.ClearAndSelect
        )
        self.list.scrollTo(index, QAbstractItemView.ScrollHint.EnsureVisible)

    def show_end_on_next_build(self) -> None:
        """Show the newest message once the rows being built now are in (after a continued turn)."""
        self._show_end = True

    def next_message(self) -> None:
        self.select_row(min(self.model.rowCount() - 1, self.current_row() + 1))

    def previous_message(self) -> None:
        row = self.current_row()
        self.select_row(max(0, row - 1) if row >= 0 else 0)

    def toggle_expanded(self) -> None:
        row = self.current_row()
        if row >= 0:
            self.model.toggle_expanded(row)
            self.list.scroll_to_row(row)

    def set_raw(self, on: bool) -> None:
        self.detail.set_raw(on)

    def copy_message(self) -> None:
        self.detail.copy_text()

    def open_find(self) -> None:
        self.find_bar.open_bar()

    def find_next(self) -> None:
        self._step_match(1)

    def find_previous(self) -> None:
        self._step_match(-1)

    @property
    def matches(self) -> list[int]:
        return list(self._matches)

    def reveal_match(self, path: Path | str, offset: int, needle: str) -> None:
        """Select the message of a search hit in ``path`` and highlight ``needle`` with the find bar.

        ``offset`` is where the match lies in the session's search text
        (``SearchHit.first_text_match``). Waits for ``path`` to be open and its rows built.
        """
        self._reveal = (str(path), offset, needle)
        if (
            not self._building
            and self.document.path is not None
            and str(self.document.path) == str(path)
        ):
            self._apply_reveal()

    def _apply_reveal(self) -> None:
        reveal, self._reveal = self._reveal, None
        if reveal is None or self.document.path is None or str(self.document.path) != reveal[0]:
            return
        _path, offset, needle = reveal
        rows = self.model.rows

        async def locate() -> None:
            row = await in_thread(match_row, rows, offset, needle)
            if rows is not self.model.rows:
                return
            if row >= 0:
                self.select_row(row)
                self.list.scroll_to_row(row, QAbstractItemView.ScrollHint.PositionAtCenter)
            self.find_bar.show()
            self.find_bar.field.setText(needle)
            self.find_bar.search_now()
            self.list.setFocus(Qt.FocusReason.OtherFocusReason)

        self.bridge.run(locate(), context="Showing the search match")

    # -- building rows -----------------------------------------------------------------------------

    def _rebuild(self, *, keep_place: bool) -> None:
        document = self.document
        if not document.is_open or document.selected is None:
            self.model.clear()
            self.stack.setCurrentWidget(self.empty)
            return
        self._generation += 1
        generation = self._generation
        self._building = True
        node, mode = document.selected, document.mode
        self._restore_row = self.current_row() if keep_place else None
        self.bar.show_state(document)
        self.bridge.run(self._abuild(generation, node, mode), context="Showing the conversation")

    async def _abuild(self, generation: int, node: RevisionNode, mode: HistoryMode) -> None:
        document = self.document

        width_for = self.list.width_for_rows()
        width = self.list.viewport().width()
        metrics = self.list.metrics

        kept = False
        opened, self._opened = self._opened, False
        preview = self.model.rows if self.model.rows.preview else None

        def history_and_key() -> tuple[
            tuple[Message, ...] | list[StoredDisplayMessage], RowsKey | None
        ]:
            file = document.file
            key = None if file is None else RowsKey.of(file, node.id, mode.value)
            return document.entries(node, mode), key

        def build() -> ConversationRows | None:
            nonlocal kept, width
            current = document.tree
            if current is None or not current.owns(node) or generation != self._generation:
                return None  # another session was opened since (``node`` is not in it): nothing to show
            with bulk_load():
                try:  # the history and the file state it comes from, read together
                    entries, key = document.run_locked(history_and_key)
                except InputError:
                    if document.tree is current:
                        raise
                    return None  # the session changed while this ran
                width = width_for(len(entries))
                # a file just opened: its rows as kept by the last open of it as it is now
                # (only then: a live append or another revision is not what was kept)
                keep = key if opened else None
                if keep is not None:
                    # the preview on screen was read from this entry: its tables, checked
                    rows = (
                        None
                        if preview is None
                        else adopt_preview(preview, keep, entries, width, metrics)
                    )
                    if rows is None:
                        rows = load_rows(keep, entries, width, metrics)
                    if rows is not None:
                        kept = True
                        return rows
                rows = build_rows(entries)
                # the row heights for the current width too, off the GUI thread
                rows.layout = (width, *layout_rows(rows, width, metrics, set()))
                if keep is not None:
                    # kept for the next open (before they are shown: a window closed at once
                    # keeps them too)
                    store_rows(keep, rows, metrics)
                return rows

        rows = await in_thread(build)
        if rows is None or generation != self._generation:
            return
        self._building = False
        self.last_build_ms = rows.build_ms
        self.rows_kept = kept
        # a preview replaced in place: the same rows, now whole (see ``_apreview``)
        was_preview = self.model.rows.preview
        scrolled = self.list.verticalScrollBar().value()
        current = self.current_row()
        self._preview_path = None
        if was_preview:
            self.bar.display_button.setEnabled(True)
            self.bar.model_button.setEnabled(True)
        self.model.set_rows(rows, target=self._target_identity(node))
        self.detail.target = self.model.target
        if mode is HistoryMode.DISPLAY and document.tree is not None:
            # the one message count (a second pass over the history) comes after the first paint
            self.bar.counts.setText("")
            self._pending_count = (generation, node, len(rows), rows.build_ms)
        else:
            self.bar.show_counts(len(rows), mode, rows.build_ms)
        self.stack.setCurrentIndex(2)
        self._pending_paint = len(rows)
        self.list.viewport().update()
        row = current if was_preview else self._restore_row
        if self._show_end and len(rows):
            self._show_end = False
            self.select_row(len(rows) - 1)
        elif row is not None and 0 <= row < len(rows):
            self.select_row(row)
        elif len(rows):
            self.select_row(0)
        else:
            self.detail.show_row(-1)
        if was_preview and rows.layout is not None and rows.layout[0] == width:
            self.list.verticalScrollBar().setValue(scrolled)  # the same place, now whole
        if self._reveal is not None:
            self._apply_reveal()
        elif self.find_bar.isVisible() and self.find_bar.text:
            self._on_find_search_requested(self.find_bar.text)

    def _run_layout(self, compute: Callable[[], T], done: Callable[[T], object]) -> None:
        if self.bridge.closed:
            return  # a resize while the window closes: nothing is shown any more

        async def run() -> T:
            return await in_thread(compute)

        self.bridge.run(run(), on_success=done, context="Laying out the conversation")

    def _target_identity(self, node: RevisionNode) -> ModelIdentity | None:
        session = self.document.engine_session
        if session is not None:
            try:
                return session.provider.identity()
            except Exception:
                pass
        return node.provider

    def _on_detail_link_refused(self, url: str) -> None:
        shown = url if len(url) <= 80 else url[:79] + "…"
        self.bridge.notifier.warning(
            f"Link not opened: rho-desk follows only http, https and mailto links ({shown})"
        )

    def _on_list_painted(self) -> None:
        if self._pending_preview is not None:
            count, self._pending_preview = self._pending_preview, None
            self.sig_preview_shown.emit(count)
        if self._pending_paint is not None:
            count, self._pending_paint = self._pending_paint, None
            self.sig_rows_shown.emit(count)
        if self._pending_count is not None:
            pending, self._pending_count = self._pending_count, None
            if self.bridge.closed:
                return  # a paint while the window closes (its tasks stopped): nothing to count
            self.bridge.run(self._acount(*pending), context="Counting the messages")

    async def _acount(
        self, generation: int, node: RevisionNode, rows: int, build_ms: float
    ) -> None:
        tree = self.document.tree
        if generation != self._generation or tree is None:
            return
        shown_as_published = self.document.is_snapshot_document  # markers are messages there
        messages = await self.document.arun_locked(
            message_count, tree, node, marker_messages=shown_as_published
        )
        if generation == self._generation:
            self.bar.show_counts(rows, HistoryMode.DISPLAY, build_ms, messages)

    # -- document signals -------------------------------------------------------------------------

    def _on_document_opening(self, path: object) -> None:
        if self.document.file is not None or self.model.rowCount() or self.bridge.closed:
            return  # previews only where nothing is shown: the open session stays until replaced
        self._preview_path = Path(str(path))
        if not has_kept_rows(self._preview_path):
            return
        # the list on screen (empty) while the preview is read: laid out at its real width
        self.stack.setCurrentIndex(2)
        self.bar.label.setText("Reading the session…")
        self._enable_bar(False)
        self.bridge.run(self._apreview(self._preview_path), context="Showing the conversation")

    async def _apreview(self, path: Path) -> None:
        mode = self.document.mode
        rows = await in_thread(
            load_preview, path, mode.value, self.list.width_for_rows(), self.list.metrics
        )
        if (
            rows is None
            or self._preview_path is not path
            or self.document.file is not None
            or self.model.rowCount()
        ):
            if self._preview_path is path and not self.model.rowCount():
                self._enable_bar(True)
                if self.document.loading:
                    self.stack.setCurrentWidget(self.loading)
            return  # none kept, or the file was read (or another opened) meanwhile
        self.last_build_ms = rows.build_ms
        self.model.set_rows(rows)
        self.bar.label.setText("Reading the session…")
        self.bar.live.hide()  # shown again with the document's state
        self._enable_bar(False)  # nothing to step through or switch to before the file is read
        self.bar.counts.setText(f"{len(rows):,} rows")
        self.bar.counts.setToolTip(
            "A preview: the first messages; the rest, and every action on the session, once "
            "the file is read"
        )
        self.stack.setCurrentIndex(2)
        self._pending_preview = len(rows)
        self.list.viewport().update()
        self.select_row(0)

    def _enable_bar(self, on: bool) -> None:
        bar = self.bar
        for button in (bar.previous_button, bar.next_button, bar.display_button, bar.model_button):
            button.setEnabled(on)

    def _drop_preview(self) -> None:
        self._preview_path = None
        if self.model.rows.preview:
            self.model.clear()
            self.detail.show_row(-1)
            self._enable_bar(True)

    def _on_document_loaded(self) -> None:
        self._opened = True
        if self._reveal is not None and str(self.document.path) != self._reveal[0]:
            self._reveal = None  # meant for another file
        path = self._preview_path
        if not (
            self.model.rows.preview
            and path is not None
            and self.document.path is not None
            and Path(self.document.path).absolute() == path.absolute()
        ):
            self._drop_preview()
            self.model.clear()
            self.detail.show_row(-1)
        self._matches = []
        self._match_index = None

    def _on_document_revision_selected(self, _node: object) -> None:
        # revisions of one session share their beginning: stay on the same message number
        self._rebuild(keep_place=True)

    def _on_document_history_mode_changed(self, _mode: object) -> None:
        self._rebuild(keep_place=False)

    def _on_document_reloaded(self, _info: object) -> None:
        self._rebuild(keep_place=True)

    def _on_document_loading_changed(self, loading: bool) -> None:
        if loading and not self.model.rowCount():
            self.stack.setCurrentWidget(self.loading)

    def _on_document_load_failed(self, path: object, message: str) -> None:
        """Never leave "Loading…" up: say what went wrong (and go back to the open session)."""
        self._drop_preview()
        name = Path(str(path)).name
        title = (
            "Not a Rho session file" if NotASessionFile.PREFIX in message else f"Cannot open {name}"
        )
        self.failed.title.setText(title)
        self.failed.hint.setText(message)
        if self.document.is_open and self.model.rowCount():
            self.stack.setCurrentIndex(2)  # the open session is still there
        else:
            self.stack.setCurrentWidget(self.failed)

    def _on_document_closed(self) -> None:
        self._generation += 1
        self._building = False
        self._drop_preview()
        self.model.clear()
        self.detail.show_row(-1)
        self.stack.setCurrentWidget(self.empty)

    def _on_bar_step(self, step: int) -> None:
        if self.document.is_open:
            self.document.select_relative(step)

    def _on_list_current_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        row = current.row() if current.isValid() else -1
        self.detail.show_row(row)
        self.sig_current_row_changed.emit(row)

    # -- find ------------------------------------------------------------------------------------------

    def _on_find_search_requested(self, text: str) -> None:
        if self.bridge.closed:
            return  # the find bar's debounce ended while the window closes
        self._find_generation += 1
        generation = self._find_generation
        self.list.delegate.find_text = text
        self.detail.set_find_text(text)
        if not text:
            self._matches, self._match_index = [], None
            self.model.set_matches([], None)
            self.find_bar.set_count(None, 0)
            return
        self.find_bar.set_count(None, 0, searching=True)
        if self.model.rows.preview:
            return  # searched once the whole history is in (``_abuild``)
        messages = self.model.rows.messages
        self.bridge.run(self._afind(generation, messages, text), context="Finding")

    async def _afind(self, generation: int, messages: Sequence[Message], text: str) -> None:
        rows = await in_thread(find_rows, messages, text)
        if generation != self._find_generation or messages is not self.model.rows.messages:
            return
        self._matches = rows
        self._match_index = None
        current = self.current_row()
        # the first match from the selected message on, wrapping to the first one (from the end
        # of a long session the bar jumps too, instead of only counting)
        after = next((i for i, r in enumerate(rows) if r >= current), 0) if rows else None
        if after is not None:
            self._match_index = after
            self.select_row(rows[after])
            self.list.scroll_to_row(rows[after], QAbstractItemView.ScrollHint.PositionAtCenter)
        self.model.set_matches(
            rows, rows[self._match_index] if self._match_index is not None else None
        )
        self.find_bar.set_count(self._match_index, len(rows))

    def _step_match(self, step: int) -> None:
        if not self._matches:
            if self.find_bar.text and not self.find_bar.isVisible():
                self.find_bar.open_bar()
            return
        n = len(self._matches)
        if self._match_index is None:
            self._match_index = 0 if step > 0 else n - 1
        else:
            self._match_index = (self._match_index + step) % n
        row = self._matches[self._match_index]
        self.model.set_matches(self._matches, row)
        self.select_row(row)
        self.list.scroll_to_row(row, QAbstractItemView.ScrollHint.PositionAtCenter)
        self.find_bar.set_count(self._match_index, n)
        self.detail.set_find_text(self.find_bar.text)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        # Esc where the list has the focus (after a search hit opened here, for instance) closes
        # the find bar, as it does in the bar itself; otherwise it goes on to the window
        if event.key() == Qt.Key.Key_Escape and not event.modifiers() and self.find_bar.isVisible():
            self.find_bar.close_bar()
            return
        super().keyPressEvent(event)

    def _on_find_closed(self) -> None:
        self._find_generation += 1
        self.list.delegate.find_text = ""
        self.detail.set_find_text("")
        self._matches, self._match_index = [], None
        self.model.set_matches([], None)
        self.list.setFocus()
