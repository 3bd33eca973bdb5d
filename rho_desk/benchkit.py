"""A small harness for ``rho-desk bench``: timing, medians and percentiles, JSON output.

Benchmarks live in ``benchmarks/bench_*.py`` at the repository root. Each registers functions
with ``@benchmark``; a function takes ``quick`` (fewer samples; inputs keep the sizes the
targets are about) and returns one or more ``BenchResult``. Benchmarks report speed; they assert nothing.
Machines are shared and noisy: report medians, and ratios against a baseline measured in the
same run.
"""

from __future__ import annotations

import atexit
import gc
import math
import os
import shutil
import subprocess
import tempfile
import time
import tracemalloc
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "BenchResult",
    "benchmark",
    "gui_environment",
    "measure",
    "percentile",
    "registered",
    "traced_peak",
    "use_gui_screen",
    "x_display",
]

OFFSCREEN_ENV = "RHO_DESK_BENCH_OFFSCREEN"
"""Set to 1 to measure the GUI offscreen even where an X server could be started."""


def percentile(samples: Iterable[float], p: float) -> float:
    """Upstream's rule: element ceil((n-1)*p/100) of the sorted samples."""
    ordered = sorted(samples)
    if not ordered:
        return math.nan
    return ordered[min(math.ceil((len(ordered) - 1) * p / 100), len(ordered) - 1)]


@dataclass
class BenchResult:
    """One benchmark figure. ``samples`` are in ``unit``; ``met`` says whether the target held."""

    name: str
    unit: str
    samples: list[float]
    target: str
    met: bool | None
    baseline: float | None = None
    ratio: float | None = None
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def median(self) -> float:
        return percentile(self.samples, 50)

    @property
    def p95(self) -> float:
        return percentile(self.samples, 95)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "unit": self.unit,
            "median": _round(self.median),
            "p95": _round(self.p95),
            "target": self.target,
            "baseline": _round(self.baseline),
            "ratio": _round(self.ratio),
            "met": self.met,
        }


def _round(value: float | None) -> float | None:
    if value is None or math.isnan(value):
        return None
    return float(f"{value:.6g}")


BenchFunction = Callable[[bool], "BenchResult | list[BenchResult]"]
_REGISTRY: list[tuple[str, BenchFunction]] = []


def benchmark(name: str) -> Callable[[BenchFunction], BenchFunction]:
    """Register ``fn`` under ``name`` (a prefix such as ``engine.snapshot_serialize_1k``)."""

    def register(fn: BenchFunction) -> BenchFunction:
        _REGISTRY.append((name, fn))
        return fn

    return register


def registered() -> list[tuple[str, BenchFunction]]:
    return list(_REGISTRY)


def measure(
    fn: Callable[[], object],
    *,
    repeat: int,
    warmup: int = 1,
    setup: Callable[[], object] | None = None,
    scale: float = 1000.0,
) -> list[float]:
    """Run ``fn`` ``repeat`` times after ``warmup`` runs; wall times times ``scale`` (ms by default).

    ``setup`` runs before each call, untimed. A full GC runs before each sample so that one
    sample's garbage does not land on the next.
    """
    samples = []
    for i in range(warmup + repeat):
        if setup is not None:
            setup()
        gc.collect()
        start = time.perf_counter()
        fn()
        elapsed = time.perf_counter() - start
        if i >= warmup:
            samples.append(elapsed * scale)
    return samples


def traced_peak(fn: Callable[[], object]) -> int:
    """The peak of Python's allocations (``tracemalloc``, bytes) while ``fn`` runs, counted
    after a full GC."""
    gc.collect()
    tracemalloc.start()
    try:
        fn()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak


_X: dict[str, str | None] = {}


def x_display() -> str | None:
    """A real X server for the GUI benchmarks: ``:N`` of an Xvfb this process started (stopped at
    exit), or ``None`` when Xvfb is not installed, does not start, or ``RHO_DESK_BENCH_OFFSCREEN``
    is set. Started once per process, 1600 x 1000, 24-bit, no TCP."""
    if "display" in _X:
        return _X["display"]
    _X["display"] = None
    xvfb = shutil.which("Xvfb")
    if xvfb is None or os.environ.get(OFFSCREEN_ENV) == "1":
        return None
    folder = Path(tempfile.mkdtemp(prefix="rho-bench-x-"))
    read, write = os.pipe()
    log = (folder / "xvfb.log").open("wb")
    server = subprocess.Popen(
        [xvfb, "-displayfd", str(write), "-screen", "0", "1600x1000x24", "-nolisten", "tcp"],
        pass_fds=(write,),
        stdout=subprocess.DEVNULL,
        stderr=log,
    )
    os.close(write)
    atexit.register(_stop, server, folder)
    deadline = time.monotonic() + 10
    number = b""
    while time.monotonic() < deadline and not number.endswith(b"\n"):
        chunk = os.read(read, 16)  # Xvfb writes the display number and a newline once it listens
        if not chunk:
            break
        number += chunk
    os.close(read)
    if number.strip().isdigit():
        _X["display"] = f":{number.strip().decode()}"
    return _X["display"]


def _stop(server: subprocess.Popen[bytes], folder: Path) -> None:
    server.terminate()
    try:
        server.wait(5)
    except subprocess.TimeoutExpired:
        server.kill()
    shutil.rmtree(folder, ignore_errors=True)


def gui_environment() -> tuple[dict[str, str], str]:
    """Environment variables that put a launched app on the benchmark's screen, and its name:
    ``xcb (Xvfb :N)`` when :func:`x_display` gives a server, else ``offscreen``."""
    display = x_display()
    if display is None:
        return {"QT_QPA_PLATFORM": "offscreen"}, "offscreen"
    return {"QT_QPA_PLATFORM": "xcb", "DISPLAY": display}, f"xcb (Xvfb {display})"


def use_gui_screen() -> str:
    """Put this process's Qt on the benchmark's screen (:func:`gui_environment`) unless
    ``QT_QPA_PLATFORM`` is already set; call it before the ``QApplication`` exists. Returns the
    screen's name."""
    if "QT_QPA_PLATFORM" in os.environ:
        return os.environ["QT_QPA_PLATFORM"]
    screen, name = gui_environment()
    os.environ.update(screen)
    return name
