"""An agent's log as the revision tree the Rho reader produces: one model for every view.

:func:`build` turns the steps of an :class:`AgentLog` into Rho ``node`` records (header version
4) and attaches them to a :class:`SessionTree` (``SessionTree.adopt``), so that what a viewer
shows and what ``import`` writes are the same records. The records hold the Rho reader's rules by
construction, so they are not checked a second time as they are attached: what the log decides
(the node ids) is, and the tests apply every record the fixtures and random logs build with the
Rho reader's own ``SessionTree.apply``.

* Revisions: a user prompt, a compaction and every branch point start a revision of their own;
  the steps that follow in a line join it (a compaction's revision holds only the compaction,
  as Rho's own do, so the "Compacted context" marker falls where the compaction was). The first revision is a complete snapshot, later ones
  are deltas on their parent, a compaction is a new complete snapshot (its compaction state
  counts it, its facts say what it removed). When the log has several roots (an agent that
  re-edited its first prompt), an empty first revision holds them as branches.
* Tool turns are kept as Rho requires them (storage.md §6.5): the results of an assistant
  message's calls follow it, in the order of the calls (an agent that ran them in parallel may
  have recorded them in another order). A call that never got a result, when the conversation
  went on regardless (an aborted turn), gets the result Rho itself gives an interrupted call;
  each such result is counted in the loss report. A call still open at the end is left open.
* Node ids are derived from the session id and each revision's first step, so that building the
  same log twice gives the same tree (what makes a second ``import`` a no-op, and a grown log an
  append).
* The active leaf is the step the agent would continue from; the branch holding it is written
  last, so a ``set_leaf`` record is needed only when the agent itself moved back.
"""

from __future__ import annotations

import hashlib
import operator
import uuid
from collections import Counter
from collections.abc import Collection, Iterator, Sequence
from typing import Any, Final

import msgspec

from ..compaction.tokens import estimate_messages_tokens
from ..stores.rho_files.layout import unit_for_path
from ..stores.rho_files.reader import FileEnd, SessionFile
from ..stores.rho_files.records import (
    CompactionFacts,
    DeltaTransition,
    HeaderRecord,
    NodeKind,
    NodeRecord,
    Record,
    SetLeafRecord,
    SnapshotTransition,
    StoredDisplayMessage,
    StoredSnapshotDelta,
)
from ..stores.rho_files.tree import RevisionNode, SessionTree
from ..stores.rho_files.views import default_prompt_cache_key
from ..wire.model import ContentBlock, Message, ModelIdentity
from ..wire.snapshot import CompactionState, SessionSnapshot
from .base import AgentLog, Entry, bulk

__all__ = [
    "ATTACHED_PROMPT",
    "INTERRUPTED_RESULT",
    "AgentSessionFile",
    "attachment_message",
    "build",
    "node_id_for",
    "records_of",
]

INTERRUPTED_RESULT: Final = "tool call interrupted before completion"
"""The result Rho records for a call that was interrupted (spec/engine.md): what a call that
never got an answer is given."""
ATTACHED_PROMPT: Final = "Attached image(s) from tool result"
"""Opens the user message that carries a tool result's images (a Rho result is text only)."""
_NAMESPACE: Final = uuid.UUID("9c4b6f52-3f0e-4a57-9d6e-2d1f0b8a7c31")
_SEEDED: Final = hashlib.sha1(_NAMESPACE.bytes, usedforsecurity=False)
_VARIANT: Final = {f"{n:x}": f"{(n & 0x3) | 0x8:x}" for n in range(16)}
"""A hexadecimal digit -> the digit with the variant bits of RFC 4122 (``10xx``)."""
SOURCE_AGENT_KEY: Final = "rho_desk.source_agent"
SOURCE_SESSION_KEY: Final = "rho_desk.source_session"
_PARENT: Final = operator.attrgetter("parent")
_ID: Final = operator.attrgetter("id")


def attachment_message(call_id: str, images: Sequence[ContentBlock]) -> Message:
    """The user message that carries the images of the result of ``call_id``."""
    return Message.user_blocks((ContentBlock.of_text(f"{ATTACHED_PROMPT} {call_id}:"), *images))


