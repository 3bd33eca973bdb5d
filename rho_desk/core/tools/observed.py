"""Workspace mutation observation: the file tools announce each write before and after making it.

Upstream's tools call a ``WorkspaceMutationObserver`` (``crates/rho-tools/src/workspace_mutation.rs``)
around every native mutation: ``before_mutation`` must have captured each path before it
returns, ``after_mutation`` runs after the write attempt (whether it succeeded or not), and a
tool whose effects cannot be tracked (a shell command) marks an untracked effect. Here the same
contract wraps the coding tools from outside: :func:`observe_tools` returns the tools with
``write`` and ``edit`` calls bracketed by the observer and ``bash`` calls marked, so the tools
themselves stay as they are.

When ``before_mutation`` fails (the record cannot be written), the call fails and nothing is
written: no change is made that is not recorded first.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

from ..wire.model import ToolSpec
from .protocol import PreparedCall, Tool, ToolContext, ToolError, ToolInvocation, ToolOutput
from .workspace import Workspace

__all__ = ["WorkspaceMutationObserver", "observe_tools"]


class WorkspaceMutationObserver(Protocol):
    """What a host implements to record native file mutations (upstream's trait of that name)."""

    async def before_mutation(self, paths: Sequence[Path]) -> None:
        """Capture each path's state; raise to refuse the mutation."""

    async def after_mutation(self, paths: Sequence[Path]) -> None:
        """Observe each path's state after the write attempt."""

    async def mark_untracked_effect(self, kind: str, source: str) -> None:
        """Note an effect the host cannot track (``shell_command``, ``untracked_mutating_tool``)."""


def _write_paths(workspace: Workspace, arguments: Any) -> list[Path]:
    path = arguments.get("path") if isinstance(arguments, Mapping) else None
    return [workspace.resolve_for_write(path).path] if isinstance(path, str) else []


def _edit_paths(workspace: Workspace, arguments: Any) -> list[Path]:
    document = arguments.get("input") if isinstance(arguments, Mapping) else None
    if not isinstance(document, str):
        return []
    from . import hashline  # with the first edit: offering the tools needs none of it

    try:
        sections = hashline.parse_hashline(document)
    except hashline.ApplyError:
        return []
    return list(dict.fromkeys(workspace.resolve_for_read(s.path).path for s in sections))


class _ObservedTool(Tool):
    def __init__(
        self, inner: Tool, workspace: Workspace, observer: WorkspaceMutationObserver, kind: str
    ) -> None:
        self._inner = inner
        self._workspace = workspace
        self._observer = observer
        self._kind = kind
        self.reads_live_history = inner.reads_live_history

    def spec(self) -> ToolSpec:
        return self._inner.spec()

    def start_metadata(self, arguments: Any) -> Mapping[str, Any]:
        return self._inner.start_metadata(arguments)

    async def prepare(self, invocation: ToolInvocation, context: ToolContext) -> PreparedCall:
        prepared = await self._inner.prepare(invocation, context)
        observer = self._observer
        if self._kind == "shell":
            source = invocation.name

            async def run_shell(ctx: ToolContext) -> ToolOutput:
                await observer.mark_untracked_effect("shell_command", source)
                return await prepared.execute(ctx)

            return PreparedCall(prepared.access, run_shell, prepared.metadata)
        try:
            paths = (_write_paths if self._kind == "write" else _edit_paths)(
                self._workspace, invocation.arguments
            )
        except ToolError:
            paths = []  # the tool resolved it in its own prepare; a path it refuses is never written
        if not paths:
            return prepared

        async def run_mutation(ctx: ToolContext) -> ToolOutput:
            try:
                await observer.before_mutation(paths)
            except ToolError:
                raise
            except Exception as exc:
                raise ToolError.execution(
                    f"could not record the change before making it; nothing was written: {exc}"
                ) from None
            try:
                return await prepared.execute(ctx)
            finally:
                await observer.after_mutation(paths)

        return PreparedCall(prepared.access, run_mutation, prepared.metadata)

    def __repr__(self) -> str:
        return f"Observed({self._inner!r})"


_KINDS = {"write": "write", "edit": "edit", "bash": "shell"}


def observe_tools(
    tools: Sequence[Tool], workspace: Workspace, observer: WorkspaceMutationObserver
) -> list[Tool]:
    """``tools`` with ``write``/``edit`` calls bracketed by ``observer`` and ``bash`` calls marked."""
    out: list[Tool] = []
    for tool in tools:
        kind = _KINDS.get(tool.spec().name)
        out.append(tool if kind is None else _ObservedTool(tool, workspace, observer, kind))
    return out
