"""Rho's coding tools, in Rho's names and shapes: ``list_dir``, ``read_file``, ``glob``, ``grep``,
``write``, ``edit`` (the default "hashline" format) and ``bash``.

Each tool's spec (name, description, argument schema) and result text are Rho's, so a session
continued here and resumed in Rho (or the reverse) reads as one conversation. Every path goes
through the :class:`~.workspace.Workspace` (nothing outside the session's folder and the granted
folders), and every write and process through the :class:`~.permissions.Authorizer` (the
permission mode, and the host's approval). Writes are atomic (temp file, fsync, rename) and keep
the file's mode; the diff the host approves is the change applied, and a file that changed
while the approval waited is not overwritten.

What differs from Rho: ``read_file`` does not extract text from PDF, DOCX or spreadsheets (it
says so), and reports images by type and size only.

The search (``search``), shell (``shell``) and edit format (``hashline``) modules load with the
first call that needs them: offering the tools to the model needs only their specs.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Final

from ..wire.model import ToolSpec
from .permissions import ApprovalRequest, Authorizer, Capability
from .protocol import (
    EXCLUSIVE_ACCESS,
    PreparedCall,
    Tool,
    ToolAccess,
    ToolContext,
    ToolError,
    ToolErrorKind,
    ToolInvocation,
    ToolOutput,
)
from .text import (
    DEFAULT_MAX_OUTPUT_BYTES,
    UNREADABLE_FILE_DIFF_MESSAGE,
    chain_snapshot,
    file_hash,
    format_header,
    numbered_view,
    post_edit_preview,
    truncate,
    unified_diff,
)
from .workspace import ResolvedPath, Workspace

__all__ = [
    "BashTool",
    "EditTool",
    "GlobTool",
    "GrepTool",
    "ListDirTool",
    "ReadFileTool",
    "WriteTool",
    "coding_tools",
    "os_error_text",
]

MAX_DOCUMENT_INPUT_BYTES: Final = 25 * 1024 * 1024
_IMAGE_SIGNATURES: Final = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
)
_RICH_SUFFIXES: Final = (".pdf", ".docx", ".xlsx", ".xls", ".ods")


def os_error_text(exc: OSError) -> str:
    """An OS error as Rust's ``io::Error`` displays it: ``No such file or directory (os error 2)``."""
    if exc.errno is not None and exc.strerror:
        return f"{exc.strerror} (os error {exc.errno})"
    return str(exc)


def _args(invocation: ToolInvocation) -> Mapping[str, Any]:
    if not isinstance(invocation.arguments, Mapping):
        raise ToolError.invalid_arguments("invalid arguments: expected a JSON object")
    return invocation.arguments


def _string(args: Mapping[str, Any], name: str) -> str:
    value = args.get(name)
    if value is None:
        raise ToolError.invalid_arguments(f"invalid arguments: missing field `{name}`")
    if not isinstance(value, str):
        raise ToolError.invalid_arguments(
            f"invalid arguments: invalid type: expected a string for `{name}`"
        )
    return value


def _count(args: Mapping[str, Any], name: str) -> int | None:
    value = args.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ToolError.invalid_arguments(
            f"invalid arguments: invalid value: expected a non-negative integer for `{name}`"
        )
    return value


def _spec(name: str, description: str, schema: dict[str, Any]) -> ToolSpec:
    return ToolSpec(name, description, schema)


def _image_type(header: bytes) -> str | None:
    for signature, mime in _IMAGE_SIGNATURES:
        if header.startswith(signature):
            return mime
    if header[:4] == b"RIFF" and header[8:12] == b"WEBP":
        return "image/webp"
    return None


def _utf8_error(exc: UnicodeDecodeError) -> str:
    if exc.reason == "unexpected end of data":
        return f"incomplete utf-8 byte sequence from index {exc.start}"
    return f"invalid utf-8 sequence of {exc.end - exc.start} bytes from index {exc.start}"


