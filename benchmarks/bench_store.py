"""Benchmarks of the Rho session-file store: loading big sessions, appending to them.

* ``store.load_100k``: open a 100,000-message session to its active snapshot (read the file,
  decode and validate every record, build the revision tree, materialise and trim the active
  history): a v3 file (one snapshot, then ~5,000 deltas) and a v4 tree of 4,000 nodes (deltas,
  branches after ``set_leaf``, compaction bases). Target: at least 0.4 x the throughput of
  ``orjson.loads`` on every line of the same bytes (GC paused for both, same run), and peak
  Python memory (tracemalloc) at most 4 x the file size.
* ``store.append_scaling``: append one revision (a two-message turn) to an open session of 1,000
  and of 100,000 messages, v3 (delta records) and v4 (delta nodes): the optimistic check, the
  pure-append test, validation, one write and ``fdatasync``. Targets: median(100k) / median(1k)
  <= 1.5, and median(100k) <= 3 x a bare ``open``/``write``/``fdatasync``/``close`` of the same
  bytes to a file of the same size on the same disk.

* ``store.save_in_home_100k``: the same v3 append to a 100,000-message session that sits in a
  Rho home, so that each save also updates its row in Rho's index (``sessions/index.sqlite3``),
  as Rho's own save does. Baseline, in the same run: the same save to the same file outside a
  home (no index) plus one bare upsert of that row (SQLite's commit, with its syncs, as Rho pays
  it). Target: median <= 1.5 x the baseline: keeping the row costs about one SQLite commit, not
  a walk over 100,000 messages (its display facts resume where the last save left them).

* ``store.load_process_v4``: ``rho-desk snapshot PATH`` as a new process on the 100,000-message v4
  tree above (start Python, read and validate the file, build the tree, print the complete
  snapshot to a null device), wall time. Baseline, in the same run: a new Python process that
  reads the same file and parses every line with ``orjson.loads``. Target: median <= 2.5 x the
  baseline.

``--quick`` keeps the sizes (the targets are about them) and takes fewer samples.
"""

from __future__ import annotations

import gc
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import orjson

from rho_desk.benchkit import BenchResult, benchmark, measure, traced_peak
from rho_desk.core.stores.rho_files import SessionWriter, read_session
from rho_desk.core.stores.rho_files.records import (
    DeltaTransition,
    HeaderRecord,
    NodeKind,
    NodeRecord,
    SetLeafRecord,
    SnapshotDeltaRecord,
    SnapshotRecord,
    SnapshotTransition,
    StoredDisplayMessage,
    StoredSnapshotDelta,
)
from rho_desk.core.wire import (
    AssistantMessage,
    CompactionState,
    ContentBlock,
    Message,
    ModelIdentity,
    SessionSnapshot,
    encode,
)

SID = "bench000-0000-4000-8000-000000000000"
PROVIDER = ModelIdentity("openai", "responses", "gpt-5")
_WORDS = (
    "the",
    "file",
    "test",
    "session",
    "compaction",
    "revision",
    "error",
    "python",
    "value",
    "branch",
    "delta",
    "snapshot",
    "tool",
    "result",
    "message",
    "display",
    "history",
    "index",
)


def _text(rng: random.Random, mean_words: int = 40) -> str:
    return " ".join(rng.choices(_WORDS, k=max(1, int(rng.expovariate(1 / mean_words)))))


def _turn(rng: random.Random, n: int, index: int) -> tuple[Message, ...]:
    """About ``n`` messages: a user prompt, tool calls with results, a final answer."""
    out = [Message.user_text(_text(rng))]
    call = 0
    while len(out) < n - 1:
        call += 1
        cid = f"call_{index}_{call}"
        out.append(
            Message(
                assistant=(
                    ContentBlock.of_tool_call(cid, "bash", {"command": f"grep -n {call} src"}),
                )
            )
        )
        out.append(Message.result(cid, True, _text(rng, 60)))
    out.append(
        Message.enriched(
            AssistantMessage(content=(ContentBlock.of_text(_text(rng)),), provenance=PROVIDER)
        )
    )
    return tuple(out)


def _shown(ts: str, messages: tuple[Message, ...]) -> tuple[StoredDisplayMessage, ...]:
    return tuple(StoredDisplayMessage(ts, m) for m in messages if m.system is None)


