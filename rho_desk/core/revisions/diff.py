"""The difference between two revisions: messages added, removed and changed, and the token delta.

:func:`compute_diff` (blocking: hosts run it in a worker thread) starts from the tree's own
``RevisionDiff`` (common prefix and the two diverging tails), then also strips the common
suffix of the tails (a compaction keeps the recent messages), and pairs what is left position
by position: a pair of the same kind that differs is *changed*, the rest is *removed* from the
old revision or *added* in the new one. The token delta is the estimate (spec §3) of the new
history minus the old one. The app's revision timeline shows the result.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Final

from ..compaction import estimate_messages_tokens
from ..stores.rho_files import RevisionNode, SessionTree
from ..wire import Message

__all__ = ["MAX_ROWS", "DiffResult", "DiffRow", "Sign", "compute_diff"]

MAX_ROWS: Final = 5000
"""Rows kept in a :class:`DiffResult` (the counts cover every message)."""


class Sign(enum.Enum):
    """How a message differs."""

    ADDED = "+"
    REMOVED = "−"
    CHANGED = "~"


@dataclass(frozen=True, slots=True)
class DiffRow:
    sign: Sign
    position: int
    """0-based position in the new history (added, changed) or the old one (removed)."""
    old: Message | None
    new: Message | None


@dataclass(slots=True)
class DiffResult:
    old: RevisionNode
    new: RevisionNode
    common_prefix: int
    common_suffix: int
    rows: list[DiffRow] = field(default_factory=list)
    added: int = 0
    removed: int = 0
    changed: int = 0
    token_delta: int = 0
    old_tokens: int = 0
    new_tokens: int = 0
    fields: tuple[str, ...] = ()
    """Other snapshot fields that differ (revision, provider, compaction, metadata...)."""
    truncated: bool = False

    def summary(self) -> str:
        if not (self.added or self.removed or self.changed):
            head = "Same messages"
        else:
            parts = []
            if self.added:
                parts.append(f"+{self.added:,} added")
            if self.removed:
                parts.append(f"−{self.removed:,} removed")
            if self.changed:
                parts.append(f"~{self.changed:,} changed")
            head = ", ".join(parts)
        sign = "+" if self.token_delta > 0 else ""
        text = f"{head} · tokens {self.old_tokens:,} → {self.new_tokens:,} ({sign}{self.token_delta:,})"
        if self.fields:
            text += " · also changed: " + ", ".join(self.fields)
        return text


def compute_diff(tree: SessionTree, old: RevisionNode, new: RevisionNode) -> DiffResult:
    """How ``new``'s model history differs from ``old``'s (blocking)."""
    d = tree.diff(old, new)
    removed, added = d.removed, d.added
    suffix = 0
    limit = min(len(removed), len(added))
    while suffix < limit:
        last_old, last_new = removed[len(removed) - 1 - suffix], added[len(added) - 1 - suffix]
        if last_old is not last_new and last_old != last_new:
            break
        suffix += 1
    mid_old = removed[: len(removed) - suffix]
    mid_new = added[: len(added) - suffix]
    result = DiffResult(old, new, d.common_prefix, suffix, fields=tuple(f for f in d.changed if f != "revision"))
    base = d.common_prefix
    for i in range(max(len(mid_old), len(mid_new))):
        a = mid_old[i] if i < len(mid_old) else None
        b = mid_new[i] if i < len(mid_new) else None
        if a is not None and b is not None and a.kind is b.kind:
            row = DiffRow(Sign.CHANGED, base + i, a, b)
            result.changed += 1
            rows = [row]
        else:
            rows = []
            if a is not None:
                rows.append(DiffRow(Sign.REMOVED, base + i, a, None))
                result.removed += 1
            if b is not None:
                rows.append(DiffRow(Sign.ADDED, base + i, None, b))
                result.added += 1
        if len(result.rows) < MAX_ROWS:
            result.rows.extend(rows)
        else:
            result.truncated = True
    result.old_tokens = estimate_messages_tokens(tree.history(old))
    result.new_tokens = estimate_messages_tokens(tree.history(new))
    result.token_delta = result.new_tokens - result.old_tokens
    return result
