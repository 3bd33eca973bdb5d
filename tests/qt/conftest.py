"""GUI test setup: a qasync loop per test, settings in a temp folder, a leak-checked window factory.

pytest-qt has no asyncio integration (pytest-qt#448), so tests that run coroutines drive a
``qasync.QEventLoop`` with ``run(coro)`` (environment.md §2). Every test gets its own settings
folder (``QSettings`` redirected, style.md practice 14), cache, trash and config folders, so
nothing touches the real user's files. ``make_window`` builds the whole app (the same
composition root as ``rho-desk``), and on teardown shuts it down the way the app does and
checks that no top-level widget was left behind.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import shutil
from collections.abc import Callable, Coroutine, Iterator
from pathlib import Path
from typing import Any

import pytest
import qasync
from PySide6.QtCore import QCoreApplication, QEvent
from PySide6.QtWidgets import QApplication

from rho_desk.qt.app import (
    APP_NAME,
    ORG_NAME,
    AppContext,
    StartPlan,
    build_context,
    install_asyncgen_hooks,
)
from rho_desk.qt.services.settings import use_settings_dir

DEMO_SOURCE = Path(__file__).resolve().parents[2] / "resources" / "demo" / "home"

Run = Callable[..., Any]


@pytest.fixture(autouse=True)
def isolated_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Settings, cache, trash, config and demo copies under the test's temp folder."""
    root = tmp_path / "user"
    for name in ("settings", "cache", "trash", "config", "home"):
        (root / name).mkdir(parents=True)
    QCoreApplication.setOrganizationName(ORG_NAME)
    QCoreApplication.setApplicationName(APP_NAME)
    use_settings_dir(root / "settings")
    monkeypatch.setenv("RHO_DESK_CACHE_DIR", str(root / "cache"))
    monkeypatch.setenv("RHO_DESK_TRASH_DIR", str(root / "trash"))
    monkeypatch.setenv("RHO_DESK_CONFIG_DIR", str(root / "config"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(root / "cache"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(root / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(root / "data"))
    monkeypatch.setenv("HOME", str(root / "home"))
    monkeypatch.delenv("RHO_HOME", raising=False)
    return root


@pytest.fixture(autouse=True)
def collect_garbage_here() -> Iterator[None]:
    """Collect each test's cyclic garbage on the GUI thread.

    Otherwise a later collection may run in a worker thread and destroy a parentless QObject
    there ("Timers cannot be stopped from another thread").
    """
    yield
    gc.collect()


class TestLoop(qasync.QEventLoop):  # type: ignore[misc]
    """qasync's loop, driven one ``run_until_complete`` at a time without qasync's last pass.

    qasync's ``run_until_complete`` processes Qt's events once more after the loop has stopped,
    when asyncio no longer counts the loop as running: a task resumed there (a worker's result
    that arrived just then) fails at its next thread hop with "no running event loop". The app
    runs its loop once, to the end; the tests run it many times, so they would meet it, under
    load. Here the events left over wait for the next run instead.
    """

    def run_until_complete(self, future: Any) -> Any:
        task = asyncio.ensure_future(future, loop=self)
        task.add_done_callback(lambda _t: self.stop())
        self.run_forever()
        if not task.done():
            raise RuntimeError("the loop stopped before the work completed")
        return task.result()


@pytest.fixture
def qloop(qapp: QApplication) -> Iterator[qasync.QEventLoop]:
    """A qasync event loop over the test's QApplication (closed afterwards)."""
    loop = TestLoop(qapp, already_running=False)
    asyncio.set_event_loop(loop)
    restore_hooks = install_asyncgen_hooks(loop)
    try:
        yield loop
    finally:
        if not loop.is_closed():
            with contextlib.suppress(RuntimeError):
                loop.run_until_complete(loop.shutdown_asyncgens())
            loop.close()
        asyncio.set_event_loop(None)
        restore_hooks()


@pytest.fixture
def run(qloop: qasync.QEventLoop) -> Run:
    """``run(coro, timeout=20)``: drive ``coro`` to completion on the qasync loop."""

    def run(coro: Coroutine[Any, Any, Any], timeout: float = 20.0) -> Any:
        return qloop.run_until_complete(asyncio.wait_for(coro, timeout))

    return run


async def settle(bridge: Any, rounds: int = 3) -> None:
    """Wait until the bridge is idle, a few times over (work that starts follow-up work)."""
    for _ in range(rounds):
        await bridge.wait_idle()
        await asyncio.sleep(0.01)


@pytest.fixture
def demo_home(tmp_path: Path) -> Path:
    """A private copy of the bundled demo library, with Rho's index built as a copy for use builds it."""
    from rho_desk.core.stores.demo import index_demo

    target = tmp_path / "demo-home"
    shutil.copytree(DEMO_SOURCE, target)
    index_demo(target)
    return target


_APP_GLOBAL = {"QTipLabel"}
"""Top-level widgets Qt keeps for the whole application (the shared tooltip)."""


def _top_levels() -> set[int]:
    return {id(w) for w in QApplication.topLevelWidgets()}


@pytest.fixture
def make_window(
    qapp: QApplication, run: Run, isolated_dirs: Path
) -> Iterator[Callable[..., AppContext]]:
    """Build the app (``make_window(plan=..., start=True)``); shut down and leak-check afterwards."""
    made: list[AppContext] = []
    before = _top_levels()

    def factory(
        plan: StartPlan | None = None,
        *,
        home: Path | None = None,
        open_file: Path | None = None,
        demo: bool = False,
        start: bool = True,
        show: bool = True,
    ) -> AppContext:
        plan = plan or StartPlan(home, open_file, demo)
        context = build_context(plan, show=show, install_hooks=False)
        made.append(context)
        if start:
            run(_start(context))
        return context

    yield factory
    for context in made:
        run(context.ashutdown())
        window = context.window
        window.finish_close()
        window.deleteLater()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    leaked = [
        w
        for w in QApplication.topLevelWidgets()
        if id(w) not in before and w.metaObject().className() not in _APP_GLOBAL
    ]
    assert leaked == [], f"top-level widgets left behind: {leaked}"


async def _start(context: AppContext) -> None:
    await context.astart()
    await settle(context.bridge)
