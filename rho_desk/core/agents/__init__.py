"""Other coding agents' sessions (Claude Code, Codex CLI, Gemini CLI, opencode, Pi) in Rho's model.

One reader per agent (``claude_code``, ``codex``, ``gemini``, ``opencode``, ``pi``) turns its
log into an :class:`AgentLog`; ``build`` makes that the revision tree the Rho reader produces
(an :class:`AgentSessionFile`), so the conversation, revisions, statistics, changes, usage and
export work on it unchanged; ``formats`` detects which agent wrote a file and where each keeps
its sessions; ``importer`` writes a session as a Rho session with a receipt of what was kept and
dropped; ``library`` lists and searches every agent's sessions.

Names load on first use (PEP 562): detecting a Rho file costs no agent reader.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .base import AGENT_LABELS, AGENTS

if TYPE_CHECKING:
    from .base import AgentLog, AgentLogError, Loss
    from .build import AgentSessionFile
    from .formats import default_homes, detect, open_session, read_log, session_paths

_LAZY: dict[str, str] = {
    "AgentLog": "base",
    "AgentLogError": "base",
    "Loss": "base",
    "AgentSessionFile": "build",
    "default_homes": "formats",
    "detect": "formats",
    "open_session": "formats",
    "read_log": "formats",
    "session_paths": "formats",
}


def __getattr__(name: str) -> Any:
    module_name = _LAZY.get(name)
    if module_name is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    if module_name == "base":
        from . import base as module
    elif module_name == "build":
        from . import build as module  # type: ignore[no-redef]
    else:
        from . import formats as module  # type: ignore[no-redef]
    value = getattr(module, name)
    globals()[name] = value
    return value


__all__ = [
    "AGENTS",
    "AGENT_LABELS",
    "AgentLog",
    "AgentLogError",
    "AgentSessionFile",
    "Loss",
    "default_homes",
    "detect",
    "open_session",
    "read_log",
    "session_paths",
]
