"""The revision tree of one transcript: the record grammar that adds nodes to it.

storage.md §5.6-§5.9, §6.2-§6.6, §11. Legacy records (v1-v3) become virtual nodes
(``legacy:<byte offset>``) on one line; ``node``/``set_leaf`` records build a tree. Both the
reader and the writer add records through :meth:`SessionTree.plan`, which validates a record
against the tree without changing it and returns a :class:`Change` to commit, so that what we
append is checked by exactly the rules that will read it back. The questions asked of a
built tree (paths, states, display, diffs) live in ``queries.py``; the nodes in ``nodes.py``.

Histories are never copied per node. A node holds either a complete history (a full snapshot,
``replace_history``) or its parent plus the messages it appended (a delta, a v1 ``message``);
a node's full history is materialised on demand and only a few are cached (the active leaf's,
and the last ones asked for), so a 4,000-node tree over 100k messages costs one reference per
message, not one per message per node.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import msgspec

from ...compaction.tokens import estimate_messages_tokens
from ...wire.model import Message
from ...wire.snapshot import CompactionState, SessionSnapshot
from .errors import (
    IllegalRecord,
    NoSessionState,
    SessionFileError,
    SessionIdMismatch,
    SnapshotDeltaMismatch,
)
from .nodes import (
    APP_CACHE_KEY,
    AppCacheKey,
    RevisionNode,
    SnapshotMeta,
    legacy_node_id,
)
from .queries import TreeQueries
from .records import (
    MAX_NODE_ID_BYTES,
    DeltaTransition,
    HeaderRecord,
    MessageRecord,
    NodeKind,
    NodeRecord,
    Record,
    ReplaceHistoryRecord,
    SetLeafRecord,
    SnapshotDeltaRecord,
    SnapshotRecord,
    StoredDisplayMessage,
    StoredSnapshotDelta,
    UpgradeRecord,
    parse_timestamp,
)
from .views import trim_incomplete_tool_turns

__all__ = [
    "APP_CACHE_KEY",
    "AppCacheKey",
    "Change",
    "RevisionNode",
    "SessionTree",
    "SnapshotMeta",
    "legacy_node_id",
]

_ZERO: Final = CompactionState(0, 0)
_CACHE_SIZE: Final = 3
"""Materialised histories kept besides the active leaf's (for a GUI stepping through revisions)."""


class Change(msgspec.Struct):
    """A validated record, not yet applied: :meth:`commit` applies it to the tree.

    The writer commits only after the bytes are on disk; the reader commits at once.
    """

    tree: SessionTree
    record: Record
    node: RevisionNode | None = None
    """A new node to attach (it becomes the active leaf)."""
    leaf: RevisionNode | None = None
    """A node to make the active leaf (``set_leaf``)."""
    extra_display: tuple[StoredDisplayMessage, ...] = ()
    """Display entries of a legacy record that did not change state (go to the current leaf)."""
    legacy_meta: SnapshotMeta | None = None
    set_legacy_meta: bool = False
    upgrade: bool = False
    time: int | None = None
    committed: bool = msgspec.field(default=False)

    def commit(self) -> None:
        if self.committed:
            raise RuntimeError("change already committed")
        self.committed = True
        self.tree._commit(self)


