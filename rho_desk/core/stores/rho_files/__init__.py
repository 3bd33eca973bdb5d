"""Rho's own session files: layout, records, the strict reader, the revision tree, the writer.

Read a transcript with :func:`read_session` (a :class:`SessionFile` holding a
:class:`SessionTree`); append to it with a :class:`SessionWriter`; create sessions with
:func:`create_session`; persist an engine through :class:`RhoFileSessionStore`; summarise for the
index with :func:`summarize`; delete with :func:`delete_session`.

The checker (``check``), deletion (``deletion``), the engine store (``store``) and the index
summaries (``summary``, which loads Rho's SQLite index) load on first use of one of their names:
reading and appending to a session (``rho-desk continue``) needs none of them before its first
save.
"""

from typing import TYPE_CHECKING, Any

from .errors import (
    CorruptRecord,
    IllegalRecord,
    LeaseUnavailable,
    NoSessionState,
    SessionBeingDeleted,
    SessionFileError,
    SessionIdMismatch,
    SessionInUse,
    SessionWriteError,
    SnapshotDeltaMismatch,
    UnsupportedSessionVersion,
)
from .layout import (
    SessionUnit,
    UnitLayout,
    discover_units,
    find_units,
    iter_workspaces,
    lease_path,
    parse_unit_name,
    rho_home,
    sessions_root,
    unit_for_path,
    workspace_dir,
    workspace_key,
)
from .lease import SessionLease
from .reader import RecoveryNote, SessionFile, parse_session, read_header, read_session
from .records import NodeKind, StoredDisplayMessage
from .tree import APP_CACHE_KEY, RevisionNode, SessionTree, legacy_node_id
from .views import default_prompt_cache_key, trim_incomplete_tool_turns
from .writer import NEW_SESSION_VERSION, SessionWriter, create_session, fork_session

if TYPE_CHECKING:
    from .check import CheckTarget, Finding, Severity, check_paths, expand_paths, register_check
    from .deletion import DeletionReport, SubagentsRunning, delete_session
    from .store import RhoFileSessionStore
    from .summary import summarize, summary_of

_CHECK = frozenset(
    {"CheckTarget", "Finding", "Severity", "check_paths", "expand_paths", "register_check"}
)
_DELETION = frozenset({"DeletionReport", "SubagentsRunning", "delete_session"})
_SUMMARY = frozenset({"summarize", "summary_of"})


def __getattr__(name: str) -> Any:
    if name in _CHECK:
        from . import check as module
    elif name in _DELETION:
        from . import deletion as module  # type: ignore[no-redef]
    elif name == "RhoFileSessionStore":
        from . import store as module  # type: ignore[no-redef]
    elif name in _SUMMARY:
        from . import summary as module  # type: ignore[no-redef]
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(module, name)
    globals()[name] = value
    return value


__all__ = [
    "APP_CACHE_KEY",
    "NEW_SESSION_VERSION",
    "CheckTarget",
    "CorruptRecord",
    "DeletionReport",
    "Finding",
    "IllegalRecord",
    "LeaseUnavailable",
    "NoSessionState",
    "NodeKind",
    "RecoveryNote",
    "RevisionNode",
    "RhoFileSessionStore",
    "SessionBeingDeleted",
    "SessionFile",
    "SessionFileError",
    "SessionIdMismatch",
    "SessionInUse",
    "SessionLease",
    "SessionTree",
    "SessionUnit",
    "SessionWriteError",
    "SessionWriter",
    "Severity",
    "SnapshotDeltaMismatch",
    "StoredDisplayMessage",
    "SubagentsRunning",
    "UnitLayout",
    "UnsupportedSessionVersion",
    "check_paths",
    "create_session",
    "default_prompt_cache_key",
    "delete_session",
    "discover_units",
    "expand_paths",
    "find_units",
    "fork_session",
    "iter_workspaces",
    "lease_path",
    "legacy_node_id",
    "parse_session",
    "parse_unit_name",
    "read_header",
    "read_session",
    "register_check",
    "rho_home",
    "sessions_root",
    "summarize",
    "summary_of",
    "trim_incomplete_tool_turns",
    "unit_for_path",
    "workspace_dir",
    "workspace_key",
]
