"""``rho-desk bench``: the harness runs benchmark files and prints one clean JSON object."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from rho_desk.benchkit import traced_peak

BENCH = """
from rho_desk.benchkit import BenchResult, benchmark, measure

@benchmark("demo.sum")
def run(quick):
    print("chatter that must not reach stdout")
    samples = measure(lambda: sum(range(1000)), repeat=3 if quick else 5)
    return BenchResult("demo.sum", "ms", samples, "report", None)

@benchmark("demo.ratio")
def ratio(quick):
    return [BenchResult("demo.ratio", "x", [2.0, 1.0, 3.0], "<= 2.5", True, baseline=1.0, ratio=2.0)]
"""


def _bench(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "bench_demo.py").write_text(BENCH)
    return subprocess.run(
        [sys.executable, "-m", "rho_desk", "bench", "--dir", str(tmp_path), *args],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_json_output_is_one_object_with_the_fixed_keys(tmp_path: Path) -> None:
    result = _bench(tmp_path, "--quick", "--json")
    assert result.returncode == 0, result.stderr
    document = json.loads(result.stdout)
    names = [b["name"] for b in document["benchmarks"]]
    assert names == ["demo.sum", "demo.ratio"]
    keys = {"name", "unit", "median", "p95", "target", "baseline", "ratio", "met"}
    assert all(set(b) == keys for b in document["benchmarks"])
    ratio = document["benchmarks"][1]
    assert (ratio["median"], ratio["p95"], ratio["baseline"], ratio["ratio"], ratio["met"]) == (
        2.0,
        3.0,
        1.0,
        2.0,
        True,
    )
    assert "chatter" in result.stderr


def test_filter_and_text_output(tmp_path: Path) -> None:
    result = _bench(tmp_path, "-k", "ratio")
    assert result.returncode == 0, result.stderr
    assert "demo.ratio" in result.stdout and "demo.sum" not in result.stdout
    assert "[met]" in result.stdout


def test_missing_folder_is_bad_usage(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "rho_desk", "bench", "--dir", str(tmp_path / "nope")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2 and "Traceback" not in result.stderr


MISSED = """
from rho_desk.benchkit import BenchResult, benchmark

@benchmark("demo.slow")
def slow(quick):
    return BenchResult("demo.slow", "ms", [30.0, 31.0], "<= 10 ms", False)

@benchmark("demo.fine")
def fine(quick):
    return BenchResult("demo.fine", "ms", [1.0], "<= 10 ms", True)
"""


def test_a_missed_target_exits_1_and_names_it(tmp_path: Path) -> None:
    (tmp_path / "bench_missed.py").write_text(MISSED)
    for extra in ([], ["--json"]):
        result = subprocess.run(
            [sys.executable, "-m", "rho_desk", "bench", "--dir", str(tmp_path), *extra],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert result.returncode == 1, result.stderr
        assert (
            "NOT MET: demo.slow" in result.stderr
            and "demo.fine" not in result.stderr.split("NOT MET")[-1]
        )
        assert "Traceback" not in result.stderr


_SCREEN = """
import json, os, sys
from rho_desk import benchkit
name = benchkit.use_gui_screen()
display = os.environ.get("DISPLAY", "")
socket = f"/tmp/.X11-unix/X{display[1:]}" if display.startswith(":") else ""
print(json.dumps({"name": name, "platform": os.environ["QT_QPA_PLATFORM"], "socket": bool(socket) and os.path.exists(socket)}))
"""


def _screen(**env: str) -> dict[str, object]:
    base = {
        k: v for k, v in __import__("os").environ.items() if k not in ("QT_QPA_PLATFORM", "DISPLAY")
    }
    out = subprocess.run(
        [sys.executable, "-c", _SCREEN],
        capture_output=True,
        text=True,
        timeout=60,
        env={**base, **env},
        check=True,
    ).stdout
    return json.loads(out)  # type: ignore[no-any-return]


def test_the_gui_benchmarks_run_under_a_real_x_server_when_xvfb_is_installed() -> None:
    import shutil

    # scripts/bootstrap.sh installs Xvfb for the tests: the benchmarks measure the app as users see it
    assert shutil.which("Xvfb"), (
        "Xvfb is missing: run scripts/bootstrap.sh (the test profile installs xvfb)"
    )
    seen = _screen()
    assert (
        seen["platform"] == "xcb" and str(seen["name"]).startswith("xcb (Xvfb :") and seen["socket"]
    ), seen
    assert _screen(RHO_DESK_BENCH_OFFSCREEN="1") == {
        "name": "offscreen",
        "platform": "offscreen",
        "socket": False,
    }
    assert _screen(QT_QPA_PLATFORM="minimal")["platform"] == "minimal"  # an explicit choice is kept


def test_an_installation_without_benchmarks_says_what_bench_needs(tmp_path: Path) -> None:
    """From an installed wheel (no checkout beside it), ``bench`` says where the benchmarks are and
    what they need, instead of a bare "pass --dir" (the walkthrough's R2)."""
    import os

    code = (
        "import sys; from rho_desk.cli import bench; bench._benchmarks_dir = lambda explicit: explicit; "
        "from rho_desk.cli import main; sys.exit(main(['bench']))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONWARNINGS": "ignore"},
    )
    assert result.returncode == 2
    assert "not part of an installed rho-desk" in result.stderr
    assert (
        "--dir CHECKOUT/benchmarks" in result.stderr
        and "pip install 'rho-desk[test]'" in result.stderr
    )
    (tmp_path / "bench_needs.py").write_text("import a_module_nobody_has\n")
    missing = _bench(tmp_path)
    assert missing.returncode == 2 and "needs the module a_module_nobody_has" in missing.stderr
    assert "Traceback" not in missing.stderr


def test_traced_peak_counts_what_the_call_allocates() -> None:
    held = bytes(4 << 20)  # allocated before the count: not in the peak
    peak = traced_peak(lambda: bytearray(1 << 20))
    assert 1 << 20 <= peak < 2 << 20, peak
    assert len(held) == 4 << 20
