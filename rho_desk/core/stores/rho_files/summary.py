"""One transcript's index summary (storage.md §10.5), computed from its revision tree.

This is the seam to the SQLite index: :func:`summarize` reads a transcript and fills every
column of Rho's ``sessions`` row plus rho-desk's own (provider, model, compaction count and the
searchable display text). It never materialises a model history: only the active path's
display entries and the leaf's state are needed.
"""

from __future__ import annotations

import weakref
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from ...wire.model import Message
from ..summary import SessionSummary
from .errors import NoSessionState
from .layout import SessionUnit, in_rho_home, workspace_key
from .reader import SessionFile, read_session
from .tree import RevisionNode, SessionTree
from .views import is_marker_message, scan_complete_prefix, search_text, user_text

if TYPE_CHECKING:
    from ..index import IndexState

__all__ = [
    "document_title",
    "in_rho_home",
    "message_count",
    "record_written",
    "summarize",
    "summary_of",
    "summary_of_tree",
]

_I64_MAX = 2**63 - 1


def summarize(path: Path | str) -> SessionSummary:
    """Read the transcript at ``path`` and summarise it (see :func:`summary_of`).

    Raises:
        SessionFileError: the transcript does not load (the index keeps its old row, §10.6).
        StorageError: it cannot be read.
    """
    session = read_session(path)
    try:
        return summary_of(session)
    finally:
        session.release()  # frees it now, not at the next full GC


def message_count(
    tree: SessionTree, node: RevisionNode | None = None, *, marker_messages: bool = False
) -> int:
    """The one count of a revision's messages, everywhere (the browser, the header, ``show``).

    Rho's ``message_count`` (§10.5): display entries on the path to ``node`` (default the active
    leaf), without compaction markers, after incomplete-tool-turn trimming.

    Args:
        marker_messages: the tree is a conversation published or exported as shown, whose
            compaction markers are plain messages (:func:`.views.is_marker_message`): those are
            not counted either, so that it counts as the session it came from.
    """
    shown = tree.display(node, markers=False, trimmed=True)
    if not marker_messages:
        return len(shown)
    return sum(1 for entry in shown if not is_marker_message(entry.message))


def document_title(tree: SessionTree) -> str | None:
    """What a document opened outside any library calls itself (a snapshot or display export,
    a session from the team library): its metadata's ``title``, else the first line of its
    first prompt, as the session list titles a session; ``None`` when it has neither."""
    leaf = tree.active_leaf
    if leaf is None:
        return None
    title = " ".join(leaf.meta.metadata.get("title", "").split()) if leaf.meta is not None else ""
    if title:
        return title
    _count, first, _last = _display_facts(tree, leaf)
    lines = (first or "").strip().splitlines()
    return lines[0] if lines else None


def summary_of(session: SessionFile) -> SessionSummary:
    """The summary of an already read transcript; ``file_size``/``file_mtime`` as of that read.

    Raises:
        NoSessionState: the file has no header.
    """
    return summary_of_tree(session.tree, session.unit, session.path, session.size, session.mtime_ns)


