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

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.caught: list[dict[str, Any]] = []
        """What the loop's callbacks raised (the ``qloop`` fixture fails the test on any)."""

    def run_until_complete(self, future: Any) -> Any:
        task = asyncio.ensure_future(future, loop=self)
        task.add_done_callback(lambda _t: self.stop())
        self.run_forever()
        if not task.done():
            raise RuntimeError("the loop stopped before the work completed")
        return task.result()


@pytest.fixture
def qloop(qapp: QApplication) -> Iterator[qasync.QEventLoop]:
    """A qasync event loop over the test's QApplication (closed afterwards).

    An exception in one of the loop's callbacks (a task's done callback starting work on a
    closed bridge, say) fails the test: asyncio would only log it, and pytest-qt sees only what
    Qt's own slots raise.
    """
    loop = TestLoop(qapp, already_running=False)
    asyncio.set_event_loop(loop)
    restore_hooks = install_asyncgen_hooks(loop)
    loop.set_exception_handler(lambda _loop, context: loop.caught.append(context))
    try:
        yield loop
        if loop.caught:
            raised = [f"{c.get('message')}: {c.get('exception')!r}" for c in loop.caught]
            pytest.fail(f"the loop's callbacks raised: {raised}")
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


# -- waiting for a condition, on the loop ------------------------------------------------------
#
# pytest-qt's ``qtbot.waitUntil`` and ``qtbot.waitSignal`` spin Qt's event loop outside asyncio's:
# qasync runs the loop's callbacks as Qt timer events, so a task resumed there meets "no running
# event loop" at its next ``await asyncio.sleep`` or thread hop (and its result is lost). The
# waits below do the same jobs from inside the loop: ``run(until(lambda: ...))`` polls between
# the loop's own turns, ``run(emitted(signal, action))`` resolves on the signal.

POLL = 0.005
"""Seconds between two looks at a condition (pytest-qt's waitUntil looks every 10 ms)."""


async def until(predicate: Callable[[], object], timeout: float = 20.0) -> None:
    """Wait until ``predicate()`` holds (``qtbot.waitUntil`` on the qasync loop).

    Raises:
        AssertionError: it did not hold within ``timeout`` seconds (named by its source line).
    """
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        if loop.time() > deadline:
            code = getattr(predicate, "__code__", None)
            where = f"{Path(code.co_filename).name}:{code.co_firstlineno}" if code else predicate
            raise AssertionError(f"condition at {where} not reached in {timeout} s")
        await asyncio.sleep(POLL)


async def emitted(
    signal: Any, action: Callable[[], object] | None = None, timeout: float = 10.0
) -> tuple[Any, ...]:
    """Connect to ``signal``, call ``action()`` and wait for the signal's next emission; its
    arguments (``qtbot.waitSignal`` on the qasync loop)."""
    got: asyncio.Future[tuple[Any, ...]] = asyncio.get_running_loop().create_future()

    def receive(*args: Any) -> None:
        if not got.done():
            got.set_result(args)

    signal.connect(receive)
    try:
        if action is not None:
            action()
        return await asyncio.wait_for(got, timeout)
    finally:
        signal.disconnect(receive)


async def moved(document: Any, action: Callable[[], object], timeout: float = 10.0) -> None:
    """Call ``action()`` (an undo, a redo, a save...) and wait until the open document's active
    revision is another one."""
    before = document.tree.active_leaf.id
    action()
    await until(lambda: document.tree.active_leaf.id != before, timeout)


async def laid_out() -> None:
    """Run every pending layout pass (a resized dialog's columns, a card's growth, the dock's
    new height): Qt posts them as events; this delivers them, a few times over for the passes
    that a pass posts."""
    for _ in range(3):
        QCoreApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)
        await asyncio.sleep(0)


async def idle(bridge: Any) -> None:
    """Wait until the bridge has no task left and the events its tasks posted started none.

    Two uses, where no one condition says the work is done: the app's start (``make_window``:
    what each test checks next differs), and a test that next checks that something did *not*
    happen (no write, no question, no request), where nothing becomes true to wait for. It waits
    for the work the action set off to run out, never for time. Everything else waits for what
    it then checks (:func:`until`, :func:`emitted`).
    """
    while True:
        await bridge.wait_idle()
        for _ in range(3):  # let the finished tasks' callbacks and posted events run
            await asyncio.sleep(0)
        if not bridge.busy:
            return


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
    await idle(context.bridge)
