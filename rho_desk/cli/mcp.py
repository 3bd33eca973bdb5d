"""``rho-desk mcp``: the session library as read-only memory for any agent (MCP).

::

    rho-desk mcp [--home DIR] [--all | --workspace PATH...] [--agent NAME...] [--http PORT [--bind ADDR]]
                 [--print-config rho|claude-code|codex] [--log] [--key-file FILE]

Serves over stdio by default (a client starts it), or Streamable HTTP on ``--bind`` (default
127.0.0.1) with ``--http PORT``; any other address needs a bearer token (``$RHO_DESK_MCP_TOKEN``
or ``--token-file``). By default it sees the workspace it is started in, as Rho starts MCP
servers there; ``--workspace`` (repeatable) names others and ``--all`` opens the whole library.
It serves Rho's sessions and every other agent's (Claude Code, Codex, Gemini CLI, opencode, Pi,
from each one's data folder: its own variable, such as ``CLAUDE_CONFIG_DIR``, else its default),
all read through the same export pipeline; ``--agent`` (repeatable) names which.
``--print-config`` prints what a client's configuration takes; ``--log`` prints what was served.
The work is in :mod:`rho_desk.mcp`; this module parses, checks and presents.
"""

from __future__ import annotations

import argparse
import ipaddress
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .sessions import _AGENTS
from .status import EXIT_OK, EXIT_PROBLEMS

if TYPE_CHECKING:
    from mcp.server.lowlevel import Server

    from ..mcp import Memory
    from ..mcp._scope import Scope


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "mcp",
        help="serve past sessions as read-only, redacted memory to any agent (Model Context Protocol)",
        description="Serve the session library to MCP clients (Rho, Claude Code, Codex...): search, "
        "overviews, transcripts, files touched, changes and usage, every answer redacted and audited.",
    )
    parser.add_argument(
        "--home", type=Path, default=None, help="Rho home (default: $RHO_HOME, else ~/.rho)"
    )
    scope = parser.add_mutually_exclusive_group()
    scope.add_argument("--all", action="store_true", help="the whole library")
    scope.add_argument(
        "--workspace",
        metavar="PATH",
        action="append",
        default=None,
        help="a workspace the server may read (repeatable; default: the current directory)",
    )
    parser.add_argument(
        "--agent",
        metavar="NAME",
        action="append",
        default=None,
        choices=("rho", *_AGENTS, "all"),
        help="whose sessions to serve: rho, claude-code, codex, gemini, opencode, pi or all "
        "(repeatable; default: all)",
    )
    parser.add_argument(
        "--http",
        metavar="PORT",
        type=int,
        default=None,
        help="serve Streamable HTTP on this port (0: any free port) instead of stdio",
    )
    parser.add_argument(
        "--bind",
        metavar="ADDR",
        default="127.0.0.1",
        help="address for --http (default 127.0.0.1; any other needs a bearer token)",
    )
    parser.add_argument(
        "--token-file",
        type=Path,
        metavar="FILE",
        default=None,
        help="the bearer token HTTP clients must send (default: $RHO_DESK_MCP_TOKEN)",
    )
    parser.add_argument(
        "--print-config",
        metavar="CLIENT",
        choices=("rho", "claude-code", "codex"),
        default=None,
        help="print the configuration snippet for rho, claude-code or codex, then exit",
    )
    parser.add_argument(
        "--log", action="store_true", help="print the log of what was served, then exit"
    )
    parser.add_argument(
        "--key-file",
        type=Path,
        metavar="FILE",
        help="keep rho-desk's own keys in FILE (default: the keyring, or <config folder>/keys)",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if args.log:
        return _print_log()
    from ..core.errors import InputError

    home = _home(args.home)
    workspaces = None if args.all else _workspaces(args.workspace)
    if args.http is not None and not 0 <= args.http <= 65535:
        raise InputError(f"--http: {args.http} is not a port (0-65535)")
    if args.print_config is not None:
        return _print_config(args, home, workspaces)
    token = _token(args)
    if args.http is not None and token is None and not _loopback(args.bind):
        raise InputError(
            f"--bind {args.bind}: serving beyond this machine needs a bearer token "
            f"(set RHO_DESK_MCP_TOKEN or pass --token-file)"
        )
    from ..mcp._scope import Scope

    scope = Scope(home, workspaces, *_agents(args.agent))
    if args.http is None:
        from ..mcp._stdio import serve_stdio

        serve_stdio(lambda: _prepare(args, scope))
        return EXIT_OK
    server = _prepare(args, scope)
    from ..mcp._server import serve_http

    def ready(port: int) -> None:
        print(
            f"rho-desk: serving MCP on http://{_host(args.bind)}:{port}/mcp"
            f"{' (bearer token required)' if token else ''}",
            file=sys.stderr,
            flush=True,
        )

    serve_http(server, host=args.bind, port=args.http, token=token, ready=ready)
    return EXIT_OK


def _prepare(args: argparse.Namespace, scope: Scope) -> Server[Any]:
    """The SDK server, built first (a client lists the tools before it calls one), over a library
    that opens on its own thread: the keys, the known credentials, the scanner, the index."""
    import threading

    from ..mcp._server import build_server

    opened: list[Memory] = []
    failed: list[BaseException] = []

    def open_library() -> None:
        try:
            from ..mcp import open_memory
            from ..providers.export_secrets import load_export_secrets
            from .export import key_source

            secrets = load_export_secrets(key_source(args))
            keys = secrets.keys
            memory = open_memory(
                scope,
                fingerprint_key=keys.fingerprint,
                known_secrets=secrets.known,
                key_id=keys.key_id,
            )
            opened.append(memory)
            memory.warm()
            memory.sync()
        except BaseException as exc:
            failed.append(exc)

    def memory() -> Memory:
        while not opened and not failed:
            thread.join(0.05)
        if failed and not opened:
            raise failed[0]
        return opened[0]

    server = build_server(memory)
    thread = threading.Thread(target=open_library, name="rho-desk-mcp-open", daemon=True)
    thread.start()
    return server


def _agents(named: list[str] | None) -> tuple[tuple[tuple[str, Path], ...], bool]:
    """The other agents to serve, with their data folders, and whether Rho's sessions are."""
    from ..core.agents import default_homes

    chosen = set(named or ["all"])
    homes = default_homes()
    everything = "all" in chosen
    agents = tuple(
        (name, homes[name].absolute()) for name in _AGENTS if everything or name in chosen
    )
    return agents, everything or "rho" in chosen


def _home(explicit: Path | None) -> Path:
    from .sessions import _home as home_of

    return home_of(explicit).absolute()


def _workspaces(given: list[str] | None) -> tuple[str, ...]:
    from ..core.errors import InputError

    if not given:
        try:
            return (os.getcwd(),)
        except OSError as exc:
            raise InputError(
                f"no current directory ({exc.strerror}); pass --workspace or --all"
            ) from None
    out = []
    for path in given:
        if not path.strip() or "\x00" in path:
            raise InputError("--workspace: an empty path")
        out.append(os.path.normpath(os.path.abspath(os.path.expanduser(path))))
    return tuple(dict.fromkeys(out))


def _token(args: argparse.Namespace) -> str | None:
    from ..core.errors import InputError

    token: str
    if args.token_file is not None:
        try:
            token = args.token_file.read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError) as exc:
            raise InputError(
                f"cannot read the token: {getattr(exc, 'strerror', None) or type(exc).__name__}",
                source=str(args.token_file),
            ) from None
    else:
        token = os.environ.get("RHO_DESK_MCP_TOKEN", "").strip()
    if not token:
        return None
    if len(token) < 16 or any(c.isspace() or not c.isprintable() for c in token):
        raise InputError("the bearer token must be at least 16 printable characters without spaces")
    return token


