"""``rho-desk team init|sessions|show|search --db DSN [--json]``: the team library from a shell.

* ``init`` creates or migrates the schema (the database owner runs it), and with ``--team``
  creates teams (a team is a PostgreSQL role) and adds ``--member`` roles to them;
* ``sessions`` lists the published sessions you can read, newest first;
* ``show`` prints one published version: its statistics, its signed receipt verified (the
  Ed25519 signature, the export's SHA-256 and size against it, and a fresh audit of the stored
  export): ``signed by ed25519:… — valid`` or ``INVALID: …``; then the conversation
  (``--export FILE`` writes the JSON);
* ``search`` runs PostgreSQL full-text and substring search, with highlighted snippets.

What a member sees is decided by row-level security in the database, not here.
Exit status: 0 done; 1 not found, receipt not verified, no access or no database; 2 bad usage.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
from pathlib import Path
from typing import Any

from .export import add_key_file_option
from .publish import add_db_argument, require_db
from .status import EXIT_OK, EXIT_PROBLEMS, fail


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "team",
        help="set up, list, show and search a team library of published sessions (PostgreSQL)",
        description="The team library: sessions published with 'rho-desk publish', in PostgreSQL.",
    )
    actions = parser.add_subparsers(dest="team_command", metavar="ACTION", required=True)

    init = actions.add_parser(
        "init", help="create or migrate the schema; create teams and add members"
    )
    add_db_argument(init)
    init.add_argument("--team", action="append", default=[], help="create this team (repeatable)")
    init.add_argument(
        "--member",
        action="append",
        default=[],
        metavar="ROLE",
        help="add this database role to the --team teams (repeatable)",
    )
    init.add_argument("--json", action="store_true")
    init.set_defaults(handler=run_init)

    sessions = actions.add_parser("sessions", help="list published sessions, newest first")
    add_db_argument(sessions)
    sessions.add_argument("--team", help="only this team")
    sessions.add_argument("--limit", type=int, default=50)
    sessions.add_argument("--offset", type=int, default=0)
    sessions.add_argument("--json", action="store_true")
    sessions.set_defaults(handler=run_sessions)

    show = actions.add_parser(
        "show", help="show a published session: statistics, verified receipt, conversation"
    )
    show.add_argument("session_id")
    add_db_argument(show)
    show.add_argument("--team", help="the team (when the session is published in several)")
    show.add_argument("--revision", type=int, help="a published revision (default: the latest)")
    show.add_argument(
        "--export", type=Path, metavar="FILE", help="also write the published JSON export to FILE"
    )
    show.add_argument("--json", action="store_true")
    add_key_file_option(show)
    show.set_defaults(handler=run_show)

    search = actions.add_parser(
        "search", help="search published sessions (full text and substrings)"
    )
    search.add_argument("query")
    add_db_argument(search)
    search.add_argument("--team", help="only this team")
    search.add_argument("--limit", type=int, default=20)
    search.add_argument("--json", action="store_true")
    search.set_defaults(handler=run_search)


async def _with_library(dsn: str, job: Any) -> Any:
    from ..team.library import TeamLibrary

    library = await TeamLibrary.open(dsn, max_size=1)
    async with library:
        return await job(library)


def run_init(args: argparse.Namespace) -> int:
    from ..core.errors import InputError
    from ..team.library import TeamLibrary, validate_team_name

    dsn = require_db(args)
    for team in args.team:
        validate_team_name(team)
    if args.member and not args.team:
        raise InputError("--member needs --team: the teams to add the roles to")

    async def go() -> tuple[tuple[int, int], dict[str, bool]]:
        versions = await TeamLibrary.init(dsn)

        async def teams(library: TeamLibrary) -> dict[str, bool]:
            return {t: await library.create_team(t, tuple(args.member)) for t in args.team}

        return versions, await _with_library(dsn, teams)

    (before, after), created = asyncio.run(go())
    if args.json:
        print(
            json.dumps(
                {
                    "schema_before": before,
                    "schema": after,
                    "teams": created,
                    "members": args.member,
                },
                indent=2,
            )
        )
        return EXIT_OK
    if before == after:
        print(f"schema version {after}: up to date")
    else:
        print(f"schema version {before} -> {after}")
    for team, new in created.items():
        print(
            f"team {team}: {'created' if new else 'exists'}"
            + (f"; members added: {', '.join(args.member)}" if args.member else "")
        )
    return EXIT_OK


def run_sessions(args: argparse.Namespace) -> int:
    dsn = require_db(args)
    rows = asyncio.run(
        _with_library(
            dsn, lambda lib: lib.sessions(team=args.team, limit=args.limit, offset=args.offset)
        )
    )
    if args.json:
        print(json.dumps([r.to_json() for r in rows], indent=2))
        return EXIT_OK
    for r in rows:
        when = r.published_at.strftime("%Y-%m-%d %H:%M")
        print(
            f"{r.team}\t{r.session_id}\tr{r.latest_revision}\t{r.versions} version(s)\t{when}\t{r.published_by}\t{r.title}"
        )
    return EXIT_OK


def _key_and_known(args: argparse.Namespace) -> tuple[bytes, list[str], str | None]:
    """The fingerprint key and known credentials for re-auditing; without a keyring, a random key."""
    from ..core.errors import CredentialsUnavailable
    from ..providers.export_secrets import load_export_secrets
    from .export import key_source

    try:
        secrets = load_export_secrets(key_source(args))
        return secrets.keys.fingerprint, list(secrets.known), None
    except CredentialsUnavailable as exc:
        return os.urandom(32), [], exc.text()


def run_show(args: argparse.Namespace) -> int:
    from ..core.errors import InputError
    from ..core.export import render_markdown
    from ..core.system.fsio import atomic_write
    from ..team.publish import decode_published
    from ..team.verify import verify_version

    dsn = require_db(args)
    version = asyncio.run(
        _with_library(
            dsn, lambda lib: lib.show(args.session_id, team=args.team, revision=args.revision)
        )
    )
    key, known, warning = _key_and_known(args)
    verification = verify_version(version, key=key, known_secrets=known)
    if args.export is not None:
        atomic_write(args.export, version.export, mode=0o600)
    if args.json:
        print(
            json.dumps(
                {
                    "team": version.team,
                    "session_id": version.session_id,
                    "revision": version.revision,
                    "revisions": list(version.revisions),
                    "history": version.history,
                    "sha256": version.sha256,
                    "published_at": version.published_at.isoformat(),
                    "published_by": version.published_by,
                    "published_by_signed": False,
                    "title": version.title,
                    "stats": version.stats,
                    "receipt": _receipt_json(version.receipt),
                    "verification": verification.to_json(),
                },
                indent=2,
            )
        )
        return EXIT_OK if verification.ok else EXIT_PROBLEMS
    stats = version.stats
    print(
        f"{version.session_id} revision {version.revision} (team {version.team}; revisions published: "
        f"{', '.join(map(str, version.revisions))})"
    )
    model = f"; {stats.get('provider')}/{stats.get('model')}" if stats.get("model") else ""
    if version.title is not None:
        print(f"title: {version.title}")
    print(
        f"published {version.published_at:%Y-%m-%d %H:%M} by {version.published_by} (as the database records "
        f"it, not signed); {version.history} history; "
        f"{stats.get('messages')} messages{model}"
    )
    if warning:
        print(f"note: {warning}")
    print(f"receipt: {verification.summary}")
    print()
    try:
        published, kind = decode_published(version.export)
        shown = render_markdown(published, history=kind).decode("utf-8", "replace")
    except InputError as exc:
        shown = f"(the stored export cannot be read: {exc.reason})"
    print(shown)
    return EXIT_OK if verification.ok else EXIT_PROBLEMS


def _receipt_json(data: bytes) -> Any:
    try:
        return json.loads(data)
    except ValueError:
        return None


def run_search(args: argparse.Namespace) -> int:
    dsn = require_db(args)
    hits = asyncio.run(
        _with_library(dsn, lambda lib: lib.search(args.query, team=args.team, limit=args.limit))
    )
    if args.json:
        print(json.dumps([h.to_json() for h in hits], indent=2))
        return EXIT_OK
    if not hits:
        return fail(f"no published session matches {args.query!r}", EXIT_PROBLEMS)
    for h in hits:
        print(f"{h.team}\t{h.session_id}\tr{h.latest_revision}\t{h.title}")
        print(f"    {h.snippet}")
    return EXIT_OK
