"""``rho-desk mcp --print-config rho|claude-code|codex``: the snippet each client's config takes.

* Rho: a ``[mcp.servers.<id>]`` table in ``~/.rho/config.toml`` (``transport = "stdio"``,
  ``command``, ``args``; Rho starts the server in the session's workspace, with a sanitized
  environment, so the Rho home is passed as ``--home`` when it is not the default);
* Claude Code: an ``mcpServers`` entry of ``.mcp.json`` (or ``claude mcp add-json``);
* Codex: a ``[mcp_servers.<name>]`` table in ``~/.codex/config.toml``.

Over HTTP the snippets name the URL and take the bearer token from an environment variable,
never from the file.
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Sequence
from typing import Final

__all__ = ["CLIENTS", "TOKEN_ENV", "client_config"]

CLIENTS: Final = ("rho", "claude-code", "codex")
TOKEN_ENV: Final = "RHO_DESK_MCP_TOKEN"
NAME: Final = "rho-desk"


def _toml_string(text: str) -> str:
    """A TOML basic string: quotes, backslashes and every control, format or unassigned
    character escaped (a folder name may hold anything; the file must stay valid and plain)."""
    out = ['"']
    for ch in text:
        code = ord(ch)
        if ch in '"\\':
            out.append("\\" + ch)
        elif (
            code < 0x20
            or 0x7F <= code < 0xA0
            or unicodedata.category(ch) in ("Cf", "Cs", "Co", "Cn")
        ):
            out.append(f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def _toml_list(items: Sequence[str]) -> str:
    return "[" + ", ".join(_toml_string(i) for i in items) + "]"


def client_config(client: str, command: str, args: Sequence[str], *, url: str | None = None) -> str:
    """The config text for ``client`` to start ``command args`` (stdio) or reach ``url`` (HTTP)."""
    if client == "rho":
        if url is not None:
            return (
                f'[mcp.servers.{NAME}]\ntransport = "streamable_http"\nurl = {_toml_string(url)}\n'
                f'headers_from_env = {{ Authorization = "RHO_DESK_MCP_AUTHORIZATION" }}\n'
                f'# export RHO_DESK_MCP_AUTHORIZATION="Bearer $(cat <token file>)"\n'
            )
        return (
            f'[mcp.servers.{NAME}]\ntransport = "stdio"\ncommand = {_toml_string(command)}\n'
            f"args = {_toml_list(args)}\n"
        )
    if client == "claude-code":
        if url is not None:
            entry: dict[str, object] = {
                "type": "http",
                "url": url,
                "headers": {"Authorization": f"Bearer ${{{TOKEN_ENV}}}"},
            }
        else:
            entry = {"type": "stdio", "command": command, "args": list(args)}
        return json.dumps({"mcpServers": {NAME: entry}}, indent=2) + "\n"
    if client == "codex":
        if url is not None:
            return f'[mcp_servers.{NAME}]\nurl = {_toml_string(url)}\nbearer_token_env_var = "{TOKEN_ENV}"\n'
        return (
            f"[mcp_servers.{NAME}]\ncommand = {_toml_string(command)}\nargs = {_toml_list(args)}\n"
        )
    raise ValueError(client)