def _loopback(address: str) -> bool:
    if address == "localhost":
        return True
    try:
        return ipaddress.ip_address(address).is_loopback
    except ValueError:
        return False


def _host(address: str) -> str:
    return f"[{address}]" if ":" in address else address


def _print_config(args: argparse.Namespace, home: Path, workspaces: tuple[str, ...] | None) -> int:
    import shutil

    from ..mcp._config import client_config

    launcher = os.path.abspath(sys.argv[0])
    if os.path.basename(launcher) == "__main__.py":  # python -m rho_desk
        command, server_args = sys.executable, ["-m", "rho_desk", "mcp"]
    else:
        command, server_args = (
            shutil.which(launcher) or shutil.which("rho-desk") or launcher,
            ["mcp"],
        )
    if args.home is not None or os.environ.get("RHO_HOME"):
        server_args += ["--home", str(home)]
    if args.agent and "all" not in args.agent:
        for name in dict.fromkeys(args.agent):
            server_args += ["--agent", name]
    if workspaces is None:
        server_args.append("--all")
    elif args.workspace:
        for path in workspaces:
            server_args += ["--workspace", path]
    url = None
    if args.http is not None:
        url = f"http://{_host(args.bind)}:{args.http or 8765}/mcp"
    sys.stdout.write(client_config(args.print_config, command, server_args, url=url))
    return EXIT_OK


def _print_log() -> int:
    from ..mcp._log import ServedLog, default_log_path

    log = ServedLog(default_log_path())
    entries, problems = log.entries()
    if not entries:
        print(f"nothing served yet ({log.path})", file=sys.stderr)
    for e in entries:
        redacted = ", ".join(f"{rule} {n}" for rule, n in e.redactions.items()) or "none"
        classes = f" classes {','.join(e.classes)}" if e.classes is not None else ""
        session = f" session {e.session}" if e.session else ""
        line = f"{e.time}  {e.tool:<22} {e.outcome:<7}{session}{classes}; redacted: {redacted}"
        if e.refused or e.failed:
            line += f"; {e.refused or e.failed}"
        print(line)
    for problem in problems:
        print(f"rho-desk: warning: {problem}", file=sys.stderr)
    return EXIT_PROBLEMS if problems else EXIT_OK
