"""The session browser: the library's sessions, one workspace or all, searched and sorted.

Listing and search read rho-desk's session cache through the
:class:`~rho_desk.qt.services.library.LibraryService` (every call in a worker thread); the cache is
refreshed from the files and Rho's index when the library opens and on Ctrl+R. Full-text search
shows snippets with the matches highlighted (Markdown shown as plain text). Up and Down in the
search field move the highlight in the list; Enter opens the highlighted session (the top hit when
the results are still coming), and a search hit opens at its match. A click (or Enter in the
list) opens a session; F2 renames it (the title goes to Rho's index); Delete moves it to the
trash after a confirmation.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Final, NamedTuple

from PySide6.QtCore import (
    QEvent,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QPoint,
    QRect,
    QRectF,
    QSize,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import (
    QFont,
    QFontMetrics,
    QKeyEvent,
    QPainter,
    QPainterPath,
    QTextCharFormat,
    QTextLayout,
    QTextOption,
)
from PySide6.QtWidgets import (
    QComboBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListView,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QToolButton,
    QWidget,
)

from ...core.agents.base import AGENT_LABELS
from ...core.stores.rho_files.layout import no_sessions_text
from ...core.stores.summary import SessionSummary
from ..services.bridge import EngineBridge
from ..services.document import SessionDocument
from ..services.library import LibraryService
from ..services.settings import PREFS_BROWSER_SCOPE, PREFS_BROWSER_SORT, Settings
from ..ui.markdown import plain_text
from ..ui.resources import Icon, icon, pixmap
from ..ui.roles import Role
from ..ui.text import listed_title, size_text
from ..ui.theme import Theme
from ..ui.widgets import list_panel_layout, name_line_edit_buttons
from .sessions_model import SessionListModel, SessionRow, workspace_label

if TYPE_CHECKING:
    from ...core.stores.library import RefreshReport, SessionPage
    from ...core.stores.search import SearchResults, SummaryFailure

__all__ = ["SessionBrowserView", "SessionDelegate", "debounced_search", "relative_time"]

SEARCH_DEBOUNCE_MS: Final = 200
ROW_HEIGHT: Final = 92
SORTS: Final = (
    ("updated", "Last updated"),
    ("created", "Created"),
    ("size", "File size"),
    ("messages", "Messages"),
    ("compactions", "Compactions"),
    ("title", "Title"),
)


def debounced_search(
    field: QLineEdit, delay_ms: int, search: Callable[[], None], bridge: EngineBridge
) -> QTimer:
    """Run ``search`` once typing in ``field`` has paused for ``delay_ms`` (never once ``bridge`` closed)."""
    timer = bridge.timer(field, delay_ms, search)
    field.textChanged.connect(lambda _text: timer.start())
    return timer


def relative_time(stamp: int, now: float | None = None) -> str:
    now = time.time() if now is None else now
    delta = now - stamp
    if delta < 60:
        return "just now"
    if delta < 3600:
        return f"{int(delta // 60)} min ago"
    if delta < 86400:
        return f"{int(delta // 3600)} h ago"
    if delta < 7 * 86400:
        return f"{int(delta // 86400)} d ago"
    then = time.localtime(stamp)
    return time.strftime("%b %d" if then.tm_year == time.localtime(now).tm_year else "%b %Y", then)


def _unreadable_row(failure: SummaryFailure, agent: str = "rho") -> SessionSummary:
    """A browser row for a transcript that cannot be read (no facts but its path and why)."""
    path = Path(failure.path)
    name = path.parent.name if path.name == "session.jsonl" else path.stem
    reason = failure.reason.removeprefix(f"{failure.path}:").strip()
    line, _, rest = reason.partition(":")
    title, why = (
        (f"⚠ Damaged at line {line}", rest.strip())
        if line.isdigit()
        else ("⚠ Cannot be read", reason)
    )
    return SessionSummary(
        workspace_key=failure.workspace_key,
        cwd="",
        id=name.rpartition("_")[2] or name,
        path=failure.path,
        created_at=0,
        updated_at=0,
        message_count=0,
        first_user_message=None,
        last_user_message=why,
        file_size=failure.file_size,
        file_mtime=None,
        node_count=0,
        branch_count=0,
        active_leaf_id=None,
        effective_format_version=0,
        title=title,
        agent=agent,
    )


def _unreadable(s: SessionSummary) -> bool:
    """Whether a row stands for a session that cannot be read (``_unreadable_row``): a Rho row
    without a format, another agent's without a modification time."""
    return not s.effective_format_version if s.agent == "rho" else s.file_mtime is None