class SessionTree(TreeQueries):
    """The revision tree of one transcript, and the rules for adding to it.

    Args:
        header: the transcript's header record (``None`` for an empty file).
        source: the file, for error messages.
    """

    def __init__(self, header: HeaderRecord | None, *, source: str | None = None) -> None:
        self.header = header
        self.source = source
        self.nodes: dict[str, RevisionNode] = {}
        """Every node by id, in file order."""
        self.active_leaf: RevisionNode | None = None
        self._branch_points = 0
        self._revision_counts: dict[int, int] = {}
        self.upgraded = False
        """A v1-v3 file continued with tree records (it carries an ``upgrade`` marker)."""
        self.created_at: int | None = None if header is None else parse_timestamp(header.timestamp)
        self.updated_at: int = self.created_at or 0
        """Largest parseable record timestamp (0 when none parses)."""
        self.record_count = 0 if header is None else 1
        self._legacy_leaf: RevisionNode | None = None
        self._legacy_meta: SnapshotMeta | None = None
        self._leaf_history: tuple[RevisionNode, tuple[Message, ...]] | None = None
        self._cache: dict[int, tuple[RevisionNode, tuple[Message, ...]]] = {}

    # -- facts -------------------------------------------------------------------------------

    @property
    def session_id(self) -> str | None:
        return None if self.header is None else self.header.id

    @property
    def header_version(self) -> int | None:
        return None if self.header is None else self.header.version

    @property
    def format_version(self) -> int:
        """Effective format: 4 for v4 and upgraded files, else the header version (0: no header)."""
        if self.header is None:
            return 0
        return 4 if self.upgraded or self.header.version == 4 else self.header.version

    @property
    def is_tree(self) -> bool:
        """Whether the file grows with tree records (branches possible) rather than legacy ones."""
        return self.format_version == 4

    @property
    def node_count(self) -> int:
        return len(self.nodes)

    @property
    def legacy_leaf(self) -> RevisionNode | None:
        """The newest virtual node of the legacy projection (the base of a legacy append)."""
        return self._legacy_leaf

    @property
    def legacy_meta(self) -> SnapshotMeta | None:
        """The latest legacy snapshot's meta (``S.snapshot`` of §6.2; may differ from the leaf's)."""
        return self._legacy_meta

    # -- states ------------------------------------------------------------------------------

    def history(self, node: RevisionNode | None = None) -> tuple[Message, ...]:
        """The complete model history of ``node`` (default: the active leaf), untrimmed.

        Raises:
            NoSessionState: no node given and the file has no state.
            InputError: ``node`` belongs to another tree (another session, or an earlier read).
        """
        return self._materialise(self._leaf_or_fail(node))

    def _materialise(self, node: RevisionNode) -> tuple[Message, ...]:
        hit = self._cached(node)
        if hit is not None:
            return hit
        parts: list[tuple[Message, ...]] = []
        current = node
        while True:
            if current._full is not None:
                base = current._full
                break
            hit = self._cached(current) if current is not node else None
            if hit is not None:
                base = hit
                break
            parts.append(current._appended)
            parent = current.parent
            if parent is None:  # RevisionNode refuses to build such a node
                raise NoSessionState(
                    f"node {current.id!r} has no complete base", source=self.source
                )
            current = parent
        if not parts:
            result = base
        else:
            out = list(base)
            for part in reversed(parts):
                out.extend(part)
            result = tuple(out)
        self._remember(node, result)
        return result

    def _cached(self, node: RevisionNode) -> tuple[Message, ...] | None:
        leaf = self._leaf_history
        if leaf is not None and leaf[0] is node:
            return leaf[1]
        hit = self._cache.get(id(node))
        return hit[1] if hit is not None and hit[0] is node else None

    def _remember(self, node: RevisionNode, history: tuple[Message, ...]) -> None:
        """Keep ``history`` as ``node``'s: the active leaf's in its own slot, others in a small LRU.

        The leaf slot is simply replaced when the leaf moves on, so an append never has to free
        an old 100k-message tuple that only this cache still held.
        """
        if node is self.active_leaf:
            self._leaf_history = (node, history)
            return
        cache = self._cache
        cache.pop(id(node), None)
        cache[id(node)] = (node, history)
        while len(cache) > _CACHE_SIZE:
            del cache[next(iter(cache))]

    # -- adding records ------------------------------------------------------------------------

    def apply(self, record: Record, *, line: int | None = None, offset: int | None = None) -> None:
        """Validate and apply one record (what the reader does for every line)."""
        self.plan(record, line=line, offset=offset).commit()

    def adopt(
        self, record: NodeRecord, *, line: int | None = None, offset: int | None = None
    ) -> RevisionNode:
        """Apply a node record whose maker holds :meth:`plan`'s rules by construction, and
        return its node.

        For rho-desk's own tree of another agent's log (``core.agents.build``), whose every
        record it made just before: its parent is the node the maker holds, its snapshot is
        this session's (a full one at the root and at a compaction, a delta on the parent's
        revision otherwise), its compaction state changes exactly at a compaction node. What
        the log itself decides is still checked here: the node id is new and its parent is in
        the tree. The tests apply every such record with :meth:`apply` as well.

        Raises:
            IllegalRecord: a duplicate node id, or an unknown parent.
        """
        node_id = record.id
        parent: RevisionNode | None = None
        if record.parent_id is not None:
            parent = self.nodes.get(record.parent_id)
            if parent is None:
                raise self._illegal(
                    f"node {node_id!r} names unknown parent {record.parent_id!r}", line
                )
        node = _node_of(record, parent, line, offset)
        self._commit(Change(self, record, node=node, time=node.time))  # refuses a duplicate id
        return node

    def plan(self, record: Record, *, line: int | None = None, offset: int | None = None) -> Change:
        """Validate ``record`` as the next record of the file, without changing the tree.

        Args:
            line: its 1-based line number, for error messages and the node.
            offset: byte offset of its line (names a legacy record's virtual node).

        Raises:
            IllegalRecord: the record is not allowed here (see ``SnapshotDeltaMismatch`` too).
            SessionIdMismatch: the record's snapshot belongs to another session.
        """
        header = self.header
        if isinstance(record, HeaderRecord):
            raise self._illegal("a second session header", line)
        if header is None:
            raise self._illegal(f"`{_type(record)}` record before the session header", line)
        time = parse_timestamp(record.timestamp)
        if isinstance(record, NodeRecord | SetLeafRecord):
            if not self.is_tree:
                raise self._illegal(
                    f"tree record `{_type(record)}` in a version {header.version} session "
                    "before its upgrade marker",
                    line,
                )
            if isinstance(record, SetLeafRecord):
                target = self.nodes.get(record.target_id)
                if target is None:
                    raise self._illegal(f"set_leaf names unknown node {record.target_id!r}", line)
                return Change(self, record, leaf=target, time=time)
            return Change(self, record, node=self._plan_node(record, line, offset), time=time)
        if isinstance(record, UpgradeRecord):
            if header.version == 4:
                raise self._illegal("upgrade marker in a version 4 session", line)
            if self.upgraded:
                raise self._illegal("a second upgrade marker", line)
            leaf = self._legacy_leaf
            if leaf is None:
                raise self._illegal(
                    "upgrade marker in a session with no legacy state to upgrade", line
                )
            if record.active_leaf_id != leaf.id:
                raise self._illegal(
                    f"upgrade marker names {record.active_leaf_id!r}, but the current legacy leaf "
                    f"is {leaf.id!r}",
                    line,
                )
            return Change(self, record, upgrade=True, time=time)
        # legacy records
        if header.version == 4:
            raise self._illegal(f"legacy record `{_type(record)}` in a version 4 session", line)
        if self.upgraded:
            raise self._illegal(f"legacy record `{_type(record)}` after the upgrade marker", line)
        if offset is None:
            raise ValueError("a legacy record needs its byte offset")
        return self._plan_legacy(record, line, offset, time)

    def _plan_legacy(
        self, record: Record, line: int | None, offset: int, time: int | None
    ) -> Change:
        leaf = self._legacy_leaf
        meta = self._legacy_meta
        node_id = legacy_node_id(offset)
        if isinstance(record, MessageRecord):
            shown = record.display_message if record.display_message is not None else record.message
            node = RevisionNode(
                id=node_id,
                parent=leaf,
                line=line,
                offset=offset,
                virtual=True,
                timestamp=record.timestamp,
                kind=NodeKind.COMMIT,
                revision=(leaf.revision if leaf else 0) + 1,
                compaction=leaf.compaction if leaf else _ZERO,
                meta=meta,
                full=None if leaf else (record.message,),
                appended=(record.message,),
                display=[StoredDisplayMessage(record.timestamp, shown)],
                transition="message",
            )
            return Change(self, record, node=node, time=time)
        if isinstance(record, ReplaceHistoryRecord):
            previous = self._materialise(leaf) if leaf else ()
            before = estimate_messages_tokens(previous)
            after = estimate_messages_tokens(record.messages)
            revision = (leaf.revision if leaf else 0) + 1
            compaction = (leaf.compaction if leaf else _ZERO).record(
                previous_messages=len(previous),
                current_messages=len(record.messages),
                previous_tokens=before,
                current_tokens=after,
                cost_usd_micros=None,
                revision=revision,
            )
            node = RevisionNode(
                id=node_id,
                parent=leaf,
                line=line,
                offset=offset,
                virtual=True,
                timestamp=record.timestamp,
                kind=NodeKind.COMPACTION,
                revision=revision,
                compaction=compaction,
                meta=meta,
                full=record.messages,
                appended=(),
                display=[],
                transition="replace_history",
            )
            return Change(self, record, node=node, time=time)
        if isinstance(record, SnapshotRecord):
            stored = record.snapshot
            new_meta = SnapshotMeta.of(stored)
            base_compaction = leaf.compaction if leaf else _ZERO
            compaction_changed = stored.compaction != base_compaction
            previous = self._materialise(leaf) if leaf else ()
            if compaction_changed or (previous and not _starts_with(stored.history, previous)):
                kind = NodeKind.COMPACTION
            else:
                kind = NodeKind.COMMIT
            changes = (
                leaf is None
                or meta is None
                or stored.revision != leaf.revision
                or compaction_changed
                or stored.history != previous
            )
            if not changes:
                return self._unchanged(record, new_meta, time)
            node = RevisionNode(
                id=node_id,
                parent=leaf,
                line=line,
                offset=offset,
                virtual=True,
                timestamp=record.timestamp,
                kind=kind,
                revision=stored.revision,
                compaction=stored.compaction,
                meta=new_meta,
                full=stored.history,
                appended=(),
                display=list(record.display_messages),
                transition="snapshot",
            )
            if kind is NodeKind.COMPACTION or (
                previous and not _starts_with(stored.history, previous)
            ):
                node.restores = self._restored(node, leaf, stored.history)
                if node.restores is not None:
                    node.kind = NodeKind.COMMIT  # an undo or redo copy, not a compaction
            return Change(
                self, record, node=node, legacy_meta=new_meta, set_legacy_meta=True, time=time
            )
        assert isinstance(record, SnapshotDeltaRecord)
        delta = record.delta
        if leaf is None or meta is None:
            raise self._illegal(
                "snapshot delta does not have a complete base snapshot", line, SnapshotDeltaMismatch
            )
        self._check_delta(delta, meta.session_id, leaf.revision, line)
        new_meta = SnapshotMeta.of(delta)
        compaction_changed = delta.compaction != leaf.compaction
        changes = (
            bool(delta.appended_history) or delta.revision != leaf.revision or compaction_changed
        )
        if not changes:
            return self._unchanged(record, new_meta, time)
        node = RevisionNode(
            id=node_id,
            parent=leaf,
            line=line,
            offset=offset,
            virtual=True,
            timestamp=record.timestamp,
            kind=NodeKind.COMPACTION if compaction_changed else NodeKind.COMMIT,
            revision=delta.revision,
            compaction=delta.compaction,
            meta=new_meta,
            full=None,
            appended=delta.appended_history,
            display=list(record.display_messages),
            transition="snapshot_delta",
        )
        return Change(
            self, record, node=node, legacy_meta=new_meta, set_legacy_meta=True, time=time
        )

    def _restored(
        self, node: RevisionNode, leaf: RevisionNode | None, history: tuple[Message, ...]
    ) -> RevisionNode | None:
        """The earlier node on ``leaf``'s line whose state the complete base ``node`` copies.

        A v1-v3 line cannot point back, so an undo or a redo is written as a copy of an earlier
        state with the next revision. A compaction the engine made records its own revision as
        ``last_revision``; a changed compaction state that is not such a fresh compaction, or a
        history that replaces the previous one, is a restore when an earlier node holds the very
        same compaction state and history (the nearest one is taken).
        """
        if leaf is None:
            return None
        compaction = node.compaction
        if compaction != leaf.compaction and compaction.last_revision == node.revision:
            return None  # a compaction made at this revision
        for earlier in (leaf, *leaf.ancestors()):
            if (
                earlier.compaction == compaction
                and earlier.length == node.length
                and earlier is not leaf
                and self._materialise(earlier) == history
            ):
                return earlier
        return None

    def _check_delta(
        self, delta: StoredSnapshotDelta, base_id: str, base_revision: int, line: int | None
    ) -> None:
        """§5.5: same session id, ``base_revision`` = the base's revision, revision not lower."""
        if delta.session_id != base_id:
            raise self._illegal(
                f"snapshot delta session id {delta.session_id!r} does not match base session id "
                f"{base_id!r}",
                line,
                SnapshotDeltaMismatch,
            )
        if delta.base_revision != base_revision:
            raise self._illegal(
                f"snapshot delta base revision {delta.base_revision} does not match previous "
                f"revision {base_revision}",
                line,
                SnapshotDeltaMismatch,
            )
        if delta.revision < delta.base_revision:
            raise self._illegal(
                f"snapshot delta revision {delta.revision} is lower than its base revision "
                f"{delta.base_revision}",
                line,
                SnapshotDeltaMismatch,
            )

    def _plan_node(self, record: NodeRecord, line: int | None, offset: int | None) -> RevisionNode:
        node_id = record.id
        if not node_id:
            raise self._illegal("node id is empty", line)
        if node_id != node_id.strip():
            raise self._illegal(f"node id {node_id!r} has leading or trailing whitespace", line)
        if len(node_id.encode("utf-8")) > MAX_NODE_ID_BYTES:
            raise self._illegal(f"node id is longer than {MAX_NODE_ID_BYTES} bytes", line)
        if node_id in self.nodes:
            raise self._illegal(f"duplicate node id {node_id!r}", line)
        if record.kind is NodeKind.COMMIT and record.compaction_facts is not None:
            raise self._illegal(f"commit node {node_id!r} carries compaction facts", line)
        transition = record.transition
        is_delta = isinstance(transition, DeltaTransition)
        parent: RevisionNode | None = None
        if record.parent_id is None:
            if self.nodes:
                raise self._illegal(f"node {node_id!r} creates a disconnected root", line)
            if is_delta:
                raise self._illegal(f"root node {node_id!r} must use a full snapshot", line)
            if record.kind is not NodeKind.COMMIT:
                raise self._illegal(f"root node {node_id!r} must be a commit node", line)
        else:
            parent = self.nodes.get(record.parent_id)
            if parent is None:
                raise self._illegal(
                    f"node {node_id!r} names unknown parent {record.parent_id!r}", line
                )
        if record.kind is NodeKind.COMPACTION and is_delta:
            raise self._illegal(f"compaction node {node_id!r} must use a full snapshot", line)
        if isinstance(transition, DeltaTransition):
            assert parent is not None
            if parent.meta is None:
                raise self._illegal(
                    f"node {node_id!r} is a delta on {parent.id!r}, which has no complete snapshot",
                    line,
                    SnapshotDeltaMismatch,
                )
            self._check_delta(transition.delta, parent.meta.session_id, parent.revision, line)
        node = _node_of(record, parent, line, offset)
        meta = node.meta
        assert meta is not None and self.header is not None
        if meta.session_id != self.header.id:
            raise self._illegal(
                f"node {node_id!r} holds a snapshot of session {meta.session_id!r}, "
                f"not {self.header.id!r}",
                line,
                SessionIdMismatch,
            )
        revision, compaction = node.revision, node.compaction
        if parent is not None:
            if revision <= parent.revision and not self._same_state(parent, node):
                raise self._illegal(
                    f"node {node_id!r} changes the state without increasing the revision "
                    f"(revision {revision} after {parent.revision})",
                    line,
                )
            compaction_changed = compaction != parent.compaction
            if compaction_changed and record.kind is not NodeKind.COMPACTION:
                raise self._illegal(
                    f"node {node_id!r} changes the compaction state but is a commit node", line
                )
            if not compaction_changed and record.kind is NodeKind.COMPACTION:
                raise self._illegal(
                    f"node {node_id!r} is a compaction node but the compaction state is unchanged",
                    line,
                )
        return node

    def _same_state(self, parent: RevisionNode, node: RevisionNode) -> bool:
        """§5.6 rule 7: full snapshot equality (trimmed history etc. for a message-only parent)."""
        if node.revision != parent.revision or node.compaction != parent.compaction:
            return False
        if parent.meta is not None:
            if node.meta != parent.meta:
                return False
            if node._full is None:
                return not node._appended
            return node._full == self._materialise(parent)
        new_history = self._materialise(node) if node._full is None else node._full
        return new_history == trim_incomplete_tool_turns(self._materialise(parent))

    def _commit(self, change: Change) -> None:
        self.record_count += 1
        if change.time is not None and change.time > self.updated_at:
            self.updated_at = change.time
        node = change.node
        if node is not None:
            if node.id in self.nodes:  # planned twice, committed twice
                raise IllegalRecord(
                    f"duplicate node id {node.id!r}", source=self.source, line=node.line
                )
            self.nodes[node.id] = node
            self._revision_counts[node.revision] = self._revision_counts.get(node.revision, 0) + 1
            if node.parent is not None:
                siblings = node.parent.children
                siblings.append(node)
                if len(siblings) == 2:
                    self._branch_points += 1
            self.active_leaf = node
            if node.virtual:
                self._legacy_leaf = node
        if change.extra_display:
            assert self._legacy_leaf is not None
            self._legacy_leaf.display.extend(change.extra_display)
        if change.set_legacy_meta:
            # message/replace_history rebuild S.snapshot from S: its meta carries over
            self._legacy_meta = change.legacy_meta
        if change.leaf is not None:
            self.active_leaf = change.leaf
        if change.upgrade:
            self.upgraded = True

    def _unchanged(
        self, record: SnapshotRecord | SnapshotDeltaRecord, meta: SnapshotMeta, time: int | None
    ) -> Change:
        """A legacy record that changes no revision: its display messages join the leaf's."""
        return Change(
            self,
            record,
            extra_display=record.display_messages,
            legacy_meta=meta,
            set_legacy_meta=True,
            time=time,
        )

    def _illegal(
        self, reason: str, line: int | None, cls: type[SessionFileError] = IllegalRecord
    ) -> SessionFileError:
        return cls(reason, source=self.source, line=line)


