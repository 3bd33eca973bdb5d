"""One continued turn, driven once for every front end: what is saved and when, which tool calls
changed files, the checkpoint journal, and one typed stream of what there is to show.

The window (``qt/continue_/controller.py``) and ``rho-desk continue`` (``cli/continue_.py``) both
hand a restored engine session and a prompt to :meth:`TurnDriver.drive` and present the
:data:`TurnEvent` values it yields; neither decides what to save.

**Saving** (persist before saying "saved", so a crash after a commit loses nothing the user was
shown as kept): every commit of the run is written at once, through
:func:`~rho_desk.core.revisions.edits.acommit` on the front end's
:class:`~rho_desk.core.revisions.edits.EditableSession` (the app's document; the command line's
:class:`~rho_desk.core.revisions.edits.FileSession`), checked against the revision the turn
continued from:

* each automatic compaction (``CompactionCompleted`` carries the committed snapshot and its
  outcome), as it happens;
* the completed turn (``Completed``), whatever its stop reason;
* a cancelled turn (``Cancelled``: the prompt and the partial reply, as Rho keeps them).

A failed run (``Failed``, or an engine error from its outcome) commits nothing of the turn (the
seed's contract); a compaction saved earlier in the run stays saved. When the session changed on
disk meanwhile nothing is overwritten: :class:`SaveConflict` carries the commit that was not
saved (once), and each later commit of the run replaces it in :attr:`TurnDriver.unsaved`
unwritten.

**Files changed**: a tool call changed files when it started as a ``write`` or ``execute``
operation and finished ok; :attr:`TurnEnded.changed_files` says whether any did (a failed turn
keeps what the tools did to files, and says so).

**Checkpoint journal**: the turn is opened in the recorder before the run starts (every write of
the tools is journalled before it is made) and closed after the last save, bound to the node it
left (:class:`~rho_desk.core.changes.journal.CheckpointRecorder`).

**Requests**: each model request the run sent ends with a :class:`RequestFinished` (the served
model, its timings, and the usage the provider reported for that request), also given to the
``on_request`` hook: the one place a host records what each request cost.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias

import msgspec

from ..changes.checkpoint import CheckpointOutcome
from ..errors import Cancelled, EngineError, RevisionConflict
from ..revisions.edits import EditableSession, ThreadHop, acommit
from ..tools.words import CallProgress, result_line, result_text
from ..usage import TurnUsage
from . import events

if TYPE_CHECKING:
    from ..changes.journal import CheckpointRecorder, RecordedTurn
    from ..compaction.api import CompactionOutcome
    from ..stores.rho_files import RevisionNode
    from ..tools.words import CallWritten
    from ..wire import ModelUsage, SessionSnapshot, ToolCall
    from .run import Run
    from .session import Session

__all__ = [
    "CallsEnded",
    "CallsProgress",
    "CompactionDone",
    "CompactionStarted",
    "ReasoningDelta",
    "RequestFinished",
    "Retrying",
    "SaveConflict",
    "Saved",
    "StepStarted",
    "Stopped",
    "TextDelta",
    "ToolFinished",
    "ToolOutput",
    "ToolProposed",
    "ToolStarted",
    "TurnDriver",
    "TurnEnded",
    "TurnEvent",
    "TurnOutcome",
    "TurnStarted",
]

TurnOutcome: TypeAlias = str
"""How a turn ended: ``"completed"``, ``"cancelled"`` or ``"failed"``."""


class TurnStarted(msgspec.Struct, frozen=True):
    """The run started for ``prompt`` (the first event of :meth:`TurnDriver.drive`)."""

    prompt: str


class StepStarted(msgspec.Struct, frozen=True):
    """A model request begins: what the reply shows from here is its own."""


class TextDelta(msgspec.Struct, frozen=True):
    """Assistant text streamed."""

    text: str


class ReasoningDelta(msgspec.Struct, frozen=True):
    """A reasoning summary streamed (raw reasoning is never shown)."""

    text: str


class CallsProgress(msgspec.Struct, frozen=True):
    """How far the model has written a tool call it streams (at most a few times a second)."""

    due: CallWritten


class CallsEnded(msgspec.Struct, frozen=True):
    """The streamed tool calls are complete, or the reply was reset or ended."""


class Retrying(msgspec.Struct, frozen=True):
    """The request failed before any reply (``reset`` false), or the reply broke off and is
    asked for again (``reset`` true: what it showed is to be taken back)."""

    reset: bool
    reason: str
    """``request``, ``invalid_response`` or ``retryable_failure``."""
    detail: str = ""


class ToolProposed(msgspec.Struct, frozen=True):
    """The model called a tool (it runs next, if the tools and the approver allow it)."""

    call: ToolCall


class ToolStarted(msgspec.Struct, frozen=True):
    call_id: str
    name: str
    metadata: dict[str, Any]


class ToolOutput(msgspec.Struct, frozen=True):
    """A running tool's output so far (a shell call's live output)."""

    call_id: str
    message: str


class ToolFinished(msgspec.Struct, frozen=True):
    call_id: str
    ok: bool
    content: str
    """The result's text."""
    line: str
    """The result in one line."""


