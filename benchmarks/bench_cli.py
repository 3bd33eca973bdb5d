"""Command-line benchmarks.

* ``cli.startup``: ``rho-desk --help`` (``python -m rho_desk --help``) as a new process, wall time
  to exit. Baseline: a bare ``python -c "import orjson"`` started the same way, in the same run
  (the floor: the interpreter plus one C extension). Target: at most 1.3 times the baseline.
  Both may write and use bytecode caches, as an installed program does (``PYTHONDONTWRITEBYTECODE``
  is dropped from their environment; the warm-up runs write them).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time

from rho_desk.benchkit import BenchResult, benchmark

_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def _wall(command: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, env=_ENV)
    return (time.perf_counter() - start) * 1000


@benchmark("cli.startup")
def startup(quick: bool) -> BenchResult:
    repeat = 7 if quick else 21
    help_command = [sys.executable, "-m", "rho_desk", "--help"]
    bare_command = [sys.executable, "-c", "import orjson"]
    _wall(help_command)  # warm-up: bytecode caches
    _wall(bare_command)
    samples, bare = [], []
    for _ in range(repeat):  # interleaved, so both see the same machine
        samples.append(_wall(help_command))
        bare.append(_wall(bare_command))
    median, base = statistics.median(samples), statistics.median(bare)
    return BenchResult(
        "cli.startup",
        "ms",
        samples,
        "median ≤ 1.3 × python -c 'import orjson'",
        median <= 1.3 * base,
        baseline=base,
        ratio=median / base,
    )