class CardFonts(NamedTuple):
    """A row card's three fonts (the row's, bold for the title, smaller for the details) and their metrics."""

    base: QFont
    bold: QFont
    small: QFont
    fm: QFontMetrics
    fmb: QFontMetrics
    fms: QFontMetrics


class SessionDelegate(QStyledItemDelegate):
    """Paints a session row: title and time, workspace and model, prompt or snippet, badges."""

    def __init__(self, theme: Theme, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.theme = theme

    def sizeHint(
        self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> QSize:
        return QSize(100, ROW_HEIGHT)  # the width follows the view

    def card(self, painter: QPainter, option: QStyleOptionViewItem) -> tuple[QRect, bool]:
        """Save the painter and draw a row's card (rounded, filled when selected or hovered):
        its rectangle, and whether it is selected. The caller restores the painter."""
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        rect = QRect(option.rect).adjusted(8, 3, -8, -3)
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        path = QPainterPath()
        path.addRoundedRect(QRectF(rect), 7, 7)
        if selected:
            painter.fillPath(path, self.theme.color("accent_soft"))
        elif option.state & QStyle.StateFlag.State_MouseOver:
            painter.fillPath(path, self.theme.color("hover"))
        return rect, selected

    @staticmethod
    def fonts(option: QStyleOptionViewItem) -> CardFonts:
        """The card's fonts, from the view's."""
        base = QFont(option.font)
        bold = QFont(base)
        bold.setBold(True)
        small = QFont(base)
        small.setPointSizeF(base.pointSizeF() * 0.88)
        return CardFonts(
            base, bold, small, QFontMetrics(base), QFontMetrics(bold), QFontMetrics(small)
        )

    def badges(
        self,
        painter: QPainter,
        labels: Sequence[str],
        x: float,
        right: float,
        y: float,
        fms: QFontMetrics,
        *,
        selected: bool,
    ) -> None:
        """A card's badges from ``x`` on line ``y``, left to right, as many as fit before ``right``
        (the painter's font is the badges' font, ``fms`` its metrics)."""
        t = self.theme
        for label in labels:
            w = fms.horizontalAdvance(label) + 12
            if x + w > right:
                break
            badge = QPainterPath()
            badge.addRoundedRect(QRectF(x, y, w, fms.height() + 2), 7, 7)
            painter.fillPath(badge, t.color("alt") if not selected else t.color("base"))
            painter.setPen(t.color("muted"))
            painter.drawText(QRectF(x, y, w, fms.height() + 2), Qt.AlignmentFlag.AlignCenter, label)
            x += w + 5

    def paint(
        self,
        painter: QPainter,
        option: QStyleOptionViewItem,
        index: QModelIndex | QPersistentModelIndex,
    ) -> None:
        row: SessionRow | None = index.data(Role.ROW)
        if row is None:
            return
        t = self.theme
        s = row.summary
        rect, selected = self.card(painter, option)
        if row.is_open:
            painter.fillRect(
                QRectF(rect.left(), rect.top() + 8, 3, rect.height() - 16), t.color("accent")
            )
        x, right = rect.left() + 12, rect.right() - 10
        y = rect.top() + 7
        base, bold, small, fm, fmb, fms = self.fonts(option)
        when = relative_time(s.updated_at) if s.updated_at else ""
        painter.setFont(small)
        painter.setPen(t.color("muted"))
        wwhen = fms.horizontalAdvance(when)
        painter.drawText(
            QRect(right - wwhen, y, wwhen, fmb.height()), Qt.AlignmentFlag.AlignVCenter, when
        )
        painter.setFont(bold)
        painter.setPen(t.color("text"))
        title = fmb.elidedText(listed_title(s), Qt.TextElideMode.ElideRight, right - x - wwhen - 10)
        painter.drawText(QRect(x, y, right - x, fmb.height()), Qt.AlignmentFlag.AlignVCenter, title)
        y += fmb.height() + 2
        painter.setFont(small)
        painter.setPen(t.color("muted"))
        painter.drawPixmap(
            x,
            y + (fms.height() - 12) // 2,
            pixmap(Icon.FOLDER, t.muted, 12, painter.device().devicePixelRatioF()),
        )
        line = workspace_label(s.cwd) + (
            f"  ·  {s.model}" if s.model and s.model != "legacy" else ""
        )
        painter.drawText(
            QRect(x + 16, y, right - x - 16, fms.height()),
            Qt.AlignmentFlag.AlignVCenter,
            fms.elidedText(line, Qt.TextElideMode.ElideRight, right - x - 16),
        )
        y += fms.height() + 3
        snippet = row.snippets[0] if row.snippets else None
        if snippet is not None:
            self._snippet(
                painter, snippet.text, snippet.highlights, base, QRect(x, y, right - x, fm.height())
            )
        else:
            prompt = (s.last_user_message or s.first_user_message or "").strip().replace("\n", " ")
            painter.setFont(base)
            painter.setPen(t.color("text"))
            painter.drawText(
                QRect(x, y, right - x, fm.height()),
                Qt.AlignmentFlag.AlignVCenter,
                fm.elidedText(
                    ("› " + prompt) if prompt else "(no prompt)",
                    Qt.TextElideMode.ElideRight,
                    right - x,
                ),
            )
        y += fm.height() + 5
        # another agent's session leads with its agent; an unreadable transcript has no facts
        # (format 0): say so instead of "0 msgs"
        badges = [AGENT_LABELS.get(s.agent, s.agent)] if s.agent != "rho" else []
        if _unreadable(s):
            badges.append("open to repair" if s.agent == "rho" else "cannot be read")
        else:
            badges.append(f"{s.message_count:,} msgs")
        if s.compaction_count:
            badges.append(f"{s.compaction_count} compacted")
        if s.branch_count:
            badges.append(f"{s.branch_count} branch{'es' * (s.branch_count > 1)}")
        if s.effective_format_version:
            badges.append(f"v{s.effective_format_version}")
        if s.file_size:
            badges.append(size_text(s.file_size))
        painter.setFont(small)
        self.badges(painter, badges, x, right, y, fms, selected=selected)
        painter.restore()

    def snippet_layout(
        self, text: str, highlights: tuple[tuple[int, int], ...], font: QFont
    ) -> QTextLayout:
        """The one line a search snippet shows: plain text (no Markdown), the matches highlighted."""
        flat, highlights = plain_text(text, highlights)
        # keep the first match in view: start a little before it
        start = max(0, highlights[0][0] - 24) if highlights else 0
        shown = ("…" if start else "") + flat[start:]
        shift = start - (1 if start else 0)
        layout = QTextLayout(shown, font)
        option = QTextOption()
        option.setWrapMode(QTextOption.WrapMode.NoWrap)
        layout.setTextOption(option)
        fmt = QTextCharFormat()
        fmt.setBackground(self.theme.color("find"))
        fmt.setFontWeight(QFont.Weight.DemiBold)
        ranges = []
        for a, b in highlights:
            if b - shift > 0:
                r = QTextLayout.FormatRange()
                r.start, r.length, r.format = max(0, a - shift), b - max(a, shift), fmt
                ranges.append(r)
        layout.setFormats(ranges)
        return layout

    def _snippet(
        self,
        painter: QPainter,
        text: str,
        highlights: tuple[tuple[int, int], ...],
        font: QFont,
        box: QRect,
    ) -> None:
        layout = self.snippet_layout(text, highlights, font)
        layout.beginLayout()
        line = layout.createLine()
        line.setLineWidth(box.width())
        line.setPosition(QPoint(0, 0))
        layout.endLayout()
        painter.setPen(self.theme.color("text"))
        painter.save()
        painter.setClipRect(box)
        layout.draw(painter, box.topLeft())
        painter.restore()


class SessionBrowserView(QFrame):
    """The browser panel.

    Signals:
        sig_open_requested(object): open this transcript ``Path``.
        sig_selection_changed(object): the selected :class:`SessionSummary` (or None).
        sig_listing_shown(int): a listing or search result is on screen (its row count).
    """

    sig_open_requested = Signal(object)
    """Open this session file (a ``Path``)."""
    sig_selection_changed = Signal(object)
    """The selected session changed (a ``SessionSummary`` or None)."""
    sig_listing_shown = Signal(int)
    """A listing or search result was shown; carries the number of rows."""
    sig_match_requested = Signal(object, int, str)
    """Show this search match: the session's ``Path``, the offset of the match in its search
    text and the matched text (emitted with, or after, the request to open the session)."""

    def __init__(
        self,
        library: LibraryService,
        bridge: EngineBridge,
        document: SessionDocument,
        theme: Theme,
        settings: Settings,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("BrowserPanel")
        self.setMinimumWidth(260)
        self.library = library
        self.bridge = bridge
        self.document = document
        self.settings = settings
        self.theme = theme
        self.model = SessionListModel(self)
        self._generation = 0
        self._workspace_key: str | None = None
        self._known: dict[str, SessionSummary] = {}
        self._shown_text: str | None = None
        """The search text whose results are on screen (``""``: a listing; None: nothing yet)."""
        self._open_when_shown = False

        title = QLabel("Sessions")
        title.setObjectName("PanelTitle")
        self.refresh_button = QToolButton()
        self.refresh_button.setIcon(icon(Icon.RELOAD, theme.text))
        self.refresh_button.setToolTip("Re-scan the session files (Ctrl+R)")
        self.refresh_button.setAutoRaise(True)
        self.refresh_button.setAccessibleName("Re-scan the session files")
        self.refresh_button.clicked.connect(self.refresh)
        head = QHBoxLayout()
        head.addWidget(title, 1)
        head.addWidget(self.refresh_button)

        self.search = QLineEdit()
        self.search.setObjectName("SessionSearch")
        self.search.setPlaceholderText("Search all sessions (Ctrl+K)")
        self.search.setClearButtonEnabled(True)
        self.search_icon = self.search.addAction(
            icon(Icon.SEARCH, theme.muted), QLineEdit.ActionPosition.LeadingPosition
        )
        self.search_icon.setText("Search")
        self.search.setAccessibleName("Search all sessions")
        self.search.setAccessibleDescription(
            "Up and Down pick a result in the session list, Enter opens it"
        )
        name_line_edit_buttons(self.search, "Clear the search")
        self.scope = QComboBox()
        self.scope.setObjectName("ScopeCombo")
        self.scope.setToolTip(
            "Which workspace's sessions to list (Ctrl+Shift+W: this workspace only)"
        )
        self.scope.addItem("All workspaces", None)
        self.sort = QComboBox()
        self.sort.setObjectName("SortCombo")
        for key, label in SORTS:
            self.sort.addItem(label, key)
        self.sort.setToolTip("Sort order")
        self.scope.setAccessibleName("Workspace")
        self.sort.setAccessibleName("Sort by")
        for combo in (self.scope, self.sort):
            # size by a few characters, not by the longest workspace name
            combo.setSizeAdjustPolicy(
                QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
            )
            combo.setMinimumContentsLength(6)
        controls = QHBoxLayout()
        controls.setSpacing(6)
        controls.addWidget(self.scope, 5)
        controls.addWidget(self.sort, 4)

        self.list = QListView()
        self.list.setObjectName("SessionList")
        self.list.setAccessibleName("Sessions")
        self.list.setModel(self.model)
        self.list.setItemDelegate(SessionDelegate(theme, self.list))
        self.list.setUniformItemSizes(True)
        self.list.setMouseTracking(True)
        self.list.setVerticalScrollMode(QListView.ScrollMode.ScrollPerPixel)
        self.list.setFrameShape(QFrame.Shape.NoFrame)
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.footer = QLabel("")
        self.footer.setObjectName("MutedLabel")
        self.footer.setWordWrap(True)

        list_panel_layout(self, [head, self.search, controls], self.list, self.footer)
        self._search_timer = debounced_search(
            self.search, SEARCH_DEBOUNCE_MS, self.reload_listing, self.bridge
        )
        self.search.returnPressed.connect(self._on_search_return_pressed)
        self.search.installEventFilter(self)
        self.scope.currentIndexChanged.connect(self._on_scope_changed)
        self.sort.currentIndexChanged.connect(self._on_sort_changed)
        self.list.clicked.connect(self._on_list_activated)
        self.list.activated.connect(self._on_list_activated)
        self.list.selectionModel().currentChanged.connect(self._on_list_current_changed)
        library.sig_opened.connect(self._on_library_opened)
        library.sig_refreshed.connect(self._on_library_refreshed)
        document.sig_loaded.connect(self._on_document_loaded)
        document.sig_closed.connect(lambda: self.model.set_open_path(None))

        sort = settings.get(PREFS_BROWSER_SORT)
        self.sort.setCurrentIndex(max(0, [k for k, _ in SORTS].index(sort)))
        self._scope_pref = settings.get(PREFS_BROWSER_SCOPE)

    # -- public API -----------------------------------------------------------------------------------

    def set_theme(self, theme: Theme) -> None:
        self.theme = theme
        delegate = self.list.itemDelegate()
        if isinstance(delegate, SessionDelegate):
            delegate.theme = theme
        self.refresh_button.setIcon(icon(Icon.RELOAD, theme.text))
        self.search_icon.setIcon(icon(Icon.SEARCH, theme.muted))
        self.list.viewport().update()

    def refresh(self) -> None:
        """Re-scan the files and the index, then list again."""
        if self.library.is_open:
            self.bridge.run(self.library.arefresh(), context="Refreshing the session library")

    def set_scope(self, scope: str) -> None:
        """``all``, or ``workspace`` (the open session's workspace, else the current directory's)."""
        self.settings.set(PREFS_BROWSER_SCOPE, scope)
        if scope == "all":
            self.scope.setCurrentIndex(0)
            return
        key = self._this_workspace_key()
        index = self.scope.findData(key)
        if index >= 0:
            self.scope.setCurrentIndex(index)
        else:
            self.bridge.notifier.info("The current workspace has no sessions in this library")

    def selected_summary(self) -> SessionSummary | None:
        index = self.list.currentIndex()
        return self.model.summary(index.row()) if index.isValid() else None

    def select_path(self, path: Path | str) -> None:
        row = self.model.row_of_path(path)
        if row >= 0:
            self.list.setCurrentIndex(self.model.index(row))

    def summary_for(self, path: Path | str) -> SessionSummary | None:
        return self._known.get(str(path))

    def open_selected(self) -> None:
        summary = self.selected_summary()
        if summary is not None:
            self.sig_open_requested.emit(Path(summary.path))

    def open_highlighted(self) -> None:
        """Open the highlighted session (the first one when none is), at its match if a search hit."""
        index = self.list.currentIndex()
        if not index.isValid():
            if not self.model.rowCount():
                return
            index = self.model.index(0)
            self.list.setCurrentIndex(index)
        self._on_list_activated(index)

    def reload_listing(self) -> None:
        """List (or search) again with the current scope, sort and search text."""
        if not self.library.is_open:
            return
        self._generation += 1
        generation = self._generation
        text = self.search.text().strip()
        key, sort = self._workspace_key, self.sort.currentData()
        if text:
            self.bridge.run(
                self._asearch(generation, text, key, sort), context="Searching sessions"
            )
        else:
            self.bridge.run(self._alist(generation, key, sort), context="Listing sessions")

    # -- async parts ---------------------------------------------------------------------------------

    async def _alist(self, generation: int, key: str | None, sort: str) -> None:
        page: SessionPage = await self.library.alist(key, sort=sort, descending=sort != "title")
        failures = await self.library.afailures_by_agent(key)
        if generation != self._generation:
            return
        self._remember(page.sessions)
        # sessions that cannot be read come last: opening one shows it up to its last good
        # revision, with Repair (Rho itself lists none of them)
        unreadable = [_unreadable_row(f, agent) for agent, f in failures]
        self._show(lambda: self.model.set_sessions(page.sessions + unreadable))
        self._shown_text = ""
        n = len(page.sessions)
        notice = page.notice or (self.library.last_report and self.library.last_report.notice())
        text = f"{n:,} session{'s' * (n != 1)}" + (
            f" · {len(unreadable):,} cannot be read" if unreadable else ""
        )
        report = self.library.last_report
        if (
            not page.total
            and self.library.home is not None
            and not failures
            and not (report and report.failed)
        ):
            # say where we looked, and for what (not just "0 sessions")
            text = no_sessions_text(
                self.library.home if key is None else self.library.home / "sessions" / key
            )
        self.footer.setText(text + (f" · {notice}" if notice else ""))
        self.sig_listing_shown.emit(n)
        self._open_if_asked()

    async def _asearch(self, generation: int, text: str, key: str | None, sort: str) -> None:
        results: SearchResults = await self.library.asearch(text, key, sort=sort)
        if generation != self._generation:
            return
        self._remember([h.session for h in results.hits])
        self._show(lambda: self.model.set_hits(results.hits))
        self._shown_text = text
        n = len(results.hits)
        more = " (more not shown)" if results.truncated else ""
        self.footer.setText(f"{n:,} session{'s' * (n != 1)} match “{text}”{more}")
        self.sig_listing_shown.emit(n)
        self._open_if_asked()

    async def _aworkspaces(self) -> None:
        infos = await self.library.aworkspaces()
        current = self.scope.currentData()
        self.scope.blockSignals(True)
        self.scope.clear()
        self.scope.addItem("All workspaces", None)
        for info in infos:
            self.scope.addItem(f"{workspace_label(info.cwd)} ({info.sessions})", info.workspace_key)
            self.scope.setItemData(self.scope.count() - 1, info.cwd, Qt.ItemDataRole.ToolTipRole)
        index = self.scope.findData(current)
        if self._scope_pref == "workspace" and current is None:
            index = self.scope.findData(self._this_workspace_key())
        self.scope.setCurrentIndex(max(0, index))
        self._workspace_key = self.scope.currentData()
        self.scope.blockSignals(False)
        self.reload_listing()

    # -- helpers --------------------------------------------------------------------------------------

    def _show(self, fill: Callable[[], object]) -> None:
        selected = self.selected_summary()
        fill()
        if self.document.path is not None and self.model.row_of_path(self.document.path) >= 0:
            self.select_path(self.document.path)
        elif selected is not None:
            self.select_path(selected.path)

    def _open_if_asked(self) -> None:
        """Enter was pressed before these results arrived: open the top one."""
        if self._open_when_shown:
            self._open_when_shown = False
            if self.model.rowCount():
                self.list.setCurrentIndex(self.model.index(0))
                self.open_highlighted()

    def _move_highlight(self, key: int) -> None:
        """Up, Down, Page Up, Page Down typed in the search field move the list's highlight."""
        rows = self.model.rowCount()
        if not rows:
            return
        page = max(1, self.list.viewport().height() // ROW_HEIGHT)
        step = {
            Qt.Key.Key_Down: 1,
            Qt.Key.Key_Up: -1,
            Qt.Key.Key_PageDown: page,
            Qt.Key.Key_PageUp: -page,
        }[Qt.Key(key)]
        current = self.list.currentIndex()
        row = (0 if step > 0 else rows - 1) if not current.isValid() else current.row() + step
        index = self.model.index(max(0, min(rows - 1, row)))
        self.list.setCurrentIndex(index)
        self.list.scrollTo(index)

    def _remember(self, sessions: list[SessionSummary]) -> None:
        for s in sessions:
            self._known[s.path] = s

    def _this_workspace_key(self) -> str | None:
        tree = self.document.tree
        if tree is not None and tree.header is not None and tree.header.cwd:
            return self.library.workspace_key(tree.header.cwd)
        import os

        return self.library.workspace_key(os.getcwd()) if self.library.is_open else None

    # -- slots --------------------------------------------------------------------------------------

    def _on_library_opened(self, _home: object) -> None:
        self._known = {}
        self.model.set_sessions([])
        self.footer.setText("Reading the session library…")

    def _on_library_refreshed(self, report: RefreshReport) -> None:
        self.bridge.run(self._aworkspaces(), context="Listing workspaces")
        if report.failed:
            names = ", ".join(Path(f.path).parent.name for f in report.failed[:3])
            self.bridge.notifier.warning(
                f"{len(report.failed)} session file{'s' * (len(report.failed) > 1)} could not be read ({names}); "
                "open one to read it up to its last good revision and repair it, or run `rho-desk check`.",
                "\n".join(f"{f.path}: {f.reason}" for f in report.failed),
            )

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.search and event.type() == QEvent.Type.KeyPress:
            assert isinstance(event, QKeyEvent)
            if event.key() in (
                Qt.Key.Key_Down,
                Qt.Key.Key_Up,
                Qt.Key.Key_PageDown,
                Qt.Key.Key_PageUp,
            ):
                self._move_highlight(event.key())
                return True
        return super().eventFilter(watched, event)

    def _on_search_return_pressed(self) -> None:
        if self._search_timer.isActive() or self._shown_text != self.search.text().strip():
            # the results for this text are not on screen yet: search now, open the top hit
            self._search_timer.stop()
            self._open_when_shown = True
            self.reload_listing()
            return
        self.open_highlighted()

    def _on_scope_changed(self, _index: int) -> None:
        self._workspace_key = self.scope.currentData()
        self.settings.set(
            PREFS_BROWSER_SCOPE, "all" if self._workspace_key is None else "workspace"
        )
        self.reload_listing()

    def _on_sort_changed(self, _index: int) -> None:
        self.settings.set(PREFS_BROWSER_SORT, self.sort.currentData())
        self.reload_listing()

    def _on_list_activated(self, index: QModelIndex) -> None:
        summary = self.model.summary(index.row())
        if summary is None:
            return
        if self.document.path is None or str(self.document.path) != summary.path:
            self.sig_open_requested.emit(Path(summary.path))
        match = self.model.text_match(index.row())
        if match is not None:
            self.sig_match_requested.emit(Path(summary.path), *match)

    def _on_list_current_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        self.sig_selection_changed.emit(
            self.model.summary(current.row()) if current.isValid() else None
        )

    def _on_document_loaded(self) -> None:
        path = self.document.path
        self.model.set_open_path(path)
        if path is not None and not self.library.is_open and not self.footer.text():
            # a file opened from outside any Rho data directory: say why the list is empty
            self.footer.setText(
                "No session library: the open file is outside a Rho data directory. "
                "Settings ▸ General chooses one to browse."
            )
        if path is not None:
            self.select_path(path)  # the browser's selection follows what is open
