"""Cooperative cancellation tokens, shared by every holder of a run or compaction.

Cancelling is idempotent and never undone. Holders poll ``cancelled``, await ``wait()``, or
register a callback. Dropping a reference never cancels. Tokens belong to one event loop thread;
from another thread, cancel through ``loop.call_soon_threadsafe(token.cancel)``.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable

from .errors import Cancelled

__all__ = ["CancellationToken"]


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
