"""Usage and cost: a turn's usage in words, Rho's usage ledger, and rho-desk's own rows in it.

Three parts, loaded lazily (PEP 562, :mod:`rho_desk.core.lazy`) so that each caller pays only for its own:

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

from typing import TYPE_CHECKING

from ..lazy import attach

if TYPE_CHECKING:
    from ._turn import TurnUsage as TurnUsage
    from ._turn import describe_usage as describe_usage
    from .ledger import LEDGER_FILE as LEDGER_FILE
    from .ledger import SUPPORTED_LEDGER_VERSION as SUPPORTED_LEDGER_VERSION
    from .ledger import LedgerRequest as LedgerRequest
    from .ledger import LedgerTooNew as LedgerTooNew
    from .ledger import UsageLedger as UsageLedger
    from .ledger import ledger_path as ledger_path
    from .overview import FileUsage as FileUsage
    from .overview import Overview as Overview
    from .overview import SessionUsage as SessionUsage
    from .overview import find_home as find_home
    from .overview import narrow as narrow
    from .overview import session_usage as session_usage
    from .overview import sessions_behind as sessions_behind
    from .payback import CompactionPayback as CompactionPayback
    from .payback import PaybackReport as PaybackReport
    from .payback import SessionPayback as SessionPayback
    from .pricing import ModelPrice as ModelPrice
    from .pricing import fit_price as fit_price
    from .report import GROUPINGS as GROUPINGS
    from .report import StackedSeries as StackedSeries
    from .report import UsageFilter as UsageFilter
    from .report import UsageGroup as UsageGroup
    from .report import UsageReport as UsageReport
    from .report import parse_date as parse_date

if not TYPE_CHECKING:
    __getattr__, __dir__ = attach(__name__, __file__)