def _is_attachment(message: Message) -> bool:
    blocks = message.user
    return bool(blocks) and (blocks[0].text or "").startswith(ATTACHED_PROMPT)  # type: ignore[index]


def node_id_for(session_id: str, entry_id: str) -> str:
    """The node id of the revision that starts at ``entry_id`` (stable across builds): the
    name-based UUID (version 5) of ``<session id>\\0<entry id>`` in rho-desk's namespace, spelled
    as ``str(uuid.uuid5(...))`` spells it, without building a ``UUID`` per node."""
    sha = _SEEDED.copy()  # the namespace hashed once (a new hash costs more than a copy)
    sha.update(f"{session_id}\x00{entry_id}".encode("utf-8", "surrogatepass"))
    h = sha.hexdigest()
    # the version (5) and variant (10xx) bits, set in the hexadecimal spelling
    return f"{h[:8]}-{h[8:12]}-5{h[13:16]}-{_VARIANT[h[16]]}{h[17:20]}-{h[20:32]}"


class AgentSessionFile(SessionFile, kw_only=True):
    """A :class:`SessionFile` built from another agent's log: read-only, with the log's facts."""

    agent: str = ""
    log: Any = None
    """The :class:`AgentLog` it was built from."""
    sources: dict[str, tuple[str, ...]] = msgspec.field(default_factory=dict)
    """Node id -> the ids of the steps it holds, in order."""
    records: list[Record] = msgspec.field(default_factory=list)
    """The header and the records, in file order, as ``import`` writes them."""


class _Turns(msgspec.Struct):
    """Tool-turn bookkeeping along one path: calls waiting for results, results waiting for
    their turn, messages waiting for the results."""

    pending: list[str] = msgspec.field(default_factory=list)
    results: dict[str, Message] = msgspec.field(default_factory=dict)
    held: list[Message] = msgspec.field(default_factory=list)

    def copy(self) -> _Turns:
        return _Turns(list(self.pending), dict(self.results), list(self.held))


class _Node(msgspec.Struct):
    entries: list[Entry]
    node_id: str
    parent: _Node | None = None
    children: list[_Node] = msgspec.field(default_factory=list)


class _State(msgspec.Struct):
    """What a revision hands its children: the path so far."""

    node: RevisionNode | None
    length: int
    provider: ModelIdentity
    turns: _Turns
    time: int
    epoch: str = ""
    """The compaction the path's history starts from ("" before the first): offsets count from it."""
    revision: int = 0
    """The revision the path is at (0: none yet)."""
    compaction: CompactionState = CompactionState(0, 0)
    history: list[Message] | None = None
    """The path's complete history, kept only while revisions are passed without nodes of
    their own (:func:`_build_line`'s ``leaf_only``): what a compaction reads it from."""


