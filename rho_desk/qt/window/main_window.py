"""The main window: composes the views, the menus, the banners and the notification bar.

It builds no behaviour of its own: actions and their shortcuts come from ``actions.py``,
app-level handlers from ``commands.py`` and ``session_commands.py``, each view handles its own data, the document and the
library are among the :class:`~rho_desk.qt.services.context.Services` it is given. What is here is layout, wiring
(action -> view method), drag and drop of session files, restoring geometry and splitters,
and the close request that lets the app shut its tasks down first.

Layout::

    menu bar
    [demo banner]                 (only on the bundled demo library)
    browser | header (title, workspace, format, provider)
            | [session notice]    (a damaged file, opened read-only; a torn last line)
            | tabs: Conversation | Revisions | Statistics
    notification bar              (non-modal messages)
    status bar
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QCloseEvent, QDragEnterEvent, QDropEvent, QShowEvent
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QPushButton,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from ...core.agents.base import AGENT_LABELS
from ...core.stores.rho_files.summary import document_title
from ..browser.sessions import SessionBrowserView
from ..browser.team import TeamBrowserView
from ..conversation.view import ConversationView
from ..recovery.view import SessionNotice
from ..services.document import HistoryMode
from ..services.messages import NotificationBar
from ..services.outcomes import OpChanges
from ..services.settings import (
    PERSIST_BROWSER_SPLITTER,
    PERSIST_CONVERSATION_SPLITTER,
    PERSIST_REVISIONS_SPLITTER,
    PERSIST_WINDOW_GEOMETRY,
    PERSIST_WINDOW_STATE,
    PREFS_BROWSER_SCOPE,
    PREFS_HISTORY_MODE,
)
from ..ui import screen
from ..ui.resources import Icon, icon, pixmap
from ..ui.screen import fit_to_screen
from ..ui.text import plural, session_title, shorten, size_text
from ..ui.widgets import ElidedLabel
from .actions import Actions
from .commands import Commands

if TYPE_CHECKING:
    from ..changes.view import ChangesView
    from ..revisions.timeline import RevisionTimelineView
    from ..services.context import Services
    from ..ui.theme import Theme
    from ..usage.statistics import StatisticsView
    from ..usage.view import UsageView, UsageWindow

__all__ = ["DemoBanner", "DocumentHeader", "MainWindow"]

TAB_CONVERSATION, TAB_REVISIONS, TAB_STATISTICS, TAB_CHANGES = range(4)


class DemoBanner(QFrame):
    """ "Demo library" notice shown when no Rho data directory was found."""

    def __init__(self, parent: QWidget | None = None, color: str = "#3b5bdb") -> None:
        super().__init__(parent)
        self.setObjectName("DemoBanner")
        self.mark = mark = QLabel()
        self.set_color(color)
        # one line on a 1024-pixel screen: each line it takes is one the window's minimum adds
        # under the continue dock and the find bar (a 700-pixel screen has none to spare)
        text = QLabel(
            "<b>Demo library</b> — sample sessions bundled with rho-desk; changes go to a private copy."
        )
        text.setToolTip(
            "No Rho data directory was found, so the app opened the sample sessions bundled with "
            "rho-desk. Changes go to a private copy, never to the bundle."
        )
        text.setAccessibleDescription(text.toolTip())
        text.setWordWrap(True)
        self.open_button = QPushButton("Open a Rho data directory…")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(12, 6, 12, 6)
        layout.addWidget(mark)
        layout.addWidget(text, 1)
        layout.addWidget(self.open_button)

    def set_color(self, color: str) -> None:
        """Draw the mark in ``color`` (the theme's accent)."""
        self.mark.setPixmap(pixmap(Icon.DEMO, color, 16))


class DocumentHeader(QFrame):
    """Title and facts of the open session."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("PanelHeader")
        self.title = ElidedLabel("rho-desk", mode=Qt.TextElideMode.ElideRight)
        self.title.setObjectName("PanelTitle")
        self.facts = ElidedLabel("Open a session to inspect it.", mode=Qt.TextElideMode.ElideRight)
        self.facts.setProperty("muted", True)
        self.facts.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(14, 8, 14, 8)
        layout.setSpacing(2)
        layout.addWidget(self.title)
        layout.addWidget(self.facts)


class LazyPage(QWidget):
    """A tab's page whose view is made the first time the page is shown or the view asked for.

    The Revisions, Statistics and Changes tabs are hidden at start-up: making them (and
    importing their modules) before the first paint cost a launch ~90 ms. ``ensure`` makes the
    view (the window's property for it), which the window then :meth:`put` here.
    """

    def __init__(self, ensure: Callable[[], object], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._ensure = ensure
        self.made = False
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self._layout.setSpacing(0)

    def put(self, view: QWidget) -> None:
        self._layout.addWidget(view)
        self.made = True
        if self.isVisible():
            view.show()  # now, not at the next turn of the event loop: it fills itself when shown

    def showEvent(self, event: QShowEvent) -> None:
        if not self.made:
            self._ensure()
        super().showEvent(event)


class MainWindow(QMainWindow):
    """The app window (see the module docstring).

    Signals:
        sig_close_requested(): the user asked to close the window.
        sig_closed(): the window really closed (after the app shut its tasks down).
    """

    sig_close_requested = Signal()
    """The user asked to close: the app shuts down its tasks, then calls :meth:`finish_close`."""
    sig_closed = Signal()
    """Emitted once the window has closed for good."""

    def __init__(self, services: Services) -> None:
        super().__init__()
        self._opening: Path | None = None
        """The file being read to be opened (the header names it while it is read)."""
        self.services = services
        self._close_ready = False
        self._close_requested = False
        self.setObjectName("MainWindow")
        self.setWindowTitle("rho-desk")
        theme = services.theme.theme
        self.setWindowIcon(icon(Icon.APP, theme.accent))
        self.setAcceptDrops(True)
        fit_to_screen(self, 1280, 800)  # a 1024 x 700 screen gets a window that fits it

        self.app_actions = Actions(
            self, icon_for=lambda name: icon(name, services.theme.theme.text)
        )
        self.menus = self.app_actions.build_menus(self.menuBar())
        self.commands = Commands(
            self.app_actions,
            window=self,
            document=services.document,
            library=services.library,
            bridge=services.bridge,
            notifier=services.notifier,
            settings=services.settings,
            theme=services.theme,
            selected=lambda: self.browser.selected_summary(),
            recent_changed=self.refresh_recent_menu,
            undo=services.undo,
        )

        document, bridge = services.document, services.bridge
        self.browser = SessionBrowserView(
            services.library, bridge, document, theme, services.settings
        )
        self.header = DocumentHeader()
        self.conversation = ConversationView(document, bridge, theme)
        self._revisions: RevisionTimelineView | None = None
        self._statistics: StatisticsView | None = None
        self._changes: ChangesView | None = None
        self._revisions_page = LazyPage(lambda: self.revisions)
        self._statistics_page = LazyPage(lambda: self.statistics)
        self._changes_page = LazyPage(lambda: self.changes)
        self.usage_window: UsageWindow | None = None
        self.tabs = QTabWidget()
        self.tabs.setObjectName("DocumentTabs")
        self.tabs.setAccessibleName("Session views")
        self.tabs.setDocumentMode(True)
        self._tab_icons: tuple[tuple[QWidget, Icon], ...] = (
            (self.conversation, Icon.CONVERSATION),
            (self._revisions_page, Icon.TIMELINE),
            (self._statistics_page, Icon.STATS),
            (self._changes_page, Icon.DIFF),
        )
        """Each tab's icon, drawn again in the theme's text colour when the theme changes."""
        for (view, which), name in zip(
            self._tab_icons, ("Conversation", "Revisions", "Statistics", "Changes"), strict=True
        ):
            self.tabs.addTab(view, icon(which, theme.text), name)
        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        right_layout.setSpacing(0)
        self.notice = SessionNotice(theme)
        right_layout.addWidget(self.header)
        right_layout.addWidget(self.notice)
        right_layout.addWidget(self.tabs, 1)
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.setObjectName("MainSplitter")
        # the session browser's scopes: this machine's sessions, and the team library's
        self.team_browser = TeamBrowserView(services.team, bridge, document, theme)
        self.scopes = QTabWidget()
        self.scopes.setObjectName("BrowserScopes")
        self.scopes.setAccessibleName("Session libraries")
        self.scopes.setDocumentMode(True)
        self.scopes.addTab(self.browser, "Local")
        self.scopes.addTab(self.team_browser, "Team")
        # a tab bar is reached by Tab (before the Refresh button and the search field) and read
        # by a screen reader under its tab widget's name; Library ▸ Team Library is its shortcut
        self.scopes.tabBar().setAccessibleName("Session libraries")
        self.scopes.currentChanged.connect(self._on_scope_tab_changed)
        self.splitter.addWidget(self.scopes)
        self.splitter.addWidget(right)
        self.splitter.setStretchFactor(0, 0)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setSizes([330, 950])
        self.splitter.setChildrenCollapsible(False)

        self.banner = DemoBanner(color=theme.accent)
        self.banner.hide()
        self.banner.open_button.clicked.connect(self._on_banner_open_clicked)
        self.notifications = NotificationBar(services.notifier)
        central = QWidget()
        layout = QVBoxLayout(central)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.banner)
        layout.addWidget(self.splitter, 1)
        layout.addWidget(self.notifications)
        self.setCentralWidget(central)
        self.status_path = ElidedLabel("")
        self.status_busy = QLabel("")
        self.statusBar().addWidget(self.status_path, 1)
        self.statusBar().addPermanentWidget(self.status_busy)

        self._wire_actions()
        self._wire_signals()
        self._restore_state()
        self.refresh_recent_menu()
        self._update_state()
        # the first key pressed moves through the sessions (Tab reaches the rest), not the tabs
        self.browser.list.setFocus(Qt.FocusReason.OtherFocusReason)

    # -- wiring ------------------------------------------------------------------------------------------

    def _wire_actions(self) -> None:
        a = self.app_actions
        c = self.conversation
        self.commands.attach()
        a.attach("edit.find", self._in_tab(TAB_CONVERSATION, c.open_find))
        a.attach("edit.find_next", c.find_next)
        a.attach("edit.find_previous", c.find_previous)
        a.attach("edit.copy_message", c.copy_message)
        a.attach("view.browser", lambda: self.scopes.setVisible(a["view.browser"].isChecked()))
        a["view.browser"].setChecked(True)
        a.attach("view.conversation", lambda: self.show_tab(TAB_CONVERSATION))
        a.attach("view.revisions", lambda: self.show_tab(TAB_REVISIONS))
        a.attach("view.statistics", lambda: self.show_tab(TAB_STATISTICS))
        a.attach("view.changes", lambda: self.show_tab(TAB_CHANGES))
        a.attach("view.turn_changes", self._in_tab(TAB_CHANGES, self._show_turn_changes))
        a.attach("view.model_history", self._on_model_history_action)
        a.attach("view.next_message", self._in_tab(TAB_CONVERSATION, c.next_message))
        a.attach("view.previous_message", self._in_tab(TAB_CONVERSATION, c.previous_message))
        a.attach("view.expand_message", c.toggle_expanded)
        a.attach("view.raw_json", lambda: c.set_raw(a["view.raw_json"].isChecked()))
        a.attach("library.search", lambda: self.show_scope(team=False))
        a.attach("library.team", lambda: self.show_scope(team=a["library.team"].isChecked()))
        a.attach("library.refresh", self.browser.refresh)
        a.attach(
            "library.scope",
            lambda: self.browser.set_scope(
                "workspace" if a["library.scope"].isChecked() else "all"
            ),
        )
        a.attach("library.open_selected", self.browser.open_selected)
        a.attach("library.usage", self.show_usage)
        for local in ("library.rename", "library.trash"):
            a.make_local(local, self.browser)
        a.attach("revision.previous", lambda: self.services.document.select_relative(-1))
        a.attach("revision.next", lambda: self.services.document.select_relative(1))
        a.attach("revision.active", lambda: self.services.document.select(None))
        a.attach("revision.diff_base", lambda: self.revisions.mark_diff_base())
        a.attach(
            "revision.diff", self._in_tab(TAB_REVISIONS, lambda: self.revisions.diff_selected())
        )

    # -- the tabs made when first shown -----------------------------------------------------------------

    @property
    def revisions(self) -> RevisionTimelineView:
        if self._revisions is None:
            self._revisions = self._make_revisions()
            self._revisions_page.put(self._revisions)
        return self._revisions

    @property
    def statistics(self) -> StatisticsView:
        if self._statistics is None:
            self._statistics = self._make_statistics()
            self._statistics_page.put(self._statistics)
        return self._statistics

    @property
    def changes(self) -> ChangesView:
        if self._changes is None:
            self._changes = self._make_changes()
            self._changes_page.put(self._changes)
        return self._changes

    def _make_revisions(self) -> RevisionTimelineView:
        from ..revisions.timeline import RevisionTimelineView

        ctx, a = self.services, self.app_actions
        view = RevisionTimelineView(ctx.document, ctx.bridge, ctx.theme.theme)
        view.make_active_handler = lambda: a.trigger("revision.make_active")
        view.fork_handler = lambda: a.trigger("revision.fork")
        view.sig_show_conversation.connect(lambda: self.show_tab(TAB_CONVERSATION))
        data = ctx.settings.get(PERSIST_REVISIONS_SPLITTER)
        if data:
            view.splitter.restoreState(data)
        return view

    def _make_statistics(self) -> StatisticsView:
        from ..usage.statistics import StatisticsView

        ctx = self.services
        view = StatisticsView(
            ctx.document,
            ctx.bridge,
            ctx.theme.theme,
            ctx.settings,
            ledger_home=lambda: ctx.library.home,
        )
        view.sig_revision_requested.connect(lambda node: ctx.document.select(node))
        return view

    def _make_changes(self) -> ChangesView:
        from ..changes.view import ChangesView, reveal_message

        ctx = self.services
        view = ChangesView(ctx.document, ctx.bridge, ctx.library, undo=ctx.undo)
        view.sig_message_requested.connect(
            self._in_row(
                TAB_CONVERSATION, lambda row: reveal_message(ctx.document, self.conversation, row)
            )
        )
        view.sig_open_requested.connect(lambda path, _file: self.commands.open_path(path))
        return view

    def _show_turn_changes(self) -> None:
        from ..changes.view import turn_of_current_row

        self.changes.show_turn(turn_of_current_row(self.conversation))

    def _in_tab(self, tab: int, then: Callable[[], object]) -> Callable[[], None]:
        """A handler that shows ``tab``, then runs ``then``."""

        def handler() -> None:
            self.show_tab(tab)
            then()

        return handler

    def _in_row(self, tab: int, then: Callable[[int], object]) -> Callable[[int], None]:
        """A handler of a row number that shows ``tab``, then runs ``then(row)``."""

        def handler(row: int) -> None:
            self.show_tab(tab)
            then(row)

        return handler

    def _wire_signals(self) -> None:
        ctx = self.services
        document = ctx.document
        document.sig_loaded.connect(self._update_state)
        document.sig_closed.connect(self._update_state)
        document.sig_reloaded.connect(lambda _info: self._update_state())
        self.notice.sig_repair_requested.connect(self.commands.repair)
        document.sig_tree_changed.connect(self._update_header)
        document.sig_loading_changed.connect(lambda _on: self._update_header())
        document.sig_opening.connect(self._on_document_opening)
        document.sig_revision_selected.connect(lambda _n: self._update_header())
        document.sig_history_mode_changed.connect(self._on_document_history_mode_changed)
        ctx.library.sig_opened.connect(self._on_library_opened)
        # "working…" only for work that lasts (the live poll's quick look must not flicker it)
        self._busy_timer = QTimer(self)
        self._busy_timer.setSingleShot(True)
        self._busy_timer.setInterval(300)
        self._busy_timer.timeout.connect(lambda: self.status_busy.setText("working…"))
        ctx.bridge.sig_busy_changed.connect(self._on_bridge_busy_changed)
        ctx.bridge.sig_operation_finished.connect(self._on_bridge_operation_finished)
        ctx.theme.sig_theme_changed.connect(self._on_theme_changed)
        self.browser.sig_selection_changed.connect(lambda _s: self._update_state())
        self.browser.sig_open_requested.connect(self.commands.open_path)
        self.browser.sig_match_requested.connect(self._on_browser_match_requested)
        self.browser.sig_listing_shown.connect(lambda _n: self._update_header())

    def show_scope(self, *, team: bool) -> None:
        """The session browser on the team library's sessions or this machine's, with the
        keyboard in its search field (Library ▸ Team Library, Library ▸ Search Sessions)."""
        self.scopes.show()
        self.app_actions["view.browser"].setChecked(True)
        page = self.team_browser if team else self.browser
        self.scopes.setCurrentWidget(page)
        page.search.setFocus(Qt.FocusReason.ShortcutFocusReason)
        page.search.selectAll()

    def _on_scope_tab_changed(self, index: int) -> None:
        team = self.scopes.widget(index) is self.team_browser
        self.app_actions["library.team"].setChecked(team)
        if team:
            self.team_browser.reload_listing()

    def _on_browser_match_requested(self, path: Path, offset: int, needle: str) -> None:
        self.show_tab(TAB_CONVERSATION)
        self.conversation.reveal_match(path, offset, needle)

    def _on_bridge_busy_changed(self, busy: bool) -> None:
        if busy:
            self._busy_timer.start()
        else:
            self._busy_timer.stop()
            self.status_busy.setText("")

    def show_usage(self) -> UsageView:
        """Show the Usage window (made on first use), reading the ledger again."""
        if self.usage_window is None:
            from ..usage.view import UsageView, UsageWindow  # QtCharts: loaded when first shown

            ctx = self.services
            view = UsageView(
                ctx.bridge,
                ctx.theme.theme,
                lambda: ctx.library.home,
                lambda: ctx.library.alist(None),
            )
            view.sig_session_requested.connect(self.commands.open_path)
            ctx.theme.sig_theme_changed.connect(view.set_theme)
            self.usage_window = UsageWindow(view, self)
        if self.usage_window.isVisible():
            self.usage_window.raise_()  # already open behind the main window: bring it forward
        self.usage_window.show()
        self.usage_window.view.reload()
        return self.usage_window.view

    def show_tab(self, index: int) -> None:
        self.tabs.setCurrentIndex(index)

    def refresh_recent_menu(self) -> None:
        menu = self.app_actions.recent_menu
        if menu is None:
            return
        menu.clear()
        files = self.services.settings.recent_files()
        for number, name in enumerate(files, 1):
            action = menu.addAction(f"&{number % 10} {Path(name).parent.name}/{Path(name).name}")
            action.setToolTip(name)
            action.triggered.connect(lambda _c=False, n=name: self.commands.open_path(Path(n)))
        if not files:
            menu.addAction("No recent files").setEnabled(False)

    # -- state ------------------------------------------------------------------------------------------

    def _update_state(self) -> None:
        document = self.services.document
        tree = document.tree
        selected = self.browser.selected_summary()
        self.app_actions.set_state(
            document=document.is_open,
            writable=document.writable,
            continuable=document.writable
            or (document.agent is not None and document.damage is None),
            tree=tree is not None and tree.is_tree,
            library=self.services.library.is_open,
            selection=selected is not None,
            rho_selection=selected is not None and selected.agent == "rho",
        )
        self.notice.show_document(document)
        self._update_header()

    def _on_document_opening(self, path: object) -> None:
        self._opening = Path(str(path))
        self._update_header()

    def _update_header(self) -> None:
        document = self.services.document
        tree = document.tree
        opening = self._opening
        if tree is None and document.loading and opening is not None:
            # the conversation may already show a preview of it (``ConversationView``)
            self.header.title.setText(f"Opening {opening.name}…")
            self.header.facts.setText(
                "Reading the session file; what you can do with it is ready once it is read."
            )
            self.status_path.setText(str(opening))
            return
        if tree is None or document.path is None:
            self.header.title.setText("No session open")
            self.header.facts.setText(
                "Pick a session on the left, drop a file here, or press Ctrl+O."
            )
            self.status_path.setText(str(self.services.library.home or ""))
            self.setWindowTitle("rho-desk")
            return
        summary = self.browser.summary_for(document.path)
        log = document.agent_log
        own = (
            document_title(tree)
            if document.is_snapshot_document
            else (log.title if log is not None else None)
        )
        title = session_title(summary, own or f"Session {tree.session_id or document.path.name}")
        self.header.title.setText(shorten(title, 120))
        leaf = tree.active_leaf
        provider = leaf.provider if leaf is not None else None
        facts = []
        if tree.header is not None and tree.header.cwd:
            facts.append(tree.header.cwd)
        if log is not None:
            facts.append(f"{AGENT_LABELS.get(log.agent, log.agent)} session, read-only")
        else:
            facts.append(
                "snapshot document"
                if document.is_snapshot_document
                else f"format v{tree.format_version}"
            )
        # the active revision's compactions, as its card counts them (an undone one is not one)
        compactions = leaf.compaction.completed_compactions if leaf is not None else 0
        facts.append(
            plural(tree.node_count, "revision")
            + (f", {plural(tree.branch_count, 'branch point')}" if tree.branch_count else "")
        )
        if compactions:
            facts.append(plural(compactions, "compaction"))
        if provider is not None and provider.provider not in (
            "legacy",
            "display",
        ):  # stand-ins, not providers
            facts.append(str(provider))
        self.header.facts.setText(" · ".join(facts))
        file = document.file
        size = size_text(file.size if file else 0)  # the browser's badge says the same
        self.status_path.setText(f"{document.path} · {size}")
        self.setWindowTitle(f"{shorten(title, 60)} — rho-desk")

    def _on_model_history_action(self) -> None:
        on = self.app_actions["view.model_history"].isChecked()
        self.services.document.set_mode(HistoryMode.MODEL if on else HistoryMode.DISPLAY)

    def _on_document_history_mode_changed(self, mode: HistoryMode) -> None:
        self.app_actions["view.model_history"].setChecked(mode is HistoryMode.MODEL)
        self.services.settings.set(PREFS_HISTORY_MODE, mode.value)

    def _on_library_opened(self, _home: object) -> None:
        self.banner.setVisible(self.services.library.demo)
        self._update_state()

    def _on_bridge_operation_finished(self, changes: OpChanges, _initiator: object) -> None:
        if changes.library and self.services.library.is_open:
            self.browser.reload_listing()
        self._update_state()

    def _on_theme_changed(self, theme: Theme) -> None:
        for view in (self.conversation, self.browser, self.notice, self.team_browser):
            view.set_theme(theme)
        for made in (self._revisions, self._statistics):
            if made is not None:
                made.set_theme(theme)
        for key, spec in ((k, self.app_actions.spec(k)) for k in self.app_actions.ids()):
            if spec.icon:
                self.app_actions[key].setIcon(icon(spec.icon, theme.text))
        for page, which in self._tab_icons:
            self.tabs.setTabIcon(self.tabs.indexOf(page), icon(which, theme.text))
        self.banner.set_color(theme.accent)

    def _on_banner_open_clicked(self) -> None:
        from PySide6.QtWidgets import QFileDialog

        dialog = QFileDialog(self, "Choose a Rho data directory", str(Path.home()))
        dialog.setFileMode(QFileDialog.FileMode.Directory)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.fileSelected.connect(self._on_data_dir_chosen)
        self.commands.dialog = dialog
        dialog.open()

    def _on_data_dir_chosen(self, name: str) -> None:
        from ..services.settings import PREFS_DATA_DIR

        self.services.settings.set(PREFS_DATA_DIR, name)
        self.services.document.fork_home = Path(name)
        self.services.bridge.run(
            self.services.library.aopen(Path(name)), context="Opening the data directory"
        )

    # -- persistence ---------------------------------------------------------------------------------

    def _restore_state(self) -> None:
        s = self.services.settings
        geometry = s.get(PERSIST_WINDOW_GEOMETRY)
        if geometry:
            self.restoreGeometry(geometry)
            self._keep_on_screen()
        state = s.get(PERSIST_WINDOW_STATE)
        if state:
            self.restoreState(state)
        for setting, splitter in (
            (PERSIST_BROWSER_SPLITTER, self.splitter),
            (PERSIST_CONVERSATION_SPLITTER, self.conversation.splitter),
        ):
            data = s.get(setting)
            if data:
                splitter.restoreState(data)
        self.app_actions["library.scope"].setChecked(s.get(PREFS_BROWSER_SCOPE) == "workspace")
        self.app_actions["view.model_history"].setChecked(
            self.services.document.mode is HistoryMode.MODEL
        )

    def _keep_on_screen(self) -> None:
        """A restored window larger than :data:`~rho_desk.qt.ui.screen.SCREEN_SHARE` of this
        screen, or not wholly on it (saved on a larger screen, or while it stood past a small
        one), is fitted to it again and centred, as a new one opens; a maximized one stays so.
        (Its frame is not known before it is shown, so its size is what is judged.)"""
        area = screen.available_area(self)
        if area is None or area.isEmpty() or self.isMaximized() or self.isFullScreen():
            return
        room = (int(area.width() * screen.SCREEN_SHARE), int(area.height() * screen.SCREEN_SHARE))
        if self.width() <= room[0] and self.height() <= room[1] and area.contains(self.geometry()):
            return
        fit_to_screen(self, min(self.width(), room[0]), min(self.height(), room[1]))
        self.move(
            area.x() + max((area.width() - self.width()) // 2, 0),
            area.y() + max((area.height() - self.height()) // 2, 0),
        )

    def _save_state(self) -> None:
        s = self.services.settings
        s.set(PERSIST_WINDOW_GEOMETRY, bytes(self.saveGeometry().data()))
        s.set(PERSIST_WINDOW_STATE, bytes(self.saveState().data()))
        s.set(PERSIST_BROWSER_SPLITTER, bytes(self.splitter.saveState().data()))
        s.set(PERSIST_CONVERSATION_SPLITTER, bytes(self.conversation.splitter.saveState().data()))
        if self._revisions is not None:  # else its stored layout stands as it was
            s.set(PERSIST_REVISIONS_SPLITTER, bytes(self.revisions.splitter.saveState().data()))

    # -- drag and drop, close ---------------------------------------------------------------------------

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        urls = event.mimeData().urls()
        if urls and all(u.isLocalFile() for u in urls):
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        urls = [u for u in event.mimeData().urls() if u.isLocalFile()]
        if urls:
            event.acceptProposedAction()
            self.commands.open_path(Path(urls[0].toLocalFile()))

    def closeEvent(self, event: QCloseEvent) -> None:
        if self._close_ready:
            super().closeEvent(event)
            self.sig_closed.emit()
            return
        # First close request: the app shuts its tasks down, then calls finish_close() (the
        # close is answered later instead of spinning a nested event loop here).
        event.ignore()
        if not self._close_requested:
            self._close_requested = True
            self._save_state()
            self.sig_close_requested.emit()

    def finish_close(self) -> None:
        """Close for real (after the app's shutdown)."""
        self._close_ready = True
        self.close()
