"""Cooperative cancellation tokens, shared by every holder of a run or compaction.

Cancelling is idempotent and never undone. Holders poll ``cancelled``, await ``wait()``, or
register a callback. Dropping a reference never cancels. Tokens belong to one event loop thread;
from another thread, cancel through ``loop.call_soon_threadsafe(token.cancel)``.

Work that must stop when a token fires is awaited through :func:`race`, the one place that
decides who won (the engine's compaction and retry sleeps, the providers' requests, the
summarizing compactor, the app's threaded compaction preview).
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
from collections.abc import Awaitable, Callable
from typing import TypeVar

from .errors import Cancelled

__all__ = ["CancellationToken", "race"]

T = TypeVar("T")


class CancellationToken:
    __slots__ = ("_callbacks", "_cancelled")

    def __init__(self) -> None:
        self._cancelled = False
        self._callbacks: list[Callable[[], object]] = []

    @property
    def cancelled(self) -> bool:
        return self._cancelled

    def cancel(self) -> None:
        if self._cancelled:
            return
        self._cancelled = True
        callbacks, self._callbacks = self._callbacks, []
        for callback in callbacks:
            callback()

    def add_callback(self, callback: Callable[[], object]) -> Callable[[], None]:
        """Call ``callback`` once on cancellation (at once if already cancelled).

        Returns a function that unregisters it.
        """
        if self._cancelled:
            callback()
            return lambda: None
        self._callbacks.append(callback)

        def remove() -> None:
            with contextlib.suppress(ValueError):
                self._callbacks.remove(callback)

        return remove

    async def wait(self) -> None:
        """Return once the token is cancelled."""
        if self._cancelled:
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        def wake() -> None:
            if not future.done():
                future.set_result(None)

        remove = self.add_callback(wake)
        try:
            await future
        finally:
            remove()

    def raise_if_cancelled(self) -> None:
        if self._cancelled:
            raise Cancelled()

    def __repr__(self) -> str:
        return f"CancellationToken(cancelled={self._cancelled})"


async def race(work: Awaitable[T], token: CancellationToken) -> T:
    """Await ``work`` unless ``token`` fires first. The result, in every case:

    * **The token had fired before the call**: ``work`` never starts (a coroutine is closed, a
      future cancelled); raises :class:`~rho_desk.core.errors.Cancelled`.
    * **The work ended before the token fired**: its own outcome, the value or the exception it
      raised. A value that is ready is never thrown away, even if the token fires right after.
    * **The token fired while the work ran**: the work is cancelled and awaited until it has
      wound down (its ``finally`` and ``async with`` blocks ran, so a stream or a response is
      closed; a worker thread behind it runs to its end and its result is dropped); then raises
      ``Cancelled``. Whatever the work raised while winding down (``CancelledError``, a
      provider's "interrupted" error) is a consequence of the cancellation and is not reported.
    * **The caller's own task is cancelled**: the work is cancelled and awaited too, and
      ``asyncio.CancelledError`` propagates (the caller is being torn down; no ``Cancelled``).

    Callers that speak another vocabulary translate ``Cancelled`` at the call site (the HTTP
    providers raise ``ProviderError.interrupted``).
    """
    if token.cancelled:
        _discard(work)
        raise Cancelled()
    task = asyncio.ensure_future(work)
    stopped = False

    def stop() -> None:
        nonlocal stopped
        if not task.done():
            stopped = True
            task.cancel()

    remove = token.add_callback(stop)
    try:
        result = await task
    except asyncio.CancelledError:
        if stopped and not _caller_cancelled():
            raise Cancelled() from None
        raise
    except Exception:
        if stopped:
            raise Cancelled() from None
        raise
    finally:
        remove()
        if not task.done():  # the caller was cancelled while the work ran
            task.cancel()
    if stopped:  # the work swallowed its cancellation and returned anyway
        raise Cancelled()
    return result


def _caller_cancelled() -> bool:
    current = asyncio.current_task()
    return current is not None and current.cancelling() > 0


def _discard(work: Awaitable[object]) -> None:
    if inspect.iscoroutine(work):
        work.close()
    elif isinstance(work, asyncio.Future):
        work.cancel()
