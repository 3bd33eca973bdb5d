"""The tool protocol: what a tool declares, how the engine calls it, and what it returns.

A tool is offered to the model through its ``ToolSpec`` (name, description, JSON Schema of its
arguments). When the model calls it, the engine first *prepares* the call (all calls of a batch
concurrently), then *executes* the prepared calls in model order under a concurrency plan:
exclusive calls run alone, resource-aware calls overlap unless their resources conflict, and at
most ``max_parallel_tools`` run at once (spec/engine.md §8.6, §15.2).

Only ``ToolOutput.content`` (or the ``ToolError`` message) reaches the session history; the
metadata is presentation only. A tool that raises anything other than ``ToolError`` is reported
to the model as an ``Execution`` failure naming the exception type.

Out of scope in this port (kept out of the protocol on purpose): workspace authority, approval
policies, tool security declarations, hooks, and host-input requests from tools.
"""

from __future__ import annotations

import abc
import enum
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import Any

import msgspec

from ..cancellation import CancellationToken
from ..errors import KnownError
from ..wire.model import Message, ToolSpec

__all__ = [
    "EXCLUSIVE_ACCESS",
    "PreparedCall",
    "Tool",
    "ToolAccess",
    "ToolContext",
    "ToolError",
    "ToolErrorKind",
    "ToolInvocation",
    "ToolOutput",
    "ToolProgress",
]

_EMPTY: Mapping[str, Any] = MappingProxyType({})


def _no_metadata() -> Mapping[str, Any]:
    return _EMPTY


class ToolErrorKind(enum.Enum):
    """Why a tool call failed (upstream ``ToolErrorKind``)."""

    INVALID_ARGUMENTS = "InvalidArguments"
    """The arguments do not fit the tool's schema or meaning."""
    EXECUTION = "Execution"
    """The tool ran and failed (I/O error, non-zero exit, exception...)."""
    POLICY_DENIED = "PolicyDenied"
    """A policy refused the call (not produced by this port's engine)."""
    CANCELLED = "Cancelled"
    """The call observed cancellation; the engine records it as interrupted."""


class ToolError(KnownError):
    """A tool-reported failure. The engine turns it into ``ToolResult(ok=False, content=message)``.

    Args:
        kind: the failure class.
        message: the text the model sees as the tool result; it must hold no secret.
    """

    def __init__(self, kind: ToolErrorKind, message: str) -> None:
        self.kind = kind
        self.message = message
        super().__init__(message)

    @classmethod
    def cancelled(cls) -> ToolError:
        """The error a tool returns when it stops because its token fired."""
        return cls(ToolErrorKind.CANCELLED, "tool call cancelled")

    @classmethod
    def execution(cls, message: str) -> ToolError:
        return cls(ToolErrorKind.EXECUTION, message)

    @classmethod
    def invalid_arguments(cls, message: str) -> ToolError:
        return cls(ToolErrorKind.INVALID_ARGUMENTS, message)

    def __repr__(self) -> str:
        return f"ToolError({self.kind.value}, {self.message!r})"


class ToolOutput(msgspec.Struct, frozen=True):
    """A successful tool result: ``content`` goes into history, ``metadata`` only to the host."""

    content: str
    metadata: Mapping[str, Any] = msgspec.field(default_factory=_no_metadata)


class ToolProgress(msgspec.Struct, frozen=True):
    """One progress report of a running tool (shown live, never persisted)."""

    message: str
    completed: int | None = None
    """Units done so far, if the tool counts them."""
    total: int | None = None
    """Units expected in all, if known."""
    metadata: Mapping[str, Any] = msgspec.field(default_factory=_no_metadata)


class ToolInvocation(msgspec.Struct, frozen=True):
    """One call of a tool, as the model (or the host) made it."""

    call_id: str
    name: str
    arguments: Any
    """The call's JSON arguments (an object once protocol validation passed); read-only."""


