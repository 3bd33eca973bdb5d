"""Sessions: one conversation's committed state and the operations on it.

A ``Session`` is a handle on a shared core; ``clone()`` gives another handle on the same core
(same history, revision, state and active-operation slot). At most one mutable operation (a run
or a manual compaction) is active at a time; a second one fails **at once** with
``SessionBusy`` (it never waits). Idle-only operations (``append_message``,
``replace_history``, ``reset``, ``replace_provider``, setters) also fail with ``SessionBusy``
while an operation is active. Read-only accessors never fail.

Revisions (spec/engine.md §7): every successful run commit, cancellation commit, automatic or
manual compaction, ``reset``, ``append_message`` and ``replace_history`` advances the revision
by exactly one. A fatal run error commits nothing (the seed's contract).

The engine never saves by itself: the host calls ``snapshot()`` and its ``SessionStore`` when
it chooses (rho-desk saves after every commit).

A session belongs to the event loop that runs it; ``start`` needs a running loop.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterable, Mapping

import msgspec

from ..cancellation import CancellationToken
from ..compaction.api import (
    CompactionOutcome,
    CompactionOutput,
    CompactionPolicy,
    CompactionRequest,
    Compactor,
)
from ..compaction.tokens import estimate_messages_tokens
from ..errors import EngineError, InvalidConfiguration, InvalidHostResponse
from ..provider import ModelProvider, ReasoningLevel, ServiceTier
from ..provider.handoff import HandoffReport, report_message_omissions
from ..wire.ids import check_id, new_id
from ..wire.model import Message, ToolCall
from ..wire.snapshot import CompactionState, SessionSnapshot
from . import events as ev
from .channel import EventChannel
from .config import Lifecycle, RuntimeConfig
from .run import Run, RunWorker
from .state import SessionCore, SessionState
from .steering import CommandQueue
from .user_input import UserInput, as_blocks

__all__ = ["Session", "SessionOptions"]

_POLICY_NEEDS_COMPACTOR = "automatic compaction policy requires a compactor"


def _new_session_id() -> str:
    return new_id()


class SessionOptions(msgspec.Struct, frozen=True):
    """How ``Rho.session`` opens a session.

    A new conversation needs nothing (fresh UUID v4 id, empty history, revision 0). To continue
    a saved one, use ``SessionOptions.from_snapshot``: it restores id, history, revision,
    compaction state, metadata and prompt-cache key, and does not insert the runtime's system
    prompt a second time.
    """

    id: str = msgspec.field(default_factory=_new_session_id)
    """Non-empty session id."""
    history: tuple[Message, ...] = ()
    revision: int = 0
    compaction: CompactionState = msgspec.field(default_factory=CompactionState.zero)
    metadata: Mapping[str, str] = msgspec.field(default_factory=dict)
    """Host metadata carried through snapshots untouched (no engine semantics)."""
    prompt_cache_key: str | None = None
    """Opaque, non-secret key forwarded on every provider request of the session."""
    apply_system_prompt: bool = True
    """Prepend the runtime's custom system prompt (if any) to ``history``."""

    def __post_init__(self) -> None:
        check_id(self.id)
        history: object = self.history  # a host may pass any sequence, whatever the annotation says
        if not isinstance(history, tuple):
            msgspec.structs.force_setattr(self, "history", tuple(self.history))
        if (
            isinstance(self.revision, bool)
            or not isinstance(self.revision, int)
            or self.revision < 0
        ):
            raise InvalidConfiguration("session revision must be a non-negative integer")

    @classmethod
    def from_snapshot(cls, snapshot: SessionSnapshot) -> SessionOptions:
        """Options that restore ``snapshot``. Its provider identity is not used: future turns run
        on the runtime's configured provider."""
        return cls(
            id=snapshot.session_id,
            history=snapshot.history,
            revision=snapshot.revision,
            compaction=snapshot.compaction,
            metadata=dict(snapshot.metadata),
            prompt_cache_key=snapshot.prompt_cache_key,
            apply_system_prompt=False,
        )


