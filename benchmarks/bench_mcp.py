"""Benchmarks of ``rho-desk mcp``: search and transcript pages on a 10,000-session library, start-up
over stdio, and the search quality of a known-answer set.

The library is ``_memory_library.generate(10_000)``: real version-3 transcripts (fix, feature and
chatter sessions over twenty components of ten projects), plus one session of about 1,200
messages (``_sessions.make_session``). It is indexed once, cold (the library's refresh, then
every session read and redacted into the memory index: reported as ``mcp.index_10k``, seconds).
Times are server side: a tool call through :meth:`Memory.call` (arguments, the index, the export
pipeline on the answer, the gate), without the protocol's framing.

* ``mcp.search_10k``: ``search_sessions`` with the known-answer questions in turn. Target:
  p95 ≤ 150 ms. Baseline: the library's own substring search (``SessionLibrary.search``) for one
  word of the same questions.
* ``mcp.get_messages_1000``: ``get_messages`` of a 1,000-message page of the long session (every
  class), the session open in the server (a page is a slice of the session's one audited export
  per class selection). Target: p95 ≤ 100 ms. Baseline: ``export_snapshot`` of those messages
  alone. Also reported, ``.first_page``: the same page of a session not open yet (read and
  exported whole first; 1,200 messages).
* ``mcp.startup_stdio``: a new ``rho-desk mcp`` process, from its start to the answer to
  ``initialize`` on its stdout, paired with ``rho-desk --version`` in the same run. Target: the
  median ratio ≤ 5. Also reported: the time to the answer of ``tools/list`` and of a first search.
* ``mcp.search_quality``: the share of known-answer questions (the demo library's and the
  generated library's; "the session that fixed X", "the session that changed file Y") whose
  session is among the first three hits. Target: ≥ 90 %.

``--quick`` keeps the library's size (the targets are about it) and takes fewer samples.
"""

from __future__ import annotations

import atexit
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _memory_library import Question, demo_questions, generate, questions, write_library
from _sessions import make_session

from rho_desk.benchkit import BenchResult, benchmark, measure, percentile

N = 10_000
REPO = Path(__file__).resolve().parents[1]
_state: dict[str, Any] = {}


class _World:
    def __init__(self) -> None:
        from rho_desk.mcp._gate import Gate
        from rho_desk.mcp._memory import Memory
        from rho_desk.mcp._scope import Scope

        self.tmp = Path(tempfile.mkdtemp(prefix="rho-desk-bench-mcp-"))
        atexit.register(shutil.rmtree, self.tmp, ignore_errors=True)
        self.home = self.tmp / "home"
        started = time.perf_counter()
        self.works = generate(N - 1)
        write_library(self.home, self.works)
        self.long = make_session(
            self.home, 1_200, cwd="/home/dev/src/long", sid="10000000-0000-4000-8000-000000001200"
        )
        written = time.perf_counter() - started
        self.memory = Memory(
            Scope(self.home, None),
            Gate(bytes(range(32))),
            gate_id="bench",
            cache_dir=self.tmp / "cache",
        )
        started = time.perf_counter()
        self.memory.sync()
        self.indexed = time.perf_counter() - started
        print(
            f"  mcp: wrote {N:,} sessions in {written:.1f} s, indexed them cold in {self.indexed:.1f} s"
        )
        self.questions = questions(self.works)


def _world() -> _World:
    if "world" not in _state:
        _state["world"] = _World()
    return _state["world"]  # type: ignore[no-any-return]


@benchmark("mcp.index_10k")
def bench_index(quick: bool) -> BenchResult:
    world = _world()
    return BenchResult(
        "mcp.index_10k",
        "s",
        [world.indexed],
        "report (a cold index of 10,000 sessions)",
        None,
        details={"sessions_per_s": round(N / world.indexed)},
    )


