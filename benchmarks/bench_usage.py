"""Usage-ledger benchmarks: ``rho-desk usage`` and the Usage view over a million ledger rows.

The ledger is ``_ledger.make_ledger`` (upstream's schema, WAL, 1,000,000 requests in 20,000
sessions over 14 months), written once per run into a temporary Rho home. rho-desk's roll-up of
it (``core/usage/rollup.py``) lives in a cache folder kept across the samples, as it is across a
person's runs; building it (the first run ever on that ledger) is reported apart
(``first_run_ms``: a plain scan and a first part of the roll-up), the roll-up is then brought up
to date, and every sample folds in the rows Rho wrote since the last one (a thousand).

* ``usage.first_look``: the first ``rho-desk usage --json`` on a ledger of 200,000 and of
  300,000 rows (a new cache folder), against ``--no-cache`` in the same run. Target: median
  ratio ≤ 1.5 at both sizes, and once the roll-up has caught up, a look after Rho wrote 1,000
  rows below a plain scan.
* ``usage.cli_1m``: ``rho-desk usage --json`` (by day) as a new process, wall time from start to
  exit, the roll-up caught up (as after a person's earlier looks). Target: median ≤ 1 s. Baseline: a bare ``python -c "import orjson"`` started the same
  way in the same run. Also reported: ``--by session`` (20,000 groups) and ``--by model``.
* ``gui.usage_view_1m``: the Usage window of the real app (on the benchmarks' screen, 1280 x 800): from
  ``reload()`` to the charts painted with the new figures (a synchronous render of the window
  right after ``sig_overview_shown``). Target: median ≤ 300 ms. Baseline: the same with a ledger
  of 1,000 rows.

``--quick`` keeps the sizes (the targets are about them) and takes fewer samples.
"""

from __future__ import annotations

import asyncio
import atexit
import os
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("QT_API", "pyside6")

from _ledger import make_ledger

from rho_desk.benchkit import BenchResult, benchmark, use_gui_screen

_state: dict[str, Any] = {}
_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def _folder() -> Path:
    if "folder" not in _state:
        folder = Path(tempfile.mkdtemp(prefix="rho-bench-usage-"))
        atexit.register(shutil.rmtree, folder, ignore_errors=True)  # ~330 MB of ledger
        _state["folder"] = folder
    return _state["folder"]  # type: ignore[no-any-return]


def _home(rows: int) -> Path:
    key = f"home-{rows}"
    if key not in _state:
        home = _folder() / key
        started = time.perf_counter()
        make_ledger(home / "usage.sqlite3", rows)
        print(
            f"usage: wrote a {rows:,}-row ledger in {time.perf_counter() - started:.1f} s "
            f"({(home / 'usage.sqlite3').stat().st_size / 1e6:.0f} MB)"
        )
        _state[key] = home
    return _state[key]  # type: ignore[no-any-return]


_WRITES = 0


def _rho_writes(home: Path, n: int = 1000) -> None:
    """Rho appends ``n`` more requests (so each sample folds new rows in, as in real use)."""
    global _WRITES
    db = sqlite3.connect(home / "usage.sqlite3")
    with db:
        db.executemany(
            "INSERT INTO usage_events (event_id, schema_version, occurred_at_ms, session_id, workspace_path, provider, "
            "model, purpose, request_outcome, input_tokens, output_tokens, cache_read_tokens, total_tokens, "
            "cost_usd_micros) VALUES (?, 1, ?, 'bench-live', '/home/dev/src/live', 'openai', 'gpt-5', 'agent', "
            "'completed', 1000, 100, 5000, 6100, 2850)",
            [(f"bench-live-{_WRITES + i}", 1_800_000_000_000 + _WRITES + i) for i in range(n)],
        )
    db.close()
    _WRITES += n


_CPU: list[float] = []
"""CPU time (user + system, ms) of each ``_cli`` process: on a busy machine the wall time also
measures the other programs."""


