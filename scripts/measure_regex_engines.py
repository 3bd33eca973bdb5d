"""Python's ``re`` against google-re2 and hyperscan for the secret scanner's rules, same bytes, same run.

    PYTHONPATH=. python scripts/measure_regex_engines.py [SIZE_MB]

Three workloads, each the search work one ``SecretScanner.scan`` does (matches only; confirming a
match is the same Python in every case):

* **token rules** over the runs of a benchmark session (``bench_export.big_session``: the runs of
  base64/identifier characters joined by a separator, what the token rules search) and over the
  adversarial inputs: ``re`` one pass per rule (the scanner without hyperscan), RE2 one
  alternation of every rule (RE2 has no multi-pattern search with positions; its DFA must hold
  the union), hyperscan one database of every rule (prefilter mode: lookarounds dropped, a
  superset);
* **keyword rules** over the session's text: ``re`` one pass per rule, hyperscan one database;
* **the name pass's candidates** (``_grammar.KEYWORDS`` + ``ASSIGN_PREFILTER``) alone, over the
  lower-cased text: ``re``, RE2 and hyperscan.

Prints MB/s per engine (median of 5) and the number of matches, and the install size of each
engine's package.
"""

from __future__ import annotations

import gc
import re
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

import bench_export  # noqa: E402

from rho_desk.core.export import SecretScanner  # noqa: E402
from rho_desk.core.export.scanner._catalogue import SEPARATOR  # noqa: E402
from rho_desk.core.export.scanner._engine import RUN, RUN_TABLE  # noqa: E402
from rho_desk.core.export.scanner._grammar import ASSIGN_PREFILTER, KEYWORDS  # noqa: E402
from rho_desk.core.export.scanner._prefilter import hyperscan_syntax  # noqa: E402
from rho_desk.core.wire.codec import encode_pretty  # noqa: E402

try:
    import re2  # type: ignore[import-untyped]
except ImportError:  # pragma: no cover
    re2 = None
try:
    import hyperscan
except ImportError:  # pragma: no cover
    hyperscan = None


def median_mb_s(size: int, work: Callable[[], int]) -> tuple[float, int]:
    times = []
    found = 0
    for _ in range(5):
        gc.collect()
        start = time.perf_counter()
        found = work()
        times.append(time.perf_counter() - start)
    return size / 1e6 / statistics.median(times), found


def runs_buffer(data: bytes) -> bytes:
    spans = [m.span() for m in RUN.finditer(data.translate(RUN_TABLE))]
    return SEPARATOR.join(data[max(0, s - 12) : e + 2] for s, e in spans)


def re_passes(patterns: list[re.Pattern[bytes]], buffer: bytes) -> int:
    return sum(1 for p in patterns for _ in p.finditer(buffer))


def hyperscan_db(patterns: list[bytes], flags: int) -> object:
    db = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
    db.compile(
        expressions=patterns,
        ids=list(range(len(patterns))),
        elements=len(patterns),
        flags=[flags] * len(patterns),
    )
    return db


def hyperscan_count(db: object, buffer: bytes) -> int:
    found = [0]

    def on_match(*_: object) -> None:
        found[0] += 1

    db.scan(buffer, match_event_handler=on_match)  # type: ignore[attr-defined]
    return found[0]


def row(name: str, results: dict[str, tuple[float, int]]) -> None:
    cells = "  ".join(
        f"{engine} {mb_s:8.1f} MB/s ({found} matches)" for engine, (mb_s, found) in results.items()
    )
    print(f"{name:34s} {cells}")


def package_size(module: object) -> str:
    if module is None:
        return "not installed"
    folder = Path(module.__file__).parent  # type: ignore[attr-defined]
    total = sum(f.stat().st_size for f in folder.rglob("*") if f.is_file())
    return f"{total / 1e6:.1f} MB ({folder.name}/)"


def main() -> None:
    size = int(float(sys.argv[1]) * 1e6) if len(sys.argv) > 1 else 30_000_000
    text = encode_pretty(bench_export.big_session(size))
    scanner = SecretScanner()
    tokens = [p.pattern for p in scanner._token_passes]
    keywords = [p.pattern for p in scanner._keyword_passes]
    inputs = {"session runs": runs_buffer(text)}
    inputs.update(
        {
            f"adversarial {k} runs": runs_buffer(v)
            for k, v in bench_export.adversarial_inputs().items()
        }
    )
    print(
        f"session: {len(text) / 1e6:.0f} MB of pretty JSON; re2 {package_size(re2)}, hyperscan {package_size(hyperscan)}"
    )

    union = (
        re2.compile(
            b"|".join(
                b"(?:%s)" % hyperscan_syntax(p.pattern)
                for p in tokens
                if b"(?<" not in p.pattern and b"(?=" not in p.pattern and b"(?!" not in p.pattern
            )
        )
        if re2
        else None
    )
    token_db = (
        hyperscan_db([hyperscan_syntax(p.pattern) for p in tokens], hyperscan.HS_FLAG_PREFILTER)
        if hyperscan
        else None
    )
    for name, buffer in inputs.items():
        if not buffer:
            continue
        results = {"re": median_mb_s(len(buffer), lambda b=buffer: re_passes(tokens, b))}
        if union is not None:
            results["re2"] = median_mb_s(
                len(buffer), lambda b=buffer: sum(1 for _ in union.finditer(b))
            )
        if token_db is not None:
            results["hyperscan"] = median_mb_s(
                len(buffer), lambda b=buffer: hyperscan_count(token_db, b)
            )
        row(f"token rules, {name}", results)

    keyword_db = (
        hyperscan_db(
            [hyperscan_syntax(p.pattern) for p in keywords],
            hyperscan.HS_FLAG_PREFILTER | hyperscan.HS_FLAG_SINGLEMATCH,
        )
        if hyperscan
        else None
    )
    results = {"re": median_mb_s(len(text), lambda: re_passes(keywords, text))}
    if keyword_db is not None:
        results["hyperscan"] = median_mb_s(len(text), lambda: hyperscan_count(keyword_db, text))
    row("keyword rules, session text", results)

    lowered = text.lower()
    candidates = KEYWORDS + ASSIGN_PREFILTER
    results = {
        "re": median_mb_s(
            len(lowered), lambda: sum(1 for _ in re.compile(candidates).finditer(lowered))
        )
    }
    if re2 is not None:
        compiled = re2.compile(candidates)
        results["re2"] = median_mb_s(
            len(lowered), lambda: sum(1 for _ in compiled.finditer(lowered))
        )
    if hyperscan is not None:
        db = hyperscan_db([candidates], hyperscan.HS_FLAG_SOM_LEFTMOST)
        results["hyperscan"] = median_mb_s(len(lowered), lambda: hyperscan_count(db, lowered))
    row("name-pass candidates, lower text", results)


if __name__ == "__main__":
    main()