@bulk
def build(
    log: AgentLog,
    *,
    session_id: str | None = None,
    split_after: Collection[str] = (),
    leaf_only: bool = False,
) -> AgentSessionFile:
    """The revision tree of ``log`` (see the module docstring).

    Args:
        session_id: the id of the Rho session (default: the agent's own session id).
        split_after: step ids after which a new revision starts even in a line (the last step
            of each revision a previous import wrote, so that the revisions match again).
        leaf_only: a tree good only for the snapshot of its active leaf (``open_snapshot``):
            in a log whose steps form one line, the revisions before the last one that is a
            complete snapshot (the first, a compaction) are passed without nodes or records
            of their own; that one is the tree's root, with the revision number, compaction
            state and history the whole tree gives it.
    """
    sid = session_id or log.session_id
    cuts = frozenset(split_after)
    line_of = _line(log, sid, cuts)
    header = HeaderRecord(4, sid, str(log.created), log.cwd)
    tree = SessionTree(header, source=str(log.path))
    if line_of is not None:
        return _build_line(log, sid, tree, header, line_of, leaf_only=leaf_only)
    log.check_parents()
    nodes, leaf_node = _group(log, sid, cuts)
    records: list[Record] = [header]
    sources: dict[str, tuple[str, ...]] = {}
    metadata = {SOURCE_AGENT_KEY: log.agent, SOURCE_SESSION_KEY: log.session_id}
    cache_key = default_prompt_cache_key(sid)
    fallback = ModelIdentity(log.agent, "", "")
    by_node: dict[str, RevisionNode] = {}
    line = 1
    stack: list[tuple[_Node, _State]] = [
        (root, _State(None, 0, fallback, _Turns(), log.created)) for root in reversed(nodes)
    ]
    offsets: dict[str, tuple[str, int]] = {}
    while stack:
        item, state = stack.pop()
        line += 1
        record = _node_record(tree, log, sid, item, state, offsets, metadata, cache_key)
        node = tree.adopt(record, line=line, offset=0)
        by_node[record.id] = node
        records.append(record)
        sources[record.id] = tuple([e.id for e in item.entries])
        new_state = state  # the path after this revision (each item holds a state of its own)
        new_state.node = node
        children = item.children
        if len(children) == 1:
            # the only revision after this one goes on with the path as it is (nothing else
            # holds it)
            stack.append((children[0], new_state))
            continue
        for child in reversed(children):
            stack.append(
                (
                    child,
                    _State(
                        node,
                        new_state.length,
                        new_state.provider,
                        new_state.turns.copy(),
                        new_state.time,
                        new_state.epoch,
                        new_state.revision,
                        new_state.compaction,
                    ),
                )
            )
    if leaf_node is not None and tree.active_leaf is not None and tree.active_leaf.id != leaf_node:
        target = by_node.get(leaf_node)
        if target is not None:
            last_time = max(
                (int(n.timestamp) for n in by_node.values() if n.timestamp.isdigit()),
                default=log.created,
            )
            leaf = SetLeafRecord(str(last_time), target.id)
            line += 1
            tree.apply(leaf, line=line)
            records.append(leaf)
    return _session_file(log, tree, sources, records)


def _line(log: AgentLog, sid: str, split_after: frozenset[str]) -> list[_Node] | None:
    """The revisions of a log whose steps form one line (each the child of the step before it,
    the last one the leaf: the common case), in order, each the only child of the one before;
    ``None`` for any other log (:func:`_group` cuts those).

    The cuts are :func:`_group`'s in a line: a prompt, a compaction, the step after a
    compaction and ``split_after`` start a revision. In a line every parent is already known
    when its child comes, so :meth:`AgentLog.check_parents` would change nothing.
    """
    entries = log.entries
    if not entries:
        return None
    leaf = log.leaf if log.leaf in entries else None
    items: list[_Node] = []
    item: _Node | None = None
    previous: Entry | None = None
    up: str | None = None
    for entry in entries.values():
        if entry.parent != up:
            return None
        if (
            item is None
            or entry.turn
            or entry.compaction is not None
            or previous.compaction is not None  # type: ignore[union-attr]
            or up in split_after
        ):
            node = _Node([entry], "", item)  # its id is made with its record
            if item is not None:
                item.children.append(node)
            items.append(node)
            item = node
        else:
            item.entries.append(entry)
        previous = entry
        up = entry.id
    if leaf is not None and leaf != up:
        return None  # the agent continues from an earlier step: a branch follows it
    return items


