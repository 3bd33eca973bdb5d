"""Writer processes driven by the crash and two-writer tests (run as scripts, not collected).

``crash PATH TOTAL``: open the session and save revisions until TOTAL, printing ``saving N``
before and ``saved N`` after each save (the parent kills it at random moments).

``race PATH NAME``: a command loop on stdin: ``load`` re-reads the session, ``save`` appends one
revision and answers ``ok`` or ``conflict``, ``quit`` ends.
"""

from __future__ import annotations

import sys
import time

from rho_desk.core.errors import RevisionConflict
from rho_desk.core.stores.rho_files import SessionWriter, read_session
from rho_desk.core.wire import Message, ModelIdentity, SessionSnapshot

SESSION_ID = "c0ffee00-0000-4000-8000-000000000001"
PROVIDER = ModelIdentity("crash", "test", "model")
COMPACT_EVERY = 25


def first_snapshot() -> SessionSnapshot:
    return SessionSnapshot.new(SESSION_ID, 0, [Message.system_text("system prompt")], PROVIDER)


def next_snapshot(previous: SessionSnapshot) -> SessionSnapshot:
    """Revision n+1: a turn (two messages) appended, or every 25th revision a compaction."""
    revision = previous.revision + 1
    if revision % COMPACT_EVERY == 0:
        state = previous.compaction.record(
            previous_messages=len(previous.history),
            current_messages=2,
            previous_tokens=len(previous.history) * 5,
            current_tokens=10,
            cost_usd_micros=None,
            revision=revision,
        )
        history = (previous.history[0], Message.user_text(f"summary at {revision}"))
        return previous.replace(revision=revision, history=history, compaction=state)
    turn = (
        Message.user_text(f"question {revision}"),
        Message.assistant_text(f"answer {revision} " + "x" * 200),
    )
    return previous.replace(revision=revision, history=previous.history + turn)


def expected(revision: int) -> SessionSnapshot:
    snapshot = first_snapshot()
    while snapshot.revision < revision:
        snapshot = next_snapshot(snapshot)
    return snapshot


def crash(path: str, total: int) -> None:
    writer = SessionWriter(read_session(path))
    snapshot = writer.tree.snapshot(prompt_cache_key=None)
    print("ready", flush=True)
    while snapshot.revision < total:
        snapshot = next_snapshot(snapshot)
        print(f"saving {snapshot.revision}", flush=True)
        writer.save(snapshot)
        print(f"saved {snapshot.revision}", flush=True)
        time.sleep(0.001)


def race(path: str, name: str) -> None:
    writer: SessionWriter | None = None
    for command in sys.stdin:
        command = command.strip()
        if command == "load":
            if writer is not None:
                writer.close()
            writer = SessionWriter(read_session(path))
            print("loaded", flush=True)
        elif command == "save":
            assert writer is not None
            snapshot = writer.tree.snapshot()
            mine = snapshot.replace(
                revision=snapshot.revision + 1,
                history=snapshot.history + (Message.user_text(f"from {name} " + "y" * 5000),),
            )
            try:
                writer.save(mine)
                print("ok", flush=True)
            except RevisionConflict:
                print("conflict", flush=True)
        elif command == "quit":
            return


if __name__ == "__main__":
    if sys.argv[1] == "crash":
        crash(sys.argv[2], int(sys.argv[3]))
    elif sys.argv[1] == "race":
        race(sys.argv[2], sys.argv[3])
    else:
        raise SystemExit(f"unknown mode {sys.argv[1]!r}")
