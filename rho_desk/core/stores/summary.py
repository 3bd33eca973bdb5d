"""One session's summary: what the index stores and the session browser lists.

The Rho session-file reader computes it (storage.md §10.5); the SQLite index stores it. Every
field except ``title`` is recomputable from the transcript; titles live only in Rho's index.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["SessionSummary"]


@dataclass(frozen=True, slots=True)
class SessionSummary:
    # --- the columns of Rho's `sessions` table (index schema 2) ---
    workspace_key: str
    """``<encoded cwd>-<fnv1a hash>`` (storage.md §2.1)."""
    cwd: str
    """The header's working directory."""
    id: str
    """Session id (from the file or folder name, else the header)."""
    path: str
    """Absolute path of the transcript file."""
    created_at: int
    """Unix seconds."""
    updated_at: int
    """Largest record timestamp, Unix seconds."""
    message_count: int
    """Display entries on the active path, without compaction markers, after trimming."""
    first_user_message: str | None
    last_user_message: str | None
    file_size: int | None
    """Bytes, from ``stat`` when summarized."""
    file_mtime: int | None
    """Whole Unix seconds, from ``stat`` when summarized."""
    node_count: int
    branch_count: int
    active_leaf_id: str | None
    effective_format_version: int
    """4 for v4 and upgraded files, else the header version."""
    # --- rho-desk's own additions (not in Rho's table) ---
    provider: str | None = None
    """Provider identity of the active snapshot, ``provider/api/model``."""
    model: str | None = None
    compaction_count: int = 0
    """``completed_compactions`` of the active snapshot."""
    search_text: str = ""
    """User and assistant text of the display history, for full-text search."""
    title: str | None = None
    """Only ever read from the index; summaries computed from files have none (another agent's
    session: the title its own log gives)."""
    agent: str = "rho"
    """Whose session it is: ``rho``, or another agent's name (``core.agents.AGENTS``); a mixed
    listing (``core.agents.library.AllSessions``) sets it, no database stores it."""