class ToolAccess(msgspec.Struct, frozen=True):
    """How a prepared call may overlap with the others of its batch.

    ``exclusive`` calls serialize against every other call. Resource-aware calls run in
    parallel unless one writes a resource the other reads or writes.
    """

    exclusive: bool = True
    reads: frozenset[str] = frozenset()
    writes: frozenset[str] = frozenset()

    @classmethod
    def resources(cls, *, reads: Iterable[str] = (), writes: Iterable[str] = ()) -> ToolAccess:
        """Resource-aware access: overlaps with calls on other resources, or readers of the same."""
        return cls(False, frozenset(reads), frozenset(writes))

    def conflicts_with(self, other: ToolAccess) -> bool:
        if self.exclusive or other.exclusive:
            return True
        return bool(
            self.writes & (other.reads | other.writes) or other.writes & (self.reads | self.writes)
        )


EXCLUSIVE_ACCESS = ToolAccess()
"""The default access: the call runs alone."""


class ToolContext:
    """What a running tool may use: the run's cancellation token and a progress channel.

    The engine builds one per call. ``report`` applies the run's event backpressure; when the
    run is cancelled while a report waits, it raises ``Cancelled`` (let it propagate).
    """

    __slots__ = ("_live_history", "_report", "call_id", "cancellation", "run_id", "session_id")

    def __init__(
        self,
        *,
        call_id: str,
        cancellation: CancellationToken,
        session_id: str,
        run_id: str,
        report: Callable[[ToolProgress], Awaitable[None]] | None = None,
        live_history: Callable[[], Sequence[Message]] | None = None,
    ) -> None:
        self.call_id = call_id
        self.cancellation = cancellation
        self.session_id = session_id
        self.run_id = run_id
        self._report = report
        self._live_history = live_history

    async def report(self, progress: ToolProgress | str) -> None:
        """Send a progress update (``ToolUpdated`` event). Backpressure applies."""
        if isinstance(progress, str):
            progress = ToolProgress(progress)
        if self._report is not None:
            await self._report(progress)

    def live_history(self) -> tuple[Message, ...]:
        """The run's working history (only for tools with ``reads_live_history``)."""
        return tuple(self._live_history()) if self._live_history is not None else ()

    def __repr__(self) -> str:
        return f"ToolContext(call_id={self.call_id!r}, run_id={self.run_id!r})"


class PreparedCall(msgspec.Struct, frozen=True):
    """A call ready to execute: its access mode, presentation metadata, and the execution."""

    access: ToolAccess
    execute: Callable[[ToolContext], Awaitable[ToolOutput]]
    metadata: Mapping[str, Any] = msgspec.field(default_factory=_no_metadata)
    """Shown in ``ToolStarted``; presentation only."""


class Tool(abc.ABC):
    """A tool the model can call. Implement ``spec`` and ``call`` (or ``prepare``).

    The engine always enters through ``prepare``; the default wraps ``call`` as an exclusive
    invocation with ``start_metadata``. Override ``prepare`` to validate arguments up front
    (raise ``ToolError``) or to declare resource-aware access.
    """

    reads_live_history: bool = False
    """True if the tool reads the run's in-flight history (``ToolContext.live_history``)."""

    @abc.abstractmethod
    def spec(self) -> ToolSpec:
        """Name, description and argument schema, as offered to the model."""

    def start_metadata(self, arguments: Any) -> Mapping[str, Any]:
        """Presentation metadata for ``ToolStarted``; must have no side effects."""
        return _EMPTY

    async def prepare(self, invocation: ToolInvocation, context: ToolContext) -> PreparedCall:
        """Prepare one call (all calls of a batch are prepared concurrently).

        Raises:
            ToolError: the call cannot run; it fails without executing.
        """
        return PreparedCall(
            EXCLUSIVE_ACCESS,
            lambda ctx: self.call(invocation, ctx),
            self.start_metadata(invocation.arguments),
        )

    async def call(self, invocation: ToolInvocation, context: ToolContext) -> ToolOutput:
        """Run the call and return its output.

        Raises:
            ToolError: the tool failed; the model sees the message as a failed result.
        """
        name = invocation.name
        raise ToolError.execution(
            f"tool '{name}' implements neither Tool.call nor Tool.prepare; it must implement one of them"
        )

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.spec().name!r})"
