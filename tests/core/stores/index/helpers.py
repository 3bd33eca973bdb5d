"""Hand-built summaries and Rho homes for the index and library tests."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

from rho_desk.core.stores.index import stat_transcript
from rho_desk.core.stores.summary import SessionSummary


def fake_key(cwd: str) -> str:
    """A stand-in workspace-key function for unit tests (deterministic, collision-free here)."""
    return "ws" + cwd.replace("/", "-")


def make_summary(
    *,
    cwd: str = "/home/alice/proj",
    id: str = "s1",
    path: str = "/nowhere/session.jsonl",
    key_of=fake_key,
    **overrides: object,
) -> SessionSummary:
    values: dict[str, object] = dict(
        workspace_key=key_of(cwd),
        cwd=cwd,
        id=id,
        path=path,
        created_at=100,
        updated_at=200,
        message_count=2,
        first_user_message="hello there",
        last_user_message="and again",
        file_size=10,
        file_mtime=200,
        node_count=1,
        branch_count=0,
        active_leaf_id="N1",
        effective_format_version=4,
    )
    values.update(overrides)
    return SessionSummary(**values)  # type: ignore[arg-type]


def write_unit(
    sessions_root: Path,
    cwd: str,
    session_id: str,
    *,
    body: str = "x\n",
    created: int = 100,
    key_of=fake_key,
    mtime: int | None = None,
) -> Path:
    """A folder-layout unit ``sessions/<key>/<created>_<id>/session.jsonl`` with ``body``."""
    folder = sessions_root / key_of(cwd) / f"{created}_{session_id}"
    folder.mkdir(parents=True, exist_ok=True)
    transcript = folder / "session.jsonl"
    transcript.write_text(body)
    if mtime is not None:
        os.utime(transcript, (mtime, mtime))
    return transcript


def summary_for(
    transcript: Path, cwd: str, session_id: str, key_of=fake_key, **overrides: object
) -> SessionSummary:
    """A summary of ``transcript`` whose stat fields match the file now."""
    stat = stat_transcript(transcript)
    assert stat is not None
    base = make_summary(
        cwd=cwd,
        id=session_id,
        path=str(transcript),
        key_of=key_of,
        file_size=stat[0],
        file_mtime=stat[1],
    )
    return replace(base, **overrides) if overrides else base
