"""Manual compaction of a stored session state, and the one way its result is written.

The compaction dialog and ``rho-desk compact`` both go through here:

1. :class:`ManualCompaction` runs the engine's manual compaction (``Session.compact``) on a
   throw-away runtime around the stored state, so revision and compaction accounting follow
   the spec exactly. The runtime's provider is an :class:`IdentityOnlyProvider`: the compacted
   snapshot keeps the session's own provider identity, and nothing can call a model through it.
   :meth:`ManualCompaction.cancel` fires the compactor's token.
2. A result that does not shrink the context is refused (:class:`CompactionRefused`) before
   anything is written, with the figures that say why. The preview refuses first
   (:meth:`CompactionPreview.refusal`), so the user learns it before running anything.
3. :func:`save_compaction` appends the result as a new complete base (a ``snapshot`` record in
   a v1-v3 line, a compaction ``node`` in a v4 tree), after checking that the active revision
   is still the one compacted (:class:`SessionChanged` otherwise; nothing written).

:class:`ThreadedCompactor` computes the local digest in a worker thread and races it against
the cancellation token (``core.cancellation.race``), so a caller's event loop never stalls on a
100k-message history and Cancel is immediate.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from ..cancellation import race
from ..errors import BugError, Cancelled, InputError, RevisionConflict
from ..provider import CancellationMode, ModelProvider, ModelRequest
from ..wire.model import ContentBlock, Message, ModelIdentity
from ..wire.snapshot import SessionSnapshot
from .api import CompactionOutcome, CompactionOutput, CompactionRequest, Compactor
from .local import CompactionPreview, LocalCompactor, RecentBudget
from .tokens import message_tokens

if TYPE_CHECKING:
    from ..session import Rho
    from ..stores.rho_files import RevisionNode, SessionWriter

__all__ = [
    "CompactionRefused",
    "CompactionResult",
    "IdentityOnlyProvider",
    "ManualCompaction",
    "SessionChanged",
    "ThreadedCompactor",
    "save_compaction",
    "shrink_refusal",
]

T = TypeVar("T")


class SessionChanged(RevisionConflict):
    """The active revision moved while the compaction ran; nothing was written."""


class CompactionRefused(InputError):
    """The compaction would not shrink the context (or has nothing to replace); nothing was written."""


def shrink_refusal(
    previous_tokens: int, current_tokens: int, what: str = "the replacement"
) -> str | None:
    """Why a compaction from ``previous_tokens`` to ``current_tokens`` must not be written, or ``None``."""
    if current_tokens < previous_tokens:
        return None
    return (
        f"{what} would not shrink the context ({previous_tokens:,} → {current_tokens:,} estimated "
        "tokens): nothing is gained by writing it. Keep fewer recent messages or tokens."
    )


class IdentityOnlyProvider(ModelProvider):
    """A provider that reports ``identity`` and is never called.

    A manual compaction builds a throw-away runtime around the stored snapshot; the snapshot it
    produces carries the runtime provider's identity, which must stay the session's own.
    """

    def __init__(self, identity: ModelIdentity) -> None:
        self._identity = identity

    def identity(self) -> ModelIdentity:
        return self._identity

    async def send_turn(self, request: ModelRequest) -> tuple[ContentBlock, ...]:
        raise BugError("the identity-only provider of a manual compaction was asked to send a turn")

    def __repr__(self) -> str:
        return f"IdentityOnlyProvider({self._identity})"


class ThreadedCompactor(Compactor):
    """The local compactor, computed in a worker thread and cancellable at once.

    Args:
        budget: how much recent history is kept verbatim.
    """

    cancellation_mode = CancellationMode.COOPERATIVE

    def __init__(self, budget: RecentBudget | None = None) -> None:
        self.local = LocalCompactor(budget)

    def __repr__(self) -> str:
        return f"ThreadedCompactor({self.local.budget!r})"

    def preview(self, history: Sequence[Message]) -> CompactionPreview:
        return self.local.preview(history)

    async def compact(self, request: CompactionRequest) -> CompactionOutput:
        request.cancellation.raise_if_cancelled()
        preview = await race(
            asyncio.to_thread(self.local.preview, request.messages), request.cancellation
        )
        return CompactionOutput(preview.replacement)


@dataclass(frozen=True, slots=True)
class CompactionResult:
    """A compacted state, ready to be written, and what the compaction actually produced."""

    snapshot: SessionSnapshot
    """The session after the compaction (revision and compaction state advanced)."""
    outcome: CompactionOutcome
    replacement: Message | None
    """The digest or summary that replaced the older part, as written (``None``: none found)."""

    @property
    def replacement_tokens(self) -> int:
        """The replacement's own token estimate (the summary's real size)."""
        return 0 if self.replacement is None else message_tokens(self.replacement)


class ManualCompaction:
    """One manual compaction of ``state`` with ``compactor``.

    Args:
        state: the stored state to compact (untrimmed, as :func:`rho_desk.core.revisions.edits.stored_state`
            gives it).
        compactor: local, threaded local, or a summarizing compactor.
    """

    def __init__(self, state: SessionSnapshot, compactor: Compactor) -> None:
        self.state = state
        self.compactor = compactor
        self._rho: Rho | None = None
        self._cancelled = False

    async def run(self) -> CompactionResult:
        """Compact; nothing is written.

        Raises:
            Cancelled: :meth:`cancel` was called.
            CompactionRefused: the result would not shrink the context.
            EngineError: whatever the compactor raised (``ProviderError``...).
        """
        from ..session import Rho, SessionOptions

        if self._cancelled:
            raise Cancelled()
        state = self.state
        self._rho = (
            Rho.builder()
            .provider(IdentityOnlyProvider(state.provider))
            .compactor(self.compactor)
            .build()
        )
        try:
            session = self._rho.session(SessionOptions.from_snapshot(state))
            outcome = await session.compact()
            compacted = session.snapshot()
        finally:
            self._rho = None
        if self._cancelled:
            raise Cancelled()
        replacement = _replacement(state.history, compacted.history)
        reason = shrink_refusal(outcome.previous_tokens, outcome.current_tokens)
        if reason is not None:
            raise CompactionRefused(reason)
        return CompactionResult(compacted, outcome, replacement)

    def cancel(self) -> None:
        """Stop the compaction (it raises ``Cancelled``; nothing is written)."""
        self._cancelled = True
        rho = self._rho
        if rho is not None:
            rho.shutdown()  # fires the compaction's cancellation token


def _replacement(before: Sequence[Message], after: Sequence[Message]) -> Message | None:
    """The one message of ``after`` that is not a kept message of ``before``."""
    start = 0
    while start < len(after) and start < len(before) and after[start] == before[start]:
        start += 1
    return after[start] if start < len(after) and after[start] not in before[start:] else None


def save_compaction(writer: SessionWriter, base_id: str, result: CompactionResult) -> RevisionNode:
    """Append ``result`` as the next revision, if the active revision is still ``base_id``.

    The one write path of a manual compaction (run it in a worker thread, under the tree lock
    where the tree is shared). A compaction adds nothing the user saw: its display tail is empty.

    Raises:
        SessionChanged: the active revision is no longer the compacted one (nothing written).
        RevisionConflict: the file changed on disk (nothing written).
    """
    leaf = writer.tree.active_leaf
    if leaf is None or leaf.id != base_id:
        raise SessionChanged(
            "the session changed while compacting (another program or change wrote to it); "
            "nothing was written: compact again"
        )
    return writer.save(result.snapshot, outcome=result.outcome, display=())
