"""What a continued turn used, in words: the provider's report, else the engine's estimate.

Local servers (llama.cpp among them) send no usage at all. A turn's usage is then the engine's
own estimate, marked as such: each step's request (``ContextEstimated``) plus the streamed reply.
An unreported cost is never shown as zero. The app's continue panel and ``rho-desk continue``
both read a turn through :class:`TurnUsage`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..compaction.tokens import estimate_text_tokens
from ..wire.model import ModelUsage

if TYPE_CHECKING:
    from ..session.events import RunEvent

__all__ = ["TurnUsage", "describe_usage"]


class TurnUsage:
    """Follows one run's events; :meth:`describe` says what the turn used."""

    def __init__(self) -> None:
        # the engine's events load with the first turn, not with the window that describes usage
        from ..session import events

        self._events = events
        self.reported: ModelUsage | None = None
        self._requests = 0
        self._streamed: list[str] = []
        self.calibrated = False
        """The estimate follows the served model's own token count (a server that counts)."""

    def observe(self, event: RunEvent) -> None:
        events = self._events
        if isinstance(event, events.AssistantTextDelta):
            self._streamed.append(event.text)
        elif isinstance(event, events.ContextEstimated):
            self._requests += event.tokens
            self.calibrated = self.calibrated or event.calibrated
        elif isinstance(event, events.UsageUpdated):
            self.reported = event.usage
        elif isinstance(event, events.Completed):
            self.reported = event.outcome.usage

    @property
    def usage(self) -> ModelUsage | None:
        """The provider's report, or ``None`` when it sent none."""
        return None if self.reported is None or self.reported.is_empty else self.reported

    @property
    def estimated(self) -> int:
        """The engine's estimate: every request of the turn, plus the streamed reply."""
        return self._requests + estimate_text_tokens("".join(self._streamed))

    def describe(self) -> str:
        return describe_usage(self.usage, self.estimated, self.calibrated)


def describe_usage(usage: ModelUsage | None, estimated: int, calibrated: bool = False) -> str:
    """A turn's usage as the provider reported it (tokens in and out, cost when known), else the
    engine's estimate, marked as such (and as calibrated when a server's token count scaled it):
    an unreported cost is never shown as zero."""
    if usage is None or (
        usage.total_tokens is None and usage.output_tokens is None and usage.input_tokens is None
    ):
        how = "estimated, calibrated by the server's token count" if calibrated else "estimated"
        return f"≈{estimated:,} tokens ({how}: the server reported no usage)"
    parts = [usage.input_tokens, usage.cache_read_tokens, usage.cache_write_tokens]
    known = [n for n in parts if n is not None]
    tokens_in = sum(known) if known else None
    out, total = usage.output_tokens, usage.total_tokens
    if tokens_in is None and total is not None and out is not None:
        tokens_in = max(0, total - out)
    if total is None and tokens_in is not None and out is not None:
        total = tokens_in + out
    split = ", ".join(
        f"{n:,} {word}" for n, word in ((tokens_in, "in"), (out, "out")) if n is not None
    )
    text = f"{total:,} tokens" if total is not None else "tokens"
    text += f" ({split})" if split else ""
    if usage.cost_usd_micros is not None:
        text += f", ${usage.cost_usd_micros / 1_000_000:,.4f}"
    return text
