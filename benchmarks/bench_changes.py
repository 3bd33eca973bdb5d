"""Benchmark of the changes of a long session.

* ``changes.session_10k_turns``: :func:`~rho_desk.core.changes.session_changes` of a
  10,000-turn session (about 40,000 messages, saved as a v3 file in deltas of 50 turns) whose
  turns write, edit (Rho's hashline), read and run commands, with a checkpoint journal of one
  record per save (200 records with captured originals). The whole computation, in process:
  reading the transcript and the journal, reconstructing every file's content across the turns,
  matching the journal's digests. Target median ≤ 300 ms. Baseline: reading the transcript
  alone (``read_session``), measured in the same run; the ratio is reported.
  Reported beside it in the details: the same on a transcript already read (what the Changes
  tab pays, the document holding the tree) and the whole process (``rho-desk changes PATH
  --json``, interpreter start and every change's diff for the line counts included).
"""

from __future__ import annotations

import asyncio
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from rho_desk.benchkit import BenchResult, benchmark, measure
from rho_desk.core.changes import (
    CheckpointOutcome,
    CheckpointRecorder,
    changes_of_session,
    session_changes,
)
from rho_desk.core.stores.rho_files import create_session, read_session
from rho_desk.core.tools.text import file_hash, numbered_view
from rho_desk.core.wire import (
    AssistantMessage,
    ContentBlock,
    Message,
    ModelIdentity,
    SessionSnapshot,
)

PROVIDER = ModelIdentity("openai", "responses", "gpt-5")
TURNS = 10_000
BATCH = 50


def _file(i: int, version: int) -> str:
    return "".join(f"def f_{i}_{k}():\n    return {k * version}\n" for k in range(20))


def _turn(rng: random.Random, i: int, known: dict[str, str]) -> tuple[Message, ...]:
    path = f"src/mod_{i % 50}.py"
    kind = i % 4
    cid = f"c{i}"

    def asst(*blocks: ContentBlock) -> Message:
        return Message.enriched(AssistantMessage(content=blocks, provenance=PROVIDER))

    if kind == 0 or path not in known:
        content = _file(i, rng.randint(1, 9))
        known[path] = content
        call, result = (
            ContentBlock.of_tool_call(cid, "write", {"path": path, "content": content}),
            f"wrote {path}",
        )
    elif kind == 1:
        old = known[path]
        new = old.replace("    return", "    return  1 +", 1)
        known[path] = new
        document = f"[{path}#{file_hash(old)}]\nPUT 2:\n+{new.splitlines()[1]}\n"
        call, result = ContentBlock.of_tool_call(cid, "edit", {"input": document}), "ok"
    elif kind == 2:
        text = known[path]
        call, result = (
            ContentBlock.of_tool_call(cid, "read_file", {"path": path}),
            numbered_view(f"[{path}#{file_hash(text)}]", text, None, None),
        )
    else:
        call, result = (
            ContentBlock.of_tool_call(
                cid, "bash", {"command": f"pytest tests/test_{i % 31}.py -q"}
            ),
            "12 passed",
        )
    return (
        Message.user_text(f"step {i}: please change {path}"),
        asst(ContentBlock.of_text("On it."), call),
        Message.result(cid, True, result),
        asst(ContentBlock.of_text("Done.")),
    )


def make_session(root: Path) -> tuple[Path, Path]:
    """The 10,000-turn session (and its workspace), with a journal record per save."""
    rng = random.Random(11)
    workspace = root / "workspace"
    (workspace / "src").mkdir(parents=True)
    sid = "c4a1e0b2-0000-4000-8000-000000010000"
    known: dict[str, str] = {}
    history: tuple[Message, ...] = (Message.system_text("You are a coding agent."),)
    clock = iter(range(1_790_000_000, 1_800_000_000, 30)).__next__
    writer = None
    recorder = CheckpointRecorder()
    for revision, start in enumerate(range(0, TURNS, BATCH), start=1):
        for i in range(start, start + BATCH):
            history = history + _turn(rng, i, known)
        snapshot = SessionSnapshot.new(sid, revision, history, PROVIDER)
        if writer is None:
            writer = create_session(
                root / "home", str(workspace), snapshot, clock=clock, take_lease=False
            )
        else:
            writer.save(snapshot)
        # the journal: the last file of the batch, as a continued turn would have recorded it
        leaf = writer.tree.active_leaf
        assert leaf is not None
        target = workspace / f"src/mod_{(start + BATCH - 1) % 50}.py"
        recorder.begin_turn(writer.path, sid, revision)
        asyncio.run(recorder.before_mutation([target]))
        target.write_text(
            known[f"src/mod_{(start + BATCH - 1) % 50}.py"] + f"# saved with revision {revision}\n"
        )
        asyncio.run(recorder.after_mutation([target]))
        recorder.bind(leaf.id, leaf.revision)
        recorder.end_turn(CheckpointOutcome.COMPLETED)
    assert writer is not None
    writer.close()
    return writer.path, workspace


@benchmark("changes.session_10k_turns")
def changes_10k(quick: bool) -> BenchResult:
    root = Path(tempfile.mkdtemp(prefix="rho-bench-changes-"))
    try:
        path, _workspace = make_session(root)
        repeat = 3 if quick else 7
        baseline = measure(lambda: read_session(path), repeat=repeat)
        samples = measure(lambda: session_changes(path), repeat=repeat)
        changes = session_changes(path)
        session = read_session(path)
        loaded = measure(lambda: changes_of_session(session.tree, session.path), repeat=repeat)
        started = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "rho_desk", "changes", str(path), "--json"],
            capture_output=True,
            timeout=120,
        )
        process_ms = (time.perf_counter() - started) * 1000
        base = sorted(baseline)[len(baseline) // 2]
        median = sorted(samples)[len(samples) // 2]
        return BenchResult(
            "changes.session_10k_turns",
            "ms",
            samples,
            "median ≤ 300 ms in process (transcript + journal + reconstruction)",
            median <= 300,
            baseline=base,
            ratio=median / base if base else None,
            details={
                "turns": changes.turn_count,
                "turns_with_changes": len(changes.turns),
                "files": len(changes.files()),
                "journal_records": sum(1 for t in changes.turns if t.outcome is not None),
                "file_bytes": path.stat().st_size,
                "on_a_read_tree_ms": round(sorted(loaded)[len(loaded) // 2], 1),
                "whole_process_ms": round(process_ms, 1),
                "whole_process_exit": done.returncode,
            },
        )
    finally:
        shutil.rmtree(root, ignore_errors=True)
