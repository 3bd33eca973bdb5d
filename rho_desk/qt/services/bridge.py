"""The async bridge: owns every task the UI starts, runs blocking work off the GUI thread.

Widgets never call ``asyncio.create_task`` themselves. They ask the :class:`EngineBridge` to
``run`` a coroutine (or ``run_in_thread`` a blocking function). The bridge keeps a reference to
every task, sends every failure to the notifier (``Cancelled`` silently), calls the optional
``on_success``/``on_error`` callbacks on the GUI thread, and fans each operation's
:class:`~rho_desk.qt.services.outcomes.OpChanges` out once as ``sig_operation_finished(changes, initiator)``
(style.md practices 3 and 5). On close, :meth:`EngineBridge.aclose` cancels everything still
running and awaits it, so no task outlives the window ("Task was destroyed but it is pending",
qasync #59), and stops every timer made by :meth:`EngineBridge.timer`, so no timer starts work
after it. Nothing here ever spins a nested event loop.

The concurrency rule of the desktop app
---------------------------------------
One GUI thread runs the Qt event loop and the asyncio loop (qasync); every widget, signal and
model lives there. Work leaves it in exactly one way:

* **How work leaves the GUI thread.** Blocking calls (file reads, SQLite, fsync, keyring, a
  big layout) run in a worker thread through :func:`in_thread` (inside a bridge task) or
  :meth:`EngineBridge.run_in_thread` (as a task of its own). Nothing in ``rho_desk/qt`` calls
  ``asyncio.to_thread`` or starts a thread itself (``tests/qt/test_bridge.py`` checks it). A
  worker never touches a widget; its result comes back to the GUI thread as the awaited value.
* **What each lock guards.** Three locks, each for one thing, always taken in this order:

  1. :meth:`EngineBridge.exclusive` (an ``asyncio.Lock``, held on the GUI thread across
     awaits): the files. Every operation that writes a session file, Rho's index or the
     library's cache runs inside it, so two writes never interleave.
  2. ``SessionDocument.tree_lock`` (a ``threading.RLock``): the open file's revision tree and
     its shared history cache. A worker that reads revisions or adds a node holds it for the
     whole call; the GUI thread holds it while it applies appended records.
  3. The session library's own lock (inside ``core.stores.library``): its SQLite cache. Taken
     only inside library calls, never held while calling out.

  A worker takes the tree lock through the document, never by passing the lock object around
  by hand, and never awaits while holding a ``threading`` lock.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import threading
import weakref
from collections.abc import AsyncIterator, Callable, Coroutine
from typing import Any, TypeVar, cast

from PySide6.QtCore import QObject, QTimer, Signal

from ...core.errors import BugError
from .messages import Notifier
from .outcomes import OpChanges, op_changes_of

__all__ = ["BridgeClosed", "EngineBridge", "in_thread"]

T = TypeVar("T")


async def in_thread(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """Await the blocking ``fn(*args, **kwargs)`` in a worker thread: the app's one thread hop.

    Called from a coroutine on the GUI thread's loop (a bridge task). The worker must not touch
    widgets, and takes ``SessionDocument.tree_lock`` if it reads or changes the revision tree.

    Raises:
        BugError: called from a worker thread (a hop from a hop would hide which thread owns what).
    """
    if _worker.active:
        raise BugError("in_thread() called from a worker thread; workers run their calls directly")
    return await asyncio.to_thread(_as_worker, fn, args, kwargs)


class _WorkerFlag(threading.local):
    active = False


_worker = _WorkerFlag()


def _as_worker(fn: Callable[..., T], args: tuple[Any, ...], kwargs: dict[str, Any]) -> T:
    _worker.active = True
    try:
        return fn(*args, **kwargs)
    finally:
        _worker.active = False


class BridgeClosed(BugError):
    """Work was submitted after the bridge shut down (a widget outlived the window)."""


class EngineBridge(QObject):
    """Owns the UI's tasks; reports their outcome.

    Signals:
        sig_operation_finished(OpChanges, object): an operation finished and changed something;
            the second argument is its initiator (the view or action that asked, or ``None``).
        sig_busy_changed(bool): whether any task is running.

    Args:
        notifier: where failures go.
    """

    sig_operation_finished = Signal(object, object)
    """``(changes, initiator)`` after a successful operation whose result carried Changes."""
    sig_busy_changed = Signal(bool)
    """True when the first task starts, False when the last one ends."""

    def __init__(self, notifier: Notifier, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.notifier = notifier
        self._tasks: set[asyncio.Task[Any]] = set()
        self._lock: asyncio.Lock | None = None
        self._closed = False
        self._loop: asyncio.AbstractEventLoop | None = None
        """The event loop :meth:`aclose` ran in (where work refused after it is cancelled)."""
        self._timers: weakref.WeakSet[QTimer] = weakref.WeakSet()

    def timer(
        self,
        parent: QObject,
        interval_ms: int,
        slot: Callable[[], object],
        *,
        single_shot: bool = True,
    ) -> QTimer:
        """A timer owned by ``parent`` that calls ``slot``, stopped (for good) when the bridge closes.

        Every timer whose slot submits work to the bridge is made here: a timer still pending when
        the window closes would otherwise start work on a closed bridge.
        """
        timer = QTimer(parent)
        timer.setSingleShot(single_shot)
        timer.setInterval(interval_ms)
        timer.timeout.connect(lambda: None if self._closed else slot())
        self._timers.add(timer)
        return timer

    # -- submitting work ---------------------------------------------------------------------

    def run(
        self,
        coro: Coroutine[Any, Any, T],
        *,
        on_success: Callable[[T], object] | None = None,
        on_error: Callable[[BaseException], object] | None = None,
        initiator: object = None,
        context: str | None = None,
    ) -> asyncio.Task[T]:
        """Run ``coro`` as a task the bridge owns.

        Args:
            on_success: called with the result (on the GUI thread) when it succeeds.
            on_error: called with the exception instead of the notifier (cancellation is
                never reported).
            initiator: passed along with the operation's OpChanges, so a view can tell its own
                operations from others'.
            context: prefix for the notice if it fails, e.g. "Opening session.jsonl".

        Once the bridge is closed, ``coro`` is closed without running and the task returned is
        already cancelled: while the window closes, Qt still delivers paints, resizes, timers and
        signals whose slots submit work, and that work is dropped as if close had cancelled it.

        Raises:
            BridgeClosed: work submitted to a bridge closed outside its event loop (a bug).
        """
        if self._closed:
            coro.close()
            if self._loop is None:
                raise BridgeClosed("the bridge is closed; no new work is accepted")
            refused: asyncio.Future[T] = self._loop.create_future()
            refused.cancel()
            return cast("asyncio.Task[T]", refused)
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        if len(self._tasks) == 1:
            self.sig_busy_changed.emit(True)
        task.add_done_callback(
            functools.partial(
                self._on_task_done,
                on_success=on_success,
                on_error=on_error,
                initiator=initiator,
                context=context,
            )
        )
        return task

    def run_in_thread(
        self,
        fn: Callable[..., T],
        *args: Any,
        on_success: Callable[[T], object] | None = None,
        on_error: Callable[[BaseException], object] | None = None,
        initiator: object = None,
        context: str | None = None,
    ) -> asyncio.Task[T]:
        """Run the blocking ``fn(*args)`` in a worker thread (:func:`in_thread`) as a task."""
        return self.run(
            in_thread(fn, *args),
            on_success=on_success,
            on_error=on_error,
            initiator=initiator,
            context=context,
        )

    @contextlib.asynccontextmanager
    async def exclusive(self) -> AsyncIterator[None]:
        """Serialise work that mutates session files or the library (one at a time)."""
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            yield

    # -- state -------------------------------------------------------------------------------

    @property
    def busy(self) -> bool:
        return bool(self._tasks)

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def tasks(self) -> frozenset[asyncio.Task[Any]]:
        return frozenset(self._tasks)

    async def wait_idle(self) -> None:
        """Wait until no other task is running (tests, shutdown); a bridge task never waits for itself."""
        me = asyncio.current_task()
        while others := [t for t in self._tasks if t is not me]:
            await asyncio.gather(*others, return_exceptions=True)
            await asyncio.sleep(0)  # let done callbacks (which may start follow-ups) run

    async def aclose(self) -> None:
        """Refuse new work, cancel every running task and wait for all of them to end."""
        self._loop = asyncio.get_running_loop()
        self._closed = True
        for timer in list(self._timers):
            with contextlib.suppress(RuntimeError):  # its owner (and the timer) already deleted
                timer.stop()
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)
        await asyncio.sleep(0)

    # -- internals -----------------------------------------------------------------------------

    def _on_task_done(
        self,
        task: asyncio.Task[Any],
        *,
        on_success: Callable[[Any], object] | None,
        on_error: Callable[[BaseException], object] | None,
        initiator: object,
        context: str | None,
    ) -> None:
        self._tasks.discard(task)
        try:
            if task.cancelled():
                return
            exc = task.exception()
            if exc is not None:
                self._report(exc, on_error, context)
                return
            result = task.result()
            try:
                if on_success is not None:
                    on_success(result)
                changes = op_changes_of(result)
                if changes is not None:
                    self.emit_changes(changes, initiator)
            except Exception as callback_error:  # a bug in a UI callback: show it, keep going
                self.notifier.show_exception(callback_error, context=context)
        finally:
            if not self._tasks:
                self.sig_busy_changed.emit(False)

    def _report(
        self,
        exc: BaseException,
        on_error: Callable[[BaseException], object] | None,
        context: str | None,
    ) -> None:
        if on_error is not None:
            try:
                on_error(exc)
                return
            except Exception as handler_error:
                exc = handler_error
        self.notifier.show_exception(exc, context=context)

    def emit_changes(self, changes: OpChanges, initiator: object = None) -> None:
        """Announce changes made outside a task (e.g. a live reload noticed by a timer).

        Once the bridge is closed nothing is announced: the views would answer with new work
        (a listing to reload) that a closed bridge refuses. A task that ignored its cancellation
        and finished during :meth:`aclose` ends there.
        """
        if changes.any and not self._closed:
            self.sig_operation_finished.emit(changes, initiator)
