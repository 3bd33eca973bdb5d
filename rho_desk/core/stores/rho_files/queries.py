"""Questions asked of a revision tree: paths, walks, states as Rho resumes them, display.

The record grammar (``tree.py``) builds the tree and materialises each node's model history;
everything here only reads it. :class:`TreeQueries` is the part of :class:`SessionTree` that
answers questions, kept apart so that the rules for adding records stay in one short place.

A legacy line (v1-v3) cannot point back: an undo or a redo there is a copy of an earlier state
(:attr:`RevisionNode.restores`). The path of such a restore follows it back to the state it
restores, so the display, the compactions on the path and the statistics read a restore as a
restore (as a ``set_leaf`` reads in a v4 tree), not as one more compaction.
"""

from __future__ import annotations

from collections.abc import Iterator

from ...errors import InputError
from ...wire.model import Message, ModelIdentity
from ...wire.snapshot import SNAPSHOT_SCHEMA, SessionSnapshot
from .errors import NoSessionState, SessionIdMismatch
from .nodes import APP_CACHE_KEY, AppCacheKey, RevisionNode
from .records import HeaderRecord, NodeKind, StoredDisplayMessage
from .views import (
    LEGACY_PROVIDER,
    compaction_marker,
    complete_prefix_length,
    default_prompt_cache_key,
    trim_incomplete_tool_turns,
)

__all__ = ["TreeQueries"]


