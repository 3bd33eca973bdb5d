"""One transcript's index summary (storage.md §10.5), computed from its revision tree.

This is the seam to the SQLite index: :func:`summarize` reads a transcript and fills every
column of Rho's ``sessions`` row plus rho-desk's own (provider, model, compaction count and the
searchable display text). It never materialises a model history: only the active path's
display entries and the leaf's state are needed.
"""

from __future__ import annotations

from pathlib import Path

from ..index import IndexState, record_session
from ..summary import SessionSummary
from .errors import NoSessionState
from .layout import SessionUnit, workspace_key
from .reader import SessionFile, read_session
from .tree import RevisionNode, SessionTree
from .views import search_text, user_text

__all__ = ["message_count", "record_written", "summarize", "summary_of", "summary_of_tree"]

_I64_MAX = 2**63 - 1


def summarize(path: Path | str) -> SessionSummary:
    """Read the transcript at ``path`` and summarise it (see :func:`summary_of`).

    Raises:
        SessionFileError: the transcript does not load (the index keeps its old row, §10.6).
        StorageError: it cannot be read.
    """
    return summary_of(read_session(path))


def message_count(tree: SessionTree, node: RevisionNode | None = None) -> int:
    """The one count of a revision's messages, everywhere (the browser, the header, ``show``).

    Rho's ``message_count`` (§10.5): display entries on the path to ``node`` (default the active
    leaf), without compaction markers, after incomplete-tool-turn trimming.
    """
    return len(tree.display(node, markers=False, trimmed=True))


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
    display = [entry.message for entry in tree.display(markers=False, trimmed=True)]
    users = [text for m in display if (text := user_text(m)) is not None]
    leaf = tree.active_leaf
    provider = leaf.provider if leaf is not None else None
    return SessionSummary(
        workspace_key=workspace_key(header.cwd),
        cwd=header.cwd,
        id=unit.session_id or header.id,
        path=str(Path(path).absolute()),
        created_at=created,
        updated_at=updated,
        message_count=len(display),
        first_user_message=users[0] if users else None,
        last_user_message=users[-1] if users else None,
        file_size=size,
        file_mtime=mtime,
        node_count=tree.node_count,
        branch_count=tree.branch_count,
        active_leaf_id=leaf.id if leaf is not None else None,
        effective_format_version=tree.format_version,
        provider=str(provider) if provider is not None else None,
        model=provider.model if provider is not None else None,
        compaction_count=leaf.compaction.completed_compactions if leaf is not None else 0,
        search_text=search_text(display) if with_text else "",
    )


def record_written(
    tree: SessionTree, unit: SessionUnit, path: Path | str, size: int, mtime_ns: int
) -> IndexState:
    """After a write into a transcript: update its row in Rho's index as Rho's save does.

    The summary comes from the in-memory tree as written (no re-read), with the file's size and
    mtime after the write; :func:`..index.record_session` does the upsert (never raising).
    """
    try:
        summary = summary_of_tree(tree, unit, path, size, mtime_ns, with_text=False)
    except NoSessionState:
        return IndexState.MISSING
    return record_session(summary)
