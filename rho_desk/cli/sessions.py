"""``rho-desk sessions``: list or search the sessions of a Rho home (the session library), or of
other agents.

::

    rho-desk sessions [--home DIR] [--all | --workspace PATH] [--search TEXT] [--json]
                      [--sort KEY] [--limit N]
                      [--agent claude-code|codex|gemini|opencode|pi|rho|all]

The default scope is the workspace of the current directory (as Rho's own listing); ``--all``
lists every workspace. The library is refreshed first (new and changed transcripts are read;
Rho's index is reconciled as Rho would, or left alone when it is busy, corrupt or newer: the
listing then comes from the files and a note says so on stderr).

``--agent`` lists another agent's sessions from its data folder (``--home`` names it; default:
the agent's own variable, such as ``CLAUDE_CONFIG_DIR`` or ``CODEX_HOME``, else its default
folder), or, with ``all``, Rho's and every agent's together (``--home`` is then Rho's home), each
row naming its agent. Workspaces are Rho's: a folder's sessions of every agent share one.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from .status import EXIT_OK

if TYPE_CHECKING:
    from ..core.agents.library import AllSessions
    from ..core.stores.library import SessionLibrary
    from ..core.stores.search import Snippet
    from ..core.stores.summary import SessionSummary

    Row = tuple[SessionSummary, Sequence[Snippet] | None]

_AGENTS = ("claude-code", "codex", "gemini", "opencode", "pi")
"""The agents ``--agent`` names (``core.agents.AGENTS``, spelled out: --help imports no core)."""

FIELDS = (
    "workspace_key",
    "cwd",
    "id",
    "path",
    "created_at",
    "updated_at",
    "message_count",
    "title",
    "first_user_message",
    "last_user_message",
    "file_size",
    "file_mtime",
    "node_count",
    "branch_count",
    "active_leaf_id",
    "effective_format_version",
    "provider",
    "model",
    "compaction_count",
)
"""JSON fields: Rho's index column names, then rho-desk's additions (plus ``size``)."""


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "sessions",
        help="list or search saved sessions",
        description="List (or search) the sessions of a Rho home: this workspace by default.",
    )
    parser.add_argument(
        "--home", type=Path, default=None, help="Rho home (default: $RHO_HOME, else ~/.rho)"
    )
    scope = parser.add_mutually_exclusive_group()
    scope.add_argument("--all", action="store_true", help="every workspace")
    scope.add_argument(
        "--workspace",
        metavar="PATH",
        default=None,
        help="the workspace whose sessions to list (default: the current directory)",
    )
    parser.add_argument(
        "--search",
        metavar="TEXT",
        default=None,
        help="full-text search over titles and user/assistant text",
    )
    parser.add_argument("--json", action="store_true", help='print {"sessions": [...]}')
    parser.add_argument(
        "--sort",
        default="updated",
        choices=("updated", "created", "size", "messages", "compactions", "title"),
        help="sort key (default: updated, newest first)",
    )
    parser.add_argument(
        "--limit",
        type=int,
        default=None,
        metavar="N",
        help="at most N sessions (search default: 50)",
    )
    parser.add_argument(
        "--agent",
        default="rho",
        choices=("rho", *_AGENTS, "all"),
        metavar="NAME",
        help="whose sessions: rho (default), claude-code, codex, gemini, opencode, pi, or all",
    )
    parser.set_defaults(handler=run)


def _scope(args: argparse.Namespace) -> str | None:
    """The workspace key to list, or ``None`` for every workspace (``--all``)."""
    from ..core.errors import InputError
    from ..core.stores.rho_files.layout import workspace_key

    if args.all:
        return None
    try:
        workspace = os.path.abspath(args.workspace) if args.workspace else os.getcwd()
    except OSError as exc:  # the current directory was deleted under us
        raise InputError(
            f"no current directory ({exc.strerror}); pass --workspace or --all"
        ) from None
    return workspace_key(workspace)


def run(args: argparse.Namespace) -> int:
    from ..core.errors import InputError
    from ..core.stores.library import SessionLibrary

    if args.limit is not None and args.limit < 1:
        raise InputError("--limit must be at least 1")
    if args.agent != "rho":
        return _run_agents(args)
    home = _home(args.home)
    with SessionLibrary(home) as library:
        key = _scope(args)
        report = library.refresh(key)
        notice = report.notice()
        if library.cache_notice:
            print(f"rho-desk: note: {library.cache_notice}", file=sys.stderr)
        rows, truncated = _rows(library, args, key)
    problems = [{"path": f.path, "reason": f.reason} for f in report.failed]
    if args.json:
        document: dict[str, object] = {
            "sessions": [_as_json(session, snippets) for session, snippets in rows],
            "index": {
                "state": report.index_state.value,
                "notice": notice,
                "detail": report.index_detail,
            },
            "scope": {"workspace_key": key, "home": str(home)},
            "truncated": truncated,
            "problems": problems,
        }
        if args.search is not None:
            document["query"] = args.search
        json.dump(document, sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
    else:
        _print_table(rows, show_workspace=key is None)
        if truncated:
            print("(more sessions match; use --limit)", file=sys.stderr)
    if notice:
        print(f"rho-desk: note: {notice}", file=sys.stderr)
    if not rows and args.search is None:
        from ..core.stores.rho_files.layout import no_sessions_text

        scope = home if key is None else home / "sessions" / key
        print(f"rho-desk: note: {no_sessions_text(scope)}", file=sys.stderr)
    for problem in problems:
        print(f"rho-desk: warning: {problem['reason']}", file=sys.stderr)
    return EXIT_OK


def _rows(
    library: SessionLibrary | AllSessions, args: argparse.Namespace, key: str | None
) -> tuple[list[Row], bool]:
    """The rows ``--search`` finds or the page the listing shows, and whether more match."""
    if args.search is not None:
        results = library.search(args.search, key, limit=args.limit or 50, sort=args.sort)
        return [(hit.session, hit.snippets) for hit in results.hits], results.truncated
    page = library.list(key, sort=args.sort, limit=args.limit)
    return [(session, None) for session in page.sessions], page.total > len(page.sessions)


def _run_agents(args: argparse.Namespace) -> int:
    """``--agent NAME|all``: the agents' libraries (and Rho's, for ``all``) as one listing."""
    from ..core.agents import default_homes
    from ..core.agents.library import AllSessions
    from ..core.stores.library import SessionLibrary

    homes = default_homes()
    if args.agent == "all":
        rho: SessionLibrary | None = SessionLibrary(_home(args.home))
        agents = homes
    else:
        rho = None
        agents = {args.agent: args.home if args.home is not None else homes[args.agent]}
    key = _scope(args)
    with AllSessions(rho, agents) as library:
        notes = library.refresh(key)
        rows, truncated = _rows(library, args, key)
        failures = library.failures()
    problems = [{"path": f.path, "reason": f.reason} for f in failures]
    if args.json:
        document: dict[str, object] = {
            "sessions": [
                {**_as_json(session, snippets), "agent": session.agent}
                for session, snippets in rows
            ],
            "scope": {
                "workspace_key": key,
                "agent": args.agent,
                "homes": {name: str(home) for name, home in agents.items()},
            },
            "truncated": truncated,
            "problems": problems,
            "notes": notes,
        }
        if args.search is not None:
            document["query"] = args.search
        json.dump(document, sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
    else:
        _print_table(rows, show_workspace=key is None, show_agent=args.agent == "all")
        if truncated:
            print("(more sessions match; use --limit)", file=sys.stderr)
    for note in notes:
        print(f"rho-desk: note: {note}", file=sys.stderr)
    if not rows and args.search is None:
        where = ", ".join(f"{name} in {home}" for name, home in agents.items())
        print(f"rho-desk: note: no sessions ({where})", file=sys.stderr)
    for problem in problems:
        print(f"rho-desk: warning: {problem['reason']}", file=sys.stderr)
    return EXIT_OK


def _home(explicit: Path | None) -> Path:
    from ..core.errors import InputError

    if explicit is not None:
        if not explicit.is_dir():
            raise InputError("no such Rho home folder", source=str(explicit))
        return explicit
    from ..core.stores.rho_files.layout import rho_home

    return rho_home()


def _as_json(session: SessionSummary, snippets: Sequence[Snippet] | None) -> dict[str, object]:
    data = {name: getattr(session, name) for name in FIELDS}
    data["size"] = data["file_size"]
    if snippets is not None:
        data["snippets"] = [
            {
                "field": s.field,
                "text": s.text,
                "offset": s.offset,
                "highlights": [list(h) for h in s.highlights],
            }
            for s in snippets
        ]
    return data


def _size(n: int | None) -> str:
    if n is None:
        return "-"
    value = float(n)
    for unit in ("B", "K", "M", "G"):
        if value < 1024 or unit == "G":
            return f"{value:.0f}{unit}" if unit == "B" else f"{value:.1f}{unit}"
        value /= 1024
    return f"{n}B"


def _one_line(text: str | None, width: int) -> str:
    flat = " ".join((text or "").split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def _print_table(rows: list[Row], *, show_workspace: bool, show_agent: bool = False) -> None:
    if not rows:
        print("no sessions", file=sys.stderr)
        return
    agent = f"{'AGENT':<11}  " if show_agent else ""
    header = f"{agent}{'ID':<8}  {'UPDATED':<16}  {'MSGS':>5}  {'SIZE':>6}  {'MODEL':<16}  TITLE / FIRST MESSAGE"
    print(header + ("  [WORKSPACE]" if show_workspace else ""))
    for s, snippets in rows:
        updated = time.strftime("%Y-%m-%d %H:%M", time.localtime(s.updated_at))
        title = s.title or s.first_user_message or ""
        line = (
            (f"{s.agent:<11}  " if show_agent else "")
            + f"{s.id[:8]:<8}  {updated:<16}  {s.message_count:>5}  {_size(s.file_size):>6}"
            f"  {_one_line(s.model, 16):<16}  {_one_line(title, 60)}"
        )
        if show_workspace:
            line += f"  [{s.cwd}]"
        print(line)
        for snippet in snippets or ():
            print(f"          {_marked(snippet)}")


def _marked(snippet: Snippet) -> str:
    """The snippet on one line, matches in [brackets]."""
    text = snippet.text
    out, last = [], 0
    for start, end in snippet.highlights:
        out += [text[last:start], "[", text[start:end], "]"]
        last = end
    out.append(text[last:])
    prefix = "…" if snippet.offset > 0 else ""
    return prefix + " ".join("".join(out).split())