class _WorkspaceTool(Tool):
    """A coding tool bound to one workspace and one authorizer."""

    def __init__(self, workspace: Workspace, authorizer: Authorizer, max_output_bytes: int) -> None:
        self.workspace = workspace
        self.authorizer = authorizer
        self.max_output_bytes = max(max_output_bytes, 1)

    def start_metadata(self, arguments: Any) -> Mapping[str, Any]:
        path = arguments.get("path") if isinstance(arguments, Mapping) else None
        return (
            {"operation": "read", "path": path} if isinstance(path, str) else {"operation": "read"}
        )

    def _read_text(self, resolved: ResolvedPath) -> str:
        return self.workspace.read_bytes(resolved).decode("utf-8")

    def _replace(self, resolved: ResolvedPath, content: str) -> None:
        self.workspace.replace(resolved, content.encode("utf-8"))

    def _in_folder(self, resolved: ResolvedPath, use: Callable[[int], str]) -> str:
        """``use(folder descriptor)`` on the authorized folder, off the event loop's thread."""
        try:
            fd = self.workspace.open_folder(resolved)
        except OSError as exc:
            raise ToolError.execution(os_error_text(exc)) from None
        try:
            return use(fd)
        finally:
            os.close(fd)

    def _search(
        self,
        invocation: ToolInvocation,
        path: str,
        search: Callable[[int, str, Callable[[], bool]], str],
    ) -> PreparedCall:
        """A read-only search under ``path`` (grep, glob): ``search(folder_fd, shown_root, cancelled)``
        runs off the event loop, and its text is cut to the output budget."""
        resolved = self.workspace.resolve_for_read(path)

        async def execute(ctx: ToolContext) -> ToolOutput:
            display = self.workspace.display(path)
            token = ctx.cancellation
            content = await asyncio.to_thread(
                self._in_folder, resolved, lambda fd: search(fd, display, lambda: token.cancelled)
            )
            return ToolOutput(
                truncate(content, self.max_output_bytes), {"operation": "read", "path": display}
            )

        return PreparedCall(
            ToolAccess.resources(reads=[str(resolved.path)]),
            execute,
            self.start_metadata(invocation.arguments),
        )


# -- reading ---------------------------------------------------------------------------------------