def _write_v3(path: Path, total: int, per_save: int = 20, seed: int = 1) -> None:
    """One complete snapshot, then deltas of ``per_save`` messages up to ``total`` messages."""
    rng = random.Random(seed)
    history: tuple[Message, ...] = (Message.system_text("You are a coding agent. " * 80),)
    lines = [encode(HeaderRecord(3, SID, "1767225600", "/bench"))]
    first = _turn(rng, per_save, 0)
    history += first
    snapshot = SessionSnapshot.new(SID, 1, history, PROVIDER, prompt_cache_key=f"rho:{SID}")
    lines.append(encode(SnapshotRecord("1767225601", snapshot, _shown("1767225601", first))))
    revision = 1
    while len(history) < total:
        turn = _turn(rng, min(per_save, total - len(history)), revision)
        ts = str(1767225601 + revision)
        delta = StoredSnapshotDelta(
            revision, SID, revision + 1, turn, PROVIDER, CompactionState.zero(), {}, f"rho:{SID}"
        )
        lines.append(encode(SnapshotDeltaRecord(ts, delta, _shown(ts, turn))))
        history += turn
        revision += 1
    path.write_bytes(b"\n".join(lines) + b"\n")


def _write_v4(path: Path, total: int, nodes: int = 4000, seed: int = 2) -> None:
    """A tree of ``nodes`` nodes over ``total`` messages: deltas, some branches, some compactions."""
    rng = random.Random(seed)
    per = max(2, total // nodes)
    lines = [encode(HeaderRecord(4, SID, "1767225600", "/bench"))]
    first = _turn(rng, per, 0)
    root = SessionSnapshot.new(
        SID,
        1,
        (Message.system_text("You are a coding agent. " * 80), *first),
        PROVIDER,
        prompt_cache_key=f"rho:{SID}",
    )
    lines.append(
        encode(
            NodeRecord(
                id="n0",
                timestamp="1767225601",
                kind=NodeKind.COMMIT,
                transition=SnapshotTransition(root),
                display_messages=_shown("1767225601", first),
            )
        )
    )
    # (revision, compaction) of every node; full histories only of the last 60 (branch targets)
    states: dict[str, tuple[int, CompactionState]] = {"n0": (1, root.compaction)}
    recent: dict[str, tuple[Message, ...]] = {"n0": root.history}
    leaf, top = "n0", 1
    side: set[str] = set()  # compaction nodes, left as side branches
    for i in range(1, nodes):
        ts = str(1767225601 + i)
        if i % 500 == 0:  # go back a few revisions (on the main line) and branch from there
            leaf = rng.choice([k for k in list(recent)[-50:-5] if k not in side])
            lines.append(encode(SetLeafRecord(ts, leaf)))
        revision, compaction = states[leaf]
        history = recent[leaf]
        top += 1
        if i % 1000 == 999:  # a compaction: a new complete base (on a side branch, see below)
            kept = (*history[:1], Message.user_text("summary " + _text(rng, 200)), *history[-per:])
            compaction = compaction.record(
                previous_messages=len(history),
                current_messages=len(kept),
                previous_tokens=len(history) * 60,
                current_tokens=len(kept) * 60,
                cost_usd_micros=None,
                revision=top,
            )
            snap = SessionSnapshot.new(
                SID, top, kept, PROVIDER, compaction, prompt_cache_key=f"rho:{SID}"
            )
            record = NodeRecord(
                id=f"n{i}",
                parent_id=leaf,
                timestamp=ts,
                kind=NodeKind.COMPACTION,
                transition=SnapshotTransition(snap),
            )
            history = kept
        else:
            turn = _turn(rng, per, i)
            delta = StoredSnapshotDelta(
                revision, SID, top, turn, PROVIDER, compaction, {}, f"rho:{SID}"
            )
            record = NodeRecord(
                id=f"n{i}",
                parent_id=leaf,
                timestamp=ts,
                kind=NodeKind.COMMIT,
                transition=DeltaTransition(delta),
                display_messages=_shown(ts, turn),
            )
            history = history + turn
        lines.append(encode(record))
        states[f"n{i}"] = (top, compaction)
        recent[f"n{i}"] = history
        if record.kind is NodeKind.COMPACTION:
            # the compaction stays a side branch: return to its parent, so that the active path
            # keeps (nearly) all of the 100k messages
            lines.append(encode(SetLeafRecord(ts, leaf)))
            side.add(f"n{i}")
        else:
            leaf = f"n{i}"
        if len(recent) > 60:
            del recent[next(iter(recent))]
    path.write_bytes(b"\n".join(lines) + b"\n")


def _open_to_snapshot(path: Path) -> SessionSnapshot:
    return read_session(path).tree.snapshot()


def _orjson_lines(data: bytes) -> None:
    gc.disable()
    try:
        [orjson.loads(line) for line in data.splitlines() if line]
    finally:
        gc.enable()


def _peak_ratio(path: Path) -> float:
    return traced_peak(lambda: _open_to_snapshot(path)) / path.stat().st_size


def _load_results(name: str, path: Path, repeat: int) -> list[BenchResult]:
    data = path.read_bytes()
    size_mb = len(data) / 1e6
    messages = len(_open_to_snapshot(path).history)
    ours = measure(lambda: _open_to_snapshot(path), repeat=repeat)
    base = measure(lambda: _orjson_lines(data), repeat=repeat)
    ours_median = sorted(ours)[len(ours) // 2]
    base_median = sorted(base)[len(base) // 2]
    ratio = base_median / ours_median  # our throughput as a fraction of orjson's
    peak = _peak_ratio(path)
    details = {
        "file_mb": round(size_mb, 1),
        "active_messages": messages,
        "peak_over_file": round(peak, 2),
    }
    return [
        BenchResult(
            f"store.load_100k.{name}",
            "ms",
            ours,
            "≥ 0.4 x orjson.loads throughput",
            ratio >= 0.4,
            baseline=base_median,
            ratio=ratio,
            details=details,
        ),
        BenchResult(
            f"store.load_100k.{name}.peak_memory",
            "x file",
            [peak],
            "≤ 4 x file size",
            peak <= 4.0,
            details=details,
        ),
    ]


@benchmark("store.load_100k")
def load_100k(quick: bool) -> list[BenchResult]:
    folder = Path(tempfile.mkdtemp(prefix="rho-bench-load-"))
    try:
        v3, v4 = folder / "v3.jsonl", folder / "v4.jsonl"
        _write_v3(v3, 100_000)
        _write_v4(v4, 100_000)
        repeat = 3 if quick else 7
        return _load_results("v3_deltas", v3, repeat) + _load_results("v4_tree_4000", v4, repeat)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


# -- appending ------------------------------------------------------------------------------------


class _Appender:
    """An open session and the next snapshot to save (prepared outside the timed part)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.writer = SessionWriter(read_session(path), clock=time.time, take_lease=False)
        self.current = self.writer.tree.snapshot()
        self.rng = random.Random(3)
        self.next: SessionSnapshot | None = None

    def prepare(self) -> None:
        turn = (Message.user_text(_text(self.rng)), Message.assistant_text(_text(self.rng)))
        self.next = self.current.replace(
            revision=self.current.revision + 1, history=self.current.history + turn
        )

    def save(self) -> float:
        assert self.next is not None
        start = time.perf_counter()
        self.writer.save(self.next)
        elapsed = time.perf_counter() - start
        self.current, self.next = self.next, None
        return elapsed * 1000

    def record_bytes(self) -> int:
        return len(self.path.read_bytes().rsplit(b"\n", 2)[-2]) + 1


def _flush(path: Path) -> None:
    """Write back a freshly generated file, so its dirty pages are not charged to a sample."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _bare(path: Path, payload: bytes) -> float:
    """open(O_APPEND) + one write + fdatasync + close: the floor of any durable append."""
    start = time.perf_counter()
    fd = os.open(path, os.O_RDWR | os.O_APPEND)
    try:
        os.write(fd, payload)
        os.fdatasync(fd)
    finally:
        os.close(fd)
    return (time.perf_counter() - start) * 1000


def _median(samples: list[float]) -> float:
    return sorted(samples)[len(samples) // 2]


def _scaling(
    folder: Path, name: str, make: Callable[[Path, int], None], repeat: int
) -> list[BenchResult]:
    small_path, big_path, bare_path = (folder / f"{name}-{n}.jsonl" for n in ("1k", "100k", "bare"))
    make(small_path, 1_000)
    make(big_path, 100_000)
    bare_path.write_bytes(b"x" * big_path.stat().st_size)
    for path in (small_path, big_path, bare_path):
        _flush(path)
    small, big = _Appender(small_path), _Appender(big_path)
    small.prepare()
    big.prepare()
    big.save()  # the first save also learns the record size
    payload = b"y" * (big.record_bytes() - 1) + b"\n"
    times: dict[str, list[float]] = {"small": [], "big": [], "bare": []}
    gc.collect()
    gc.freeze()  # the loaded sessions are long-lived: keep full collections off them, as an app would
    try:
        # interleaved, so that the shared disk's noise falls on all three alike
        for i in range(repeat + 2):
            small.prepare()
            big.prepare()
            sample = (small.save(), big.save(), _bare(bare_path, payload))
            if i >= 2:
                for key, value in zip(("small", "big", "bare"), sample, strict=True):
                    times[key].append(value)
    finally:
        gc.unfreeze()
        small.writer.close()
        big.writer.close()
    ratio = _median(times["big"]) / _median(times["small"])
    over_bare = _median(times["big"]) / _median(times["bare"])
    return [
        BenchResult(f"store.append_scaling.{name}.1k", "ms", times["small"], "report", None),
        BenchResult(
            f"store.append_scaling.{name}.100k",
            "ms",
            times["big"],
            "≤ 1.5 x the 1k append",
            ratio <= 1.5,
            baseline=_median(times["small"]),
            ratio=ratio,
        ),
        BenchResult(
            f"store.append_scaling.{name}.100k_vs_bare",
            "ms",
            times["big"],
            "≤ 3 x bare append+fdatasync",
            over_bare <= 3.0,
            baseline=_median(times["bare"]),
            ratio=over_bare,
            details={"record_bytes": len(payload)},
        ),
    ]


def _v4_for_append(path: Path, total: int) -> None:
    _write_v4(path, total, nodes=max(10, total // 25))


@benchmark("store.append_scaling")
def append_scaling(quick: bool) -> list[BenchResult]:
    folder = Path(tempfile.mkdtemp(prefix="rho-bench-append-"))
    try:
        repeat = 25 if quick else 80
        return _scaling(folder, "v3", _write_v3, repeat) + _scaling(
            folder, "v4", _v4_for_append, repeat
        )
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _bare_upsert(sessions_root: Path) -> float:
    """One row upserted into Rho's index of ``sessions_root`` (open, one transaction, close)."""
    from rho_desk.core.stores.index import RhoIndex

    with RhoIndex.open(sessions_root) as index:
        row = index.rows()[0]
        start = time.perf_counter()
        index.upsert([row])
        return (time.perf_counter() - start) * 1000


@benchmark("store.save_in_home_100k")
def save_in_home(quick: bool) -> list[BenchResult]:
    from rho_desk.core.stores.rho_files import workspace_dir

    folder = Path(tempfile.mkdtemp(prefix="rho-bench-home-"))
    try:
        loose = folder / "v3.jsonl"
        _write_v3(loose, 100_000)
        header = read_session(loose).tree.header
        assert header is not None
        unit = workspace_dir(folder / "home", header.cwd) / f"1_{header.id}"
        unit.mkdir(parents=True)
        in_home = unit / "session.jsonl"
        shutil.copyfile(loose, in_home)
        for path in (loose, in_home):
            _flush(path)
        outside, inside = _Appender(loose), _Appender(in_home)
        repeat = 7 if quick else 21
        times: dict[str, list[float]] = {"outside": [], "inside": [], "upsert": []}
        gc.collect()
        gc.freeze()
        try:
            for i in range(repeat + 1):  # the first save computes the row from scratch
                outside.prepare()
                inside.prepare()
                sample = (outside.save(), inside.save(), _bare_upsert(folder / "home" / "sessions"))
                if i >= 1:
                    for key, value in zip(("outside", "inside", "upsert"), sample, strict=True):
                        times[key].append(value)
        finally:
            gc.unfreeze()
            outside.writer.close()
            inside.writer.close()
        baseline = _median(times["outside"]) + _median(times["upsert"])
        ratio = _median(times["inside"]) / baseline
        return [
            BenchResult(
                "store.save_in_home_100k",
                "ms",
                times["inside"],
                "<= 1.5 x (the save outside a home + one bare index upsert)",
                ratio <= 1.5,
                baseline=baseline,
                ratio=ratio,
                details={
                    "outside_ms": _median(times["outside"]),
                    "upsert_ms": _median(times["upsert"]),
                },
            ),
        ]
    finally:
        shutil.rmtree(folder, ignore_errors=True)


_BARE_PARSE = "import sys, orjson\nwith open(sys.argv[1], 'rb') as f:\n    for line in f:\n        orjson.loads(line)\n"


def _process_ms(argv: list[str]) -> float:
    env = {
        k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"
    }  # as installed: bytecode cached
    start = time.perf_counter()
    subprocess.run(
        argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, check=True, timeout=300
    )
    return (time.perf_counter() - start) * 1000


@benchmark("store.load_process_v4")
def load_process_v4(quick: bool) -> BenchResult:
    folder = Path(tempfile.mkdtemp(prefix="rho-bench-load-process-"))
    try:
        path = folder / "v4.jsonl"
        _write_v4(path, 100_000)
        ours_argv = [sys.executable, "-m", "rho_desk", "snapshot", str(path)]
        bare_argv = [sys.executable, "-c", _BARE_PARSE, str(path)]
        ours, bare = [], []
        for i in range(
            (3 if quick else 7) + 1
        ):  # the first pair warms the page and bytecode caches
            pair = (_process_ms(ours_argv), _process_ms(bare_argv))
            if i:
                ours.append(pair[0])
                bare.append(pair[1])
        base = statistics.median(bare)
        ratio = statistics.median(ours) / base
        return BenchResult(
            "store.load_process_v4",
            "ms",
            ours,
            "median <= 2.5 x a bare orjson parse (process)",
            ratio <= 2.5,
            baseline=base,
            ratio=ratio,
            details={"file_mb": round(path.stat().st_size / 1e6, 1)},
        )
    finally:
        shutil.rmtree(folder, ignore_errors=True)
