"""The ``rho-desk`` command line: headless twins of the app's jobs.

Each subcommand lives in its own module of this package and defines
``register(subparsers) -> None``, which adds its parser and sets ``handler`` (a function taking
the parsed ``argparse.Namespace`` and returning an exit status). Modules import heavy
dependencies inside their handlers, and only the module of the command being run is imported at
all: the others appear in ``--help`` through their one-line summaries in ``_SUMMARIES``, so that
``rho-desk --help`` costs little more than starting Python (the ``cli.startup`` benchmark).

What every command prints goes through one writer (``terminal``): control, bidi and invisible
characters from sessions, models, tools, files, ledgers and journals are shown as text, on a
terminal and piped alike; ``--raw`` (every command but the app) prints text byte for byte, never
to a terminal.

Exit status: 0 done; 1 the operation found problems (audit findings, conflicts, ``check``
issues); 2 bad usage or bad input, with one line on stderr naming the file, the line and the
reason, and no traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import sys
from collections.abc import Iterator, Sequence

from .. import __version__
from .status import EXIT_BAD_INPUT, EXIT_OK, EXIT_PROBLEMS, fail

__all__ = ["main"]

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
    "changes",
    "usage",
    "export",
    "audit",
    "keys",
    "publish",
    "team",
    "import_",
    "mcp",
    "bench",
)

# What ``--help`` lists for each command, without importing its module: command -> (module,
# summary). Each summary equals the ``help=`` its module registers, and every module has one
# (tests/cli/test_startup.py checks both; a module without an entry would be imported by --help).
_SUMMARIES: dict[str, tuple[str, str]] = {
    "open": ("app", "open the app (default: $RHO_HOME or ~/.rho, else the bundled demo library)"),
    "sessions": ("sessions", "list or search saved sessions"),
    "show": ("show", "show a session file's revisions and history"),
    "snapshot": ("snapshot", "print the complete SDK snapshot of a session"),
    "check": ("check", "validate session files; report torn tails and corrupt lines"),
    "repair": ("repair", "write a repaired copy of a damaged session file"),
    "trash": ("trash", "list, restore or empty deleted sessions"),
    "usage": (
        "usage",
        "usage and cost from Rho's usage ledger, by day, workspace, model...; compaction payback",
    ),
    "compact": ("compact", "compact a session's history (writes a new complete revision)"),
    "continue": ("continue_", "continue a session with one more turn (tools under approval)"),
    "changes": ("changes", "list the files a session's turns changed, or print them as a patch"),
    "export": (
        "export",
        "export a session with chosen content classes, secrets redacted, audited, with a receipt",
    ),
    "audit": ("audit", "audit an export, snapshot or transcript for secrets and excluded content"),
    "keys": (
        "keys",
        "print the public key that signs export receipts, and where rho-desk's keys live",
    ),
    "publish": ("publish", "publish a redacted, audited export of a session to a team database"),
    "team": (
        "team",
        "set up, list, show and search a team library of published sessions (PostgreSQL)",
    ),
    "import": ("import_", "another agent's session as a Rho session, with a loss report"),
    "mcp": (
        "mcp",
        "serve past sessions as read-only, redacted memory to any agent (Model Context Protocol)",
    ),
    "bench": ("bench", "run the performance benchmarks"),
}
_OPTIONS_WITH_VALUES = ("--log-level",)
_APP = "open"
"""The one command that prints nothing of a session: it opens the window (no ``--raw``)."""


def _parser(command: str | None = None, *, every: bool = True) -> argparse.ArgumentParser:
    """The argument parser: every command's full parser, or (``every=False``) only ``command``'s,
    the others as their summaries (what ``main`` uses: ``--help`` needs no more)."""
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
    parser.add_argument(
        "--demo",
        action="store_true",
        help="run COMMAND on a private copy of the sample sessions bundled with rho-desk (a Rho home with "
        "a usage ledger, as the user guide's examples use) instead of $RHO_HOME or ~/.rho; alone, open "
        "the app on it",
    )
    entry = parser.add_mutually_exclusive_group()
    entry.add_argument(
        "--install-desktop-entry",
        action="store_true",
        help="add rho-desk to your desktop's applications menu (for this user), then exit",
    )
    entry.add_argument(
        "--uninstall-desktop-entry",
        action="store_true",
        help="remove what --install-desktop-entry added, then exit",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    summarised = {module: (name, summary) for name, (module, summary) in _SUMMARIES.items()}
    for name in _COMMANDS:
        if not every and name in summarised and summarised[name][0] != command:
            sub.add_parser(summarised[name][0], help=summarised[name][1], add_help=False)
            continue
        before = set(sub.choices)
        importlib.import_module(f"{__name__}.{name}").register(sub)
        for added in set(sub.choices) - before - {_APP}:
            _add_raw(sub.choices[added])
    return parser


def _add_raw(parser: argparse.ArgumentParser) -> None:
    """``--raw`` on ``parser``, or on each of its own subcommands (``trash list``, ``team show``)."""
    from .terminal import RAW_HELP

    nested = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not nested:
        parser.add_argument("--raw", action="store_true", help=RAW_HELP)
    for action in nested:
        for child in dict.fromkeys(action.choices.values()):
            _add_raw(child)


def _command_of(argv: Sequence[str]) -> str | None:
    """The subcommand named in ``argv`` (its first word that is not an option or an option's value)."""
    takes_value = False
    for arg in argv:
        if takes_value:
            takes_value = False
        elif arg in _OPTIONS_WITH_VALUES:
            takes_value = True
        elif arg == "--":
            return None
        elif not arg.startswith("-"):
            return arg
    return None


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv in (["--install-desktop-entry"], ["--uninstall-desktop-entry"]):
        from . import desktop

        return desktop.install() if argv[0] == "--install-desktop-entry" else desktop.uninstall()
    if not argv:
        # No subcommand: open the app on $RHO_HOME or ~/.rho, else on the demo library.
        argv = ["open"]
    command = _command_of(argv)
    if command is None and "--demo" in argv and not {"-h", "--help", "--version"} & set(argv):
        argv, command = [*argv, "open"], "open"  # `rho-desk --demo`: the app on the demo library
    # ``continue`` imports most of rho-desk and its HTTP stack before its model request: the
    # cycle collector would walk those new objects again and again for nothing. It is paused from
    # here; the command ends the pause once the request is out (``continue_``), else it ends below.
    if command != "continue":
        return _run(argv, command)
    from ..core.system.collector import end_start_up, pause_start_up

    pause_start_up()
    try:
        return _run(argv, command)
    finally:
        end_start_up()


def _run(argv: list[str], command: str | None) -> int:
    parser = _parser(command, every=False)
    if command not in _SUMMARIES:
        # No command word found (or a value taken for one, after an abbreviated option): let
        # argparse find the command among the summaries, then parse with its full parser.
        known, _rest = parser.parse_known_args(argv)
        if known.command is not None and known.command != command:
            parser = _parser(known.command, every=False)
    args = parser.parse_args(argv)
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return EXIT_BAD_INPUT
    # imported only now: ``--help`` and usage errors need none of this
    import logging

    from ..core.errors import InputError, KnownError, RevisionConflict, error_text
    from ..logs import LogSpecError, configure
    from .terminal import guarded_output

    raw = bool(getattr(args, "raw", False))
    if raw and _on_terminal(sys.stdout):
        return fail(
            "--raw prints control characters as they are, for a program: pipe or redirect the output"
        )
    if args.command == _APP:
        output: contextlib.AbstractContextManager[None] = contextlib.nullcontext()
    else:
        output = guarded_output(
            raw=raw,
            json=getattr(args, "json", False) is True or getattr(args, "prints", "") == "json",
        )
    with output:
        try:
            configure(args.log_level)
        except LogSpecError as exc:
            source = "--log-level" if args.log_level is not None else "RHO_DESK_LOG"
            return fail(f"{source}: {exc}", EXIT_BAD_INPUT)
        logging.getLogger(__name__).debug("rho-desk %s: %s", __version__, args.command)
        try:
            with _demo_home(args.demo):
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


@contextlib.contextmanager
def _demo_home(demo: bool) -> Iterator[None]:
    """With ``--demo``: ``$RHO_HOME`` names a private copy of the bundled demo library while the
    command runs (made once, in the cache folder; the same copy the app opens)."""
    if not demo:
        yield
        return
    import os

    from ..core.stores.demo import prepare_demo_copy

    home = str(prepare_demo_copy())
    saved = os.environ.get("RHO_HOME")
    os.environ["RHO_HOME"] = home
    try:
        yield
    finally:
        if saved is None:
            os.environ.pop("RHO_HOME", None)
        else:
            os.environ["RHO_HOME"] = saved


def _on_terminal(stream: object) -> bool:
    try:
        return bool(stream.isatty())  # type: ignore[attr-defined]
    except (AttributeError, ValueError):
        return False


if __name__ == "__main__":
    sys.exit(main())