def _node_of(
    record: NodeRecord, parent: RevisionNode | None, line: int | None, offset: int | None
) -> RevisionNode:
    """The node ``record`` states on ``parent``, unchecked (:meth:`SessionTree.plan` checks it,
    :meth:`SessionTree.adopt` takes its maker's word)."""
    transition = record.transition
    state: SessionSnapshot | StoredSnapshotDelta
    if isinstance(transition, DeltaTransition):
        state = transition.delta
        full, appended, how = None, state.appended_history, "snapshot_delta"
    else:
        state = transition.snapshot
        full, appended, how = state.history, (), "snapshot"
    return RevisionNode(
        id=record.id,
        parent=parent,
        timestamp=record.timestamp,
        kind=record.kind,
        revision=state.revision,
        compaction=state.compaction,
        meta=SnapshotMeta.of(state),
        full=full,
        appended=appended,
        display=list(record.display_messages),
        transition=how,
        facts=record.compaction_facts,
        line=line,
        offset=offset,
    )


def _type(record: Record) -> str:
    return type(record).__struct_config__.tag  # type: ignore[return-value]


def _starts_with(history: Sequence[Message], prefix: tuple[Message, ...]) -> bool:
    n = len(prefix)
    return len(history) >= n and tuple(history[:n]) == prefix
