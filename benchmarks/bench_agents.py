"""Benchmarks of other agents' sessions: one library over every agent, opening and importing big logs.

* ``agents.list_10k``: the first page (100 rows) of a library of 10,000 sessions of mixed agents
  (Rho's and the five agents', each in its own cache, merged by ``AllSessions``), newest first
  and by size. Target: ``index.list_10k``'s (median ≤ 20 ms). Baseline, in the same run: the
  same page of one cache holding 10,000 Rho sessions (``SessionLibrary.list``).
* ``agents.open_process_100mb``: ``rho-desk snapshot PATH`` as a new process on a 100 MB Claude
  Code session and a 100 MB Codex rollout (start Python, read and check every record, build the
  revision tree, print the complete snapshot to a null device), wall time. Baseline, in the same
  run: a new Python process that parses every line of the same file with ``orjson.loads``.
  Target: median ≤ 2.5 × the baseline (the ratio the Rho reader's ``store.load_process_v4``
  meets).
* ``agents.import_process_100mb``: ``rho-desk import PATH -o FILE`` as a new process on the same
  files (read, build, write the Rho session and its receipt, the digest of the source).
  Target: median ≤ 3 × the same baseline.

The logs are written by this module in the shapes the agents write (``tests/fixtures/agents``
cites their sources): turns of a prompt, a reply with reasoning and a tool call, a result of
about 8 KB, an answer; a compaction every 60 turns, as a long session has them (a 200k-token
context fills in well under a megabyte). ``--quick`` keeps the sizes and takes fewer samples.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from rho_desk.benchkit import BenchResult, benchmark, measure
from rho_desk.core.agents import AGENTS
from rho_desk.core.agents.library import AllSessions
from rho_desk.core.stores.library import SessionLibrary
from rho_desk.core.stores.search import SessionCache, cache_file_for
from rho_desk.core.stores.summary import SessionSummary

N = 10_000
SIZE = 100_000_000
_WORDS = (
    "the",
    "function",
    "test",
    "file",
    "error",
    "value",
    "return",
    "import",
    "class",
    "config",
    "path",
    "line",
    "output",
    "result",
    "user",
    "session",
    "branch",
    "index",
    "python",
    "review",
)


def _text(rng: random.Random, words: int) -> str:
    return " ".join(rng.choices(_WORDS, k=words))


def _summary(rng: random.Random, i: int, agent: str, root: Path) -> SessionSummary:
    cwd = f"/home/dev/project-{i % 40}"
    updated = 1_767_225_600 + rng.randrange(10_000_000)
    return SessionSummary(
        workspace_key=f"-home-dev-project-{i % 40}-{i % 40:016x}",
        cwd=cwd,
        id=f"{agent}-{i:08d}",
        path=str(root / f"{agent}-{i:08d}.jsonl"),
        created_at=updated - 600,
        updated_at=updated,
        message_count=rng.randrange(2, 400),
        first_user_message=_text(rng, 8),
        last_user_message=_text(rng, 8),
        file_size=rng.randrange(1_000, 5_000_000),
        file_mtime=updated,
        node_count=rng.randrange(1, 80),
        branch_count=rng.randrange(0, 3),
        active_leaf_id=None,
        effective_format_version=4 if agent == "rho" else 0,
        provider="p/a/m",
        model="m",
        compaction_count=rng.randrange(0, 5),
        search_text=_text(rng, 30),
    )


class _Libraries:
    """10,000 sessions spread over Rho's cache and the five agents' caches (plus one Rho-only
    cache of 10,000 for the baseline)."""

    def __init__(self) -> None:
        self.tmp = Path(tempfile.mkdtemp(prefix="rho-bench-agents-"))
        rng = random.Random(20261206)
        self.cache = self.tmp / "cache"
        self.homes = {agent: self.tmp / agent for agent in AGENTS}
        share = N // (len(AGENTS) + 1)
        rho_home = self.tmp / "rho"
        (rho_home / "sessions").mkdir(parents=True)
        roots = {
            "rho": rho_home / "sessions",
            **{a: Path(f"{h.absolute()}#{a}") for a, h in self.homes.items()},
        }
        i = 0
        for agent, root in roots.items():
            count = N - share * len(AGENTS) if agent == "rho" else share
            rows = [(_summary(rng, i + k, agent, self.tmp), 1) for k in range(count)]
            i += count
            with SessionCache.open(cache_file_for(root, self.cache)) as cache:
                cache.store(summaries=rows)
        self.baseline_home = self.tmp / "rho-only"
        (self.baseline_home / "sessions").mkdir(parents=True)
        with SessionCache.open(
            cache_file_for(self.baseline_home / "sessions", self.cache)
        ) as cache:
            cache.store(
                summaries=[(replace(_summary(rng, k, "rho", self.tmp)), 1) for k in range(N)]
            )
        self.rho = SessionLibrary(rho_home, cache_dir=self.cache, create_index=False)
        self.mixed = AllSessions(self.rho, self.homes, cache_dir=self.cache)
        self.baseline = SessionLibrary(self.baseline_home, cache_dir=self.cache, create_index=False)

    def close(self) -> None:
        self.mixed.close()
        self.baseline.close()
        shutil.rmtree(self.tmp, ignore_errors=True)


@benchmark("agents.list_10k")
def bench_list(quick: bool) -> list[BenchResult]:
    libraries = _Libraries()
    try:
        repeat = 30 if quick else 100
        assert libraries.mixed.list(limit=1).total == N
        base = measure(lambda: libraries.baseline.list(limit=100), repeat=repeat)
        baseline = statistics.median(base)
        results = []
        for name, call in (
            ("agents.list_10k", lambda: libraries.mixed.list(limit=100)),
            ("agents.list_10k_by_size", lambda: libraries.mixed.list(sort="size", limit=100)),
        ):
            samples = measure(call, repeat=repeat)
            median = statistics.median(samples)
            results.append(
                BenchResult(
                    name,
                    "ms",
                    samples,
                    "median ≤ 20 ms (index.list_10k's target)",
                    median <= 20.0,
                    baseline=baseline,
                    ratio=median / baseline,
                )
            )
        return results
    finally:
        libraries.close()


# -- big logs ---------------------------------------------------------------------------------


_lines_in_second: dict[str, int] = {}


def _own_millisecond(stamp: str) -> str:
    """``stamp`` (``…:SS.000Z``) with a millisecond of its own line's: an agent writes each line
    when it happens, so a real log's times are nearly all distinct (a reader that keeps only the
    times it has seen gains nothing there)."""
    second = stamp[:19]
    n = _lines_in_second[second] = _lines_in_second.get(second, -1) + 1
    if len(_lines_in_second) > 4:
        for old in list(_lines_in_second)[:-2]:
            del _lines_in_second[old]
    return f"{second}.{min(n * 7, 999):03d}Z"


def _claude_log(path: Path, size: int, seed: int = 11) -> None:
    rng = random.Random(seed)
    sid = "6b7c0e2a-1111-4222-8333-444455556666"
    base = {
        "isSidechain": False,
        "userType": "external",
        "cwd": "/home/dev/big",
        "sessionId": sid,
        "version": "2.1.59",
        "gitBranch": "main",
    }
    written = 0
    parent: str | None = None
    with open(path, "w", encoding="utf-8") as out:

        def put(record: dict[str, object]) -> None:
            nonlocal written
            record["timestamp"] = _own_millisecond(str(record["timestamp"]))
            line = json.dumps(record, separators=(",", ":")) + "\n"
            out.write(line)
            written += len(line)

        turn = 0
        while written < size:
            turn += 1
            stamp = (
                f"2026-02-01T{(turn // 3600) % 24:02d}:{(turn // 60) % 60:02d}:{turn % 60:02d}.000Z"
            )
            usage = {
                "input_tokens": 120,
                "cache_creation_input_tokens": 300,
                "cache_read_input_tokens": 52_000,
                "output_tokens": 180,
                "service_tier": "standard",
            }
            if turn % 60 == 0:
                boundary = f"c{turn:08d}"
                put(
                    {
                        "parentUuid": None,
                        "logicalParentUuid": parent,
                        **base,
                        "type": "system",
                        "subtype": "compact_boundary",
                        "content": "Conversation compacted",
                        "timestamp": stamp,
                        "uuid": boundary,
                        "level": "info",
                        "compactMetadata": {"trigger": "auto", "preTokens": 180_000},
                    }
                )
                parent = f"s{turn:08d}"
                put(
                    {
                        "parentUuid": boundary,
                        **base,
                        "type": "user",
                        "isCompactSummary": True,
                        "uuid": parent,
                        "timestamp": stamp,
                        "message": {"role": "user", "content": _text(rng, 300)},
                    }
                )
            ids = [f"{k}{turn:08d}" for k in "uabrt"]
            put(
                {
                    "parentUuid": parent,
                    **base,
                    "type": "user",
                    "uuid": ids[0],
                    "timestamp": stamp,
                    "message": {"role": "user", "content": _text(rng, 30)},
                }
            )
            put(
                {
                    "parentUuid": ids[0],
                    **base,
                    "type": "assistant",
                    "uuid": ids[1],
                    "timestamp": stamp,
                    "requestId": f"req_{turn}",
                    "message": {
                        "model": "claude-sonnet-4-5",
                        "id": f"msg_{turn}",
                        "type": "message",
                        "role": "assistant",
                        "content": [
                            {
                                "type": "thinking",
                                "thinking": _text(rng, 40),
                                "signature": "Eq" + "x" * 200,
                            }
                        ],
                        "stop_reason": None,
                        "usage": usage,
                    },
                }
            )
            put(
                {
                    "parentUuid": ids[1],
                    **base,
                    "type": "assistant",
                    "uuid": ids[2],
                    "timestamp": stamp,
                    "requestId": f"req_{turn}",
                    "message": {
                        "model": "claude-sonnet-4-5",
                        "id": f"msg_{turn}",
                        "type": "message",
                        "role": "assistant",
                        "content": [
                            {
                                "type": "tool_use",
                                "id": f"toolu_{turn}",
                                "name": "Read",
                                "input": {"file_path": f"/home/dev/big/src/f{turn}.py"},
                            }
                        ],
                        "stop_reason": "tool_use",
                        "usage": usage,
                    },
                }
            )
            put(
                {
                    "parentUuid": ids[2],
                    **base,
                    "type": "user",
                    "uuid": ids[3],
                    "timestamp": stamp,
                    "message": {
                        "role": "user",
                        "content": [
                            {
                                "tool_use_id": f"toolu_{turn}",
                                "type": "tool_result",
                                "content": _text(rng, 1200),
                            }
                        ],
                    },
                    "toolUseResult": {"type": "text", "file": {"numLines": 200}},
                }
            )
            put(
                {
                    "parentUuid": ids[3],
                    **base,
                    "type": "assistant",
                    "uuid": ids[4],
                    "timestamp": stamp,
                    "requestId": f"req_{turn}b",
                    "message": {
                        "model": "claude-sonnet-4-5",
                        "id": f"msg_{turn}b",
                        "type": "message",
                        "role": "assistant",
                        "content": [{"type": "text", "text": _text(rng, 80)}],
                        "stop_reason": "end_turn",
                        "usage": usage,
                    },
                }
            )
            parent = ids[4]


def _codex_log(path: Path, size: int, seed: int = 12) -> None:
    rng = random.Random(seed)
    written = 0
    with open(path, "w", encoding="utf-8") as out:

        def put(stamp: str, kind: str, payload: dict[str, object]) -> None:
            nonlocal written
            stamp = _own_millisecond(stamp)
            line = (
                json.dumps(
                    {"timestamp": stamp, "type": kind, "payload": payload}, separators=(",", ":")
                )
                + "\n"
            )
            out.write(line)
            written += len(line)

        put(
            "2026-03-01T10:00:00.000Z",
            "session_meta",
            {
                "id": "019c2b7e-5a10-7c3d-9e21-4b8f6a2d1c03",
                "timestamp": "2026-03-01T10:00:00.000Z",
                "cwd": "/home/dev/big",
                "originator": "codex_cli_rs",
                "cli_version": "0.58.0",
                "source": "cli",
                "model_provider": "openai",
            },
        )
        turn = 0
        while written < size:
            turn += 1
            stamp = (
                f"2026-03-01T{(turn // 3600) % 24:02d}:{(turn // 60) % 60:02d}:{turn % 60:02d}.000Z"
            )
            if turn % 60 == 0:
                put(
                    stamp,
                    "compacted",
                    {
                        "message": _text(rng, 300),
                        "replacement_history": [
                            {
                                "type": "message",
                                "role": "user",
                                "content": [{"type": "input_text", "text": _text(rng, 300)}],
                            }
                        ],
                    },
                )
            put(
                stamp,
                "turn_context",
                {
                    "cwd": "/home/dev/big",
                    "approval_policy": "on-request",
                    "sandbox_policy": {"type": "workspace-write"},
                    "model": "gpt-5-codex",
                    "summary": "auto",
                },
            )
            prompt = _text(rng, 30)
            put(
                stamp,
                "response_item",
                {
                    "type": "message",
                    "role": "user",
                    "content": [{"type": "input_text", "text": prompt}],
                },
            )
            put(stamp, "event_msg", {"type": "user_message", "message": prompt, "kind": "plain"})
            put(
                stamp,
                "response_item",
                {
                    "type": "reasoning",
                    "summary": [{"type": "summary_text", "text": _text(rng, 40)}],
                    "content": None,
                    "encrypted_content": "gAAAA" + "x" * 400,
                },
            )
            put(
                stamp,
                "response_item",
                {
                    "type": "function_call",
                    "name": "shell",
                    "call_id": f"call_{turn}",
                    "arguments": json.dumps({"command": ["bash", "-lc", f"cat src/f{turn}.py"]}),
                },
            )
            put(
                stamp,
                "event_msg",
                {
                    "type": "token_count",
                    "info": {
                        "total_token_usage": {
                            "input_tokens": turn * 100,
                            "cached_input_tokens": turn * 50,
                            "output_tokens": turn * 10,
                            "reasoning_output_tokens": 0,
                            "total_tokens": turn * 110,
                        },
                        "last_token_usage": {
                            "input_tokens": 100,
                            "cached_input_tokens": 50,
                            "output_tokens": 10,
                            "reasoning_output_tokens": 0,
                            "total_tokens": 110,
                        },
                        "model_context_window": 272000,
                    },
                    "rate_limits": None,
                },
            )
            put(
                stamp,
                "response_item",
                {
                    "type": "function_call_output",
                    "call_id": f"call_{turn}",
                    "output": _text(rng, 1200),
                },
            )
            put(
                stamp,
                "response_item",
                {
                    "type": "message",
                    "role": "assistant",
                    "content": [{"type": "output_text", "text": _text(rng, 80)}],
                },
            )


_BARE_PARSE = "import sys, orjson\nwith open(sys.argv[1], 'rb') as f:\n    for line in f:\n        orjson.loads(line)\n"


def _process_ms(argv: list[str]) -> float:
    env = {
        k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"
    }  # as installed: bytecode cached
    start = time.perf_counter()
    subprocess.run(
        argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, check=True, timeout=600
    )
    return (time.perf_counter() - start) * 1000


def _logs(folder: Path) -> dict[str, Path]:
    claude = folder / "claude" / "6b7c0e2a-1111-4222-8333-444455556666.jsonl"
    codex = (
        folder / "codex" / "rollout-2026-03-01T10-00-00-019c2b7e-5a10-7c3d-9e21-4b8f6a2d1c03.jsonl"
    )
    for path in (claude, codex):
        path.parent.mkdir(parents=True)
    _claude_log(claude, SIZE)
    _codex_log(codex, SIZE)
    return {"claude-code": claude, "codex": codex}


def _pairs(
    ours: list[str], bare: list[str], samples: int, before: object = None
) -> tuple[list[float], list[float]]:
    mine, theirs = [], []
    for i in range(samples + 1):  # the first pair warms the page and bytecode caches
        if callable(before):
            before()
        pair = (_process_ms(ours), _process_ms(bare))
        if i:
            mine.append(pair[0])
            theirs.append(pair[1])
    return mine, theirs


@benchmark("agents.open_process_100mb")
def bench_open(quick: bool) -> list[BenchResult]:
    folder = Path(tempfile.mkdtemp(prefix="rho-bench-agent-logs-"))
    try:
        results = []
        for agent, path in _logs(folder).items():
            ours, bare = _pairs(
                [sys.executable, "-m", "rho_desk", "snapshot", str(path)],
                [sys.executable, "-c", _BARE_PARSE, str(path)],
                3 if quick else 7,
            )
            base = statistics.median(bare)
            ratio = statistics.median(ours) / base
            results.append(
                BenchResult(
                    f"agents.open_process_100mb.{agent}",
                    "ms",
                    ours,
                    "median <= 2.5 x a bare orjson parse (process)",
                    ratio <= 2.5,
                    baseline=base,
                    ratio=ratio,
                    details={"file_mb": round(path.stat().st_size / 1e6, 1)},
                )
            )
        return results
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@benchmark("agents.import_process_100mb")
def bench_import(quick: bool) -> list[BenchResult]:
    folder = Path(tempfile.mkdtemp(prefix="rho-bench-agent-import-"))
    try:
        results = []
        for agent, path in _logs(folder).items():
            out = folder / f"{agent}-imported.jsonl"

            def fresh(out: Path = out) -> None:
                for leftover in (out, out.with_name(out.name + ".import.json")):
                    leftover.unlink(missing_ok=True)

            ours, bare = _pairs(
                [sys.executable, "-m", "rho_desk", "import", str(path), "-o", str(out)],
                [sys.executable, "-c", _BARE_PARSE, str(path)],
                3 if quick else 7,
                fresh,
            )
            base = statistics.median(bare)
            ratio = statistics.median(ours) / base
            results.append(
                BenchResult(
                    f"agents.import_process_100mb.{agent}",
                    "ms",
                    ours,
                    "median <= 3 x a bare orjson parse (process)",
                    ratio <= 3.0,
                    baseline=base,
                    ratio=ratio,
                    details={
                        "file_mb": round(path.stat().st_size / 1e6, 1),
                        "written_mb": round(out.stat().st_size / 1e6, 1),
                    },
                )
            )
        return results
    finally:
        shutil.rmtree(folder, ignore_errors=True)