@benchmark("mcp.search_10k")
def bench_search(quick: bool) -> BenchResult:
    world = _world()
    memory = world.memory
    texts = [q.text for q in world.questions]
    calls = iter(range(10**9))

    def one() -> None:
        text = texts[next(calls) % len(texts)]
        assert memory.call("search_sessions", {"query": text, "limit": 10})["results"]

    samples = measure(one, repeat=40 if quick else 120, warmup=3)
    words = [max(t.split(), key=len) for t in texts]
    base = measure(
        lambda: memory.library.search(words[next(calls) % len(words)], limit=10),
        repeat=20 if quick else 60,
    )
    result = BenchResult(
        "mcp.search_10k", "ms", samples, "p95 ≤ 150 ms", None, baseline=percentile(base, 50)
    )
    result.met = result.p95 <= 150.0
    result.ratio = result.median / result.baseline if result.baseline else None
    return result


@benchmark("mcp.get_messages_1000")
def bench_messages(quick: bool) -> list[BenchResult]:
    from rho_desk.core.export import Selection, export_snapshot

    world = _world()
    memory = world.memory
    arguments = {"session_id": "10000000-0000-4000-8000-000000001200", "start": 100, "limit": 1000}
    page = memory.call("get_messages", arguments)
    assert page["count"] == 1000, page["count"]
    samples = measure(
        lambda: memory.call("get_messages", arguments), repeat=30 if quick else 100, warmup=2
    )
    # The same page of a session the server has not opened yet: read, exported whole, then paged.
    cold = measure(
        lambda: memory.call("get_messages", arguments),
        setup=memory._views.clear,
        repeat=5 if quick else 15,
    )
    view = memory._view(memory._session(arguments["session_id"]))
    import msgspec

    sliced = msgspec.structs.replace(
        view.source.snapshot, history=view.source.snapshot.history[100:1100]
    )
    base = measure(
        lambda: export_snapshot(
            sliced, Selection.everything(), key=bytes(range(32)), history="display"
        ),
        repeat=10 if quick else 30,
    )
    baseline = percentile(base, 50)
    result = BenchResult(
        "mcp.get_messages_1000", "ms", samples, "p95 ≤ 100 ms", None, baseline=baseline
    )
    result.met = result.p95 <= 100.0
    result.ratio = result.median / baseline if baseline else None
    result.details = {"answer_bytes": len(json.dumps(page))}
    first = BenchResult(
        "mcp.get_messages_1000.first_page",
        "ms",
        cold,
        "report (the session read and exported first)",
        None,
        baseline=baseline,
    )
    first.ratio = first.median / baseline if baseline else None
    return [result, first]


_INITIALIZE = (
    json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "bench", "version": "1"},
            },
        }
    )
    + "\n"
)
_INITIALIZED = json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n"
_LIST = json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}) + "\n"
_SEARCH = (
    json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 3,
            "method": "tools/call",
            "params": {
                "name": "search_sessions",
                "arguments": {"query": "flaky refund webhook test"},
            },
        }
    )
    + "\n"
)


def _serve_once(home: Path, env: dict[str, str]) -> tuple[float, float, float]:
    """Seconds from the start of ``rho-desk mcp`` to its answers: initialize, tools/list, a search."""
    started = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-m", "rho_desk", "mcp", "--home", str(home), "--all"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    assert process.stdin is not None and process.stdout is not None
    try:
        process.stdin.write(_INITIALIZE.encode())
        process.stdin.flush()
        process.stdout.readline()
        first = time.perf_counter() - started
        process.stdin.write((_INITIALIZED + _LIST).encode())
        process.stdin.flush()
        process.stdout.readline()
        listed = time.perf_counter() - started
        process.stdin.write(_SEARCH.encode())
        process.stdin.flush()
        answer = json.loads(process.stdout.readline())
        searched = time.perf_counter() - started
        assert answer["result"]["structuredContent"]["results"], answer
    finally:
        process.stdin.close()
        process.wait(60)
    return first, listed, searched