class CompactionStarted(msgspec.Struct, frozen=True):
    """An automatic compaction of ``message_count`` messages began."""

    message_count: int


class CompactionDone(msgspec.Struct, frozen=True):
    """An automatic compaction was committed (and saved, or kept unsaved on a conflict)."""

    outcome: CompactionOutcome


class Saved(msgspec.Struct, frozen=True):
    """A commit was written to the session file: ``node`` is the new revision."""

    node: RevisionNode
    compaction: CompactionOutcome | None = None


class SaveConflict(msgspec.Struct, frozen=True):
    """The session changed on disk since the turn continued it: ``snapshot`` was not written."""

    error: RevisionConflict
    snapshot: SessionSnapshot


class Stopped(msgspec.Struct, frozen=True):
    """The turn completed before the model ended it: ``MaxSteps``, ``Repetition``..."""

    reason: str
    detail: str


class RequestFinished(msgspec.Struct, frozen=True):
    """One model request ended: the model that served it, its timings, and the usage the
    provider reported for this request alone (``None``: it reported none)."""

    profile: events.ModelCallProfile
    metrics: events.ModelCallMetrics
    usage: ModelUsage | None


class TurnEnded(msgspec.Struct, frozen=True):
    """The turn is over (the last event of :meth:`TurnDriver.drive`)."""

    outcome: TurnOutcome
    detail: str
    """Why it failed, or why a completed turn stopped early (empty otherwise)."""
    stop_reason: str
    """The run's stop reason (``EndTurn``, ``MaxSteps``...); ``""`` unless completed."""
    usage: TurnUsage | None
    """What the turn used (``None``: it ended before its run started)."""
    changed_files: bool
    """A tool call of the turn changed files (kept even when the turn failed)."""
    recorded: RecordedTurn | None
    """The turn's checkpoint record, once closed (``None`` without a recorder)."""


TurnEvent: TypeAlias = (
    TurnStarted
    | StepStarted
    | TextDelta
    | ReasoningDelta
    | CallsProgress
    | CallsEnded
    | Retrying
    | ToolProposed
    | ToolStarted
    | ToolOutput
    | ToolFinished
    | CompactionStarted
    | CompactionDone
    | Saved
    | SaveConflict
    | Stopped
    | RequestFinished
    | TurnEnded
)
"""What a front end presents of a turn."""

# the calls being written are complete, or the reply was reset or ended
_CALLS_END = (
    events.ToolProposed,
    events.AssistantTextDelta,
    events.ProviderStreamReset,
    events.Completed,
    events.Cancelled,
    events.Failed,
)


