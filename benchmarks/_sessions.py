"""Synthetic Rho sessions for the benchmarks: realistic turns written by our own writer.

A turn is about eight messages: a prompt, two tool calls (a file read and a test run) with their
results, and an answer. ``make_session`` writes a v3 session (one snapshot, then deltas of 50
turns, or of ``turns_per_revision``: Rho itself saves a revision per turn) of about the asked
number of messages; ``make_library`` writes many small ones around it. Shared by ``bench_gui`` and ``bench_actions``; the
bench harness puts this folder on ``sys.path``.
"""

from __future__ import annotations

import random
from pathlib import Path

from rho_desk.core.stores.rho_files import create_session
from rho_desk.core.wire import (
    AssistantMessage,
    ContentBlock,
    Message,
    ModelIdentity,
    SessionSnapshot,
)

__all__ = ["PROVIDER", "make_library", "make_session", "text", "turn"]

PROVIDER = ModelIdentity("openai", "responses", "gpt-5")
_WORDS = (
    "the",
    "test",
    "fails",
    "because",
    "handler",
    "clock",
    "event",
    "payment",
    "refund",
    "webhook",
    "tolerance",
    "fixture",
    "database",
    "migration",
    "query",
    "index",
    "session",
    "value",
    "error",
    "retry",
    "timeout",
    "config",
    "module",
    "function",
    "returns",
    "None",
    "instead",
    "of",
    "a",
    "list",
)
_FILE = "".join(f"    line_{i} = compute({i}, factor=2)  # keep\n" for i in range(40))


def text(rng: random.Random, mean: int) -> str:
    return " ".join(rng.choices(_WORDS, k=max(1, int(rng.expovariate(1 / mean)))))


def turn(rng: random.Random, i: int, file_chars: int = len(_FILE)) -> tuple[Message, ...]:
    """About 8 messages: a prompt, two tool calls with file contents / command output, an answer.

    ``file_chars``: the longest file content a read returns (at least 200 characters).
    """
    out: list[Message] = [Message.user_text(text(rng, 30))]
    for k in range(2):
        cid = f"call_{i}_{k}"
        name, args, result = (
            (
                "read_file",
                {"path": f"src/mod_{i % 97}.py"},
                _FILE[: rng.randint(200, max(200, file_chars))],
            )
            if k == 0
            else (
                "bash",
                {"command": f"pytest tests/test_{i % 31}.py -q"},
                f"{'.' * rng.randint(5, 60)}\n{rng.randint(5, 60)} passed in 0.{rng.randint(10, 99)}s",
            )
        )
        out.append(
            Message.enriched(
                AssistantMessage(
                    content=(
                        ContentBlock.of_text(text(rng, 12)),
                        ContentBlock.of_tool_call(cid, name, args),
                    ),
                    provenance=PROVIDER,
                )
            )
        )
        out.append(Message.result(cid, True, result))
    out.append(
        Message.enriched(
            AssistantMessage(content=(ContentBlock.of_text(text(rng, 60)),), provenance=PROVIDER)
        )
    )
    return tuple(out)


def make_session(
    home: Path,
    messages: int,
    *,
    seed: int = 7,
    file_chars: int = len(_FILE),
    turns_per_revision: int = 50,
    cwd: str | None = None,
    sid: str | None = None,
) -> Path:
    """A v3 session of about ``messages`` messages, written by our writer (a delta revision per
    ``turns_per_revision`` turns).

    With the default ``file_chars`` 100k messages make an 86 MB file; ``file_chars=200`` makes
    the same number of messages in about 61 MB (more messages per byte); with
    ``turns_per_revision=2`` (Rho-shaped: thousands of delta revisions) about 64 MB.
    """
    rng = random.Random(seed)
    sid = sid or f"bench{messages:07d}-0000-4000-8000-{turns_per_revision:012d}"
    history: tuple[Message, ...] = (
        Message.system_text("You are a coding agent. " * 40),
        *turn(rng, 0, file_chars),
    )
    clock = iter(range(1_790_000_000, 1_800_000_000, 30)).__next__
    writer = create_session(
        home,
        cwd or f"/bench/{messages}",
        SessionSnapshot.new(sid, 1, history, PROVIDER),
        clock=clock,
        take_lease=False,
    )
    try:
        revision, i = 1, 1
        while len(history) < messages:
            batch: tuple[Message, ...] = ()
            for _ in range(turns_per_revision):
                batch += turn(rng, i, file_chars)
                i += 1
            history = history + batch
            revision += 1
            writer.save(SessionSnapshot.new(sid, revision, history, PROVIDER))
        return writer.path
    finally:
        writer.close()


def make_library(home: Path, sessions: int, *, messages: int = 160, seed: int = 11) -> list[Path]:
    """``sessions`` small sessions (a revision per turn) spread over ten workspaces of ``home``."""
    paths = []
    for n in range(sessions):
        paths.append(
            make_session(
                home,
                messages,
                seed=seed + n,
                file_chars=400,
                turns_per_revision=1,
                cwd=f"/work/project-{n % 10}",
                sid=f"lib{n:05d}00-0000-4000-8000-000000000000",
            )
        )
    return paths
