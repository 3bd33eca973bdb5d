"""``rho-desk snapshot PATH [--revision N] [--pretty] [-o FILE]``: the complete SDK snapshot.

Prints the snapshot Rho would resume the session with (storage.md §6.6: incomplete tool turns
trimmed, raw reasoning cleared), or that of revision N. ``--pretty`` is the SDK's ``to_json``
form; ``-o`` writes the file atomically (temp file, fsync, rename, directory fsync) with mode
0600, since a snapshot holds the whole conversation. Printed, bidi and invisible characters are
JSON escapes (``\u202e``: the same document); ``--raw`` prints the bytes as they are.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from .status import EXIT_OK


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("snapshot", help="print the complete SDK snapshot of a session")
    parser.add_argument(
        "path", type=Path, help="a session file or folder, or a snapshot JSON document"
    )
    parser.add_argument("--revision", type=int, metavar="N", help="the snapshot of revision N")
    parser.add_argument(
        "--pretty", action="store_true", help="indented JSON (the SDK's to_json form)"
    )
    parser.add_argument(
        "-o", "--output", type=Path, metavar="FILE", help="write to FILE atomically"
    )
    parser.set_defaults(handler=run, prints="json")


def run(args: argparse.Namespace) -> int:
    from ..core.errors import InputError
    from ..core.stores.open import exists, open_snapshot
    from ..core.system.collector import collection_paused
    from ..core.wire import encode, encode_pretty

    if not exists(args.path):
        raise InputError("no such file or folder", source=str(args.path))
    notes: list[Any] = []
    # Kept until the process ends: frozen when the pause ends, out of the cyclic collector's
    # sight, which would otherwise scan every message once it is back.
    with collection_paused(freeze=True):
        snapshot = open_snapshot(args.path, args.revision, notes=notes)
    for note in (
        notes
    ):  # what was passed over, as check and show name it (Rho itself refuses a newer record)
        sys.stderr.write(f"rho-desk: note: {note.text()}\n")
    data = encode_pretty(snapshot) if args.pretty else encode(snapshot)
    if args.output is None:
        if args.raw:
            sys.stdout.buffer.write(data + b"\n")
        else:  # the terminal writer escapes bidi and invisible characters as JSON does (\u202e)
            sys.stdout.write(data.decode("utf-8", "surrogateescape") + "\n")
        sys.stdout.flush()
        return EXIT_OK
    from ..core.system.fsio import atomic_write

    atomic_write(args.output, data, mode=0o600)
    return EXIT_OK