def _cli(home: Path, cache: Path, *args: str) -> float:
    env = {**_ENV, "RHO_DESK_CACHE_DIR": str(cache), "RHO_HOME": str(home)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "rho_desk", "usage", "--home", str(home), *args],
        check=True,
        stdout=subprocess.DEVNULL,
        env=env,
    )
    wall = (time.perf_counter() - start) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    _CPU.append((after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000)
    return wall


def _bare() -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import orjson"], check=True, env=_ENV)
    return (time.perf_counter() - start) * 1000


def _warm(home: Path, cache: Path) -> int:
    """Bring the roll-up of ``home`` up to date as a person's earlier looks would have; how many
    catch-up batches that took."""
    from rho_desk.core.usage.ledger import UsageLedger

    batches = 0
    with UsageLedger(home / "usage.sqlite3", cache_dir=cache) as ledger:
        while not ledger.catch_up(0):
            batches += 1
    return batches


def _first_looks(rows: int, repeat: int) -> tuple[list[float], list[float], list[float]]:
    """``repeat`` pairs, interleaved: ``rho-desk usage --json --no-cache`` (the plain scan), then
    the first ``rho-desk usage --json`` ever on that ledger (a new cache folder); then, once the
    roll-up has caught up, a look after Rho wrote 1,000 more rows."""
    home = _home(rows)
    plain, first, later = [], [], []
    for n in range(repeat):
        cache = _folder() / f"first-look-{rows}-{n}"
        plain.append(_cli(home, cache, "--json", "--no-cache"))
        first.append(_cli(home, cache, "--json"))
    _warm(home, cache)
    for _ in range(repeat):
        _rho_writes(home)
        later.append(_cli(home, cache, "--json"))
    return plain, first, later


@benchmark("usage.first_look")
def first_look(quick: bool) -> BenchResult:
    """The first ``rho-desk usage`` on a ledger of 200,000 and of 300,000 rows against a plain scan
    (``--no-cache``) in the same run: a first look reads the ledger itself and builds the roll-up
    a part per look (``core/usage/ledger.py``, ``CATCH_UP_SHARE``). Target: median ratio ≤ 1.5 at
    both sizes; once caught up, a look that folds Rho's new rows stays below a plain scan."""
    repeat = 3 if quick else 5
    ratios: dict[int, float] = {}
    details: dict[str, Any] = {}
    samples: list[float] = []
    for rows in (200_000, 300_000):
        plain, first, later = _first_looks(rows, repeat)
        pairs = [f / p for f, p in zip(first, plain, strict=True)]
        ratios[rows] = statistics.median(pairs)
        samples += pairs
        details[f"plain_{rows}_ms"] = statistics.median(plain)
        details[f"first_{rows}_ms"] = statistics.median(first)
        details[f"incremental_{rows}_ms"] = statistics.median(later)
        details[f"incremental_{rows}_ratio"] = statistics.median(later) / statistics.median(plain)
        print(
            f"usage.first_look {rows:,} rows: plain scan {statistics.median(plain):.0f} ms, first look "
            f"{statistics.median(first):.0f} ms (ratio {ratios[rows]:.2f}); caught up, a look after 1,000 "
            f"new rows {statistics.median(later):.0f} ms"
        )
    worst = max(ratios.values())
    met = worst <= 1.5 and all(details[f"incremental_{r}_ratio"] < 1.0 for r in ratios)
    return BenchResult(
        "usage.first_look",
        "ratio",
        samples,
        "median first look ≤ 1.5 × a plain scan (--no-cache) at 200k and 300k rows; "
        "incremental below a plain scan",
        met,
        baseline=details["plain_300000_ms"],
        ratio=worst,
        details=details,
    )


@benchmark("usage.cli_1m")
def cli_1m(quick: bool) -> BenchResult:
    home = _home(1_000_000)
    cache = _folder() / f"cache-{home.name}"
    first = _cli(
        home, cache, "--json"
    )  # the first look: a plain scan, and a first part of the roll-up
    batches = _warm(home, cache)  # the looks after it build the rest
    repeat = 5 if quick else 11
    samples, bare, by_session, by_model, cpu = [], [], [], [], []
    for _ in range(repeat):  # interleaved, so all see the same machine
        _rho_writes(home)
        samples.append(_cli(home, cache, "--json"))
        cpu.append(_CPU[-1])
        bare.append(_bare())
    for _ in range(max(3, repeat // 3)):
        by_session.append(_cli(home, cache, "--by", "session", "--json"))
        by_model.append(_cli(home, cache, "--by", "model", "--json"))
    median, base = statistics.median(samples), statistics.median(bare)
    print(
        f"usage.cli_1m: first look {first:.0f} ms ({batches} batches later to catch up); --by session median "
        f"{statistics.median(by_session):.0f} ms; --by model {statistics.median(by_model):.0f} ms; "
        f"process CPU per run, median {statistics.median(cpu):.0f} ms"
    )
    return BenchResult(
        "usage.cli_1m",
        "ms",
        samples,
        "median ≤ 1000 ms (rho-desk usage --json, whole process)",
        median <= 1000,
        baseline=base,
        ratio=median / base,
        details={
            "first_run_ms": first,
            "process_cpu_ms": statistics.median(cpu),
            "by_session_ms": statistics.median(by_session),
            "by_model_ms": statistics.median(by_model),
            "rows": 1_000_000,
        },
    )


def _view_samples(home: Path, repeat: int) -> tuple[list[float], float]:
    """Reload-to-painted times of the Usage window on ``home`` (and the first, roll-up-building one)."""
    from rho_desk.qt.app import StartPlan, build_context, create_application
    from rho_desk.qt.services.settings import use_settings_dir

    scratch = Path(tempfile.mkdtemp(prefix="view-", dir=_folder()))
    use_settings_dir(scratch / "settings")
    saved = os.environ.get("RHO_DESK_CACHE_DIR")
    os.environ["RHO_DESK_CACHE_DIR"] = str(
        _folder() / f"cache-{home.name}"
    )  # shared with usage.cli_1m
    _warm(home, _folder() / f"cache-{home.name}")  # the roll-up caught up, as after earlier looks
    (home / "sessions").mkdir(exist_ok=True)
    use_gui_screen()
    create_application()
    import qasync
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance()
    loop = qasync.QEventLoop(app, already_running=False)
    asyncio.set_event_loop(loop)
    context = build_context(StartPlan(home, None, False), install_hooks=False)
    times: list[float] = []
    cpu: list[float] = []

    async def measure() -> None:
        await context.astart()
        await context.bridge.wait_idle()
        view = context.window.show_usage()
        window = context.window.usage_window
        assert window is not None
        window.resize(1280, 800)
        clock = {"wall": 0.0, "cpu": 0.0}
        shown = asyncio.Event()

        def on_shown(_data: object) -> None:
            window.grab()  # a synchronous render of the whole window, charts included
            times.append((time.perf_counter() - clock["wall"]) * 1000)
            cpu.append((time.process_time() - clock["cpu"]) * 1000)
            shown.set()

        view.sig_overview_shown.connect(on_shown)
        for n in range(repeat + 1):
            if n:
                _rho_writes(home)
            shown.clear()
            clock["wall"], clock["cpu"] = time.perf_counter(), time.process_time()
            view.reload()
            await asyncio.wait_for(shown.wait(), 600)
            await context.bridge.wait_idle()
        view.sig_overview_shown.disconnect(on_shown)
        await context.ashutdown()

    try:
        loop.run_until_complete(measure())
    finally:
        loop.close()
        asyncio.set_event_loop(None)
        if saved is None:
            os.environ.pop("RHO_DESK_CACHE_DIR", None)
        else:
            os.environ["RHO_DESK_CACHE_DIR"] = saved
    _state["view_cpu"] = cpu[1:]
    return times[1:], times[0]


@benchmark("gui.usage_view_1m")
def usage_view_1m(quick: bool) -> BenchResult:
    repeat = 5 if quick else 11
    samples, first = _view_samples(_home(1_000_000), repeat)
    cpu = statistics.median(_state["view_cpu"])
    small, _first_small = _view_samples(_home(1_000), repeat)
    median, base = statistics.median(samples), statistics.median(small)
    print(
        f"gui.usage_view_1m: first open {first:.0f} ms; CPU (all threads) per reload, median {cpu:.0f} ms; "
        f"1,000 rows {base:.0f} ms"
    )
    return BenchResult(
        "gui.usage_view_1m",
        "ms",
        samples,
        "median ≤ 300 ms (reload to painted)",
        median <= 300,
        baseline=base,
        ratio=median / base,
        details={"first_open_ms": first, "process_cpu_ms": cpu, "rows": 1_000_000},
    )