def _build_line(
    log: AgentLog,
    sid: str,
    tree: SessionTree,
    header: HeaderRecord,
    items: list[_Node],
    *,
    leaf_only: bool = False,
) -> AgentSessionFile:
    """:func:`build` of a log whose revisions :func:`_line` found: the same records, attached
    one after the other on the same path (no branch, no ``set_leaf``); with ``leaf_only``,
    only from the last revision that is a complete snapshot on (see :func:`build`)."""
    records: list[Record] = [header]
    sources: dict[str, tuple[str, ...]] = {}
    metadata = {SOURCE_AGENT_KEY: log.agent, SOURCE_SESSION_KEY: log.session_id}
    cache_key = default_prompt_cache_key(sid)
    state = _State(None, 0, ModelIdentity(log.agent, "", ""), _Turns(), log.created)
    offsets: dict[str, tuple[str, int]] = {}
    adopt = tree.adopt
    line = 1
    if leaf_only:
        # a compaction always starts its revision, which holds the complete history
        base = next(
            (i for i in range(len(items) - 1, 0, -1) if items[i].entries[0].compaction is not None),
            0,
        )
        if base:
            state.history = []
            for item in items[:base]:
                _advance(tree, log, item, state, offsets)
            items = items[base:]
    for item in items:
        line += 1
        record = _node_record(tree, log, sid, item, state, offsets, metadata, cache_key)
        state.node = adopt(record, line=line, offset=0)
        state.history = None  # the tree holds it from here on
        records.append(record)
        sources[record.id] = tuple(map(_ID, item.entries))
    return _session_file(log, tree, sources, records)


def _session_file(
    log: AgentLog, tree: SessionTree, sources: dict[str, tuple[str, ...]], records: list[Record]
) -> AgentSessionFile:
    """The built session: ``tree`` with ``log``'s facts, its sources and records."""
    path = log.path
    return AgentSessionFile(
        path=path,
        unit=unit_for_path(path),
        tree=tree,
        notes=list(log.notes),
        end=FileEnd(size=log.size, valid_end=log.size, line_count=log.lines),
        agent=log.agent,
        log=log,
        sources=sources,
        records=records,
    )


def records_of(file: AgentSessionFile) -> list[Record]:
    """The header and records of a built session, in the order a file holds them."""
    return file.records


def _group(log: AgentLog, sid: str, split_after: frozenset[str]) -> tuple[list[_Node], str | None]:
    """The revisions: maximal lines of steps, cut at prompts, compactions and branch points.

    Returns the root revisions (children ordered so that the active leaf's branch comes last)
    and the node id of the leaf's revision.
    """
    entries = log.entries
    # how many steps hang from each one (a step with siblings starts a revision of its own)
    fanout = Counter(map(_PARENT, entries.values()))
    leaf_id = log.leaf if log.leaf in entries else (next(reversed(entries)) if entries else None)

    # One pass in file order, where every parent comes before its children (check_parents): a
    # step starts a revision, or joins its parent's (whose only child it is, so the revision is
    # a line of steps in order).
    tops: list[_Node] = []
    node_of: dict[str, _Node] = {}
    forks: list[_Node] = []
    for entry in entries.values():
        up = entry.parent
        if up is None:
            item = _Node([entry], node_id_for(sid, entry.id))
            tops.append(item)
        elif (
            entry.turn
            or entry.compaction is not None
            or fanout[up] > 1
            or up in split_after
            or entries[up].compaction
            is not None  # a compaction revision holds only itself, as Rho's
            or up == leaf_id  # the agent continues from the leaf: what follows it is a branch
        ):
            parent = node_of[up]
            item = _Node([entry], node_id_for(sid, entry.id), parent)
            siblings = parent.children
            siblings.append(item)
            if len(siblings) == 2:
                forks.append(parent)
        else:
            item = node_of[up]
            item.entries.append(entry)
        node_of[entry.id] = item
    if len(tops) > 1:
        # Several roots: one empty first revision holds them as branches.
        root = _Node([], node_id_for(sid, ""))
        for top in tops:
            top.parent = root
        root.children = tops
        tops = [root]
        forks.append(root)
    if forks:
        on_leaf: set[str] = set()
        cursor = leaf_id
        while cursor is not None and cursor not in on_leaf:
            on_leaf.add(cursor)
            cursor = entries[cursor].parent
        for item in forks:
            item.children.sort(key=lambda n: (n.entries[0].id in on_leaf, 0))
    leaf_node = node_of[leaf_id].node_id if leaf_id is not None and leaf_id in node_of else None
    return tops, leaf_node


