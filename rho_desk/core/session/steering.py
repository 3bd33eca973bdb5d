"""Steering: user input sent to a running run, staged and applied at the run's safe points.

Accepted steering is staged as ``User`` messages in acceptance order. The run applies all
staged entries at the start of every step and after every tool batch (emitting
``SteeringApplied`` first); a staged entry can be retracted until then (spec/engine.md §8.7).

Commands (steer, retract) travel through a bounded queue, like upstream's command channel.
The run reads them only at defined points: live while a provider call streams or a tool batch
runs, and in the non-blocking drains at the start of a step and after each response. A command
still queued when the run ends is answered with ``run completed before ...``.
"""

from __future__ import annotations

import asyncio
import enum
from collections import deque
from collections.abc import Callable
from typing import NewType

import msgspec

from ..errors import InvalidHostResponse
from ..wire.ids import new_id
from ..wire.model import ContentBlock, Message

__all__ = [
    "Command",
    "CommandKind",
    "CommandQueue",
    "SteeringId",
    "SteeringQueue",
    "SteeringRetraction",
]

SteeringId = NewType("SteeringId", str)


class SteeringRetraction(enum.Enum):
    """What a retraction request found."""

    RETRACTED = "Retracted"
    """The entry was staged and is now removed: it will never reach the model."""
    ALREADY_APPLIED = "AlreadyApplied"
    """Too late: the entry is already part of the run's history."""
    NOT_FOUND = "NotFound"
    """No entry with that id was accepted by this run."""


class _Staged(msgspec.Struct):
    id: SteeringId
    message: Message


class SteeringQueue:
    """The run-side state: staged entries and the ids already applied."""

    __slots__ = ("applied", "staged")

    def __init__(self) -> None:
        self.staged: list[_Staged] = []
        self.applied: set[str] = set()

    def accept(self, blocks: tuple[ContentBlock, ...]) -> SteeringId:
        steering_id = SteeringId(new_id())
        self.staged.append(_Staged(steering_id, Message(user=blocks)))
        return steering_id

    def retract(self, steering_id: str) -> SteeringRetraction:
        for i, entry in enumerate(self.staged):
            if entry.id == steering_id:
                del self.staged[i]
                return SteeringRetraction.RETRACTED
        if steering_id in self.applied:
            return SteeringRetraction.ALREADY_APPLIED
        return SteeringRetraction.NOT_FOUND

    def take(self) -> list[_Staged]:
        """Hand over every staged entry and mark it applied (call after ``SteeringApplied``)."""
        entries, self.staged = self.staged, []
        self.applied.update(e.id for e in entries)
        return entries


class CommandKind(enum.Enum):
    STEER = "steer"
    RETRACT = "retract"


# Upstream's error texts (spec/engine.md §8.1), by command kind.
_NO_LONGER = {
    CommandKind.STEER: "run no longer accepts steering input",
    CommandKind.RETRACT: "run no longer accepts steering retractions",
}
_CANNOT_QUEUE = {
    CommandKind.STEER: "run cannot queue steering input: {reason}",
    CommandKind.RETRACT: "run cannot queue steering retraction: {reason}",
}
_ENDED = {
    CommandKind.STEER: "run completed before accepting steering input",
    CommandKind.RETRACT: "run completed before processing steering retraction",
}


class Command(msgspec.Struct):
    kind: CommandKind
    payload: object
    reply: asyncio.Future[object]


class CommandQueue:
    """Host → run commands. Bounded; handled live or at the next drain point; closed at the end.

    While the run has a live handler set (provider streaming, tool batches), a command is
    handled the moment it arrives; otherwise it waits for the run's next drain.
    """

    __slots__ = ("_capacity", "_closed", "_handler", "_pending", "_space")

    def __init__(self, capacity: int) -> None:
        self._capacity = capacity
        self._pending: deque[Command] = deque()
        self._handler: Callable[[Command], None] | None = None
        self._closed = False
        self._space: asyncio.Future[None] | None = None

    # -- host side ------------------------------------------------------------------------

    def request(self, kind: CommandKind, payload: object) -> asyncio.Future[object]:
        """Queue a command without waiting; the future resolves when the run handles it.

        Raises:
            InvalidHostResponse: the run has ended, or the queue is full.
        """
        if self._closed:
            raise InvalidHostResponse(_NO_LONGER[kind])
        if len(self._pending) >= self._capacity:
            raise InvalidHostResponse(
                _CANNOT_QUEUE[kind].format(reason="the command queue is full")
            )
        reply: asyncio.Future[object] = asyncio.get_running_loop().create_future()
        command = Command(kind, payload, reply)
        if self._handler is not None:
            self._handler(command)
        else:
            self._pending.append(command)
        return reply

    async def send(self, kind: CommandKind, payload: object) -> object:
        """Queue a command (waiting for room if the queue is full) and await the run's answer."""
        while not self._closed and len(self._pending) >= self._capacity:
            if self._space is None or self._space.done():
                self._space = asyncio.get_running_loop().create_future()
            await self._space
        return await self.request(kind, payload)

    # -- run side -------------------------------------------------------------------------

    def set_live(self, handler: Callable[[Command], None] | None) -> None:
        """While ``handler`` is set, commands are handled the moment they arrive."""
        self._handler = handler
        if handler is not None:
            self.drain(handler)

    def drain(self, handler: Callable[[Command], None]) -> None:
        while self._pending:
            handler(self._pending.popleft())
        self._wake()

    def close(self) -> None:
        """No more commands; every queued one fails with ``run completed before ...``."""
        self._closed = True
        self._handler = None
        while self._pending:
            command = self._pending.popleft()
            if not command.reply.done():
                command.reply.set_exception(InvalidHostResponse(_ENDED[command.kind]))
        self._wake()

    def _wake(self) -> None:
        space, self._space = self._space, None
        if space is not None and not space.done():
            space.set_result(None)
