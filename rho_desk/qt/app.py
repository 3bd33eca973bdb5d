"""Composition root of the desktop app: builds every object once and wires them together.

``main()`` creates the ``QApplication`` (organisation and application names first, so the first
``QSettings`` lands in the right place) and runs a qasync event loop. :func:`build_context`
builds the :class:`~rho_desk.qt.services.context.Services` (settings, theme, notifier, bridge, document,
library), the main window, the operations on the open session
(:class:`~rho_desk.qt.window.operations.SessionOperations`, what the dialogs and the
continued conversation act through), the conversation's controller, its dock and the conflict
banner's, and the session commands that open the dialogs, and keeps them in an
:class:`AppContext`. Nothing reaches a global singleton: views get what they
use through their constructors (style.md anti-pattern 2).

Start-up: a path on the command line (a transcript, a session folder, a snapshot document or a
Rho home) wins; else the data directory from the settings; else ``$RHO_HOME`` or ``~/.rho``;
else a private copy of the bundled demo library, announced by a banner. Shutdown: the window's
close request runs :meth:`AppContext.ashutdown` (cancel and await every task, release leases,
close the library) before the window really closes; no nested event loop is spun for it.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from collections.abc import Callable, MutableMapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Final

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication

from .. import __version__
from ..core.errors import InputError
from ..core.stores.rho_files import rho_home
from ..core.system.stops import StopSignals
from .services.bridge import in_thread
from .services.context import Services

if TYPE_CHECKING:
    from .continue_.controller import ContinueController
    from .continue_.docks import ConflictDock, ContinueDock
    from .services.bridge import EngineBridge
    from .services.document import SessionDocument
    from .services.library import LibraryService
    from .services.messages import Notifier
    from .services.settings import Settings
    from .ui.theme import ThemeManager
    from .window.actions import Actions
    from .window.main_window import MainWindow
    from .window.operations import SessionOperations
    from .window.session_commands import SessionCommands

__all__ = [
    "APP_NAME",
    "NO_SESSION_BUS",
    "ORG_NAME",
    "AppContext",
    "StartPlan",
    "build_context",
    "create_application",
    "install_asyncgen_hooks",
    "main",
    "no_bus_autolaunch",
    "plan_start",
]

ORG_NAME = "rho-desk"
APP_NAME = "rho-desk"
ORG_DOMAIN = "rho-desk.invalid"


@dataclass(frozen=True, slots=True)
class StartPlan:
    """What to show first."""

    home: Path | None
    """The Rho home to list (``None``: none, e.g. a loose file outside any home)."""
    open_file: Path | None
    """A session file to open at once."""
    demo: bool
    """``home`` is (to become) the private copy of the bundled demo library."""


def plan_start(
    path: Path | None, data_dir: str = "", env: dict[str, str] | None = None
) -> StartPlan:
    """Decide what to open from the command line, the settings and the environment (no I/O but stat).

    Raises:
        InputError: ``path`` does not exist.
    """
    from .services.document import rho_home_of

    env = dict(os.environ) if env is None else env
    if path is not None:
        path = Path(path).expanduser()
        if not path.exists():
            raise InputError("no such file or folder", source=str(path))
        if path.is_dir() and not (path / "session.jsonl").is_file():
            return StartPlan(path.absolute(), None, False)
        home = rho_home_of(path)
        if home is None:
            default = _default_home(env)
            home = default if default is not None and default.is_dir() else None
        return StartPlan(home, path.absolute(), False)
    if data_dir and Path(data_dir).expanduser().is_dir():
        return StartPlan(Path(data_dir).expanduser().absolute(), None, False)
    default = _default_home(env)
    if default is not None and default.is_dir():
        return StartPlan(default.absolute(), None, False)
    return StartPlan(None, None, True)


def _default_home(env: dict[str, str]) -> Path | None:
    try:
        return rho_home(env)
    except InputError:
        return None


GIL_SWITCH_INTERVAL: Final = 0.001
"""Seconds a thread may hold the GIL before another is let in, while the window runs."""


NO_SESSION_BUS: Final = "disabled:"
"""What ``DBUS_SESSION_BUS_ADDRESS`` says in the app's process when it started without a session
bus (see :func:`no_bus_autolaunch`)."""


def no_bus_autolaunch(env: MutableMapping[str, str] | None = None) -> None:
    """Start no D-Bus session bus behind the user's back.

    On X11 with no ``DBUS_SESSION_BUS_ADDRESS`` (a bare X server, ``ssh -X``, a plain window
    manager), the first D-Bus call of the process (Qt's accessibility bridge asks at start-up)
    makes libdbus run ``dbus-launch --autolaunch``: a ``dbus-daemon`` that outlives the app, one
    per display, picked up by later programs. A desktop session names its bus; without one there
    is none to find, and the app says so (``disabled:``, which starts nothing): the keyring then
    reports no Secret Service, as it would, and programs the tools run find no bus either. An
    address that is set is left alone.
    """
    env = os.environ if env is None else env
    if sys.platform.startswith("linux") and not env.get("DBUS_SESSION_BUS_ADDRESS", "").strip():
        env["DBUS_SESSION_BUS_ADDRESS"] = NO_SESSION_BUS


def create_application(argv: list[str] | None = None) -> QApplication:
    """The ``QApplication`` (reused if one exists), with names set before any ``QSettings``."""
    from PySide6.QtCore import QCoreApplication
    from PySide6.QtGui import QFont, QGuiApplication

    QCoreApplication.setOrganizationName(ORG_NAME)
    QCoreApplication.setOrganizationDomain(ORG_DOMAIN)
    QCoreApplication.setApplicationName(APP_NAME)
    QCoreApplication.setApplicationVersion(__version__)
    existing = QApplication.instance()
    app = (
        existing
        if isinstance(existing, QApplication)
        else QApplication(list(argv) if argv is not None else sys.argv[:1])
    )
    # The event loop ends when arun() returns (after the shutdown), not when Qt sees no window.
    app.setQuitOnLastWindowClosed(False)
    # Workers (reading a session, building its rows) run Python while the GUI thread waits for the
    # GIL, and a timer tick or a paint takes several turns of it: at Python's default 5 ms switch
    # interval the GUI thread stalled 56-103 ms while a 100k-message session loaded, at 1 ms
    # 28-36 ms (gui.max_stall_load_100k), with the load itself no slower.
    sys.setswitchinterval(GIL_SWITCH_INTERVAL)
    QGuiApplication.setDesktopFileName("rho-desk")
    font = QFont("DejaVu Sans")
    font.setPointSizeF(9.5)
    app.setFont(font)
    return app


@dataclass(eq=False)
class AppContext:
    """Every long-lived object of the app, built once by :func:`build_context`."""

    app: QApplication
    services: Services
    plan: StartPlan
    window: MainWindow
    operations: SessionOperations
    """The operations on the open session: one at a time, revisions written, undo and redo."""
    controller: ContinueController
    """The continued conversation."""
    continue_dock: ContinueDock
    conflict_dock: ConflictDock
    session_commands: SessionCommands
    """The Session menu, Settings, Undo and Redo: the action dialogs, opened one per kind."""
    restore_excepthook: Callable[[], None] | None = None
    closed: asyncio.Future[None] | None = None
    _shutting_down: bool = False
    _close_task: asyncio.Future[None] | None = None

    @property
    def settings(self) -> Settings:
        return self.services.settings

    @property
    def theme(self) -> ThemeManager:
        return self.services.theme

    @property
    def notifier(self) -> Notifier:
        return self.services.notifier

    @property
    def bridge(self) -> EngineBridge:
        return self.services.bridge

    @property
    def document(self) -> SessionDocument:
        return self.services.document

    @property
    def library(self) -> LibraryService:
        return self.services.library

    @property
    def actions(self) -> Actions:
        return self.window.app_actions

    async def astart(self, *, shown: asyncio.Event | None = None) -> None:
        """Open the requested file and the library (demo copy first, if needed).

        Args:
            shown: set once the opened file's conversation is on screen; indexing the library
                (which may read every session in it) waits for it, at most a few seconds, so
                that the two big reads neither compete nor interleave their memory.
        """
        plan = self.plan
        home = plan.home
        demo = plan.demo
        if demo:
            # imported here: it loads the library's modules, which a launch on a file needs only after the first paint
            from ..core.stores.demo import prepare_demo_copy

            home = await in_thread(prepare_demo_copy)
            self.document.fork_home = home
        elif home is not None:
            self.document.fork_home = home
        if plan.open_file is not None:
            # the file asked for first: indexing a new library reads every session in it
            await self.document.aopen(plan.open_file)
            # A file named on the command line is a file the user opened: it joins Open Recent.
            self.settings.add_recent_file(str(Path(plan.open_file).resolve()))
            self.window.refresh_recent_menu()
            if shown is not None and self.document.is_open:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(shown.wait(), 5)
        if home is not None:
            await self.library.aopen(home, demo=demo)
        if plan.open_file is None and demo:
            # Show something at once on the demo library: its most recently updated session.
            page = await self.library.alist(None, sort="updated")
            if page.sessions:
                await self.document.aopen(Path(page.sessions[0].path))

    def request_close(self) -> None:
        """The window asked to close: shut down, then let it close (the shutdown task is ours)."""
        if self._close_task is not None:
            return
        self._close_task = asyncio.ensure_future(self.ashutdown())
        self._close_task.add_done_callback(lambda _t: self.window.finish_close())

    async def ashutdown(self) -> None:
        """Cancel and await every task, release the writer's lease, close the library."""
        if self._shutting_down:
            return
        self._shutting_down = True
        with contextlib.suppress(Exception):
            self.settings.sync()
        await self.bridge.aclose()
        await self.document.aclose()
        await self.library.aclose()
        await self.services.team.aclose()
        if self.restore_excepthook is not None:
            self.restore_excepthook()


def build_context(
    plan: StartPlan,
    *,
    settings_backend: QSettings | None = None,
    cache_dir: Path | None = None,
    trash_dir: Path | None = None,
    show: bool = True,
    install_hooks: bool = True,
) -> AppContext:
    """Build the settings, theme, notifier, bridge, document, library, window and actions.

    Args:
        settings_backend: a ``QSettings`` to use instead of the application's (tests).
        cache_dir, trash_dir: for the session library (tests use temp folders).
        show: show the window.
        install_hooks: install ``sys.excepthook`` and the loop's exception handler.
    """
    from .continue_.controller import ContinueController
    from .continue_.docks import ConflictDock, ContinueDock
    from .services.bridge import EngineBridge
    from .services.document import HistoryMode, SessionDocument
    from .services.library import LibraryService
    from .services.messages import Notifier, install_excepthook, install_loop_exception_handler
    from .services.settings import (
        PREFS_FOLLOW_LIVE,
        PREFS_HISTORY_MODE,
        PREFS_LIVE_POLL_MS,
        PREFS_THEME,
        Settings,
        agent_homes_from_settings,
    )
    from .services.team import TeamService
    from .ui.theme import ThemeManager
    from .window.main_window import MainWindow
    from .window.operations import SessionOperations
    from .window.session_commands import SessionCommands

    app = create_application()
    settings = Settings(settings_backend)
    theme = ThemeManager(settings.get(PREFS_THEME))
    theme.apply(app)
    notifier = Notifier()
    bridge = EngineBridge(notifier)
    document = SessionDocument(
        bridge,
        poll_ms=settings.get(PREFS_LIVE_POLL_MS),
        follow_live=settings.get(PREFS_FOLLOW_LIVE),
    )
    document.set_mode(HistoryMode(settings.get(PREFS_HISTORY_MODE)))
    library = LibraryService(
        bridge,
        cache_dir=cache_dir,
        trash_dir=trash_dir,
        known_summary=document.current_summary,
        agent_homes=lambda: agent_homes_from_settings(settings),
    )
    team = TeamService(settings, bridge)
    services = Services(settings, theme, notifier, bridge, document, library, team)
    restore_excepthook = None
    if install_hooks:
        restore_excepthook = install_excepthook(notifier)
        with contextlib.suppress(RuntimeError):
            install_loop_exception_handler(asyncio.get_event_loop(), notifier)
    window = MainWindow(services)
    operations = SessionOperations(
        services,
        window=window,
        summary_for=window.browser.summary_for,
        show_end=window.conversation.show_end_on_next_build,
    )
    controller = ContinueController(operations, operations)
    continue_dock = ContinueDock(window, controller, operations)
    conflict_dock = ConflictDock(
        window, controller, reload=operations.resolve_reload, fork=operations.resolve_fork
    )
    operations.follow(controller)
    session_commands = SessionCommands(
        window.app_actions,
        operations,
        window=window,
        document=document,
        bridge=bridge,
        show_continue=continue_dock.show_continue,
    )
    session_commands.attach()
    context = AppContext(
        app,
        services,
        plan,
        window,
        operations,
        controller,
        continue_dock,
        conflict_dock,
        session_commands,
        restore_excepthook,
    )
    window.sig_close_requested.connect(context.request_close)
    if show:
        window.show()
    return context


async def arun(
    plan: StartPlan,
    *,
    screenshot: Path | None = None,
    stops: StopSignals | None = None,
    started: Callable[[], None] | None = None,
) -> int:
    """Build the app, start it, and wait until its window has closed (``stops``: Ctrl+C and
    SIGTERM, noted since before the app was built; they close the window as if asked).

    Args:
        started: called once the first rows are painted, or the start (:meth:`AppContext.astart`)
            has ended without any (it may be called twice).
    """
    if stops is None:
        stops = StopSignals().install()
    context = build_context(plan)
    loop = asyncio.get_running_loop()
    closed: asyncio.Future[None] = loop.create_future()
    context.closed = closed

    def on_closed() -> None:
        if not closed.done():
            closed.set_result(None)

    context.window.sig_closed.connect(on_closed)
    restore_signals = _quit_on_signals(context, loop, stops)
    shown = asyncio.Event()
    context.window.conversation.sig_rows_shown.connect(lambda _rows: shown.set())
    start = context.bridge.run(context.astart(shown=shown), context="Starting")
    if started is not None:
        context.window.conversation.sig_rows_shown.connect(lambda _rows: started())
        start.add_done_callback(lambda _task: started())
    if screenshot is not None:
        context.window.resize(1280, 800)
        await asyncio.sleep(0.05)
        await context.bridge.wait_idle()
        await asyncio.sleep(0.3)  # let the views lay out and paint
        context.window.grab().save(str(screenshot))
        context.window.close()
    try:
        await closed
    finally:
        restore_signals()
    return stops.exit_status


def main(
    path: Path | None = None,
    *,
    screenshot: Path | None = None,
    demo: bool = False,
    headless: bool = False,
    stops: StopSignals | None = None,
) -> int:
    """Run the desktop app (``rho-desk``, ``rho-desk open PATH``; ``demo``: on the bundled demo
    library, ``rho-desk --demo``; ``headless``: offscreen for want of a display). Returns the exit
    status: 0, or 128 + the signal that ended it (Ctrl+C, SIGTERM: the window closes as if asked;
    ``stops``: the signals as noted since the command started, before Qt was imported)."""
    import qasync

    if stops is None:
        stops = StopSignals().install()

    from .services.settings import PREFS_DATA_DIR, Settings
    from .services.workers import pause_collection

    resume_collection = pause_collection()  # until the first paint (see pause_collection)
    if headless:
        _quiet_offscreen_warnings()
    no_bus_autolaunch()
    app = create_application()
    plan = (
        StartPlan(None, None, True)
        if demo and path is None
        else plan_start(path, Settings().get(PREFS_DATA_DIR))
    )
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    restore_hooks = install_asyncgen_hooks(loop)
    try:
        status: int = loop.run_until_complete(
            arun(plan, screenshot=screenshot, stops=stops, started=resume_collection)
        )
        return status
    finally:
        resume_collection()
        loop.close()
        asyncio.set_event_loop(None)
        restore_hooks()


def _quiet_offscreen_warnings() -> None:
    """Drop the one warning the offscreen platform prints for every window ("does not support
    propagateSizeHints"): nothing a user can act on. Every other message goes to stderr."""
    from PySide6.QtCore import QtMsgType, qInstallMessageHandler

    def handler(kind: QtMsgType, _context: object, message: str) -> None:
        if "propagateSizeHints" not in message:
            sys.stderr.write(message + "\n")

    qInstallMessageHandler(handler)


def _quit_on_signals(
    context: AppContext, loop: asyncio.AbstractEventLoop, stops: StopSignals
) -> Callable[[], None]:
    """Ctrl+C (SIGINT) and SIGTERM close the window as if asked (the session is saved and its
    lease released), also when they came while the app was being built; returns how to give the
    signals back. A timer lets Python run now and then, so that a signal is seen while Qt waits
    for events."""
    from PySide6.QtCore import QTimer

    def close_soon() -> None:
        loop.call_soon_threadsafe(context.window.close)

    stops.attach(close_soon)
    tick = QTimer(context.window)
    tick.timeout.connect(lambda: None)
    tick.start(250)

    def restore() -> None:
        tick.stop()
        stops.restore()

    return restore


def install_asyncgen_hooks(loop: asyncio.AbstractEventLoop) -> Callable[[], None]:
    """Give ``loop`` asyncio's async-generator hooks, which qasync never installs.

    Without them an async generator left unfinished (an HTTP byte stream a provider stopped
    reading at ``[DONE]``) is finalized by the garbage collector outside the loop and fails
    ("async generator ignored GeneratorExit"); with them the loop schedules its ``aclose()``.

    Returns:
        A function that restores the previous hooks.
    """
    previous = sys.get_asyncgen_hooks()
    sys.set_asyncgen_hooks(
        firstiter=loop._asyncgen_firstiter_hook,  # type: ignore[attr-defined]
        finalizer=loop._asyncgen_finalizer_hook,  # type: ignore[attr-defined]
    )
    return lambda: sys.set_asyncgen_hooks(*previous)