def summary_of_tree(
    tree: SessionTree,
    unit: SessionUnit,
    path: Path | str,
    size: int,
    mtime_ns: int,
    *,
    with_text: bool = True,
) -> SessionSummary:
    """The §10.5 summary of ``tree`` (the transcript at ``path``, ``size`` bytes, ``mtime_ns``).

    Args:
        with_text: fill ``search_text`` (rho-desk's full-text column); Rho's index needs none.

    Raises:
        NoSessionState: the tree has no header.
    """
    header = tree.header
    if header is None:
        raise NoSessionState("the file has no session header", source=str(path))
    mtime = min(mtime_ns // 1_000_000_000, _I64_MAX) if mtime_ns else None
    updated = tree.updated_at or (mtime or 0)
    created = tree.created_at or unit.created or updated
    if created == 0:
        created = updated
    leaf = tree.active_leaf
    if with_text:
        display = [entry.message for entry in tree.display(markers=False, trimmed=True)]
        users = [text for m in display if (text := user_text(m)) is not None]
        count, first, last = len(display), users[0] if users else None, users[-1] if users else None
        text = search_text(display)
    else:
        count, first, last = _display_facts(tree, leaf)
        text = ""
    provider = leaf.provider if leaf is not None else None
    return SessionSummary(
        workspace_key=workspace_key(header.cwd),
        cwd=header.cwd,
        id=unit.session_id or header.id,
        path=str(Path(path).absolute()),
        created_at=created,
        updated_at=updated,
        message_count=count,
        first_user_message=first,
        last_user_message=last,
        file_size=size,
        file_mtime=mtime,
        node_count=tree.node_count,
        branch_count=tree.branch_count,
        active_leaf_id=leaf.id if leaf is not None else None,
        effective_format_version=tree.format_version,
        provider=str(provider) if provider is not None else None,
        model=provider.model if provider is not None else None,
        compaction_count=leaf.compaction.completed_compactions if leaf is not None else 0,
        search_text=text,
    )


def record_written(
    tree: SessionTree, unit: SessionUnit, path: Path | str, size: int, mtime_ns: int
) -> IndexState:
    """After a write into a transcript: update its row in Rho's index as Rho's save does.

    The summary comes from the in-memory tree as written (no re-read), with the file's size and
    mtime after the write; :func:`..index.record_session` does the upsert (never raising). A
    transcript outside a Rho home costs nothing (no summary is computed).
    """
    from ..index import IndexState, record_session  # (sqlite3: only a write needs the index)

    header = tree.header
    if header is None or not in_rho_home(unit, header.cwd):
        return IndexState.MISSING
    summary = summary_of_tree(tree, unit, path, size, mtime_ns, with_text=False)
    return record_session(summary)


# -- the display facts of the index row, kept up to date save after save ----------------------------
#
# Rho recomputes its row from the in-memory tree after every save; so do we, but walking a
# 100k-message display history on each save costs ~150 ms in Python. The facts only depend on
# the path's display entries, and a save only appends to that path, so the trimming scan resumes
# where it stopped (the start of the last, still incomplete tool turn) instead of starting over.


class _DisplayState(msgspec.Struct):
    leaf: RevisionNode | None
    keep: int = 0
    """Entries that survive incomplete-tool-turn trimming (the message count)."""
    final: bool = False
    """A mismatched tool result cut the path: nothing appended later is counted."""
    tail: list[Message] = msgspec.field(default_factory=list)
    """Entries from ``keep`` on, not counted yet (an unfinished tool turn)."""
    first: str | None = None
    last: str | None = None


_STATES: weakref.WeakKeyDictionary[SessionTree, _DisplayState] = weakref.WeakKeyDictionary()


def _display_facts(
    tree: SessionTree, leaf: RevisionNode | None
) -> tuple[int, str | None, str | None]:
    """``(message_count, first_user_message, last_user_message)`` of ``leaf``'s path (§10.5)."""
    if leaf is None:
        return 0, None, None
    state = _STATES.get(tree)
    added: list[RevisionNode] = []
    if state is not None and state.leaf is not leaf:
        node: RevisionNode | None = leaf
        while node is not None and node is not state.leaf:
            added.append(node)
            node = node.parent
        if node is None:
            state = None  # another branch: start over
    if state is None:
        state = _DisplayState(None)
        added = tree.path(leaf)
    else:
        added.reverse()
        state = _DisplayState(
            leaf, state.keep, state.final, list(state.tail), state.first, state.last
        )
    state.leaf = leaf
    if not state.final:
        state.tail.extend(entry.message for n in added for entry in n.display)
        keep, state.final = scan_complete_prefix(state.tail)
        for message in state.tail[:keep]:
            text = user_text(message)
            if text is not None:
                state.first = state.first if state.first is not None else text
                state.last = text
        state.keep += keep
        del state.tail[:keep]
        if state.final:
            state.tail.clear()
    _STATES[tree] = state
    return state.keep, state.first, state.last
