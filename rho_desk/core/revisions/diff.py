"""The difference between two revisions: messages added, removed and changed, and the token delta.

:func:`revision_diff` gives the history as a common prefix and the two diverging tails (a
:class:`RevisionDiff`). :func:`compute_diff` (blocking: hosts run it in a worker thread) starts
from it, then also strips the common
suffix of the tails (a compaction keeps the recent messages), and pairs what is left position
by position: a pair of the same kind that differs is *changed*, the rest is *removed* from the
old revision or *added* in the new one. The token delta is the estimate (spec §3) of the new
history minus the old one. The app's revision timeline shows the result.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Final

import msgspec

from ..compaction import estimate_messages_tokens
from ..stores.rho_files import RevisionNode, SessionTree
from ..wire import Message

__all__ = [
    "MAX_ROWS",
    "DiffResult",
    "DiffRow",
    "RevisionDiff",
    "Sign",
    "compute_diff",
    "revision_diff",
]

MAX_ROWS: Final = 5000
"""Rows kept in a :class:`DiffResult` (the counts cover every message)."""


class RevisionDiff(msgspec.Struct, frozen=True):
    """How two revisions differ: the history as common prefix plus the two diverging tails."""

    old: RevisionNode
    new: RevisionNode
    common_prefix: int
    """Number of leading messages the two model histories share."""
    removed: tuple[Message, ...]
    """``old``'s messages after the common prefix."""
    added: tuple[Message, ...]
    """``new``'s messages after the common prefix."""
    changed: tuple[str, ...]
    """Other snapshot fields that differ: ``revision``, ``provider``, ``compaction``,
    ``metadata``, ``prompt_cache_key``, ``session_id``."""
    common_ancestor: RevisionNode | None
    """The nearest node both lie under (``None`` across disconnected legacy roots)."""


def revision_diff(tree: SessionTree, old: RevisionNode, new: RevisionNode) -> RevisionDiff:
    """How ``new`` differs from ``old`` (any two nodes of ``tree``)."""
    a, b = tree.history(old), tree.history(new)
    limit = min(len(a), len(b))
    common = 0
    while common < limit and (a[common] is b[common] or a[common] == b[common]):
        common += 1
    changed = []
    if old.revision != new.revision:
        changed.append("revision")
    ma, mb = old.meta, new.meta
    for name in ("session_id", "provider", "metadata", "prompt_cache_key"):
        if (getattr(ma, name) if ma else None) != (getattr(mb, name) if mb else None):
            changed.append(name)
    if old.compaction != new.compaction:
        changed.insert(1 if changed[:1] == ["revision"] else 0, "compaction")
    ancestors = {id(n) for n in [old, *old.ancestors()]}
    common_ancestor = next((n for n in [new, *new.ancestors()] if id(n) in ancestors), None)
    return RevisionDiff(old, new, common, a[common:], b[common:], tuple(changed), common_ancestor)


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
    d = revision_diff(tree, old, new)
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
    result = DiffResult(
        old, new, d.common_prefix, suffix, fields=tuple(f for f in d.changed if f != "revision")
    )
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
