"""The ``rho-desk`` command line: headless twins of the app's jobs.

Each subcommand lives in its own module of this package and defines
``register(subparsers) -> None``, which adds its parser and sets ``handler`` (a function taking
the parsed ``argparse.Namespace`` and returning an exit status). Modules import heavy
dependencies inside their handlers so that ``rho-desk --help`` stays fast.

Exit status: 0 done; 1 the operation found problems (audit findings, conflicts, ``check``
issues); 2 bad usage or bad input, with one line on stderr naming the file, the line and the
reason, and no traceback.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import sys
from collections.abc import Sequence

from .. import __version__
from ..core.errors import InputError, KnownError, RevisionConflict, error_text

__all__ = ["main"]

log = logging.getLogger(__name__)

# Subcommand modules, in the order ``--help`` lists them (names fixed by architecture.md).
_COMMANDS = (
    "app",
    "sessions",
    "show",
    "snapshot",
    "check",
    "repair",
    "trash",
    "compact",
    "continue_",
    "export",
    "audit",
    "keys",
    "publish",
    "team",
    "bench",
)

EXIT_OK = 0
EXIT_PROBLEMS = 1
EXIT_BAD_INPUT = 2


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rho-desk",
        description="Inspect, compact, export and continue the sessions of the Rho coding agent.",
    )
    parser.add_argument("--version", action="version", version=f"rho-desk {__version__}")
    parser.add_argument(
        "--log-level",
        metavar="SPEC",
        default=None,
        help="log level, with per-area overrides: 'info', 'warning,providers=debug' "
        "(areas: core, providers, team, keys, qt, cli; default: $RHO_DESK_LOG, else warning)",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in _COMMANDS:
        try:
            module = importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"{__name__}.{name}":
                continue  # not built yet
            raise
        module.register(sub)
    return parser


def fail(message: str, status: int = EXIT_BAD_INPUT) -> int:
    """Print one line to stderr and return ``status``."""
    print(f"rho-desk: {message}", file=sys.stderr)
    return status


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv:
        # No subcommand: open the app on $RHO_HOME or ~/.rho, else on the demo library.
        argv = ["open"]
    parser = _parser()
    args = parser.parse_args(argv)
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return EXIT_BAD_INPUT
    from ..logs import LogSpecError, configure

    try:
        configure(args.log_level)
    except LogSpecError as exc:
        source = "--log-level" if args.log_level is not None else "RHO_DESK_LOG"
        return fail(f"{source}: {exc}", EXIT_BAD_INPUT)
    log.debug("rho-desk %s: %s", __version__, args.command)
    try:
        return int(handler(args))
    except RevisionConflict as exc:
        return fail(error_text(exc), EXIT_PROBLEMS)
    except InputError as exc:
        return fail(error_text(exc), EXIT_BAD_INPUT)
    except KnownError as exc:
        return fail(error_text(exc), EXIT_PROBLEMS)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