class TurnDriver:
    """Drives one turn of ``target`` (see the module docstring).

    Args:
        target: the session file the turn's commits are written to.
        base: node id of the revision the engine continues (each save must still find it
            active; ``None``: whichever is active).
        recorder: the checkpoint journal's recorder (``None``: no journal).
        hop: how blocking writes leave the event loop (the app's bridge's ``in_thread``).
        check: called before each save; raises ``RevisionConflict`` when the commit cannot be
            written there (the app: another session was opened meanwhile).
        saving: a context manager around each save (the app knows its own writes by it).
        on_request: called with each :class:`RequestFinished`.
        interrupted: the journal's outcome when the turn is stopped without an end (the task
            cancelled, the window closed).
    """

    def __init__(
        self,
        target: EditableSession,
        base: str | None,
        *,
        recorder: CheckpointRecorder | None = None,
        hop: ThreadHop = asyncio.to_thread,
        check: Callable[[], None] | None = None,
        saving: Callable[[], contextlib.AbstractContextManager[object]] = contextlib.nullcontext,
        on_request: Callable[[RequestFinished], None] | None = None,
        interrupted: CheckpointOutcome = CheckpointOutcome.FAILED,
    ) -> None:
        self.target = target
        self.base = base
        """Node id of the revision the next save must find active (the last save's, once saved)."""
        self.recorder = recorder
        self.hop = hop
        self.check = check
        self.saving = saving
        self.on_request = on_request
        self.interrupted = interrupted
        self.run: Run | None = None
        """The running turn, once :meth:`drive` started it (:meth:`cancel` cancels it)."""
        self.saved: tuple[str, int] | None = None
        """``(node id, revision)`` of the turn's last save."""
        self.unsaved: SessionSnapshot | None = None
        """The newest commit that could not be saved (a conflict), else ``None``."""

    def cancel(self) -> None:
        """Cooperative cancellation: the engine commits the prompt and the partial reply, and
        that commit is saved."""
        if self.run is not None:
            self.run.cancel()

    async def drive(
        self, session: Session, prompt: str, *, session_file: Path | None = None
    ) -> AsyncGenerator[TurnEvent, None]:
        """Run ``prompt`` on ``session`` and yield what to show; the last event is :class:`TurnEnded`.

        ``session_file`` is where the checkpoint journal lives (beside it). Close the iterator
        (``contextlib.aclosing``) when stopping early: the run is closed and the journal record
        finished as :attr:`interrupted`.
        """
        if self.recorder is not None and session_file is not None:
            self.recorder.begin_turn(session_file, session.id, session.revision)
        run = session.start(prompt)
        self.run = run
        used = TurnUsage()
        calls = CallProgress()
        writing = False
        changing: set[str] = set()
        changed = False
        outcome, detail, stop_reason = "completed", "", ""
        reported: ModelUsage | None = None
        counted: ModelUsage | None = None
        try:
            yield TurnStarted(prompt)
            async for event in run:
                used.observe(event)
                if writing and isinstance(event, _CALLS_END):
                    calls.clear()
                    writing = False
                    yield CallsEnded()
                if isinstance(event, events.AssistantTextDelta):
                    yield TextDelta(event.text)
                elif isinstance(event, events.ReasoningSummaryDelta):
                    yield ReasoningDelta(event.text)
                elif isinstance(event, events.ToolCallUpdated):
                    due = calls.add(
                        event.index,
                        event.id,
                        event.name,
                        len(event.arguments_delta.encode("utf-8")),
                    )
                    if due is not None:
                        writing = True
                        yield CallsProgress(due)
                elif isinstance(event, events.StepStarted):
                    calls.clear()
                    yield StepStarted()
                elif isinstance(event, events.ProviderRequestRetry):
                    yield Retrying(False, "request")
                elif isinstance(event, events.ProviderStreamReset):
                    why = (
                        "invalid_response"
                        if isinstance(event.reason, events.InvalidResponseReset)
                        else "retryable_failure"
                    )
                    yield Retrying(True, why, event.detail)
                elif isinstance(event, events.ToolProposed):
                    yield ToolProposed(event.call)
                elif isinstance(event, events.ToolStarted):
                    if event.metadata.get("operation") in ("write", "execute"):
                        changing.add(event.call_id)
                    yield ToolStarted(event.call_id, event.name, dict(event.metadata))
                elif isinstance(event, events.ToolUpdated):
                    yield ToolOutput(event.call_id, event.progress.message)
                elif isinstance(event, events.ToolFinished):
                    ok, content = result_text(event.result)
                    changed = changed or (ok and event.call_id in changing)
                    yield ToolFinished(event.call_id, ok, content, result_line(event.result))
                elif isinstance(event, events.UsageUpdated):
                    reported = event.usage
                elif isinstance(event, events.ModelCallCompleted):
                    request = RequestFinished(
                        event.profile, event.metrics, _less(reported, counted)
                    )
                    counted = reported
                    if self.on_request is not None:
                        self.on_request(request)
                    yield request
                elif isinstance(event, events.CompactionStarted):
                    yield CompactionStarted(event.message_count)
                elif isinstance(event, events.CompactionCompleted):
                    async for shown in self._save(event.outcome.committed_snapshot, event.outcome):
                        yield shown
                    yield CompactionDone(event.outcome)
                elif isinstance(event, events.Completed):
                    stop_reason = event.outcome.stop_reason.value
                    if event.outcome.stop_reason is not events.StopReason.END_TURN:
                        detail = event.outcome.detail
                        yield Stopped(stop_reason, detail)
                    async for shown in self._save(session.snapshot()):
                        yield shown
                elif isinstance(event, events.Cancelled):
                    outcome = "cancelled"
                    async for shown in self._save(session.snapshot()):
                        yield shown
                elif isinstance(event, events.Failed):
                    outcome, detail = "failed", event.message
            try:
                await run.outcome()
            except Cancelled:
                outcome = "cancelled"
            except EngineError as exc:
                outcome, detail = "failed", exc.text()
        except BaseException:
            run.close()  # stopped from outside (a second Ctrl+C, the window closing): nothing more is saved
            if self.recorder is not None:
                await self.hop(self.recorder.close_turn, self.saved, self.interrupted)
            raise
        finally:
            self.run = None
        if outcome != "completed":
            stop_reason = ""
        recorded = None
        if self.recorder is not None:
            recorded = await self.hop(
                self.recorder.close_turn, self.saved, CheckpointOutcome(outcome)
            )
        yield TurnEnded(outcome, detail, stop_reason, used, changed, recorded)

    async def _save(
        self, snapshot: SessionSnapshot | None, outcome: CompactionOutcome | None = None
    ) -> AsyncIterator[TurnEvent]:
        """Write one commit; on a conflict keep it unsaved and say so."""
        if snapshot is None:
            return
        if self.unsaved is not None:  # already in conflict: keep the newest state for a fork
            self.unsaved = snapshot
            return
        try:
            if self.check is not None:
                self.check()
            with self.saving():
                node = await acommit(
                    self.target,
                    self.base,
                    lambda writer: writer.save(snapshot, outcome=outcome),
                    hop=self.hop,
                )
        except RevisionConflict as exc:
            self.unsaved = snapshot
            yield SaveConflict(exc, snapshot)
            return
        self.base = node.id
        self.saved = (node.id, node.revision)
        yield Saved(node, outcome)


def _less(total: ModelUsage | None, before: ModelUsage | None) -> ModelUsage | None:
    """The usage of one request: the run's running total minus what earlier requests reported."""
    if total is None or total.is_empty:
        return None
    if before is None:
        return total
    from ..wire import ModelUsage

    def minus(a: int | None, b: int | None) -> int | None:
        return None if a is None else max(0, a - (b or 0))

    part = ModelUsage(
        input_tokens=minus(total.input_tokens, before.input_tokens),
        output_tokens=minus(total.output_tokens, before.output_tokens),
        cache_read_tokens=minus(total.cache_read_tokens, before.cache_read_tokens),
        cache_write_tokens=minus(total.cache_write_tokens, before.cache_write_tokens),
        total_tokens=minus(total.total_tokens, before.total_tokens),
        context_window=total.context_window,
        cost_usd_micros=minus(total.cost_usd_micros, before.cost_usd_micros),
    )
    return None if part.is_empty else part
