"""The bounded run-event channel between a run's worker and its host, with upstream's send rules.

One consumer (the ``Run`` handle), any number of producers inside the run (the step loop, the
provider stream, concurrent tool calls). A send applies backpressure when the buffer holds
``capacity`` events. A non-terminal send races the run's cancellation token, preferring the
send when both are ready; it fails with ``Cancelled`` when the token fires while it waits, and
with ``Interrupted`` once the consumer has gone (spec/engine.md §8.1). Terminal sends wait for
room without racing the token, and a failure to deliver them is ignored.

Hand-written rather than ``asyncio.Queue`` because a waiting send must wake on any of three
things (room, cancellation, consumer gone) without a task per send; the fast paths
(``try_send`` and ``recv`` with a non-empty buffer) never suspend.
"""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Final

from ..cancellation import CancellationToken
from ..errors import Cancelled, Interrupted

__all__ = ["END", "EventChannel"]


class _End:
    __slots__ = ()

    def __repr__(self) -> str:
        return "END"


END: Final = _End()
"""What ``recv`` returns once the producer side is closed and the buffer is empty."""

CONSUMER_GONE: Final = "run event consumer was dropped"


class EventChannel:
    __slots__ = ("_buffer", "_capacity", "_getter", "_receiver_closed", "_sender_closed", "_space")

    def __init__(self, capacity: int) -> None:
        self._buffer: deque[object] = deque()
        self._capacity = capacity
        self._getter: asyncio.Future[None] | None = None
        self._space: asyncio.Future[None] | None = None
        self._sender_closed = False
        self._receiver_closed = False

    # -- producer side --------------------------------------------------------------------

    def try_send(self, item: object) -> bool:
        """Append ``item`` if there is room (the fast path); False if a send would wait."""
        if len(self._buffer) < self._capacity and not self._receiver_closed:
            self._buffer.append(item)
            getter = self._getter
            if getter is not None:
                self._getter = None
                if not getter.done():
                    getter.set_result(None)
            return True
        return False

    async def send(self, item: object, token: CancellationToken | None) -> None:
        """Deliver ``item``, waiting for room.

        Args:
            token: the run's token, raced against the wait; ``None`` for terminal events.

        Raises:
            Cancelled: the token fired while waiting for room.
            Interrupted: the consumer is gone.
        """
        while True:
            if self._receiver_closed:
                raise Interrupted(CONSUMER_GONE)
            if self.try_send(item):
                return
            if token is not None and token.cancelled:
                raise Cancelled()
            space = self._space
            if space is None or space.done():
                space = self._space = asyncio.get_running_loop().create_future()
            remove = token.add_callback(lambda: self._wake_space()) if token is not None else None
            try:
                await space
            finally:
                if remove is not None:
                    remove()

    def close_sender(self) -> None:
        """No more events; the consumer sees ``END`` after the buffered ones."""
        self._sender_closed = True
        getter, self._getter = self._getter, None
        if getter is not None and not getter.done():
            getter.set_result(None)

    # -- consumer side --------------------------------------------------------------------

    async def recv(self) -> object:
        """The next event, or ``END``."""
        while True:
            buffer = self._buffer
            if buffer:
                item = buffer.popleft()
                if self._space is not None:
                    self._wake_space()
                return item
            if self._sender_closed or self._receiver_closed:
                return END
            getter = self._getter
            if getter is None or getter.done():
                getter = self._getter = asyncio.get_running_loop().create_future()
            await getter

    def close_receiver(self) -> None:
        """The consumer is gone: drop buffered events, fail waiting and future sends."""
        self._receiver_closed = True
        self._buffer.clear()
        self._wake_space()
        getter, self._getter = self._getter, None
        if getter is not None and not getter.done():
            getter.set_result(None)

    @property
    def closed(self) -> bool:
        return self._sender_closed or self._receiver_closed

    def __len__(self) -> int:
        return len(self._buffer)

    def _wake_space(self) -> None:
        space, self._space = self._space, None
        if space is not None and not space.done():
            space.set_result(None)
