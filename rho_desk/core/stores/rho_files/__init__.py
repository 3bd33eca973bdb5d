"""Rho's own session files: layout, records, the strict reader, the revision tree, the writer.

Read a transcript with :func:`read_session` (a :class:`SessionFile` holding a
:class:`SessionTree`); append to it with a :class:`SessionWriter`; create sessions with
:func:`create_session`; persist an engine through :class:`RhoFileSessionStore`; summarise for the
index with :func:`summarize`; delete with :func:`delete_session`.

Each name loads its module on first use (:mod:`rho_desk.core.lazy`): the checker (``check``),
deletion (``deletion``), the engine store (``store``) and the index summaries (``summary``, which
loads Rho's SQLite index) stay unloaded while reading and appending to a session (``rho-desk
continue``) needs none of them before its first save.
"""

from typing import TYPE_CHECKING

from ...lazy import attach

if TYPE_CHECKING:
    from .check import CheckTarget as CheckTarget
    from .check import Finding as Finding
    from .check import Severity as Severity
    from .check import check_paths as check_paths
    from .check import expand_paths as expand_paths
    from .check import register_check as register_check
    from .deletion import DeletionReport as DeletionReport
    from .deletion import SubagentsRunning as SubagentsRunning
    from .deletion import delete_session as delete_session
    from .errors import CorruptRecord as CorruptRecord
    from .errors import IllegalRecord as IllegalRecord
    from .errors import LeaseUnavailable as LeaseUnavailable
    from .errors import NoSessionState as NoSessionState
    from .errors import SessionBeingDeleted as SessionBeingDeleted
    from .errors import SessionFileError as SessionFileError
    from .errors import SessionIdMismatch as SessionIdMismatch
    from .errors import SessionInUse as SessionInUse
    from .errors import SessionWriteError as SessionWriteError
    from .errors import SnapshotDeltaMismatch as SnapshotDeltaMismatch
    from .errors import UnsupportedSessionVersion as UnsupportedSessionVersion
    from .layout import SessionUnit as SessionUnit
    from .layout import UnitLayout as UnitLayout
    from .layout import discover_units as discover_units
    from .layout import find_units as find_units
    from .layout import iter_workspaces as iter_workspaces
    from .layout import lease_path as lease_path
    from .layout import parse_unit_name as parse_unit_name
    from .layout import rho_home as rho_home
    from .layout import sessions_root as sessions_root
    from .layout import unit_for_path as unit_for_path
    from .layout import workspace_dir as workspace_dir
    from .layout import workspace_key as workspace_key
    from .lease import SessionLease as SessionLease
    from .reader import RecoveryNote as RecoveryNote
    from .reader import SessionFile as SessionFile
    from .reader import parse_session as parse_session
    from .reader import read_header as read_header
    from .reader import read_session as read_session
    from .records import NodeKind as NodeKind
    from .records import StoredDisplayMessage as StoredDisplayMessage
    from .store import RhoFileSessionStore as RhoFileSessionStore
    from .summary import summarize as summarize
    from .summary import summary_of as summary_of
    from .tree import APP_CACHE_KEY as APP_CACHE_KEY
    from .tree import RevisionNode as RevisionNode
    from .tree import SessionTree as SessionTree
    from .tree import legacy_node_id as legacy_node_id
    from .views import default_prompt_cache_key as default_prompt_cache_key
    from .views import trim_incomplete_tool_turns as trim_incomplete_tool_turns
    from .writer import NEW_SESSION_VERSION as NEW_SESSION_VERSION
    from .writer import SessionWriter as SessionWriter
    from .writer import create_session as create_session
    from .writer import fork_session as fork_session

if not TYPE_CHECKING:
    __getattr__, __dir__ = attach(__name__, __file__)