class TreeQueries:
    """Read-only questions about the tree (mixed into :class:`~.tree.SessionTree`)."""

    header: HeaderRecord | None
    source: str | None
    nodes: dict[str, RevisionNode]
    """Every node by id, in file order."""
    active_leaf: RevisionNode | None
    _branch_points: int
    _revision_counts: dict[int, int]
    """How many nodes carry each revision number (a branch made after an undo reuses one)."""
    """Nodes with more than one child, counted as children are added (a save in a Rho home asks
    for it once per save: walking every node would cost more than the save)."""

    def history(self, node: RevisionNode | None = None) -> tuple[Message, ...]:
        """The complete model history of ``node`` (the grammar materialises it)."""
        raise NotImplementedError

    def owns(self, node: RevisionNode) -> bool:
        """Whether ``node`` is a node of this tree (not of another session's)."""
        return self.nodes.get(node.id) is node

    def _own(self, node: RevisionNode) -> RevisionNode:
        if not self.owns(node):
            raise InputError(
                f"revision {node.id!r} is not part of this session", source=self.source
            )
        return node

    @property
    def branch_count(self) -> int:
        """Nodes with more than one child."""
        return self._branch_points

    def revision_name(self, node: RevisionNode) -> str:
        """``revision 9``; where another node has the same number (a turn continued after an undo
        starts a branch at the next number, beside the undone node), ``revision 9 (node 3fa2c1d0)``,
        so that a message naming it is never ambiguous."""
        if self._revision_counts.get(node.revision, 0) > 1:
            return f"revision {node.revision} (node {node.id[:8]})"
        return f"revision {node.revision}"

    def shares_revision(self, node: RevisionNode) -> bool:
        """Whether another node of the tree has ``node``'s revision number."""
        return self._revision_counts.get(node.revision, 0) > 1

    @property
    def roots(self) -> list[RevisionNode]:
        return [n for n in self.nodes.values() if n.parent is None]

    def node(self, node_id: str) -> RevisionNode:
        try:
            return self.nodes[node_id]
        except KeyError:
            raise InputError(f"no node {node_id!r} in this session", source=self.source) from None

    def path(self, node: RevisionNode | None = None) -> list[RevisionNode]:
        """Root to ``node`` (default: the active leaf) inclusive; ``[]`` when there is no leaf.

        A restore in a legacy line (:attr:`RevisionNode.restores`) continues from the node it
        restores: the states it undid are not on its path.
        """
        node = self.active_leaf if node is None else self._own(node)
        out = []
        while node is not None:
            out.append(node)
            node = node.restores if node.restores is not None else node.parent
        out.reverse()
        return out

    def walk(self) -> Iterator[tuple[RevisionNode, int]]:
        """Every node depth-first (pre-order, siblings in file order) with its depth."""
        stack = [(root, 0) for root in reversed(self.roots)]
        while stack:
            node, depth = stack.pop()
            yield node, depth
            stack.extend((child, depth + 1) for child in reversed(node.children))

    def find_revision(self, revision: int) -> RevisionNode:
        """The node holding ``revision``: the newest on the active path, else the newest in the file.

        Raises:
            InputError: no node has that revision.
        """
        for node in reversed(self.path()):
            if node.revision == revision:
                return node
        for node in reversed(self.nodes.values()):
            if node.revision == revision:
                return node
        raise InputError(f"the session has no revision {revision}", source=self.source)

    def _leaf_or_fail(self, node: RevisionNode | None) -> RevisionNode:
        if node is not None:
            return self._own(node)
        if self.active_leaf is None:
            if self.header is None:
                raise NoSessionState("the file has no session header", source=self.source)
            raise NoSessionState("the session has no saved state yet", source=self.source)
        return self.active_leaf

    def snapshot(
        self,
        node: RevisionNode | None = None,
        *,
        provider: ModelIdentity | None = None,
        prompt_cache_key: str | AppCacheKey | None = APP_CACHE_KEY,
        trim: bool = True,
    ) -> SessionSnapshot:
        """The complete SDK snapshot of ``node`` (default: the active leaf), as Rho resumes it (§6.6).

        Args:
            node: the revision; default the active leaf.
            provider: identity for a message-only v1 state (default ``legacy/legacy/legacy``);
                ignored when the state has a stored snapshot (its provider is kept).
            prompt_cache_key: key used when the stored state has none; ``APP_CACHE_KEY`` means
                the app's ``rho:<id>``, ``None`` means no key.
            trim: cut incomplete tool turns (resume does; ``False`` gives the stored history).

        Raises:
            NoSessionState: the file has no state node.
            SessionIdMismatch: the stored snapshot belongs to another session id.
        """
        node = self._leaf_or_fail(node)
        history = self.history(node)
        if trim:
            history = trim_incomplete_tool_turns(history)
        if self.header is None:
            raise NoSessionState("the file has no session header", source=self.source)
        file_id = self.header.id
        if prompt_cache_key is APP_CACHE_KEY:
            prompt_cache_key = default_prompt_cache_key(file_id)
        meta = node.meta
        if meta is None:
            return SessionSnapshot(
                SNAPSHOT_SCHEMA,
                file_id,
                node.revision,
                history,
                provider if provider is not None else LEGACY_PROVIDER,
                node.compaction,
                {},
                prompt_cache_key,
            )
        if meta.session_id != file_id:
            raise SessionIdMismatch(
                f"the snapshot of node {node.id} belongs to session {meta.session_id!r}, "
                f"not {file_id!r}",
                source=self.source,
                line=node.line,
            )
        return SessionSnapshot(
            SNAPSHOT_SCHEMA,
            meta.session_id,
            node.revision,
            history,
            meta.provider,
            node.compaction,
            dict(meta.metadata),
            meta.prompt_cache_key if meta.prompt_cache_key is not None else prompt_cache_key,
        )

    def display(
        self, node: RevisionNode | None = None, *, markers: bool = True, trimmed: bool = True
    ) -> list[StoredDisplayMessage]:
        """Display history of the path root -> ``node`` (default: the active leaf).

        Args:
            markers: insert the "◆ Compacted context" message after each compaction node
                (the projected display of §6.4); the index summary uses ``False``.
            trimmed: cut at the first incomplete tool turn (§6.5), as resume, export and
                summaries do; markers after the cut are dropped with it.
        """
        if node is None and self.active_leaf is None:
            return []
        path = self.path(self._leaf_or_fail(node))
        raw: list[StoredDisplayMessage] = []
        ends: list[int] = []
        for n in path:
            raw.extend(n.display)
            ends.append(len(raw))
        keep = complete_prefix_length([e.message for e in raw]) if trimmed else len(raw)
        if not markers:
            return raw[:keep]
        if keep == len(raw) and all(n.kind is not NodeKind.COMPACTION for n in path):
            return raw  # no marker to insert and nothing cut: the list as gathered
        out: list[StoredDisplayMessage] = []
        start = 0
        for n, end in zip(path, ends, strict=True):
            out.extend(raw[start : min(end, keep)])
            start = end
            if end > keep:
                break
            if n.kind is NodeKind.COMPACTION:
                out.append(compaction_marker(n.timestamp, n.compaction_facts, n.compaction))
        return out
