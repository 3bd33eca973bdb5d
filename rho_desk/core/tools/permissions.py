"""Permission modes, named as Rho names them, and the approvals a host gives.

=============  ================================================================================
mode           what runs
=============  ================================================================================
``off``        no tools are offered; the model is told a tool is unavailable (rho-desk only)
``plan``       reads run; writes and processes are denied with a tool error the model reads
``supervised`` reads run; every write or edit (with its diff) and every shell call (with its
               command and folder) waits for the host's approval
``allow_edits`` as ``supervised``, but writes to git-tracked files of the workspace are free, and
               so are files approved earlier in the session (unless git ignores them)
``bypass``     everything runs
=============  ================================================================================

Rho's default is ``bypass``; rho-desk's is ``supervised`` (:data:`DEFAULT_MODE`). A denial is a
``ToolError`` of kind ``PolicyDenied`` whose text follows Rho: ``"<capability> capability denied:
<reason>"``.

The host supplies an :class:`Approver` (the window shows a card, the command line asks on the
terminal). An approval can be for this call only, or for the rest of the session: for a write,
that path; for a shell call, the shell tool.
"""

from __future__ import annotations

import asyncio
import enum
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Final, Protocol, runtime_checkable

import msgspec

from ..errors import InputError
from .protocol import ToolError, ToolErrorKind

__all__ = [
    "DEFAULT_MODE",
    "ApprovalChoice",
    "ApprovalDecision",
    "ApprovalRequest",
    "Approver",
    "Authorizer",
    "Capability",
    "DenyAll",
    "PermissionMode",
]


class PermissionMode(enum.Enum):
    """How much the coding tools may do without asking (Rho's names, plus ``off``)."""

    OFF = "off"
    PLAN = "plan"
    SUPERVISED = "supervised"
    ALLOW_EDITS = "allow_edits"
    BYPASS = "bypass"

    @classmethod
    def parse(cls, value: str) -> PermissionMode:
        """Accept Rho's spellings (``allow-edits`` too), case-insensitively.

        Raises:
            InputError: not a mode.
        """
        text = value.strip().lower().replace("-", "_")
        for mode in cls:
            if mode.value == text:
                return mode
        raise InputError(
            f"unknown permission mode {value!r}; expected off, plan, supervised, allow_edits or bypass"
        )

    @property
    def label(self) -> str:
        return {
            "off": "Off",
            "plan": "Plan",
            "supervised": "Supervised",
            "allow_edits": "Allow edits",
            "bypass": "Bypass",
        }[self.value]

    @property
    def tools_enabled(self) -> bool:
        return self is not PermissionMode.OFF


DEFAULT_MODE: Final = PermissionMode.SUPERVISED


class Capability(enum.Enum):
    """What a tool call needs (Rho's ``CapabilityKind`` labels)."""

    READ = "read"
    WRITE = "write"
    PROCESS = "process"


class ApprovalChoice(enum.Enum):
    ALLOW_ONCE = "allow_once"
    ALLOW_FOR_SESSION = "allow_for_session"
    DENY = "deny"


class ApprovalDecision(msgspec.Struct, frozen=True):
    """The host's answer. ``reason`` is what the model reads after a denial."""

    choice: ApprovalChoice
    reason: str = ""

    @classmethod
    def allow_once(cls) -> ApprovalDecision:
        return cls(ApprovalChoice.ALLOW_ONCE)

    @classmethod
    def allow_for_session(cls) -> ApprovalDecision:
        return cls(ApprovalChoice.ALLOW_FOR_SESSION)

    @classmethod
    def deny(cls, reason: str = "") -> ApprovalDecision:
        return cls(ApprovalChoice.DENY, reason.strip())

    @property
    def allowed(self) -> bool:
        return self.choice is not ApprovalChoice.DENY


class ApprovalRequest(msgspec.Struct, frozen=True):
    """One thing waiting for the host's approval.

    For a write: ``path`` (shown relative to the workspace) and ``diff``, the exact change that
    will be applied. For a shell call: ``command`` and ``folder``.
    """

    call_id: str
    tool: str
    capability: Capability
    summary: str
    """One line: ``Edit src/app.py`` or ``Run: pytest -q``."""
    path: str | None = None
    diff: str | None = None
    command: str | None = None
    folder: str | None = None
    session_scope: str = ""
    """What "for this session" covers: the path, or the tool name."""


@runtime_checkable
class Approver(Protocol):
    """The host's approval prompt (a card in the window, a question on the terminal)."""

    async def request(self, request: ApprovalRequest) -> ApprovalDecision:
        """Ask; cancellation of the calling task withdraws the question."""
        ...


