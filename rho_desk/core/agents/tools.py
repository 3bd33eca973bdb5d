"""Other agents' file tools in Rho's words, for the Changes view.

The changes of a session are derived from its tool calls (``core.changes.build``), which knows
Rho's tools: ``write`` (``path``, ``content``), a text replacement (``edit_file``: ``path``,
``old``, ``new``), ``bash``. :func:`rho_calls` says what another agent's call did in those
terms, so that the same derivation works on every agent's session, and on a Rho session
imported from one (its snapshot metadata names the agent). A call this module does not know is
passed through unchanged (Rho's own tools in a continued session keep their meaning).

Sources: Claude Code's tool input schemas (``Write``, ``Edit`` with ``replace_all``,
``MultiEdit``, ``NotebookEdit``, ``Bash``) in ``oneryalcin/agent-schemas``
``claude-code/v2.1.144/session.schema.json``; Codex's ``shell`` / ``shell_command`` /
``local_shell`` parameters in ``codex-rs/protocol/src/models.rs`` and the ``apply_patch``
format (``*** Add File:``, ``*** Update File:`` with ``@@`` hunks, ``*** Move to:``,
``*** Delete File:``); Gemini CLI's ``write_file``, ``replace``, ``run_shell_command``;
opencode's ``write``, ``edit`` (``filePath``, ``oldString``, ``newString``, ``replaceAll``),
``patch``, ``bash``; Pi's ``write``, ``edit`` (``oldText``, ``newText``), ``bash``.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from typing import Any, Final

from ..wire.model import ToolCall
from . import claude_code, codex, gemini, opencode, pi

__all__ = ["apply_patch_steps", "rho_calls", "translator"]

_CODEX_SHELLS: Final = frozenset(
    {"shell", "shell_command", "local_shell", "exec_command", "container.exec"}
)


def _call(call: ToolCall, name: str, arguments: dict[str, Any]) -> ToolCall:
    return ToolCall(call.id, name, arguments)


def _text(args: dict[str, Any], *names: str) -> str | None:
    for name in names:
        value = args.get(name)
        if isinstance(value, str):
            return value
    return None


def _command(value: object) -> str | None:
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        # ["bash", "-lc", "cmd"]: the command the shell ran
        if len(value) == 3 and value[1] in ("-lc", "-c"):
            return str(value[2])
        return shlex.join(value)
    return None


def _replace(
    call: ToolCall, path: str | None, old: str | None, new: str | None, every: bool = False
) -> list[ToolCall]:
    if path is None or old is None or new is None:
        return [call]
    return [_call(call, "edit_file", {"path": path, "old": old, "new": new, "all": every})]


def _write(
    call: ToolCall, path: str | None, content: str | None, created: bool | None = None
) -> list[ToolCall]:
    if path is None or content is None:
        return [call]
    arguments: dict[str, Any] = {"path": path, "content": content}
    if created is not None:
        arguments["created"] = created
    return [_call(call, "write", arguments)]


def _shell(call: ToolCall, command: str | None) -> list[ToolCall]:
    return [_call(call, "bash", {"command": command})] if command is not None else [call]


def apply_patch_steps(patch: str) -> list[tuple[str, str, Any]]:
    """The steps of a Codex/opencode patch: ``("add", path, content)``, ``("delete", path,
    None)``, ``("update", path, hunks)`` with each hunk a pair of line lists (old, new), and
    ``("move", path, new path)``."""
    steps: list[tuple[str, str, Any]] = []
    lines = patch.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("*** Add File: "):
            path = line[len("*** Add File: ") :].strip()
            body = []
            i += 1
            while i < len(lines) and not lines[i].startswith("*** "):
                if lines[i].startswith("+"):
                    body.append(lines[i][1:])
                i += 1
            steps.append(("add", path, "\n".join(body) + "\n" if body else ""))
            continue
        if line.startswith("*** Delete File: "):
            steps.append(("delete", line[len("*** Delete File: ") :].strip(), None))
        elif line.startswith("*** Update File: "):
            path = line[len("*** Update File: ") :].strip()
            hunks: list[tuple[list[str], list[str]]] = []
            old: list[str] = []
            new: list[str] = []
            i += 1
            while i < len(lines) and not (
                lines[i].startswith("*** ") and not lines[i].startswith("*** End of File")
            ):
                text = lines[i]
                if text.startswith("@@"):
                    if old or new:
                        hunks.append((old, new))
                    old, new = [], []
                elif text.startswith("-"):
                    old.append(text[1:])
                elif text.startswith("+"):
                    new.append(text[1:])
                elif text.startswith(" "):
                    old.append(text[1:])
                    new.append(text[1:])
                i += 1
            if old or new:
                hunks.append((old, new))
            steps.append(("update", path, hunks))
            if i < len(lines) and lines[i].startswith("*** Move to: "):
                steps.append(("move", path, lines[i][len("*** Move to: ") :].strip()))
                i += 1
            continue
        i += 1
    return steps


def _patch(call: ToolCall, patch: str | None) -> list[ToolCall]:
    """A patch as Rho steps: whole-file writes, deletions, and one replacement per hunk."""
    if patch is None:
        return [call]
    out: list[ToolCall] = []
    for kind, path, data in apply_patch_steps(patch):
        if kind == "add":
            out.append(_call(call, "write", {"path": path, "content": data, "created": True}))
        elif kind == "delete":
            out.append(_call(call, "delete", {"path": path}))
        elif kind == "update":
            for old, new in data:
                out.append(
                    _call(
                        call,
                        "edit_file",
                        {"path": path, "old": "\n".join(old), "new": "\n".join(new)},
                    )
                )
        elif kind == "move":
            out.append(_call(call, "move", {"path": path, "to": data}))
    return out or [call]


def _claude(call: ToolCall, args: dict[str, Any], result: str) -> list[ToolCall]:
    name = call.name
    if name == "Write":
        # "File created successfully at: …" or "The file … has been updated…"
        return _write(
            call,
            _text(args, "file_path"),
            _text(args, "content"),
            result.startswith("File created"),
        )
    if name == "Edit":
        return _replace(
            call,
            _text(args, "file_path"),
            _text(args, "old_string"),
            _text(args, "new_string"),
            args.get("replace_all") is True,
        )
    if name == "MultiEdit":
        path, edits = _text(args, "file_path"), args.get("edits")
        if path is None or not isinstance(edits, list):
            return [call]
        out: list[ToolCall] = []
        for edit in edits:
            if isinstance(edit, dict):
                out.extend(
                    _replace(
                        call,
                        path,
                        _text(edit, "old_string"),
                        _text(edit, "new_string"),
                        edit.get("replace_all") is True,
                    )
                )
        return out or [call]
    if name in ("Bash", "PowerShell"):
        return _shell(call, _text(args, "command"))
    return [call]


def _codex(call: ToolCall, args: dict[str, Any], result: str) -> list[ToolCall]:
    if call.name in _CODEX_SHELLS:
        return _shell(call, _command(args.get("command") if "command" in args else args.get("cmd")))
    if call.name == "apply_patch":
        return _patch(call, _text(args, "input", "patch"))
    return [call]


def _gemini(call: ToolCall, args: dict[str, Any], result: str) -> list[ToolCall]:
    if call.name == "write_file":
        return _write(call, _text(args, "file_path", "path"), _text(args, "content"))
    if call.name == "replace":
        return _replace(
            call,
            _text(args, "file_path", "path"),
            _text(args, "old_string"),
            _text(args, "new_string"),
            isinstance(args.get("expected_replacements"), int)
            and args["expected_replacements"] > 1,
        )
    if call.name == "run_shell_command":
        return _shell(call, _text(args, "command"))
    return [call]


def _opencode(call: ToolCall, args: dict[str, Any], result: str) -> list[ToolCall]:
    if call.name == "write":
        return _write(call, _text(args, "filePath", "path"), _text(args, "content"))
    if call.name == "edit":
        return _replace(
            call,
            _text(args, "filePath", "path"),
            _text(args, "oldString"),
            _text(args, "newString"),
            args.get("replaceAll") is True,
        )
    if call.name in ("patch", "apply_patch"):
        return _patch(call, _text(args, "patchText", "input", "patch"))
    return [call]


def _pi(call: ToolCall, args: dict[str, Any], result: str) -> list[ToolCall]:
    if call.name == "edit" and "input" not in args:  # Pi's edit, not Rho's hashline edit
        return _replace(call, _text(args, "path"), _text(args, "oldText"), _text(args, "newText"))
    return [call]


_BY_AGENT: Final[dict[str, Callable[[ToolCall, dict[str, Any], str], list[ToolCall]]]] = {
    claude_code.AGENT: _claude,
    codex.AGENT: _codex,
    gemini.AGENT: _gemini,
    opencode.AGENT: _opencode,
    pi.AGENT: _pi,
}


def rho_calls(agent: str, call: ToolCall, result: str = "") -> list[ToolCall]:
    """What ``call`` (made by ``agent``, answered with ``result``) did, as Rho tool calls with
    the same id."""
    mapper = _BY_AGENT.get(agent)
    if mapper is None or not isinstance(call.arguments, dict):
        return [call]
    return mapper(call, call.arguments, result)


def translator(agent: str | None) -> Callable[[ToolCall, str], list[ToolCall]] | None:
    """:func:`rho_calls` for ``agent``, or ``None`` for a Rho session."""
    if agent not in _BY_AGENT:
        return None
    assert agent is not None
    return lambda call, result: rho_calls(agent, call, result)
