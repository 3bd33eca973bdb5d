"""Builders of session files for GUI tests: v3 files through our writer, v4 trees record by record."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from rho_desk.core.stores.rho_files import SessionWriter, create_session, read_session
from rho_desk.core.stores.rho_files.layout import workspace_dir
from rho_desk.core.stores.rho_files.records import (
    CompactionFacts,
    DeltaTransition,
    HeaderRecord,
    NodeKind,
    NodeRecord,
    SetLeafRecord,
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

PROVIDER = ModelIdentity("openai", "responses", "gpt-5")


def turn(i: int, text: str = "") -> tuple[Message, ...]:
    """A user prompt, one tool call with its result, an answer."""
    call = f"call_{i}"
    return (
        Message.user_text(text or f"prompt {i}"),
        Message(
            enriched_assistant=AssistantMessage(
                content=(ContentBlock.of_tool_call(call, "read_file", {"path": f"src/f{i}.py"}),),
                provenance=PROVIDER,
            )
        ),
        Message.result(call, True, f"contents of f{i}\nline 2"),
        Message.enriched(
            AssistantMessage(content=(ContentBlock.of_text(f"answer {i}"),), provenance=PROVIDER)
        ),
    )


def v3_session(
    home: Path, turns: int = 3, *, cwd: str = "/work/demo", session_id: str | None = None
) -> Path:
    """A version-3 session written by our writer: one snapshot, then one delta per turn."""
    sid = session_id or str(uuid.uuid4())
    history: tuple[Message, ...] = (Message.system_text("You are a coding agent."), *turn(0))
    clock = iter(range(1_767_000_000, 1_767_000_000 + 10_000)).__next__
    writer = create_session(
        home, cwd, SessionSnapshot.new(sid, 1, history, PROVIDER), clock=clock, take_lease=False
    )
    try:
        for i in range(1, turns):
            history = history + turn(i)
            writer.save(SessionSnapshot.new(sid, i + 1, history, PROVIDER))
        return writer.path
    finally:
        writer.close()


def append_turn(path: Path) -> None:
    """Another program's save: one more turn appended to the transcript at ``path``."""
    writer = SessionWriter(read_session(path), take_lease=False)
    try:
        snap = writer.tree.snapshot(prompt_cache_key=None, trim=False)
        writer.save(
            SessionSnapshot.new(
                snap.session_id, snap.revision + 1, snap.history + turn(99), PROVIDER
            )
        )
    finally:
        writer.close()


def _shown(ts: str, messages: Sequence[Message]) -> tuple[StoredDisplayMessage, ...]:
    return tuple(StoredDisplayMessage(ts, m) for m in messages if m.system is None)


def v4_session(home: Path, *, cwd: str = "/work/tree", session_id: str | None = None) -> Path:
    """A version-4 tree: n0 -> n1 -> n2 (compaction) -> n3, and a branch n1 -> b1; leaf n3."""
    sid = session_id or str(uuid.uuid4())
    folder = workspace_dir(home, cwd) / f"1767100000_{sid}"
    folder.mkdir(parents=True)
    path = folder / "session.jsonl"
    zero = CompactionState(0, 0)
    h0 = (Message.system_text("system"), *turn(0))
    lines = [encode(HeaderRecord(4, sid, "1767100000", cwd))]
    lines.append(
        encode(
            NodeRecord(
                id="n0",
                timestamp="1767100001",
                kind=NodeKind.COMMIT,
                transition=SnapshotTransition(SessionSnapshot.new(sid, 1, h0, PROVIDER)),
                display_messages=_shown("1767100001", h0),
            )
        )
    )
    t1 = turn(1)
    lines.append(
        encode(
            NodeRecord(
                id="n1",
                parent_id="n0",
                timestamp="1767100002",
                kind=NodeKind.COMMIT,
                transition=DeltaTransition(StoredSnapshotDelta(1, sid, 2, t1, PROVIDER, zero, {})),
                display_messages=_shown("1767100002", t1),
            )
        )
    )
    h1 = h0 + t1
    kept = (h1[0], Message.user_text("Summary of the work so far."), *h1[-2:])
    compaction = zero.record(
        previous_messages=len(h1),
        current_messages=len(kept),
        previous_tokens=120,
        current_tokens=40,
        cost_usd_micros=1500,
        revision=3,
    )
    lines.append(
        encode(
            NodeRecord(
                id="n2",
                parent_id="n1",
                timestamp="1767100003",
                kind=NodeKind.COMPACTION,
                compaction_facts=CompactionFacts(len(h1), len(kept), 120, 40, 1500),
                transition=SnapshotTransition(
                    SessionSnapshot.new(sid, 3, kept, PROVIDER, compaction)
                ),
            )
        )
    )
    t3 = turn(3, "after compaction")
    lines.append(
        encode(
            NodeRecord(
                id="n3",
                parent_id="n2",
                timestamp="1767100004",
                kind=NodeKind.COMMIT,
                transition=DeltaTransition(
                    StoredSnapshotDelta(3, sid, 4, t3, PROVIDER, compaction, {})
                ),
                display_messages=_shown("1767100004", t3),
            )
        )
    )
    lines.append(encode(SetLeafRecord("1767100005", "n1")))
    tb = turn(9, "a different direction")
    lines.append(
        encode(
            NodeRecord(
                id="b1",
                parent_id="n1",
                timestamp="1767100006",
                kind=NodeKind.COMMIT,
                transition=DeltaTransition(StoredSnapshotDelta(2, sid, 5, tb, PROVIDER, zero, {})),
                display_messages=_shown("1767100006", tb),
            )
        )
    )
    lines.append(encode(SetLeafRecord("1767100007", "n3")))
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path


def dialog_pages(dialog: object, show: Callable[[], None], fallback: str) -> Iterator[str]:
    """Show each tab page of ``dialog`` in turn (``show`` lets the app settle), yielding its name;
    a dialog without tabs is one page named ``fallback``."""
    from PySide6.QtWidgets import QTabWidget, QWidget

    assert isinstance(dialog, QWidget)
    tabs = dialog.findChildren(QTabWidget)
    if not tabs:
        yield fallback
        return
    for tab in tabs:
        for index in range(tab.count()):
            tab.setCurrentIndex(index)
            show()
            yield tab.tabText(index).replace("&", "")


def turn_events(
    controller: Any, kind: type, pick: Callable[[Any], Any] = lambda event: event
) -> list[Any]:
    """The controller's turn events of ``kind`` from now on (each mapped by ``pick``), as they come."""
    seen: list[Any] = []

    def on(event: object) -> None:
        if isinstance(event, kind):
            seen.append(pick(event))

    controller.sig_turn_event.connect(on)
    return seen