def _index_once(home: Path, env: dict[str, str]) -> None:
    """Run a server until its first index of ``home`` is complete (searches answer with no note)."""
    process = subprocess.Popen(
        [sys.executable, "-m", "rho_desk", "mcp", "--home", str(home), "--all"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    assert process.stdin is not None and process.stdout is not None
    try:
        process.stdin.write((_INITIALIZE + _INITIALIZED).encode())
        process.stdin.flush()
        process.stdout.readline()
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            process.stdin.write(_SEARCH.encode())
            process.stdin.flush()
            answer = json.loads(process.stdout.readline())["result"]["structuredContent"]
            if answer["results"] and "note" not in answer:
                return
            time.sleep(0.2)
        raise AssertionError("the first index did not complete")
    finally:
        process.stdin.close()
        process.wait(60)


@benchmark("mcp.startup_stdio")
def bench_startup(quick: bool) -> BenchResult:
    import os

    tmp = Path(tempfile.mkdtemp(prefix="rho-desk-bench-mcp-start-"))
    atexit.register(shutil.rmtree, tmp, ignore_errors=True)
    home = tmp / "home"
    shutil.copytree(REPO / "resources" / "demo" / "home", home)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(
        RHO_DESK_CACHE_DIR=str(tmp / "cache"),
        RHO_DESK_CONFIG_DIR=str(tmp / "config"),
        XDG_DATA_HOME=str(tmp / "data"),
        PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring",
    )
    _index_once(home, env)  # the memory index and the keys, made once (as on any later start)
    firsts, lists, searches, versions = [], [], [], []
    for _ in range(5 if quick else 15):
        started = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "rho_desk", "--version"],
            capture_output=True,
            env=env,
            check=True,
        )
        versions.append(time.perf_counter() - started)
        first, listed, searched = _serve_once(home, env)
        firsts.append(first)
        lists.append(listed)
        searches.append(searched)
    baseline = percentile(versions, 50) * 1000
    result = BenchResult(
        "mcp.startup_stdio",
        "ms",
        [f * 1000 for f in firsts],
        "median ≤ 5 × rho-desk --version",
        None,
        baseline=baseline,
    )
    result.ratio = result.median / baseline
    result.met = result.ratio <= 5.0
    result.details = {
        "tools_list_ms": round(percentile(lists, 50) * 1000),
        "first_search_ms": round(percentile(searches, 50) * 1000),
    }
    print(
        f"  mcp: medians from the start: initialize answered {result.median:.0f} ms, tools/list "
        f"{result.details['tools_list_ms']} ms, a first search {result.details['first_search_ms']} ms; "
        f"rho-desk --version {baseline:.0f} ms"
    )
    return result


def _top3(memory: Any, asked: list[Question]) -> tuple[int, list[str]]:
    found, missed = 0, []
    for q in asked:
        hits = [
            h["session_id"]
            for h in memory.call("search_sessions", {"query": q.text, "limit": 3})["results"]
        ]
        if any(h.startswith(q.answer) for h in hits):
            found += 1
        else:
            missed.append(q.text)
    return found, missed


@benchmark("mcp.search_quality")
def bench_quality(quick: bool) -> BenchResult:
    from rho_desk.mcp._gate import Gate
    from rho_desk.mcp._memory import Memory
    from rho_desk.mcp._scope import Scope

    world = _world()
    demo = world.tmp / "demo"
    if not demo.exists():
        shutil.copytree(REPO / "resources" / "demo" / "home", demo)
    demo_memory = Memory(
        Scope(demo, None),
        Gate(bytes(range(32))),
        gate_id="bench",
        cache_dir=world.tmp / "demo-cache",
    )
    try:
        demo_memory.sync()
        demo_found, demo_missed = _top3(demo_memory, demo_questions())
    finally:
        demo_memory.close()
    found, missed = _top3(world.memory, world.questions)
    total = len(demo_questions()) + len(world.questions)
    share = 100 * (demo_found + found) / total
    result = BenchResult("mcp.search_quality", "% in top 3", [share], "≥ 90 %", share >= 90.0)
    result.details = {
        "demo": f"{demo_found}/{len(demo_questions())}",
        "generated": f"{found}/{len(world.questions)}",
        "missed": (demo_missed + missed)[:10],
    }
    for text in demo_missed + missed:
        print(f"  mcp.search_quality: not in the top 3: {text}")
    return result
