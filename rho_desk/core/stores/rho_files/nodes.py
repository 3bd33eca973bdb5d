"""The nodes of a revision tree: one saved revision each, and the snapshot fields they share.

A node holds either a complete history (a full snapshot, ``replace_history``) or its parent plus
the messages it appended (a delta, a v1 ``message``); the tree (``tree.py``) materialises full
histories on demand.
"""

from __future__ import annotations

import enum
from collections.abc import Iterator
from typing import Final

import msgspec

from ...wire.model import Message, ModelIdentity
from ...wire.snapshot import CompactionState, SessionSnapshot
from .records import (
    CompactionFacts,
    NodeKind,
    StoredDisplayMessage,
    StoredSnapshotDelta,
    parse_timestamp,
)

__all__ = ["APP_CACHE_KEY", "AppCacheKey", "RevisionNode", "SnapshotMeta", "legacy_node_id"]


class AppCacheKey(enum.Enum):
    APP = "app"


APP_CACHE_KEY: Final = AppCacheKey.APP
"""Fallback prompt-cache key meaning "the app's default for this session" (``rho:<id>``)."""


def legacy_node_id(offset: int) -> str:
    """The id of the virtual node made by the legacy record whose line starts at ``offset``."""
    return f"legacy:{offset:016x}"


class SnapshotMeta(msgspec.Struct, frozen=True, gc=False):
    """The snapshot fields of a state other than history, revision and compaction."""

    session_id: str
    provider: ModelIdentity
    metadata: dict[str, str]
    prompt_cache_key: str | None

    @classmethod
    def of(cls, source: SessionSnapshot | StoredSnapshotDelta) -> SnapshotMeta:
        """From a ``SessionSnapshot`` or a ``StoredSnapshotDelta`` (same field names)."""
        return cls(source.session_id, source.provider, source.metadata, source.prompt_cache_key)


class RevisionNode:
    """One saved revision: a node of the tree (or of the line, for v1-v3 files).

    Attributes are read-only for users of the tree. ``display`` is what this node contributed to
    display history; the complete model history and snapshot come from the tree
    (:meth:`SessionTree.history`, :meth:`SessionTree.snapshot`), materialised on demand.
    """

    __slots__ = (
        "_appended",
        "_full",
        "children",
        "compaction",
        "compaction_facts",
        "display",
        "id",
        "kind",
        "length",
        "line",
        "meta",
        "offset",
        "parent",
        "restores",
        "revision",
        "time",
        "timestamp",
        "transition",
        "virtual",
    )

    id: str
    """Node id: a UUID for tree nodes, ``legacy:<16 hex digits of the line offset>`` for virtual ones."""
    parent: RevisionNode | None
    children: list[RevisionNode]
    """In file order."""
    timestamp: str
    """Save time as written (Unix seconds as a string)."""
    time: int | None
    """``timestamp`` parsed, or ``None`` when it does not parse."""
    kind: NodeKind
    compaction_facts: CompactionFacts | None
    revision: int
    compaction: CompactionState
    meta: SnapshotMeta | None
    """Session id, provider, metadata and cache key; ``None`` for a message-only v1 state."""
    display: list[StoredDisplayMessage]
    length: int
    """Number of messages in the node's model history."""
    line: int | None
    """1-based line of the record that made the node (``None`` before it is written)."""
    offset: int | None
    """Byte offset of that line."""
    virtual: bool
    """True for nodes projected from legacy records."""
    transition: str
    """How the record stated the node: ``snapshot``, ``snapshot_delta``, ``message`` or ``replace_history``."""
    restores: RevisionNode | None
    """The earlier node whose state this one restores, or ``None``.

    Only legacy (v1-v3) lines have such nodes: a line cannot point back, so an undo or redo is
    written as a copy of the earlier state (a complete ``snapshot`` record with the next
    revision). Rho's projection counts such a record as a compaction when the compaction state
    differs; rho-desk reads it as what it is, a restore (``SessionTree._restored`` decides).
    """

    def __init__(
        self,
        *,
        id: str,
        parent: RevisionNode | None,
        timestamp: str,
        kind: NodeKind,
        revision: int,
        compaction: CompactionState,
        meta: SnapshotMeta | None,
        full: tuple[Message, ...] | None,
        appended: tuple[Message, ...],
        display: list[StoredDisplayMessage],
        transition: str,
        facts: CompactionFacts | None = None,
        line: int | None = None,
        offset: int | None = None,
        virtual: bool = False,
    ) -> None:
        self.id = id
        self.parent = parent
        self.children = []
        self.timestamp = timestamp
        self.time = parse_timestamp(timestamp)
        self.kind = kind
        self.compaction_facts = facts
        self.revision = revision
        self.compaction = compaction
        self.meta = meta
        self.display = display
        self.line = line
        self.offset = offset
        self.virtual = virtual
        self.transition = transition
        self.restores = None
        self._full = full
        self._appended = appended
        if full is not None:
            self.length = len(full)
        elif parent is not None:
            self.length = parent.length + len(appended)
        else:
            raise ValueError(f"node {id!r} appends to no parent and stores no complete history")

    @property
    def has_snapshot(self) -> bool:
        """Whether the state is a complete SDK snapshot (false only for message-only v1 states)."""
        return self.meta is not None

    @property
    def provider(self) -> ModelIdentity | None:
        return None if self.meta is None else self.meta.provider

    @property
    def appended(self) -> tuple[Message, ...] | None:
        """The messages this node appended to its parent's history; ``None`` for a complete base."""
        return None if self._full is not None else self._appended

    @property
    def full(self) -> tuple[Message, ...] | None:
        """The complete history this node stores, or ``None`` for a delta."""
        return self._full

    @property
    def is_complete_base(self) -> bool:
        """Whether the node stores its whole history (a full snapshot or ``replace_history``)."""
        return self._full is not None

    def ancestors(self) -> Iterator[RevisionNode]:
        """Parent, grandparent, ... up to the root."""
        node = self.parent
        while node is not None:
            yield node
            node = node.parent

    def __repr__(self) -> str:
        return f"RevisionNode({self.id!r}, revision={self.revision}, kind={self.kind.value})"
