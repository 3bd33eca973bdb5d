"""Usage and cost: a turn's usage in words, Rho's usage ledger, and rho-desk's own rows in it.

Three parts, loaded lazily (PEP 562) so that each caller pays only for its own:

* :class:`TurnUsage` / :func:`describe_usage` (``_turn``): what one continued turn used, as
  the provider reported it or as the engine estimated it;
* the ledger (``ledger``, ``rollup``, ``report``, ``payback``, ``pricing``, ``overview``): Rho's
  ``<home>/usage.sqlite3``, one row per provider request, read while Rho may be writing it,
  summed in SQL by period or dimension, and each compaction's payback (see ``docs/usage.md``);
* the writer (``writer``): one Rho-shaped row per request rho-desk sends itself, appended as
  Rho's ``SqliteUsageRecorder`` appends them (the engine reports each to a ``UsageRecording``).

Functions named like their modules (``overview.overview``) are imported from those modules.
"""

from __future__ import annotations

# Lazy re-exports of this package's own modules (PEP 562), as rho_desk.core does.
import importlib  # noqa: TID251
from typing import TYPE_CHECKING, Any

_EXPORTS: dict[str, str] = {
    "GROUPINGS": "report",
    "CompactionPayback": "payback",
    "FileUsage": "overview",
    "Overview": "overview",
    "SessionUsage": "overview",
    "StackedSeries": "report",
    "find_home": "overview",
    "narrow": "overview",
    "session_usage": "overview",
    "sessions_behind": "overview",
    "LEDGER_FILE": "ledger",
    "LedgerRequest": "ledger",
    "LedgerTooNew": "ledger",
    "ModelPrice": "pricing",
    "PaybackReport": "payback",
    "SUPPORTED_LEDGER_VERSION": "ledger",
    "SessionPayback": "payback",
    "TurnUsage": "_turn",
    "UsageFilter": "report",
    "UsageGroup": "report",
    "UsageLedger": "ledger",
    "UsageReport": "report",
    "describe_usage": "_turn",
    "fit_price": "pricing",
    "ledger_path": "ledger",
    "parse_date": "report",
}

__all__ = [
    "GROUPINGS",
    "LEDGER_FILE",
    "SUPPORTED_LEDGER_VERSION",
    "CompactionPayback",
    "FileUsage",
    "LedgerRequest",
    "LedgerTooNew",
    "ModelPrice",
    "Overview",
    "PaybackReport",
    "SessionPayback",
    "SessionUsage",
    "StackedSeries",
    "TurnUsage",
    "UsageFilter",
    "UsageGroup",
    "UsageLedger",
    "UsageReport",
    "describe_usage",
    "find_home",
    "fit_price",
    "ledger_path",
    "narrow",
    "parse_date",
    "session_usage",
    "sessions_behind",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


if TYPE_CHECKING:  # pragma: no cover - static view of the lazy re-exports
    from ._turn import TurnUsage, describe_usage
    from .ledger import (
        LEDGER_FILE,
        SUPPORTED_LEDGER_VERSION,
        LedgerRequest,
        LedgerTooNew,
        UsageLedger,
        ledger_path,
    )
    from .overview import (
        FileUsage,
        Overview,
        SessionUsage,
        find_home,
        narrow,
        session_usage,
        sessions_behind,
    )
    from .payback import CompactionPayback, PaybackReport, SessionPayback
    from .pricing import ModelPrice, fit_price
    from .report import GROUPINGS, StackedSeries, UsageFilter, UsageGroup, UsageReport, parse_date
