"""Usage figures from provider streams, normalised to ``ModelUsage``, and their cost.

``ModelUsage`` keeps three disjoint input buckets (uncached input, cache reads, cache writes)
and leaves ``input_tokens`` absent when the split is unknown (spec/engine.md §2.9).
OpenAI-compatible servers report an *inclusive* prompt count with cache reads as a subset, so
they go through ``ModelUsage.from_inclusive_prompt``; Anthropic reports the buckets disjoint.

Cost: a server-reported cost (OpenRouter's ``usage.cost``, gateways' ``cost``) wins; otherwise
a profile's ``Pricing`` (US dollars per million tokens) gives it. Prices per million tokens are
exactly micro-dollars per token, so the arithmetic is integer-friendly.
"""

from __future__ import annotations

import math
from decimal import Decimal, InvalidOperation
from typing import Any

import msgspec

from ..core.wire.model import U64_MAX, ModelUsage

__all__ = ["ChatUsage", "Pricing", "parse_usd_micros", "with_cost"]


class Pricing(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """Prices in US dollars per million tokens; a missing price means "unknown"."""

    input: float | None = None
    """Uncached input tokens."""
    output: float | None = None
    """Output tokens (reasoning included)."""
    cache_read: float | None = None
    """Input tokens read from the prompt cache; defaults to the input price when absent."""
    cache_write: float | None = None
    """Input tokens written to the prompt cache; defaults to the input price when absent."""

    def __post_init__(self) -> None:
        for name in ("input", "output", "cache_read", "cache_write"):
            value = getattr(self, name)
            if value is not None and (not math.isfinite(value) or value < 0):
                raise ValueError(f"price `{name}` must be a non-negative number")

    def cost_usd_micros(self, usage: ModelUsage) -> int | None:
        """The cost of ``usage`` in micro-dollars, or ``None`` when a needed price is unknown."""
        cache_read = usage.cache_read_tokens or 0
        cache_write = usage.cache_write_tokens or 0
        if usage.input_tokens is not None:
            uncached = usage.input_tokens
        else:
            inclusive = usage.inclusive_prompt_tokens()
            uncached = max((inclusive or 0) - cache_read - cache_write, 0)
        output = usage.output_tokens or 0
        terms = (
            (uncached, self.input),
            (output, self.output),
            (cache_read, self.cache_read if self.cache_read is not None else self.input),
            (cache_write, self.cache_write if self.cache_write is not None else self.input),
        )
        total = 0.0
        for tokens, price in terms:
            if tokens == 0:
                continue
            if price is None:
                return None
            total += tokens * price
        return min(round(total), U64_MAX)


def with_cost(usage: ModelUsage, pricing: Pricing | None) -> ModelUsage:
    """``usage`` with ``cost_usd_micros`` filled from ``pricing`` when the server gave none."""
    if usage.cost_usd_micros is not None or pricing is None or usage.is_empty:
        return usage
    cost = pricing.cost_usd_micros(usage)
    if cost is None:
        return usage
    return msgspec.structs.replace(usage, cost_usd_micros=cost)


def parse_usd_micros(value: Any) -> int | None:
    """A dollar amount (number or numeric string) as whole micro-dollars; ``None`` if invalid."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float, str)):
        try:
            amount = Decimal(str(value).strip())
        except InvalidOperation:
            return None
        if not amount.is_finite() or amount < 0:
            return None
        micros = int((amount * 1_000_000).to_integral_value())
        return min(micros, U64_MAX)
    return None


def _u64(value: Any) -> int | None:
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= U64_MAX:
        return value
    return None


class ChatUsage(msgspec.Struct):
    """Usage restated by an OpenAI-compatible stream, merged field by field.

    Servers restate running or final totals (sometimes on several chunks), so the adapter keeps
    the latest value of each field and publishes one ``ModelUsage`` when the stream ends.
    """

    prompt: int | None = None
    output: int | None = None
    reasoning: int | None = None
    cache_read: int | None = None
    cache_write: int | None = None
    total: int | None = None
    cost: int | None = None

    def merge(self, usage: Any) -> None:
        """Fold one ``usage`` object from a chunk into the running state."""
        if not isinstance(usage, dict):
            return
        prompt = _u64(usage.get("prompt_tokens", usage.get("input_tokens")))
        output = _u64(usage.get("completion_tokens", usage.get("output_tokens")))
        details = usage.get("prompt_tokens_details") or usage.get("input_tokens_details") or {}
        out_details = (
            usage.get("completion_tokens_details") or usage.get("output_tokens_details") or {}
        )
        if not isinstance(details, dict):
            details = {}
        if not isinstance(out_details, dict):
            out_details = {}
        cache_read = _u64(details.get("cached_tokens", details.get("cache_read_tokens")))
        cache_write = _u64(
            details.get("cache_write_tokens", details.get("cache_creation_input_tokens"))
        )
        cost = None
        for key in ("cost", "cost_usd", "estimated_cost"):
            if key in usage:
                cost = parse_usd_micros(usage[key])
                if cost is not None:
                    break
        if prompt is not None:
            self.prompt = prompt
        if output is not None:
            self.output = output
            self.reasoning = _u64(out_details.get("reasoning_tokens"))
        if cache_read is not None:
            self.cache_read = cache_read
        if cache_write is not None:
            self.cache_write = cache_write
        total = _u64(usage.get("total_tokens"))
        if total is not None:
            self.total = total
        if cost is not None:
            self.cost = cost

    @property
    def seen(self) -> bool:
        return any(v is not None for v in (self.prompt, self.output, self.total, self.cost))

    def to_model_usage(self, context_window: int | None = None) -> ModelUsage:
        return ModelUsage.from_inclusive_prompt(
            self.prompt,
            self.output,
            self.cache_read,
            self.cache_write,
            self.total,
            context_window,
            self.cost,
        )