class ListDirTool(_WorkspaceTool):
    def spec(self) -> ToolSpec:
        return _spec(
            "list_dir",
            "Lists a directory.",
            {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
        )

    async def prepare(self, invocation: ToolInvocation, context: ToolContext) -> PreparedCall:
        path = _string(_args(invocation), "path")
        resolved = self.workspace.resolve_for_read(path)

        async def execute(ctx: ToolContext) -> ToolOutput:
            content = await asyncio.to_thread(self._in_folder, resolved, _list_directory)
            display = self.workspace.display(path)
            return ToolOutput(
                truncate(content, self.max_output_bytes), {"operation": "read", "path": display}
            )

        return PreparedCall(
            ToolAccess.resources(reads=[str(resolved.path)]),
            execute,
            self.start_metadata({"path": path}),
        )


def _list_directory(folder: int) -> str:
    try:
        with os.scandir(folder) as entries:
            lines = [e.name + ("/" if e.is_dir(follow_symlinks=False) else "") for e in entries]
    except OSError as exc:
        raise ToolError.execution(os_error_text(exc)) from None
    return "\n".join(sorted(lines))


class ReadFileTool(_WorkspaceTool):
    def spec(self) -> ToolSpec:
        return _spec(
            "read_file",
            "Reads a UTF-8 text/source file, extracts text from PDF, DOCX, XLSX, XLS, or ODS documents, or reads a "
            "PNG, JPEG, GIF, or WebP image. Text and source files return numbered N:line rows. When the selected "
            "edit tool is hashline, the header is [path#TAG] and TAG fingerprints the full file (trailing "
            "whitespace ignored). offset/limit select which rows are shown. Files larger than 256 KiB keep only "
            "the selected window in memory. offset and limit apply to UTF-8 text files only.",
            {
                "type": "object",
                "properties": {
                    "path": {"type": "string"},
                    "offset": {"type": "integer", "minimum": 1},
                    "limit": {"type": "integer", "minimum": 1},
                },
                "required": ["path"],
            },
        )

    async def prepare(self, invocation: ToolInvocation, context: ToolContext) -> PreparedCall:
        args = _args(invocation)
        path = _string(args, "path")
        offset, limit = _count(args, "offset"), _count(args, "limit")
        resolved = self.workspace.resolve_for_read(path)

        async def execute(ctx: ToolContext) -> ToolOutput:
            display = self.workspace.display(path)
            content = await asyncio.to_thread(self._read_file, resolved, display, offset, limit)
            return ToolOutput(
                truncate(content, self.max_output_bytes), {"operation": "read", "path": display}
            )

        return PreparedCall(
            ToolAccess.resources(reads=[str(resolved.path)]),
            execute,
            self.start_metadata({"path": path}),
        )

    def _read_file(
        self, resolved: ResolvedPath, display: str, offset: int | None, limit: int | None
    ) -> str:
        try:
            fd = self.workspace.open_file(resolved)
        except OSError as exc:
            raise ToolError.execution(os_error_text(exc)) from None
        return read_file_content(fd, resolved.path, display, offset, limit)


def read_file_content(
    fd: int, path: Path, display: str, offset: int | None, limit: int | None
) -> str:
    """Rho's ``read_file`` text for the UTF-8 file open as ``fd`` (images: type and size); closes ``fd``."""
    try:
        with os.fdopen(fd, "rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            header = handle.read(12)
            windowed = offset is not None or limit is not None
            if not windowed and (mime := _image_type(header)) is not None:
                return f"{mime} image ({size} bytes)"
            if size > MAX_DOCUMENT_INPUT_BYTES:
                raise ToolError.execution(
                    f"document '{path}' is {size} bytes; the input limit is {MAX_DOCUMENT_INPUT_BYTES} bytes"
                )
            data = header + handle.read()
    except OSError as exc:
        raise ToolError.execution(os_error_text(exc)) from None
    if not windowed and (data.startswith(b"%PDF-") or path.suffix.lower() in _RICH_SUFFIXES):
        raise ToolError.execution(
            f"cannot extract text from '{path}': rho-desk reads text files only (not PDF, DOCX or spreadsheets)"
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        lead = "could not read" if windowed else "file"
        tail = "as UTF-8 text" if windowed else "is not valid UTF-8 text"
        raise ToolError.execution(f"{lead} '{path}' {tail}: {_utf8_error(exc)}") from None
    try:
        return numbered_view(format_header(display, file_hash(text)), text, offset, limit)
    except ValueError as exc:
        raise ToolError.execution(str(exc)) from None


class GrepTool(_WorkspaceTool):
    def spec(self) -> ToolSpec:
        return _spec(
            "grep",
            "Searches file contents under a directory with a regular expression. Skips ignored, hidden, and binary "
            "files. Returns matches grouped by file with line numbers. Content mode shows matches as `N | text`. "
            "When the selected edit tool is hashline, each file is prefixed with a [path#TAG] snapshot header. "
            "Match text is a preview and may be truncated; use read_file when you need exact line text.",
            {
                "type": "object",
                "properties": {
                    "pattern": {"type": "string"},
                    "path": {"type": "string"},
                    "glob": {"type": "string"},
                    "literal": {"type": "boolean"},
                    "case_sensitive": {"type": "boolean"},
                    "include_hidden": {"type": "boolean"},
                    "max_results": {"type": "integer", "minimum": 1},
                    "max_per_file": {"type": "integer", "minimum": 1},
                    "output_mode": {
                        "type": "string",
                        "enum": ["content", "files_with_matches", "count"],
                    },
                },
                "required": ["pattern"],
            },
        )

    async def prepare(self, invocation: ToolInvocation, context: ToolContext) -> PreparedCall:
        from .search import GrepRequest, grep_workspace

        request = GrepRequest.parse(_args(invocation))
        return self._search(
            invocation,
            request.path,
            lambda root, shown, stop: grep_workspace(
                root, shown, request, cancelled=stop, admits=self.workspace.admits
            ),
        )


class GlobTool(_WorkspaceTool):
    def spec(self) -> ToolSpec:
        return _spec(
            "glob",
            "Finds files matching a glob pattern under a directory. Skips ignored and hidden files. Returns "
            "relative paths in directory order.",
            {
                "type": "object",
                "properties": {
                    "pattern": {"type": "string"},
                    "path": {"type": "string"},
                    "include_hidden": {"type": "boolean"},
                    "max_results": {"type": "integer", "minimum": 1},
                },
                "required": ["pattern"],
            },
        )

    async def prepare(self, invocation: ToolInvocation, context: ToolContext) -> PreparedCall:
        from .search import GlobRequest, glob_workspace

        request = GlobRequest.parse(_args(invocation))
        return self._search(
            invocation,
            request.path,
            lambda root, shown, stop: glob_workspace(root, shown, request, cancelled=stop),
        )


# -- writing ---------------------------------------------------------------------------------------


class WriteTool(_WorkspaceTool):
    def spec(self) -> ToolSpec:
        return _spec(
            "write",
            "Creates or fully rewrites a UTF-8 text file with complete contents. Prefer the selected edit tool for "
            "targeted changes. Successful writes return a bounded numbered snapshot for follow-up work without an "
            "extra `read_file`. When the selected edit tool is hashline, that snapshot is `[path#TAG]` plus "
            "numbered lines. Re-read only for lines outside that snapshot. Unified diff is tool metadata for UI "
            "cards.",
            {
                "type": "object",
                "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
                "required": ["path", "content"],
            },
        )

    def start_metadata(self, arguments: Any) -> Mapping[str, Any]:
        path = arguments.get("path") if isinstance(arguments, Mapping) else None
        return (
            {"operation": "write", "path": path}
            if isinstance(path, str)
            else {"operation": "write"}
        )

    async def prepare(self, invocation: ToolInvocation, context: ToolContext) -> PreparedCall:
        args = _args(invocation)
        path = _string(args, "path")
        content = _string(args, "content")
        resolved = self.workspace.resolve_for_write(path)
        call_id = invocation.call_id

        async def execute(ctx: ToolContext) -> ToolOutput:
            workspace = self.workspace
            display = workspace.display(path)
            target = resolved.path
            old: str | None = None
            unreadable = False
            try:
                old = await asyncio.to_thread(self._read_text, resolved)
            except FileNotFoundError:
                pass
            except (OSError, UnicodeDecodeError):
                unreadable = True
            created = old is None and not unreadable
            diff = (
                UNREADABLE_FILE_DIFF_MESSAGE
                if unreadable
                else await asyncio.to_thread(unified_diff, old or "", content, display, created)
            )
            named = workspace.approval_name(path, resolved)
            request = ApprovalRequest(
                call_id,
                "write",
                Capability.WRITE,
                f"{'Create' if created else 'Write'} {named}",
                path=named,
                diff=diff,
                session_scope=display,
            )
            await self.authorizer.authorize(request, path=target, in_primary=resolved.in_primary)
            await ctx.report(f"writing {display}")
            if not unreadable:
                try:
                    live: str | None = await asyncio.to_thread(self._read_text, resolved)
                except FileNotFoundError:
                    live = None
                except (OSError, UnicodeDecodeError):
                    live = "\0unreadable"
                if live != old:
                    raise ToolError.execution(
                        f"{display}: changed while the write waited for approval; nothing was written"
                    )
            try:
                await asyncio.to_thread(self._replace, resolved, content)
            except OSError as exc:
                raise ToolError.execution(os_error_text(exc)) from None
            action = "created" if created else "wrote"
            snapshot = await asyncio.to_thread(chain_snapshot, display, content)
            body = (
                f"{action} {display}\n\n{UNREADABLE_FILE_DIFF_MESSAGE}\n\n{snapshot}"
                if unreadable
                else f"{action} {display}\n\n{snapshot}"
            )
            return ToolOutput(
                truncate(body, self.max_output_bytes),
                {"operation": "write", "path": display, "diff": diff},
            )

        # A write runs alone: a search of a folder above it in the same batch must not see it half done.
        return PreparedCall(EXCLUSIVE_ACCESS, execute, self.start_metadata({"path": path}))


_EDIT_DESCRIPTION: Final = """Multi-hunk line-anchored edits to existing UTF-8 files.

Requires a fresh `[path#TAG]` from `read_file`, `grep` (content mode TAG + line numbers only), `write` snapshot, a prior non-structural `edit` preview, or a failed `edit` live snapshot. Never invent a TAG. Prefer `write` to create or fully rewrite a file.

Document:
[path#TAG]
PUT N:
+replacement
PUT N.=M:
+range body
PUT <N: / PUT >N: / PUT >$:
+insert
CUT N.=M

Locators: `PUT 12:` (single line; never `PUT 12.:`), `PUT 12.=15:` (inclusive range; also `12-15` / `12..15`), inserts as above, `CUT` without a colon. Body rows under `:` headers must start with `+`. PUT needs ≥1 body row; use CUT to delete. PUT N or PUT N.=M replaces only that span. Body is exactly the new lines for the span - never restated neighbors. If a neighbor must change, widen the range. Line numbers are original snapshot lines and do not shift mid-document. One section per path; do not stack two `edit` calls on the same path in one batch. Stale TAG, overlap, out-of-range, and mid-edit changes fail closed with a live snapshot to copy."""


class EditTool(_WorkspaceTool):
    def spec(self) -> ToolSpec:
        return _spec(
            "edit",
            _EDIT_DESCRIPTION,
            {
                "type": "object",
                "properties": {
                    "input": {
                        "type": "string",
                        "description": "Hashline document: one or more [path#TAG] sections with PUT/CUT ops. Copy each "
                        "TAG from a fresh snapshot; never invent tags.",
                    }
                },
                "required": ["input"],
                "additionalProperties": False,
            },
        )

    def start_metadata(self, arguments: Any) -> Mapping[str, Any]:
        document = arguments.get("input") if isinstance(arguments, Mapping) else None
        if not isinstance(document, str):
            return {"operation": "write"}
        from . import hashline

        paths = hashline.edit_paths(document)
        return {"operation": "write", "path": ", ".join(paths)} if paths else {"operation": "write"}

    async def prepare(self, invocation: ToolInvocation, context: ToolContext) -> PreparedCall:
        from . import hashline

        args = _args(invocation)
        for key in args:
            if key != "input":
                raise ToolError.invalid_arguments(
                    f"invalid arguments: unknown field `{key}`, expected `input`"
                )
        document = _string(args, "input")
        try:
            sections = hashline.parse_hashline(document)
        except hashline.ApplyError as exc:
            raise ToolError.invalid_arguments(str(exc)) from None
        targets: list[tuple[hashline.Section, ResolvedPath, str]] = []
        seen: dict[Path, str] = {}
        for section in sections:
            resolved = self.workspace.resolve_for_read(section.path)
            prior = seen.get(resolved.path)
            if prior is not None:
                also = "" if prior == section.path else f" (also as '{prior}')"
                raise ToolError.execution(
                    f"hashline document claims path '{section.path}' more than once{also}"
                )
            seen[resolved.path] = section.path
            targets.append((section, resolved, self.workspace.display(section.path)))
        call_id = invocation.call_id

        async def execute(ctx: ToolContext) -> ToolOutput:
            planned: list[tuple[ResolvedPath, str, str, str, list[int], hashline.Section]] = []
            for section, resolved, display in targets:
                try:
                    original = await asyncio.to_thread(self._read_text, resolved)
                except OSError as exc:
                    raise ToolError.execution(
                        f"could not read {display}: {os_error_text(exc)}"
                    ) from None
                except UnicodeDecodeError as exc:
                    raise ToolError.execution(
                        f"could not read {display}: {_utf8_error(exc)}"
                    ) from None
                anchors = hashline.focus_anchors(section.ops)
                try:
                    new_text, focus = await asyncio.to_thread(
                        hashline.apply_ops, original, section.tag, section.ops
                    )
                except hashline.ApplyError as exc:
                    raise ToolError.execution(
                        hashline.recovery_message(display, original, anchors, str(exc))
                    ) from None
                planned.append((resolved, display, original, new_text, focus, section))
            diff = await asyncio.to_thread(
                lambda: "\n".join(unified_diff(p[2], p[3], p[1], False) for p in planned)
            )
            displays = [p[1] for p in planned]
            named = ", ".join(self.workspace.approval_name(p[5].path, p[0]) for p in planned)
            request = ApprovalRequest(
                call_id,
                "edit",
                Capability.WRITE,
                f"Edit {named}",
                path=named,
                diff=diff,
                session_scope=", ".join(displays),
            )
            # an edit that changes nothing writes nothing, so there is nothing to approve
            changing = [p for p in planned if p[2] != p[3]]
            if changing:
                paths = [(p[0].path, p[0].in_primary) for p in planned]
                await self.authorizer.authorize_paths(request, paths)
                await ctx.report(f"editing {', '.join(displays)}")
            applied: list[tuple[ResolvedPath, str, str]] = []
            for resolved, display, original, new_text, _focus, section in changing:
                try:
                    live = await asyncio.to_thread(self._read_text, resolved)
                    if live != original:
                        raise ToolError.execution(
                            hashline.recovery_message(
                                display,
                                live,
                                hashline.focus_anchors(section.ops),
                                "changed during edit",
                            )
                        )
                    await asyncio.to_thread(self._replace, resolved, new_text)
                except (ToolError, OSError, UnicodeDecodeError) as exc:
                    message = (
                        exc.message
                        if isinstance(exc, ToolError)
                        else f"could not write {display}: {exc}"
                    )
                    if applied:
                        failures = []
                        for done, before, after in reversed(applied):
                            try:
                                if await asyncio.to_thread(self._read_text, done) == after:
                                    await asyncio.to_thread(self._replace, done, before)
                                else:
                                    failures.append(
                                        f"{done.path}: changed after apply; refusing rollback"
                                    )
                            except (OSError, UnicodeDecodeError) as rollback:
                                failures.append(str(rollback))
                        message += (
                            f"; rollback also failed: {'; '.join(failures)}"
                            if failures
                            else "; applied changes were rolled back"
                        )
                    raise ToolError.execution(message) from None
                applied.append((resolved, original, new_text))
            previews = await asyncio.to_thread(
                lambda: [
                    f"{hashline.ops_summary(section.ops)}\n"
                    f"{post_edit_preview(display, new_text, focus, hashline.is_structural(section.ops))}"
                    for _resolved, display, _original, new_text, focus, section in planned
                ]
            )
            return ToolOutput(
                truncate("\n\n".join(previews), self.max_output_bytes),
                {"operation": "write", "path": ", ".join(displays), "diff": diff},
            )

        return PreparedCall(EXCLUSIVE_ACCESS, execute, self.start_metadata(args))


# -- processes ------------------------------------------------------------------------------------


class BashTool(_WorkspaceTool):
    def spec(self) -> ToolSpec:
        return _spec(
            "bash",
            "Runs a bash command in the current working directory.",
            {
                "type": "object",
                "properties": {
                    "command": {"type": "string"},
                    "timeout_seconds": {"type": "integer", "minimum": 1},
                },
                "required": ["command"],
            },
        )

    def start_metadata(self, arguments: Any) -> Mapping[str, Any]:
        command = arguments.get("command") if isinstance(arguments, Mapping) else None
        return (
            {"operation": "execute", "command": command}
            if isinstance(command, str)
            else {"operation": "execute"}
        )

    async def call(self, invocation: ToolInvocation, context: ToolContext) -> ToolOutput:
        args = _args(invocation)
        command = _string(args, "command")
        timeout = _count(args, "timeout_seconds")
        if timeout == 0:
            raise ToolError.invalid_arguments("timeout_seconds must be greater than zero")
        workspace = self.workspace
        folder = str(workspace.root)
        request = ApprovalRequest(
            invocation.call_id,
            "bash",
            Capability.PROCESS,
            f"Run: {command.splitlines()[0] if command.strip() else command}",
            command=command,
            folder=folder,
            session_scope="bash",
        )
        await self.authorizer.authorize(request)
        if not Path(folder).is_dir():
            raise ToolError(ToolErrorKind.POLICY_DENIED, f"workspace root '{folder}' is gone")

        async def update(text: str) -> None:
            await context.report(text)

        from .shell import run_shell

        try:
            outcome = await run_shell(
                command,
                folder,
                max_output_bytes=self.max_output_bytes,
                timeout=float(timeout) if timeout is not None else None,
                on_update=update,
            )
        except OSError as exc:
            raise ToolError.execution(os_error_text(exc)) from None
        if not outcome.ok:
            raise ToolError.execution(outcome.content)
        return ToolOutput(outcome.content, {"operation": "execute", "command": command})


def coding_tools(
    workspace: Workspace,
    authorizer: Authorizer,
    *,
    max_output_bytes: int = DEFAULT_MAX_OUTPUT_BYTES,
) -> Sequence[Tool]:
    """Rho's coding tools for ``workspace``, gated by ``authorizer`` (an empty list for ``off``)."""
    if not authorizer.mode.tools_enabled:
        return []
    kinds: tuple[type[_WorkspaceTool], ...] = (
        ListDirTool,
        ReadFileTool,
        WriteTool,
        EditTool,
        GrepTool,
        GlobTool,
        BashTool,
    )
    return [kind(workspace, authorizer, max_output_bytes) for kind in kinds]