def _node_record(
    tree: SessionTree,
    log: AgentLog,
    sid: str,
    item: _Node,
    state: _State,
    offsets: dict[str, tuple[str, int]],
    metadata: dict[str, str],
    cache_key: str,
) -> NodeRecord:
    """The record of the revision ``item``; ``state`` (the path up to its parent) becomes the
    path up to it (its node still to be set)."""
    parent = state.node
    appended, full, facts, hidden = _advance(tree, log, item, state, offsets)
    revision, compaction, provider = state.revision, state.compaction, state.provider
    stamp = str(state.time)
    if hidden:
        shown = tuple(
            [
                StoredDisplayMessage(stamp, m)
                for n, m in enumerate(appended)
                if m.system is None and n not in hidden
            ]
        )
    else:
        shown = tuple([StoredDisplayMessage(stamp, m) for m in appended if m.system is None])
    node_id = item.node_id or node_id_for(sid, item.entries[0].id if item.entries else "")
    parent_id = parent.id if parent is not None else None
    kind = NodeKind.COMPACTION if facts is not None else NodeKind.COMMIT
    if full is not None:
        snapshot = SessionSnapshot.new(
            sid, revision, full, provider, compaction, metadata=metadata, prompt_cache_key=cache_key
        )
        return NodeRecord(
            id=node_id,
            parent_id=parent_id,
            timestamp=stamp,
            kind=kind,
            compaction_facts=facts,
            transition=SnapshotTransition(snapshot),
            display_messages=shown,
        )
    assert parent is not None
    delta = StoredSnapshotDelta(
        revision - 1,
        sid,
        revision,
        tuple(appended),
        provider,
        compaction,
        metadata,
        cache_key,
    )
    return NodeRecord(
        id=node_id,
        parent_id=parent_id,
        timestamp=stamp,
        kind=NodeKind.COMMIT,
        transition=DeltaTransition(delta),
        display_messages=shown,
    )


def _advance(
    tree: SessionTree,
    log: AgentLog,
    item: _Node,
    state: _State,
    offsets: dict[str, tuple[str, int]],
) -> tuple[list[Message], list[Message] | None, CompactionFacts | None, set[int]]:
    """The path through the revision ``item``: ``state`` (the path up to its parent) becomes the
    path up to it (its node unset), and the revision's messages are returned: those it appends,
    its complete history when it is a snapshot (the first revision, a compaction), its
    compaction's facts, and which of the appended messages are hidden from the display."""
    parent = state.node
    revision = state.revision + 1
    turns = state.turns
    provider = state.provider
    time = state.time
    compaction = state.compaction
    facts: CompactionFacts | None = None
    full: list[Message] | None = None if state.revision else []
    appended: list[Message] = []
    length = state.length
    epoch = state.epoch
    hidden: set[int] = set()
    for entry in item.entries:
        if entry.time > time:
            time = entry.time
        if entry.model is not None:
            provider = entry.model
        if entry.compaction is not None:
            # a compaction always starts its revision: the history before it is the parent's
            before: Sequence[Message] = (
                state.history
                if state.history is not None
                else tree.history(parent)
                if parent is not None
                else ()
            )
            head = list(entry.compaction.head)
            kept = offsets.get(entry.compaction.keep_from or "")
            if kept is not None and kept[0] == epoch and kept[1] <= len(before):
                head.extend(before[kept[1] :])
            previous_tokens = entry.compaction.tokens_before or estimate_messages_tokens(before)
            current_tokens = estimate_messages_tokens(head)
            if state.revision or full:
                compaction = compaction.record(
                    previous_messages=len(before),
                    current_messages=len(head),
                    previous_tokens=previous_tokens,
                    current_tokens=current_tokens,
                    cost_usd_micros=None,
                    revision=revision,
                )
                facts = CompactionFacts(
                    len(before), len(head), previous_tokens, current_tokens, None
                )
            full = head
            appended = []
            length = len(head)
            turns = _Turns(_open_calls(head))
            epoch = entry.id
        offsets[entry.id] = (epoch, length)
        shown_from = len(appended)
        for message in entry.messages:
            result = message.tool_result
            pending = turns.pending
            if result is None and not pending:
                # the common cases of _normal: nothing waits, so the message goes as it is
                appended.append(message)
                if message.user is None:
                    # _calls, inline (one variant is set: an enriched reply has no `assistant`)
                    enriched = message.enriched_assistant
                    content = message.assistant if enriched is None else enriched.content
                    if content and (
                        calls := [b.tool_call.id for b in content if b.tool_call is not None]
                    ):
                        turns.pending = list(dict.fromkeys(calls))
                        turns.results = {}
            elif (
                result is not None
                and len(pending) == 1
                and pending[0] == result.id
                and not turns.results
                and not turns.held
            ):
                # the result of the only call waiting: due at once
                appended.append(message)
                pending.clear()
            else:
                appended.extend(_normal((message,), turns, log))
        if entry.hidden:
            hidden.update(
                n for n in range(shown_from, len(appended)) if appended[n].user is not None
            )
        length += len(appended) - shown_from
    if turns.pending and item.children and all(_goes_on(child) for child in item.children):
        # every revision after this one goes on without the results: the calls were
        # interrupted here, and this revision's own history says so
        for message in _release(turns, interrupt=True, log=log):
            appended.append(message)
            length += 1
    if full is not None:
        full.extend(appended)
    if state.history is not None:
        if full is not None:
            state.history = full
        else:
            state.history.extend(appended)
    state.node = None
    state.length, state.provider, state.turns, state.time, state.epoch = (
        length,
        provider,
        turns,
        time,
        epoch,
    )
    state.revision, state.compaction = revision, compaction
    return appended, full, facts, hidden


