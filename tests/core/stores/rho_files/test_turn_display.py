"""The display history keeps every prompt through automatic and manual compaction (v3 and v4 files).

A continued turn that triggers an automatic compaction (after 8 messages, keep 4) is saved the
way the app saves it: the compaction's committed snapshot with its outcome, then the turn's
commit. The file is then read back from disk and shown by ``rho-desk show``: the prompt must
be there, in the display history, not only in the model history.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from rho_desk.core.compaction import CompactionPolicy
from rho_desk.core.compaction.local import LocalCompactor, RecentBudget
from rho_desk.core.compaction.manual import ManualCompaction, save_compaction
from rho_desk.core.session import Rho, SessionOptions, events
from rho_desk.core.stores.rho_files import SessionWriter, create_session, read_session
from rho_desk.core.stores.rho_files.views import user_text
from rho_desk.core.testing import ScriptedCompactor, ScriptedProvider, ScriptedTurn
from rho_desk.core.wire import Message, ModelIdentity, SessionSnapshot

from ....cli.helpers_files import rho_desk
from .helpers import v4_simple

PROMPT = "please rename the parser module"
SID = "11111111-1111-4111-8111-111111111111"


def v3_session(tmp_path: Path) -> Path:
    history = tuple(
        Message.user_text(f"u{i}") if i % 2 == 0 else Message.assistant_text(f"a{i}")
        for i in range(8)
    )
    snapshot = SessionSnapshot.new(SID, 1, history, ModelIdentity("p", "a", "m"))
    with create_session(tmp_path / "home", "/work/proj", snapshot, created=1767225600) as writer:
        return writer.path


def v4_session(tmp_path: Path) -> Path:
    path = tmp_path / "v4.jsonl"
    path.write_bytes(v4_simple(4))  # 8 messages
    return path


async def continue_once(path: Path, prompt: str, *, compacts: bool = True) -> None:
    """One continued turn with automatic compaction on, saved as the app saves it."""
    with SessionWriter(read_session(path)) as writer:
        state = writer.tree.snapshot()
        provider = ScriptedProvider([ScriptedTurn.completed("renamed it")])
        rho = Rho.builder().provider(provider).build()
        session = rho.session(SessionOptions.from_snapshot(state))
        session.set_compaction(
            LocalCompactor(RecentBudget(max_tokens=None, max_messages=4)),
            CompactionPolicy.after_messages(8),
        )
        run = session.start(prompt)
        compacted = False
        async for event in run:
            if isinstance(event, events.CompactionCompleted):
                assert event.outcome.committed_snapshot is not None
                await asyncio.to_thread(
                    writer.save, event.outcome.committed_snapshot, outcome=event.outcome
                )
                compacted = True
            elif isinstance(event, events.Completed):
                await asyncio.to_thread(writer.save, session.snapshot())
        await run.outcome()
        assert compacted is compacts


def shown_prompts(path: Path) -> list[str]:
    tree = read_session(path).tree
    return [t for t in (user_text(e.message) for e in tree.display(markers=False)) if t]


@pytest.mark.parametrize("make", [v3_session, v4_session], ids=["v3", "v4"])
def test_automatic_compaction_keeps_the_prompt_in_the_saved_display(
    tmp_path: Path, make: object
) -> None:
    path = make(tmp_path)  # type: ignore[operator]
    before = shown_prompts(path)
    asyncio.run(continue_once(path, PROMPT))

    tree = read_session(path).tree  # from the file, not from memory
    assert PROMPT in shown_prompts(path)
    assert shown_prompts(path) == [*before, PROMPT]
    leaf = tree.active_leaf
    assert leaf is not None and leaf.compaction.completed_compactions == 1
    # the display keeps the prompt once, and the reply after the compaction marker
    texts = [e.message.text() for e in tree.display()]
    assert texts.count(PROMPT) == 1
    assert texts.index(PROMPT) < next(
        i for i, t in enumerate(texts) if t.startswith("◆ Compacted context")
    )
    assert texts[-1] == "renamed it"

    shown = rho_desk("show", path, "--display")
    assert shown.returncode == 0, shown.stderr
    assert PROMPT in shown.stdout


@pytest.mark.parametrize("make", [v3_session, v4_session], ids=["v3", "v4"])
def test_manual_compaction_then_a_turn_keeps_every_prompt(tmp_path: Path, make: object) -> None:
    path = make(tmp_path)  # type: ignore[operator]
    before = shown_prompts(path)

    async def compact() -> None:
        with SessionWriter(read_session(path)) as writer:
            leaf = writer.tree.active_leaf
            assert leaf is not None
            state = writer.tree.snapshot(leaf, trim=False, prompt_cache_key=None)
            compactor = ScriptedCompactor([(Message.user_text("summary"), *state.history[-2:])])
            result = await ManualCompaction(state, compactor).run()
            save_compaction(writer, leaf.id, result)

    asyncio.run(compact())
    assert (
        shown_prompts(path) == before
    )  # a compaction adds nothing the user saw, and drops nothing
    asyncio.run(continue_once(path, PROMPT, compacts=False))
    assert shown_prompts(path) == [*before, PROMPT]
