"""Which agent wrote a file, where each agent keeps its sessions, and reading either.

:func:`detect` looks at a path the way a person hands it over (a Claude Code ``.jsonl``, a Codex
rollout, a Gemini chat, ``opencode.db#<id>``, a Pi session) and names the agent, or ``None``
for Rho's own files and anything unknown (the Rho reader then decides, with its own errors).
It reads at most the first line (1 MiB), never the whole file.

:func:`default_homes` gives each agent's data folder from its own environment variable, else
its documented default; :func:`session_paths` lists the sessions under a home.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Final

import msgspec

from ._parts import split
from .base import AGENTS, AgentLog
from .build import AgentSessionFile, build
from .jsonl import COMPRESSED_SUFFIX, first_line

__all__ = [
    "READERS",
    "default_homes",
    "detect",
    "open_session",
    "read_log",
    "session_paths",
    "split",
]

_CLAUDE_CODE: Final = "claude-code"
_CODEX: Final = "codex"
_GEMINI: Final = "gemini"
_OPENCODE: Final = "opencode"
_PI: Final = "pi"
"""The agents' names (``AGENTS``; each reader's ``AGENT``): a reader's module is imported when a
log of its agent is read, not to detect or to read another agent's (a new process opening one
log pays for one reader). A reader is imported by its module's name (``from .codex import
read``), not as a name of the package, whose lazy names would parse the package's source first."""


def _read_claude_code(path: Path, *, tolerant: bool = False, leaf_only: bool = False) -> AgentLog:
    from .claude_code import read

    return read(path, tolerant=tolerant, leaf_only=leaf_only)


def _read_codex(path: Path, *, tolerant: bool = False, leaf_only: bool = False) -> AgentLog:
    from .codex import read

    return read(path, tolerant=tolerant, leaf_only=leaf_only)


def _read_gemini(path: Path, *, tolerant: bool = False, leaf_only: bool = False) -> AgentLog:
    from .gemini import read

    return read(path, tolerant=tolerant)


def _read_opencode(path: Path, *, tolerant: bool = False, leaf_only: bool = False) -> AgentLog:
    from .opencode import read

    return read(path, tolerant=tolerant)


def _read_pi(path: Path, *, tolerant: bool = False, leaf_only: bool = False) -> AgentLog:
    from .pi import read

    return read(path, tolerant=tolerant)


READERS: Final[dict[str, Callable[..., AgentLog]]] = {
    _CLAUDE_CODE: _read_claude_code,
    _CODEX: _read_codex,
    _GEMINI: _read_gemini,
    _OPENCODE: _read_opencode,
    _PI: _read_pi,
}
_SNIFF: Final = 1024 * 1024
_SQLITE: Final = b"SQLite format 3\x00"
_CLAUDE_TYPES: Final = frozenset(
    {
        "user",
        "assistant",
        "system",
        "summary",
        "file-history-snapshot",
        "queue-operation",
        "progress",
        "custom-title",
        "ai-title",
        "agent-name",
        "last-prompt",
        "attachment",
        "permission-mode",
        "pr-link",
        "agent-setting",
        "worktree-state",
        "bridge-session",
    }
)


def detect(path: Path | str) -> str | None:
    """The agent whose session ``path`` is (see the module docstring); ``None``: Rho's or unknown."""
    path = Path(path)
    if split(path)[1] is not None:
        return _OPENCODE
    try:
        if path.is_dir():
            return None
        if path.name.endswith(COMPRESSED_SUFFIX):  # Codex's cold rollouts
            first = first_line(path, _SNIFF)
            record = _first_object(first)
            return _CODEX if record is not None and _by_record(record, path) == _CODEX else None
        with open(path, "rb") as handle:
            head = handle.read(16)
            if head.startswith(_SQLITE):
                return _OPENCODE
            handle.seek(0)
            first = handle.readline(_SNIFF)
    except OSError:
        return None
    record = _first_object(first)
    if record is None:
        return _by_prefix(first, path)
    return _by_record(record, path)


def _first_object(line: bytes) -> dict[str, object] | None:
    if not line.strip().startswith(b"{") or not line.rstrip().endswith(b"}"):
        return None
    try:
        value = msgspec.json.decode(line)
    except (msgspec.DecodeError, RecursionError, ValueError):
        return None
    return value if isinstance(value, dict) else None


