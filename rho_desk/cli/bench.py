"""``rho-desk bench [--quick] [--json] [-k PATTERN]``: run the performance suite in ``benchmarks/``.

Exit status 0 when every target held (or the figure is report-only), 1 when any target was NOT
MET (the failing names are listed on stderr), 2 for bad usage.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import sys
from pathlib import Path

from .status import EXIT_BAD_INPUT, EXIT_OK, EXIT_PROBLEMS, fail


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "bench",
        help="run the performance benchmarks",
        description="Run the performance suite, the bench_*.py files of a source checkout's benchmarks/ "
        "folder (an installed wheel does not carry them: pass --dir CHECKOUT/benchmarks, with the test "
        "extras installed, pip install 'rho-desk[test]'). Exit status 1 when a target is not met.",
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help=(
            "fewer samples; inputs keep the sizes their targets are about (report-only figures"
            " may use smaller inputs, named by their size)"
        ),
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "-k", dest="pattern", default="", help="only benchmarks whose name contains this"
    )
    parser.add_argument(
        "--dir", type=Path, default=None, help="benchmarks folder (default: the checkout's)"
    )
    parser.set_defaults(handler=run)


def _benchmarks_dir(explicit: Path | None) -> Path | None:
    if explicit is not None:
        return explicit
    here = Path(__file__).resolve().parents[2] / "benchmarks"
    return here if here.is_dir() else None


def run(args: argparse.Namespace) -> int:
    from ..benchkit import registered

    folder = _benchmarks_dir(args.dir)
    if folder is None:
        return fail(
            "the benchmarks are not part of an installed rho-desk: they are the bench_*.py files of a "
            "source checkout's benchmarks/ folder. From a checkout run ./run-app bench (it sets everything "
            "up); with this installation, rho-desk bench --dir CHECKOUT/benchmarks, after "
            "pip install 'rho-desk[test]' in its environment (the benchmarks use the test extras)",
            EXIT_BAD_INPUT,
        )
    if not folder.is_dir():
        return fail(f"{folder}: no such benchmarks folder", EXIT_BAD_INPUT)
    # Benchmark files may share helpers that live beside them (``_sessions.py``).
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))
    for path in sorted(folder.glob("bench_*.py")):
        spec = importlib.util.spec_from_file_location(f"rho_desk_benchmarks.{path.stem}", path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        try:
            spec.loader.exec_module(module)
        except ModuleNotFoundError as exc:
            return fail(
                f"{path}: needs the module {exc.name}, which this installation lacks: "
                "pip install 'rho-desk[test]' in its environment",
                EXIT_BAD_INPUT,
            )
    results = []
    for name, fn in registered():
        if args.pattern and args.pattern not in name:
            continue
        print(f"running {name} ...", file=sys.stderr, flush=True)
        # Whatever a benchmark prints is commentary: keep stdout for the results alone.
        with contextlib.redirect_stdout(sys.stderr):
            produced = fn(args.quick)
        for result in produced if isinstance(produced, list) else [produced]:
            results.append(result)
            if not args.json:
                _print_line(result)
    if args.json:
        print(json.dumps({"benchmarks": [r.to_json() for r in results]}, indent=2))
    missed = [r.name for r in results if r.met is False]
    if missed:
        return fail(f"{len(missed)} target(s) NOT MET: {', '.join(missed)}", EXIT_PROBLEMS)
    return EXIT_OK


def _print_line(result: object) -> None:
    from ..benchkit import BenchResult

    assert isinstance(result, BenchResult)
    verdict = {True: "met", False: "NOT MET", None: "report"}[result.met]
    extra = ""
    if result.baseline is not None:
        extra = f"  baseline {result.baseline:.4g}  ratio {result.ratio:.3g}"
    print(
        f"{result.name:<42} median {result.median:>10.4g} {result.unit:<8} p95 {result.p95:>10.4g}"
        f"{extra}  target: {result.target}  [{verdict}]"
    )
