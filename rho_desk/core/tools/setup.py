"""One conversation's tools: the workspace from the session's header, the mode, the approver.

Both the window and ``rho-desk continue`` build their tools here, so they offer the same tools
under the same rules. With mode ``off`` nothing is offered (the model is told a tool it calls is
unavailable). Otherwise the session's recorded folder must exist: when it does not,
:func:`open_workspace` says so before the turn starts, and the host offers to choose a folder or
to continue without tools.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence

import msgspec

from .coding import coding_tools
from .observed import WorkspaceMutationObserver, observe_tools
from .permissions import Approver, Authorizer, PermissionMode
from .protocol import Tool, ToolErrorKind
from .text import DEFAULT_MAX_OUTPUT_BYTES
from .workspace import Workspace, WorkspaceMissing

__all__ = ["ToolSetup", "open_workspace", "tool_setup"]


def open_workspace(cwd: str | None, granted: Iterable[str | os.PathLike[str]] = ()) -> Workspace:
    """The workspace of a session whose header records ``cwd``.

    Raises:
        WorkspaceMissing: no folder is recorded, or it is not on this machine; the message says
            which and what to do.
    """
    if not cwd:
        raise WorkspaceMissing(
            ToolErrorKind.EXECUTION,
            "the session records no working folder",
        )
    try:
        return Workspace(cwd, granted)
    except WorkspaceMissing as exc:
        if not os.path.isdir(cwd):
            raise WorkspaceMissing(
                ToolErrorKind.EXECUTION,
                f"the session's folder {cwd} is not on this machine",
            ) from None
        raise exc from None


class ToolSetup(msgspec.Struct, frozen=True):
    """What one conversation offers the model, and the rules it runs under."""

    mode: PermissionMode
    workspace: Workspace | None
    authorizer: Authorizer
    tools: Sequence[Tool]

    @property
    def key(self) -> tuple[str, str, tuple[str, ...]]:
        """Changes when the offered tools or their folder change (the engine is rebuilt then)."""
        if self.workspace is None:
            return (self.mode.value, "", ())
        return (
            self.mode.value,
            str(self.workspace.root),
            tuple(str(p) for p in self.workspace.granted),
        )


def tool_setup(
    mode: PermissionMode,
    approver: Approver,
    *,
    cwd: str | None = None,
    workspace: Workspace | None = None,
    granted: Iterable[str | os.PathLike[str]] = (),
    max_output_bytes: int = DEFAULT_MAX_OUTPUT_BYTES,
    observer: WorkspaceMutationObserver | None = None,
) -> ToolSetup:
    """The tools for ``mode`` in ``workspace`` (or the folder ``cwd``).

    With an ``observer`` (the session's checkpoint recorder), every ``write`` and ``edit`` is
    recorded before it is made and every ``bash`` call is noted (:mod:`.observed`).

    Raises:
        WorkspaceMissing: tools are on and the folder is gone (see :func:`open_workspace`).
    """
    authorizer = Authorizer(mode, approver)
    if not mode.tools_enabled:
        return ToolSetup(mode, None, authorizer, ())
    if workspace is None:
        workspace = open_workspace(cwd, granted)
    tools = coding_tools(workspace, authorizer, max_output_bytes=max_output_bytes)
    if observer is not None:
        tools = observe_tools(tools, workspace, observer)
    return ToolSetup(mode, workspace, authorizer, tools)
