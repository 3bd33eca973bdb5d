"""``rho-desk usage``: usage and cost from Rho's usage ledger (read-only), and compaction payback.

::

    rho-desk usage [--home DIR] [--by day|week|month|workspace|model|provider|purpose|session]
                   [--since DATE] [--until DATE] [--local] [--json | --csv]
                   [--workspace PATH] [--model NAME] [--provider NAME] [--purpose NAME]
                   [--payback] [--no-cache]

``--json`` prints ``{"groups": [...]}`` (each group: ``key``, ``requests``, the token sums,
``total_tokens``, ``cost_usd``, ``requests_without_cost``); ``--payback`` prints each
compaction's cost against the input it saved (``{"sessions": [...], "total": {...},
"input_prices": [...]}`` with ``--json``). ``docs/usage.md`` defines every number. A ledger
of a newer schema than this rho-desk reads is refused (exit 2) and left untouched.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from .status import EXIT_OK

if TYPE_CHECKING:
    from ..core.usage.payback import PaybackReport
    from ..core.usage.report import UsageGroup

_GROUPINGS = ("day", "week", "month", "workspace", "model", "provider", "purpose", "session")
FIELDS = (
    "key",
    "requests",
    "input_tokens",
    "output_tokens",
    "cache_read_tokens",
    "cache_write_tokens",
    "total_tokens",
    "cost_usd",
    "requests_without_cost",
)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "usage",
        help="usage and cost from Rho's usage ledger, by day, workspace, model...; compaction payback",
        description="Sum Rho's usage ledger (<home>/usage.sqlite3, read-only) by a time period or a "
        "dimension, or show what each compaction cost against what it saved (--payback).",
    )
    parser.add_argument(
        "--home", type=Path, default=None, help="Rho home (default: $RHO_HOME, else ~/.rho)"
    )
    parser.add_argument("--by", choices=_GROUPINGS, default="day", help="group by (default: day)")
    parser.add_argument(
        "--since", metavar="DATE", default=None, help="first day counted, YYYY-MM-DD (inclusive)"
    )
    parser.add_argument(
        "--until", metavar="DATE", default=None, help="last day counted, YYYY-MM-DD (inclusive)"
    )
    parser.add_argument(
        "--local", action="store_true", help="days in the local timezone (default: UTC)"
    )
    out = parser.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help='print {"groups": [...]}')
    out.add_argument("--csv", action="store_true", help="print CSV with a header row")
    for name, what in (
        ("workspace", "PATH"),
        ("model", "NAME"),
        ("provider", "NAME"),
        ("purpose", "NAME"),
    ):
        parser.add_argument(
            f"--{name}",
            metavar=what,
            action="append",
            default=None,
            help=f"count only this {name} (repeatable)",
        )
    parser.add_argument(
        "--payback",
        action="store_true",
        help="each compaction's cost against the input tokens it saved later, per session and in total",
    )
    parser.add_argument(
        "--no-cache",
        action="store_true",
        help="scan the ledger itself instead of rho-desk's roll-up of it (slower)",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from ..core.usage.ledger import UsageLedger, ledger_path
    from ..core.usage.report import UsageFilter, UsageReport, parse_date
    from .sessions import _home

    home = _home(args.home)
    filt = UsageFilter(
        since=parse_date(args.since, "--since") if args.since else None,
        until=parse_date(args.until, "--until") if args.until else None,
        local=args.local,
        workspaces=tuple(args.workspace or ()),
        models=tuple(args.model or ()),
        providers=tuple(args.provider or ()),
        purposes=tuple(args.purpose or ()),
    )
    if filt.since and filt.until and filt.since > filt.until:
        from ..core.errors import InputError

        raise InputError(f"--since {filt.since} is after --until {filt.until}")
    path = ledger_path(home)
    if not path.is_file():
        print(
            f"rho-desk: note: {path}: no usage ledger (Rho writes one from its first model request)",
            file=sys.stderr,
        )
        _empty(args)
        return EXIT_OK
    with UsageLedger(path, cache_dir=False if args.no_cache else None) as ledger:
        if args.payback:
            from ..core.usage.payback import payback

            _print_payback(payback(ledger, filt), args)
            return EXIT_OK
        groups = UsageReport(ledger).groups(args.by, filt)
    _print_groups(groups, args)
    return EXIT_OK


def _empty(args: argparse.Namespace) -> None:
    if args.payback and args.json:
        print(json.dumps({"sessions": [], "total": None, "input_prices": []}))
    elif args.json:
        print(json.dumps({"groups": []}))
    elif args.csv:
        csv.writer(sys.stdout, lineterminator="\n").writerow(FIELDS)


def _print_groups(groups: list[UsageGroup], args: argparse.Namespace) -> None:
    if args.json:
        # one group per line: readable, and each line is encoded by json's C encoder (an indented
        # document goes through the pure-Python one: seconds for 40,000 sessions)
        lines = ",\n".join("  " + json.dumps(g.to_json(), ensure_ascii=False) for g in groups)
        sys.stdout.write('{"groups": [\n' + lines + "\n]}\n" if groups else '{"groups": []}\n')
        return
    if args.csv:
        writer = csv.writer(sys.stdout, lineterminator="\n")
        writer.writerow(FIELDS)
        for g in groups:
            row = g.to_json()
            writer.writerow([f"{row[f]:.6f}" if f == "cost_usd" else row[f] for f in FIELDS])
        return
    header = (
        args.by,
        "requests",
        "input",
        "output",
        "cache read",
        "cache write",
        "total",
        "cost",
        "no cost",
    )
    rows = [
        (
            g.key or "(none)",
            f"{g.requests:,}",
            f"{g.input_tokens:,}",
            f"{g.output_tokens:,}",
            f"{g.cache_read_tokens:,}",
            f"{g.cache_write_tokens:,}",
            f"{g.total_tokens:,}",
            f"${g.cost_usd:,.4f}",
            f"{g.requests_without_cost:,}" if g.requests_without_cost else "",
        )
        for g in groups
    ]
    if not rows:
        print("no requests in the ledger match", file=sys.stderr)
        return
    total = (
        "total",
        f"{sum(g.requests for g in groups):,}",
        f"{sum(g.input_tokens for g in groups):,}",
        f"{sum(g.output_tokens for g in groups):,}",
        f"{sum(g.cache_read_tokens for g in groups):,}",
        f"{sum(g.cache_write_tokens for g in groups):,}",
        f"{sum(g.total_tokens for g in groups):,}",
        f"${sum(g.cost_usd_micros for g in groups) / 1e6:,.4f}",
        f"{sum(g.requests_without_cost for g in groups):,}",
    )
    _table(header, [*rows, total])


def _table(header: tuple[str, ...], rows: Sequence[tuple[str, ...]]) -> None:
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    for n, row in enumerate([header, *rows]):
        cells = [row[0].ljust(widths[0])] + [
            c.rjust(w) for c, w in zip(row[1:], widths[1:], strict=True)
        ]
        print("  ".join(cells).rstrip())
        if n == 0 or n == len(rows) - 1:
            print("  ".join("-" * w for w in widths))


def _money(micros: float | None) -> str:
    if micros is None:
        return "unknown"
    return f"{'−' if micros < 0 else ''}${abs(micros) / 1e6:,.4f}"


def _print_payback(report: PaybackReport, args: argparse.Namespace) -> None:
    if args.json:
        json.dump(report.to_json(), sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
        return
    if args.csv:
        writer = csv.writer(sys.stdout, lineterminator="\n")
        columns = (
            "session_id",
            "workspace",
            "occurred_at_ms",
            "provider",
            "model",
            "attempts",
            "cost_usd",
            "context_before",
            "context_after",
            "later_requests",
            "saved_tokens",
            "saved_usd",
            "net_usd",
            "paid_off",
        )
        writer.writerow(columns)
        for session in report.sessions:
            for c in session.compactions:
                row = c.to_json()
                writer.writerow(["" if row[k] is None else row[k] for k in columns])
        return
    if not report.sessions:
        print("no compactions in the ledger match", file=sys.stderr)
        return
    header = ("session", "compactions", "cost", "saved tokens", "saved", "net")
    rows = []
    for s in report.sessions:
        t = s.totals
        cost = None if t.unknown_cost == t.compactions else t.cost_usd_micros  # all unknown: not $0
        saved = None if t.unknown_saving == t.compactions else t.saved_usd_micros
        net = None if cost is None or saved is None else t.net_usd_micros
        rows.append(
            (
                s.session_id,
                str(t.compactions),
                _money(cost),
                f"{t.saved_tokens:,}",
                _money(saved),
                _money(net),
            )
        )
    t = report.total
    rows.append(
        (
            "total",
            str(t.compactions),
            _money(t.cost_usd_micros),
            f"{t.saved_tokens:,}",
            _money(t.saved_usd_micros),
            _money(t.net_usd_micros),
        )
    )
    _table(header, rows)
    if t.unknown_cost or t.unknown_saving:
        print(
            f"rho-desk: note: {t.unknown_cost} compaction(s) reported no cost, the saving of "
            f"{t.unknown_saving} could not be measured or priced; the sums leave them out",
            file=sys.stderr,
        )
