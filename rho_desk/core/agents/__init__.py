"""Other coding agents' sessions (Claude Code, Codex CLI, Gemini CLI, opencode, Pi) in Rho's model.

One reader per agent (``claude_code``, ``codex``, ``gemini``, ``opencode``, ``pi``) turns its
log into an :class:`AgentLog`; ``build`` makes that the revision tree the Rho reader produces
(an :class:`AgentSessionFile`), so the conversation, revisions, statistics, changes, usage and
export work on it unchanged; ``formats`` detects which agent wrote a file and where each keeps
its sessions; ``importer`` writes a session as a Rho session with a receipt of what was kept and
dropped; ``library`` lists and searches every agent's sessions.

Names load on first use (PEP 562, :mod:`rho_desk.core.lazy`): detecting a Rho file costs no agent reader.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy import attach

if TYPE_CHECKING:
    from .base import AGENT_LABELS as AGENT_LABELS
    from .base import AGENTS as AGENTS
    from .base import AgentLog as AgentLog
    from .base import AgentLogError as AgentLogError
    from .base import Loss as Loss
    from .build import AgentSessionFile as AgentSessionFile
    from .formats import default_homes as default_homes
    from .formats import detect as detect
    from .formats import open_session as open_session
    from .formats import read_log as read_log
    from .formats import session_paths as session_paths

if not TYPE_CHECKING:
    __getattr__, __dir__ = attach(__name__, __file__)
