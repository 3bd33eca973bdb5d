"""Search quality: questions a person would ask ("the session that fixed X", "the session that
changed file Y") find their session among the first three hits, on the demo library and on a
generated one (``benchmarks/_memory_library.py``; ``rho-desk bench`` runs it at 10,000 sessions)."""

from __future__ import annotations

import contextlib
import shutil
import sys
from pathlib import Path

import pytest

from rho_desk.mcp._gate import Gate
from rho_desk.mcp._memory import Memory
from rho_desk.mcp._scope import Scope

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

from _memory_library import Question, demo_questions, generate, questions, write_library  # noqa: E402

pytestmark = pytest.mark.slow


def _top3(memory: Memory, asked: list[Question]) -> tuple[float, list[str]]:
    missed = []
    for q in asked:
        hits = [
            h["session_id"]
            for h in memory.call("search_sessions", {"query": q.text, "limit": 3})["results"]
        ]
        if not any(h.startswith(q.answer) for h in hits):
            missed.append(q.text)
    return 1 - len(missed) / len(asked), missed


def test_the_demo_questions(tmp_path: Path) -> None:
    shutil.copytree(ROOT / "resources" / "demo" / "home", tmp_path / "home")
    with contextlib.closing(
        Memory(
            Scope(tmp_path / "home", None),
            Gate(bytes(32)),
            gate_id="t",
            cache_dir=tmp_path / "cache",
        )
    ) as memory:
        memory.sync()
        share, missed = _top3(memory, demo_questions())
    assert share >= 0.9, missed


def test_the_generated_questions(tmp_path: Path) -> None:
    works = generate(400)
    write_library(tmp_path / "home", works)
    with contextlib.closing(
        Memory(
            Scope(tmp_path / "home", None),
            Gate(bytes(32)),
            gate_id="t",
            cache_dir=tmp_path / "cache",
        )
    ) as memory:
        memory.sync()
        share, missed = _top3(memory, questions(works))
    assert share >= 0.9, missed
