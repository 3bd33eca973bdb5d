"""Compaction statistics of a revision: counters, per-compaction facts, the token series.

:func:`compute_stats` (blocking: hosts run it in a worker thread) walks the path root -> revision
once. Each node's estimated message tokens (the spec §3 estimate) is its parent's plus its
appended messages', so a 100k-message path costs one pass over the messages, not one per
revision. Compaction nodes contribute a row: messages and tokens before and after, and the cost,
from the node's ``compaction_facts`` when the file stored them, else from its compaction
counters.

:func:`resolve_context_window` decides the window a session's context is measured against, and
says where the number came from (usage the provider reported in this session, a provider
profile, a known model, or the host's default).
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Final

from ..stores.rho_files import NodeKind, RevisionNode, SessionTree
from ..wire import CompactionState, Message, ModelIdentity
from .tokens import estimate_messages_tokens, message_tokens

__all__ = [
    "KNOWN_CONTEXT_WINDOWS",
    "CompactionRow",
    "SeriesPoint",
    "StatsData",
    "compute_stats",
    "resolve_context_window",
]

KNOWN_CONTEXT_WINDOWS: Final = (
    ("gpt-4.1", 1_047_576),
    ("gpt-5", 400_000),
    ("gpt-4o", 128_000),
    ("o4-mini", 200_000),
    ("o3", 200_000),
    ("claude", 200_000),
    ("gemini-2.5", 1_048_576),
    ("llama3", 131_072),
    ("qwen2.5-coder", 32_768),
    ("deepseek", 131_072),
)
"""Model-id prefixes and their usual context windows (a fallback; profiles and usage win)."""


@dataclass(frozen=True, slots=True)
class SeriesPoint:
    """One revision on the path, for the chart."""

    node: RevisionNode
    messages: int
    tokens: int
    compaction: bool


@dataclass(frozen=True, slots=True)
class CompactionRow:
    node: RevisionNode
    number: int
    """1-based, in path order."""
    messages_before: int
    messages_after: int
    tokens_before: int | None
    tokens_after: int | None
    cost_usd_micros: int | None
    from_facts: bool
    """The numbers are the file's compaction facts (else derived from counters and lengths)."""


@dataclass(slots=True)
class StatsData:
    node: RevisionNode
    counters: CompactionState
    series: list[SeriesPoint] = field(default_factory=list)
    compactions: list[CompactionRow] = field(default_factory=list)
    context_tokens: int = 0
    window: int = 0
    window_source: str = ""
    elapsed_ms: float = 0.0


def compute_stats(
    tree: SessionTree,
    node: RevisionNode,
    *,
    default_window: int,
    profiles: Sequence[tuple[str, str, int | None]] = (),
) -> StatsData:
    """Counters, compactions and the token series along the path to ``node`` (blocking)."""
    start = time.perf_counter()
    path = tree.path(node)
    data = StatsData(node, node.compaction)
    tokens_of: dict[int, int] = {}
    number = 0
    for n in path:
        appended = n.appended
        parent = n.parent
        if appended is not None and parent is not None and id(parent) in tokens_of:
            tokens = tokens_of[id(parent)] + sum(message_tokens(m) for m in appended)
        else:
            tokens = estimate_messages_tokens(tree.history(n))
        tokens_of[id(n)] = tokens
        is_compaction = n.kind is NodeKind.COMPACTION
        data.series.append(SeriesPoint(n, n.length, tokens, is_compaction))
        if is_compaction:
            number += 1
            facts = n.compaction_facts
            if facts is not None:
                row = CompactionRow(
                    n,
                    number,
                    facts.previous_messages,
                    facts.current_messages,
                    facts.previous_tokens,
                    facts.current_tokens,
                    facts.cost_usd_micros,
                    True,
                )
            else:
                c, before = (
                    n.compaction,
                    parent.compaction if parent is not None else CompactionState(0, 0),
                )
                cost = c.removed_cost_usd_micros - before.removed_cost_usd_micros
                row = CompactionRow(
                    n,
                    number,
                    parent.length if parent is not None else 0,
                    n.length,
                    c.last_previous_tokens,
                    c.last_current_tokens,
                    cost or None,
                    False,
                )
            data.compactions.append(row)
    history = tree.history(node)
    data.context_tokens = tokens_of[id(node)]
    data.window, data.window_source = resolve_context_window(
        history, node.provider, default_window, profiles
    )
    data.elapsed_ms = (time.perf_counter() - start) * 1000
    return data


def resolve_context_window(
    history: Sequence[Message],
    provider: ModelIdentity | None,
    default: int,
    profiles: Iterable[tuple[str, str, int | None]] = (),
) -> tuple[int, str]:
    """``(window, where it came from)`` for the gauge.

    Args:
        profiles: ``(profile name, model, context window)`` of the configured provider profiles.
    """
    for message in reversed(history):
        aborted = message.aborted_assistant
        if aborted is not None and aborted.usage.context_window:
            return aborted.usage.context_window, "reported by the provider in this session"
    model = provider.model if provider is not None else ""
    if model and model != "legacy":
        for name, profile_model, window in profiles:
            if window and profile_model == model:
                return window, f"from provider profile “{name}”"
        for prefix, window in KNOWN_CONTEXT_WINDOWS:
            if model.startswith(prefix):
                return window, f"usual window of {model}"
    return default, "default from the settings"