def _goes_on(item: _Node) -> bool:
    """Whether the revision's first message is something other than a tool result."""
    for entry in item.entries:
        if entry.compaction is not None:
            return True
        if entry.messages:
            return entry.messages[0].tool_result is None
    return False


def _calls(message: Message) -> list[str]:
    content = message.assistant
    if content is None and message.enriched_assistant is not None:
        content = message.enriched_assistant.content
    if not content:
        return []
    return [b.tool_call.id for b in content if b.tool_call is not None]


def _open_calls(history: Sequence[Message]) -> list[str]:
    """The calls of the last tool turn of ``history`` that have no result yet."""
    for i in range(len(history) - 1, -1, -1):
        message = history[i]
        calls = _calls(message)
        if calls:
            answered = {m.tool_result.id for m in history[i + 1 :] if m.tool_result is not None}
            return [c for c in calls if c not in answered]
        if (
            message.user is not None
            or message.enriched_assistant is not None
            or message.assistant is not None
        ):
            return []
    return []


def _normal(messages: Sequence[Message], turns: _Turns, log: AgentLog) -> Iterator[Message]:
    """``messages`` with each tool turn's results in call order, right after its calls."""
    for message in messages:
        result = message.tool_result
        if result is not None:
            if result.id in turns.pending:
                if result.id in turns.results:
                    log.loss.note("second results for one call, left out")
                    continue
                turns.results[result.id] = message
                yield from _release(turns)
            else:
                yield message  # an answer to no open call: kept where it is
            continue
        if turns.pending:
            if _is_attachment(message):
                turns.held.append(message)
                continue
            yield from _release(turns, interrupt=True, log=log)
        calls = _calls(message)
        yield message
        if calls:
            turns.pending = list(dict.fromkeys(calls))
            turns.results = {}


def _release(
    turns: _Turns, *, interrupt: bool = False, log: AgentLog | None = None
) -> Iterator[Message]:
    """The results that are due: in call order while they are there (all of them, the missing
    ones made up, when the conversation went on without them), then the held messages."""
    pending, results = turns.pending, turns.results
    while pending:
        call = pending[0]
        message = results.pop(call, None)
        if message is None:
            if not interrupt:
                return
            if log is not None:
                log.loss.note("results made for calls that never got one (interrupted)")
            message = Message.result(call, False, INTERRUPTED_RESULT)
        pending.pop(0)
        yield message
    turns.results = {}
    held, turns.held = turns.held, []
    yield from held
