"""``rho-desk trash list|restore|empty``: the sessions rho-desk deleted, and getting them back.

``list [--json]`` shows every entry (newest first); ``restore ID`` moves the session whose id (or
entry name) starts with ID back where it was and re-adds it to Rho's index, title included;
``empty --yes`` deletes every entry for good (``empty ID --yes`` just one). The trash folder is
``$RHO_DESK_TRASH_DIR``, else rho-desk's data folder.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

from .status import EXIT_OK

if TYPE_CHECKING:
    from ..core.stores.trash import TrashItem


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("trash", help="list, restore or empty deleted sessions")
    actions = parser.add_subparsers(dest="trash_action", metavar="ACTION", required=True)
    listing = actions.add_parser("list", help="the deleted sessions, newest first")
    listing.add_argument("--json", action="store_true", help="print one JSON object")
    listing.set_defaults(handler=run_list)
    restore = actions.add_parser(
        "restore", help="put a deleted session back (and into Rho's index)"
    )
    restore.add_argument("id", metavar="ID", help="session id or entry name (a unique prefix)")
    restore.set_defaults(handler=run_restore)
    empty = actions.add_parser("empty", help="delete trash entries for good")
    empty.add_argument(
        "id", metavar="ID", nargs="?", default=None, help="only this entry (a unique prefix)"
    )
    empty.add_argument(
        "--yes", action="store_true", help="confirm: the sessions cannot be restored afterwards"
    )
    empty.set_defaults(handler=run_empty)


def _when(seconds: int) -> str:
    from datetime import UTC, datetime

    return f"{datetime.fromtimestamp(seconds, UTC):%Y-%m-%d %H:%M} UTC" if seconds else "unknown"


def run_list(args: argparse.Namespace) -> int:
    from ..core.stores.trash import default_trash_dir, list_trash

    items = list_trash()
    if args.json:
        json.dump(
            {"trash": str(default_trash_dir()), "entries": [i.to_json() for i in items]},
            sys.stdout,
            indent=2,
            ensure_ascii=False,
        )
        sys.stdout.write("\n")
        return EXIT_OK
    if not items:
        print(f"the trash is empty ({default_trash_dir()})")
        return EXIT_OK
    for item in items:
        label = f"  {item.label[:80]}" if item.label != item.session_id else ""
        print(f"{item.session_id[:8]}  {_when(item.deleted_at)}  {item.original}{label}")
    print(f"{len(items)} deleted session(s) in {default_trash_dir()}")
    return EXIT_OK


def _one(prefix: str) -> TrashItem:
    from ..core.errors import InputError
    from ..core.stores.trash import find_items

    found = find_items(prefix)
    if not found:
        raise InputError(f"no session in the trash matches {prefix!r}")
    if len(found) > 1:
        raise InputError(f"several sessions in the trash match {prefix!r}; use a longer prefix")
    return found[0]


def run_restore(args: argparse.Namespace) -> int:
    from ..core.stores.index import IndexState
    from ..core.stores.trash import restore

    restored = restore(_one(args.id))
    print(f"restored {restored.transcript}")
    if not restored.index_state.usable and restored.index_state is not IndexState.MISSING:
        print(
            f"rho-desk: note: Rho's index is {restored.index_state.value}; its next listing adds the session",
            file=sys.stderr,
        )
    return EXIT_OK


def run_empty(args: argparse.Namespace) -> int:
    from ..core.errors import InputError
    from ..core.stores.trash import empty_trash, list_trash

    items = [_one(args.id)] if args.id is not None else list_trash()
    if not args.yes:
        raise InputError(f"this deletes {len(items)} session(s) for good; add --yes to confirm")
    removed = empty_trash(items)
    print(f"deleted {removed} session(s) for good")
    return EXIT_OK
