"""``rho-desk publish PATH --db DSN --team NAME (--include C,... | --exclude C,...) [--history display|model] [--key-file F]``.

Builds and signs the export exactly as ``rho-desk export`` does (``core.export.export_signed``,
``build_export`` then ``sign_export``: the
same classes, secret redaction, audit and Ed25519-signed receipt; the conversation as shown by
default, ``--history model`` for the model context) and stores the audited JSON export, its
signed receipt byte for byte, its history kind, its searchable text and its statistics in the
team database in one transaction. Nothing else leaves the machine: critical or high findings
block the publish (nothing is sent, exit 1) unless ``--allow-findings``, recorded in the receipt.
A revision is published once: publishing it again, in either history, changes nothing (and says
which history is there); a newer revision adds a version.
Exit status: 0 published (or already there); 1 blocked, findings, no access, no keys or no
database; 2 bad usage or input.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from pathlib import Path

from ..team import TEAM_DB_ENV as DB_ENV
from .export import add_key_file_option, add_selection_arguments
from .status import EXIT_OK, EXIT_PROBLEMS, fail


def add_db_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--db",
        metavar="DSN",
        default=os.environ.get(DB_ENV),
        help=f"the team database, a libpq connection string or URL (default: ${DB_ENV}); passwords "
        "come from keyring, ~/.pgpass or a service file, TLS from sslmode",
    )


def require_db(args: argparse.Namespace) -> str:
    from ..core.errors import InputError

    if not args.db:
        raise InputError(f"no team database: pass --db DSN or set {DB_ENV}")
    from ..team.db import refuse_password

    refuse_password(str(args.db), source=DB_ENV if args.db == os.environ.get(DB_ENV) else "--db")
    return str(args.db)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "publish",
        help="publish a redacted, audited export of a session to a team database",
        description=(
            "Publish a session revision to a team: the export pipeline (classes, secrets redacted, "
            "audit) runs here and only its audited output, receipt, search text and statistics are "
            "sent, in one transaction."
        ),
    )
    parser.add_argument(
        "path",
        type=Path,
        help="a snapshot JSON document, a Rho session file, or another agent's session (Claude Code, Codex, Gemini CLI, Pi: its file; opencode: <opencode.db>#<id>)",
    )
    add_db_argument(parser)
    parser.add_argument(
        "--team", required=True, help="the team to publish to (you must be a member)"
    )
    add_selection_arguments(parser, "publish", "publish")
    parser.add_argument("--json", action="store_true", help="print the outcome as JSON")
    add_key_file_option(parser)
    parser.set_defaults(handler=run)


def database_passwords(dsn: str) -> list[str]:
    """The team database's password(s) rho-desk can see: redacted from exports like any credential."""
    import psycopg.conninfo

    from ..team.db import keyring_password

    found = []
    try:
        params = psycopg.conninfo.conninfo_to_dict(dsn)
    except psycopg.ProgrammingError:
        params = {}
    if params.get("password"):
        found.append(str(params["password"]))
    stored = keyring_password(dsn)
    if stored:
        found.append(stored)
    return found


def run(args: argparse.Namespace) -> int:
    from ..providers.export_secrets import load_export_secrets
    from ..team.library import PublishOutcome, TeamLibrary, validate_team_name
    from ..team.publish import Publication, PublishBlocked
    from .export import key_source, selection_and_source

    dsn = require_db(args)
    validate_team_name(args.team)
    selection, source = selection_and_source(args, "published")
    secrets = load_export_secrets(key_source(args))
    keys, known = secrets.keys, [*secrets.credentials, *database_passwords(dsn)]

    async def go() -> tuple[Publication, PublishOutcome]:
        library = await TeamLibrary.open(dsn, max_size=1)
        async with library:
            return await library.publish(
                args.team,
                source,
                selection,
                keys=keys,
                known_secrets=known,
                allow_findings=args.allow_findings,
            )

    try:
        pub, outcome = asyncio.run(go())
    except PublishBlocked as exc:
        return fail(exc.text(), EXIT_PROBLEMS)
    if args.json:
        print(
            json.dumps(
                {
                    "team": outcome.team,
                    "session_id": outcome.session_id,
                    "revision": outcome.revision,
                    "added": outcome.added,
                    "versions": outcome.versions,
                    "latest_revision": outcome.latest_revision,
                    "history": outcome.history,
                    "sha256": pub.sha256,
                    "bytes": len(pub.export),
                    "redactions": pub.redactions,
                    "findings": pub.findings,
                    "excluded": selection.excluded_names(),
                    "signed_by": keys.public_key,
                },
                indent=2,
            )
        )
    elif outcome.added:
        print(
            f"published {outcome.session_id} revision {outcome.revision} to team {outcome.team} "
            f"({pub.history} history, {len(pub.export)} bytes, sha256 {pub.sha256}); {outcome.versions} version(s) kept"
        )
        excluded = ", ".join(selection.excluded_names()) or "none"
        print(
            f"excluded classes: {excluded}; secrets redacted: {pub.redactions}; findings: {pub.findings}"
        )
        print(f"receipt signed by {keys.public_key}")
    else:
        other = (
            ""
            if outcome.history == pub.history
            else f" (as the {outcome.history} history; a revision is published once)"
        )
        print(
            f"{outcome.session_id} revision {outcome.revision} is already published to team {outcome.team}{other}; "
            "nothing changed"
        )
    if pub.findings:
        print(
            "published with findings (see the receipt: rho-desk team show --json)", file=sys.stderr
        )
        return EXIT_PROBLEMS
    return EXIT_OK