class DenyAll:
    """An approver that refuses everything, saying why (e.g. no terminal to ask on)."""

    def __init__(self, reason: str) -> None:
        self.reason = reason

    async def request(self, request: ApprovalRequest) -> ApprovalDecision:
        return ApprovalDecision.deny(self.reason)


def _git_check(path: Path, *args: str) -> bool:
    try:
        result = subprocess.run(
            ["git", *args, "--", path.name],
            cwd=path.parent,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return result.returncode == 0


def git_tracked(path: Path) -> bool:
    """``git ls-files --error-unmatch`` in the file's folder (Rho's test for a free edit)."""
    return path.parent.is_dir() and _git_check(path, "ls-files", "--error-unmatch", "-z")


def git_ignored(path: Path) -> bool:
    return path.parent.is_dir() and _git_check(path, "check-ignore", "-q")


class Authorizer(msgspec.Struct):
    """Applies a mode to each capability request, asking the host when the mode says so.

    One per conversation: it remembers session approvals (paths for writes, tools for processes)
    and serializes prompts so two calls never ask at once.
    """

    mode: PermissionMode
    approver: Approver
    _paths: set[Path] = msgspec.field(default_factory=set)
    _tools: set[str] = msgspec.field(default_factory=set)
    _lock: asyncio.Lock | None = None
    _git: dict[tuple[Path, str], bool] = msgspec.field(default_factory=dict)

    def approvals(self) -> tuple[frozenset[Path], frozenset[str]]:
        """The session approvals given so far: the paths approved for writes, the tools for
        processes (kept by a host that rebuilds the tools of the same conversation)."""
        return frozenset(self._paths), frozenset(self._tools)

    def grant(self, approvals: tuple[frozenset[Path], frozenset[str]]) -> None:
        """Hold ``approvals`` (from :meth:`approvals` of the same conversation) as given here."""
        paths, tools = approvals
        self._paths.update(paths)
        self._tools.update(tools)

    async def _git_verdict(self, path: Path, kind: str) -> bool:
        key = (path, kind)
        if key not in self._git:
            check = git_tracked if kind == "tracked" else git_ignored
            self._git[key] = await asyncio.to_thread(
                check, path
            )  # git may take a while: not on the loop
        return self._git[key]

    async def _free_write(self, path: Path, in_primary: bool) -> bool:
        if self.mode is not PermissionMode.ALLOW_EDITS or not in_primary or path.is_symlink():
            return False
        if await self._git_verdict(path, "tracked"):
            return True
        return path in self._paths and not await self._git_verdict(path, "ignored")

    async def _covered(self, request: ApprovalRequest, paths: Sequence[tuple[Path, bool]]) -> bool:
        if request.capability is not Capability.WRITE:
            return request.tool in self._tools
        if not paths:
            return False
        for path, primary in paths:
            if path not in self._paths and not await self._free_write(path, primary):
                return False
        return True

    async def authorize(
        self, request: ApprovalRequest, *, path: Path | None = None, in_primary: bool = True
    ) -> None:
        """Return when the request may run (see :meth:`authorize_paths`)."""
        await self.authorize_paths(request, [(path, in_primary)] if path is not None else [])

    async def authorize_paths(
        self, request: ApprovalRequest, paths: Sequence[tuple[Path, bool]]
    ) -> None:
        """Return when the request, touching ``paths`` (real path, inside the primary root), may run.

        Raises:
            ToolError: ``PolicyDenied`` with Rho's text when the mode or the host refuses.
        """
        label = request.capability.value
        mode = self.mode
        if request.capability is Capability.READ or mode is PermissionMode.BYPASS:
            return
        if mode in (PermissionMode.PLAN, PermissionMode.OFF):
            raise ToolError(
                ToolErrorKind.POLICY_DENIED,
                f"{label} capability denied: capability is not allowed in plan mode",
            )
        if await self._covered(request, paths):
            return
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            if await self._covered(request, paths):
                return
            decision = await self.approver.request(request)
        if not decision.allowed:
            reason = decision.reason or "denied by user"
            raise ToolError(ToolErrorKind.POLICY_DENIED, f"{label} capability denied: {reason}")
        if request.capability is Capability.WRITE:
            if (
                decision.choice is ApprovalChoice.ALLOW_FOR_SESSION
                or mode is PermissionMode.ALLOW_EDITS
            ):
                self._paths.update(p for p, _primary in paths)
        elif decision.choice is ApprovalChoice.ALLOW_FOR_SESSION:
            self._tools.add(request.tool)