class Session:
    """A handle on one conversation (see the module docstring for the rules)."""

    __slots__ = ("_core",)

    def __init__(self, core: SessionCore) -> None:
        """Internal: sessions come from ``Rho.session``."""
        self._core = core

    @classmethod
    def _open(cls, config: RuntimeConfig, lifecycle: Lifecycle, options: SessionOptions) -> Session:
        lifecycle.check_open()
        history = options.history
        if options.apply_system_prompt and config.system_prompt is not None:
            history = (Message(system=config.system_prompt), *history)
        core = SessionCore(
            config=config,
            lifecycle=lifecycle,
            id=options.id,
            history=history,
            revision=options.revision,
            compaction=options.compaction,
            metadata=dict(options.metadata),
            prompt_cache_key=options.prompt_cache_key,
        )
        return cls(core)

    def clone(self) -> Session:
        """Another handle on the same session: shares state and the one-operation rule."""
        return Session(self._core)

    __copy__ = clone

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Session) and other._core is self._core

    def __hash__(self) -> int:
        return id(self._core)

    def __repr__(self) -> str:
        c = self._core
        return f"Session(id={c.id!r}, revision={c.revision}, messages={len(c.history)}, state={c.state.value})"

    # -- read-only ------------------------------------------------------------------------

    @property
    def id(self) -> str:
        return self._core.id

    @property
    def revision(self) -> int:
        return self._core.revision

    @property
    def history(self) -> tuple[Message, ...]:
        """The committed history (immutable; shared, never copied)."""
        return self._core.history

    @property
    def live_history(self) -> tuple[Message, ...]:
        """The in-flight history a run published for its tool batch, else the committed one."""
        live = self._core.live
        return live if live is not None else self._core.history

    @property
    def compaction_state(self) -> CompactionState:
        return self._core.compaction

    @property
    def metadata(self) -> Mapping[str, str]:
        return dict(self._core.metadata)

    @property
    def prompt_cache_key(self) -> str | None:
        return self._core.prompt_cache_key

    @property
    def state(self) -> SessionState:
        return self._core.state

    @property
    def is_running(self) -> bool:
        """True while a run or manual compaction holds the slot (including the delivery of a
        run's terminal event, so this can be true while ``state`` already reads Completed)."""
        return self._core.active is not None

    @property
    def provider(self) -> ModelProvider:
        return self._core.provider

    @property
    def reasoning_level(self) -> ReasoningLevel:
        return self._core.reasoning_level

    @property
    def service_tier(self) -> ServiceTier | None:
        return self._core.service_tier

    @property
    def compactor(self) -> Compactor | None:
        return self._core.compactor

    @property
    def compaction_policy(self) -> CompactionPolicy | None:
        return self._core.compaction_policy

    def snapshot(self) -> SessionSnapshot:
        """The complete portable state (schema 2). Raw reasoning is cleared; the provider
        identity is the session's current provider; nothing secret is included."""
        c = self._core
        return SessionSnapshot.new(
            c.id,
            c.revision,
            c.history,
            c.provider.identity(),
            c.compaction,
            metadata=c.metadata,
            prompt_cache_key=c.prompt_cache_key,
        )

    # -- runs -----------------------------------------------------------------------------

    def start(self, input: UserInput | str) -> Run:
        """Start a run for ``input`` and return its handle at once.

        Raises:
            SessionBusy: another run or compaction is active.
            RuntimeShutdown: the runtime was shut down.
        """
        return self._start(as_blocks(input), None)

    def start_with_tool_call(self, input: UserInput | str, call: ToolCall) -> Run:
        """Start a run that first executes a host-requested tool call, then asks the model.

        Raises:
            InvalidConfiguration: the call lacks an id or name, or its arguments are not an object.
            SessionBusy, RuntimeShutdown: as ``start``.
        """
        if not call.id or not call.name or not isinstance(call.arguments, dict):
            raise InvalidConfiguration(
                "host tool call requires a nonempty ID and name plus object arguments"
            )
        return self._start(as_blocks(input), call)

    def _start(self, blocks: tuple, host_call: ToolCall | None) -> Run:  # type: ignore[type-arg]
        core = self._core
        core.check_idle()
        core.lifecycle.check_open()
        loop = asyncio.get_running_loop()
        run_id = new_id()
        token = CancellationToken()
        capacity = core.config.event_capacity
        channel = EventChannel(capacity)
        commands = CommandQueue(capacity)
        core.lifecycle.register(run_id, token)
        core.claim(run_id)
        worker = RunWorker(
            core,
            run_id=run_id,
            token=token,
            channel=channel,
            commands=commands,
            blocks=blocks,
            host_call=host_call,
        )
        task = loop.create_task(worker.run(), name=f"rho-run-{run_id}")
        task.add_done_callback(worker.finish)
        core.lifecycle.track(task)  # type: ignore[arg-type]
        return Run(run_id, token, channel, commands, task)

    async def complete(self, input: UserInput | str) -> ev.RunOutcome:
        """Run one turn to the end and return its outcome (same history as streaming).

        Raises:
            Cancelled: the run was cancelled.
            EngineError: the run failed (see ``Run.outcome``).
        """
        run = self.start(input)
        try:
            async for event in run:
                if isinstance(event, (ev.HostInputRequested, ev.ToolHostInputRequested)):
                    request_id = getattr(event.request, "id", event.request)
                    run.cancel()
                    # The cancellation commit is what matters; its Cancelled is expected.
                    with contextlib.suppress(EngineError):
                        await run.outcome()
                    raise InvalidHostResponse(
                        f"simple completion cannot answer host input request '{request_id}'"
                    )
            return await run.outcome()
        except asyncio.CancelledError:
            run.close()  # the caller went away: like dropping the run handle
            raise

    # -- compaction -----------------------------------------------------------------------

    async def compact(self) -> CompactionOutcome:
        """Compact the committed history now, with the session's compactor (exclusive).

        Emits no run events. The compactor is simply awaited (runtime shutdown cancels its
        token and relies on it to return). A failed or cancelled compactor installs nothing.

        Raises:
            InvalidConfiguration: no compactor is configured.
            SessionBusy: another operation is active.
            RuntimeShutdown: the runtime was shut down.
            EngineError: whatever the compactor raised (e.g. ``Cancelled``, ``ProviderError``).
        """
        core = self._core
        compactor = core.compactor
        if compactor is None:
            raise InvalidConfiguration("no compactor is configured")
        core.check_idle()
        operation_id = new_id()
        token = CancellationToken()
        core.lifecycle.register(operation_id, token)
        core.claim(operation_id)
        try:
            history = core.history
            previous_tokens = estimate_messages_tokens(history)
            request = CompactionRequest(
                messages=history,
                cancellation=token,
                session_id=core.id,
                run_id=operation_id,
                workspace_path=core.config.workspace_path,
            )
            output = await compactor.compact(request)
            if not isinstance(output, CompactionOutput):
                raise InvalidHostResponse(
                    f"compactor returned {type(output).__name__}, not CompactionOutput"
                )
            replacement = output.messages
            current_tokens = estimate_messages_tokens(replacement)
            cost = output.usage.cost_usd_micros
            revision = core.commit_compaction(
                replacement,
                previous_messages=len(history),
                previous_tokens=previous_tokens,
                current_tokens=current_tokens,
                cost_usd_micros=cost,
            )
            core.state = SessionState.COMPLETED
            return CompactionOutcome(
                len(history), len(replacement), previous_tokens, current_tokens, cost, revision
            )
        finally:
            core.release(operation_id)
            core.lifecycle.unregister(operation_id)

    # -- idle-only mutations --------------------------------------------------------------

    def append_message(self, message: Message) -> int:
        """Append one message to committed history (no validation); the new revision."""
        core = self._core
        core.check_idle()
        return core.commit((*core.history, message))

    def replace_history(self, history: Iterable[Message]) -> int:
        """Replace committed history (no validation); the new revision."""
        core = self._core
        core.check_idle()
        return core.commit(tuple(history))

    def reset(self) -> int:
        """History becomes ``[System(prompt)]`` (or ``[]`` without a custom prompt) and the
        compaction state is cleared; metadata and prompt-cache key are kept. The new revision.

        Raises:
            SessionBusy: an operation is active.
            PersistenceError: the revision is exhausted (nothing changes; upstream would still
                replace history and compaction state here, which it calls a quirk).
        """
        core = self._core
        core.check_idle()
        prompt = core.config.system_prompt
        history = (Message(system=prompt),) if prompt is not None else ()
        revision = core.commit(history)
        core.compaction = CompactionState.zero()
        return revision

    def replace_provider(self, provider: ModelProvider) -> HandoffReport:
        """Run future turns on ``provider``. History is untouched; the report says which
        provider-native blocks the new provider will not be sent."""
        core = self._core
        core.check_idle()
        report = report_message_omissions(core.history, provider.identity())
        core.provider = provider
        return report

    def set_reasoning_level(self, level: ReasoningLevel) -> None:
        self._core.check_idle()
        self._core.reasoning_level = level

    def set_service_tier(self, tier: ServiceTier | None) -> None:
        self._core.check_idle()
        self._core.service_tier = tier

    def set_compaction(
        self, compactor: Compactor | None, policy: CompactionPolicy | None = None
    ) -> None:
        """Replace this session's compactor and automatic policy (``None`` clears).

        Raises:
            InvalidConfiguration: a policy without a compactor.
        """
        core = self._core
        core.check_idle()
        if policy is not None and compactor is None:
            raise InvalidConfiguration(_POLICY_NEEDS_COMPACTOR)
        core.compactor = compactor
        core.compaction_policy = policy