def _by_record(record: dict[str, object], path: Path) -> str | None:
    kind = record.get("type")
    if not isinstance(kind, str):
        kind = None
    if kind == "session":
        stamp = record.get("timestamp")
        # Rho writes Unix seconds as a string of digits; Pi an ISO time
        return None if isinstance(stamp, str) and stamp.lstrip("+").isdigit() else _PI
    if kind == "session_meta" and "payload" in record:
        return _CODEX
    if "sessionId" in record and "projectHash" in record:
        return _GEMINI
    if kind in _CLAUDE_TYPES and (
        "uuid" in record or "sessionId" in record or "leafUuid" in record or "messageId" in record
    ):
        return _CLAUDE_CODE
    if (
        kind is None
        and isinstance(record.get("id"), str)
        and "timestamp" in record
        and set(record)
        <= {
            "id",
            "timestamp",
            "instructions",
            "git",
        }
    ):
        return _CODEX  # the oldest rollouts: the session meta bare on line 1
    return None


def _by_prefix(line: bytes, path: Path) -> str | None:
    """A first line too long to parse here: Claude Code, Codex and Gemini start theirs in a
    recognisable way (a huge first line is a large first message)."""
    start = line.lstrip()[:200]
    if start.startswith((b'{"parentUuid":', b'{"type":"user"', b'{"type":"assistant"')):
        return _CLAUDE_CODE
    if start.startswith(b'{"timestamp":') and b'"type":"session_meta"' in start:
        return _CODEX
    if b'"projectHash"' in line[:4096] and b'"sessionId"' in line[:4096]:
        return _GEMINI
    return None


def read_log(
    path: Path | str, *, agent: str | None = None, tolerant: bool = False, leaf_only: bool = False
) -> AgentLog:
    """The log at ``path``, read by ``agent``'s reader (default: the detected one); with
    ``leaf_only``, for the snapshot of its active leaf only (:attr:`AgentLog.leaf_only`: the
    readers of Claude Code and Codex let go of what that snapshot cannot hold).

    Raises:
        InputError: not another agent's session (or not one ``agent`` reads), or malformed
            (file, line and reason).
        StorageError: it cannot be read.
    """
    from ..errors import InputError

    path = Path(path)
    name = agent or detect(path)
    if name is None or name not in READERS:
        raise InputError(
            "not a session of Claude Code, Codex, Gemini CLI, opencode or Pi", source=str(path)
        )
    return READERS[name](path, tolerant=tolerant, leaf_only=leaf_only)


def open_session(
    path: Path | str, *, agent: str | None = None, tolerant: bool = False, leaf_only: bool = False
) -> AgentSessionFile:
    """Another agent's session as the revision tree the Rho reader produces (read-only).

    With ``leaf_only`` the tree is good for the snapshot of its active leaf only: the tool
    results (and Claude Code's replies) of revisions before the leaf's last compaction may be
    empty but for their calls (read as :attr:`AgentLog.leaf_only` says; a log whose leaf turns out to be on a
    branch is read again whole), and only its revisions from the last complete snapshot on
    have nodes (``build``'s ``leaf_only``)."""
    log = read_log(path, agent=agent, tolerant=tolerant, leaf_only=leaf_only)
    if not log.keeps_leaf():
        log = read_log(path, agent=agent, tolerant=tolerant)
    return build(log, leaf_only=leaf_only)


def default_homes(env: Mapping[str, str] | None = None) -> dict[str, Path]:
    """Each agent's data folder: its own variable if set, else its default under the home folder."""
    env = os.environ if env is None else env
    home = Path(env.get("HOME") or Path.home())
    data = Path(env["XDG_DATA_HOME"]) if env.get("XDG_DATA_HOME") else home / ".local" / "share"
    gemini_base = Path(env["GEMINI_CLI_HOME"]) if env.get("GEMINI_CLI_HOME") else home
    pi_dir = env.get("PI_CODING_AGENT_DIR")
    return {
        _CLAUDE_CODE: Path(env["CLAUDE_CONFIG_DIR"])
        if env.get("CLAUDE_CONFIG_DIR")
        else home / ".claude",
        _CODEX: Path(env["CODEX_HOME"]) if env.get("CODEX_HOME") else home / ".codex",
        _GEMINI: gemini_base / ".gemini",
        _OPENCODE: data / "opencode",
        _PI: Path(os.path.expanduser(pi_dir)) if pi_dir else home / ".pi" / "agent",
    }


def session_paths(agent: str, home: Path) -> list[Path]:
    """Every session of ``agent`` under its data folder ``home`` (opencode: ``<db>#<id>``)."""
    from . import claude_code, codex, gemini, opencode, pi

    if agent == _CLAUDE_CODE:
        return claude_code.session_files(home)
    if agent == _CODEX:
        return codex.session_files(home)
    if agent == _GEMINI:
        return gemini.session_files(home)
    if agent == _PI:
        return pi.session_files(home)
    if agent == _OPENCODE:
        database = opencode.database_of(home)
        if not database.is_file():
            return []
        return [Path(f"{database}#{sid}") for sid, _ in opencode.session_ids(database)]
    raise ValueError(f"unknown agent {agent!r}; one of {', '.join(AGENTS)}")
