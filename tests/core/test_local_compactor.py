"""The local compactor: partitioning, the digest's content, preview, bounds over 300 compactions."""

from __future__ import annotations

import pytest

from rho_desk.core.cancellation import CancellationToken
from rho_desk.core.compaction import estimate_messages_tokens
from rho_desk.core.compaction.api import CompactionRequest
from rho_desk.core.compaction.local import (
    DIGEST_MARKER,
    SUMMARY_MARKER,
    Digest,
    LocalCompactor,
    RecentBudget,
    is_compaction_message,
    partition,
)
from rho_desk.core.errors import Cancelled
from rho_desk.core.provider import CancellationMode
from rho_desk.core.wire.model import (
    AbortedAssistant,
    AssistantMessage,
    ContentBlock,
    Message,
    ModelUsage,
    PartialToolCall,
)


def assistant(text: str = "", *calls: tuple[str, str, object]) -> Message:
    blocks = [ContentBlock(text=text)] if text else []
    blocks += [ContentBlock.of_tool_call(i, n, a) for i, n, a in calls]
    return Message.enriched(AssistantMessage(content=tuple(blocks)))


def tool_turn(n: int) -> list[Message]:
    """One user request answered with a tool call, its result and a final answer."""
    return [
        Message.user_text(
            f"request {n}: fix src/mod{n}.py, see https://docs.example.com/p{n}?sig=SECRET{n}"
        ),
        assistant(
            f"I'll read the file {n} first.", (f"c{n}", "read_file", {"path": f"src/mod{n}.py"})
        ),
        Message.result(f"c{n}", n % 3 != 0, f"contents {n}"),
        assistant(f"Done with {n}. Should I also update the tests for {n}?"),
    ]


def request(
    messages: list[Message] | tuple[Message, ...], token: CancellationToken | None = None
) -> CompactionRequest:
    return CompactionRequest(messages=tuple(messages), cancellation=token or CancellationToken())


# --- partitioning --------------------------------------------------------------------------


def test_partition_keeps_system_prompt_and_message_budget() -> None:
    history = [Message.system_text("sys"), *tool_turn(1), *tool_turn(2)]
    parts = partition(history, RecentBudget(max_tokens=None, max_messages=4))
    assert parts.system == (history[0],)
    assert parts.recent == tuple(history[5:])
    assert parts.older == tuple(history[1:5])


def test_partition_never_splits_a_call_from_its_results() -> None:
    history = [
        Message.user_text("go"),
        assistant("", ("a", "read", {"path": "x"}), ("b", "read", {"path": "y"})),
        Message.result("a", True, "X"),
        Message.result("b", True, "Y"),
        assistant("both read"),
    ]
    for keep in range(1, 5):
        parts = partition(history, RecentBudget(max_tokens=None, max_messages=keep))
        kept_calls = {c.id for m in parts.recent for c in m.tool_calls()}
        kept_results = {m.tool_result.id for m in parts.recent if m.tool_result is not None}
        assert kept_results <= kept_calls, keep
        assert parts.older + parts.recent == tuple(history)
    # 3 or 4 kept would start inside the results: the cut moves past them instead
    assert partition(history, RecentBudget(max_tokens=None, max_messages=3)).recent == (history[4],)


def test_partition_by_tokens() -> None:
    history = [Message.user_text("x" * 400) for _ in range(10)]  # 4 + 1 + 100 tokens each
    parts = partition(history, RecentBudget(max_tokens=320, max_messages=None))
    assert len(parts.recent) == 3
    assert estimate_messages_tokens(parts.recent) <= 320


def test_orphan_results_from_the_original_history_do_not_move_the_cut() -> None:
    history = [Message.user_text("a"), Message.result("ghost", True, "?"), Message.user_text("b")]
    assert partition(history, RecentBudget(max_tokens=None, max_messages=2)).recent == tuple(
        history[1:]
    )


def test_partition_keeps_last_group_even_when_it_exceeds_budget() -> None:
    # Rho's compaction.rs test of the same name: a one-token budget still keeps the newest
    # message (the assistant's 2,000 characters) and compacts only what precedes it.
    history = [
        Message.system_text("system"),
        Message.user_text("old"),
        Message.assistant_text("z" * 2000),
    ]
    parts = partition(history, RecentBudget(max_tokens=1, max_messages=None))
    assert parts.system == (history[0],)
    assert parts.older == (history[1],)
    assert parts.recent == (history[2],)
    # a message budget of 0 keeps the last group as well, and a call stays with its results
    turn = tool_turn(1)
    parts = partition(turn[:3], RecentBudget(max_tokens=None, max_messages=0))
    assert parts.older == (turn[0],) and parts.recent == tuple(turn[1:3])


def test_partition_skips_when_everything_fits_in_recent_tail() -> None:
    history = [
        Message.system_text("system"),
        Message.user_text("old user"),
        Message.assistant_text("old assistant"),
    ]
    assert not partition(history, RecentBudget(max_tokens=10_000, max_messages=None)).older
    # a single group is never compacted, whatever the budget
    assert not partition(history[:2], RecentBudget(max_tokens=1, max_messages=None)).older


def test_preview_refuses_a_compaction_that_does_not_shrink() -> None:
    # two tiny messages before a large last one: the digest is bigger than what it replaces
    history = [Message.user_text("a"), Message.assistant_text("b"), Message.user_text("c" * 4000)]
    preview = LocalCompactor(RecentBudget(max_tokens=1, max_messages=None)).preview(history)
    assert not preview.nothing_to_compact
    assert preview.current_tokens >= preview.previous_tokens
    assert not preview.shrinks
    reason = preview.refusal()
    assert reason is not None and "would not shrink" in reason
    assert (
        LocalCompactor(RecentBudget(max_tokens=None, max_messages=2)).preview(history[:2]).refusal()
        is not None
    )
    long_turns = [Message.assistant_text(f"answer {n} " + "x" * 2000) for n in range(6)]
    fine = LocalCompactor(RecentBudget(max_tokens=None, max_messages=2)).preview(long_turns)
    assert fine.shrinks and fine.refusal() is None


# --- the digest ----------------------------------------------------------------------------


def test_digest_is_faithful() -> None:
    aborted = AbortedAssistant(
        content=(ContentBlock(text="Writing the patch"),),
        reasoning="",
        tool_calls=(PartialToolCall(id="w1", name="apply_patch", arguments="*** Begin"),),
        usage=ModelUsage(),
    )
    patch = "*** Begin Patch\n*** Update File: src/lib.rs\n@@\n-a\n+b\n*** End Patch"
    history = [
        Message.system_text("You are Rho."),
        *tool_turn(1),
        Message.user_blocks(
            [ContentBlock(text="and this screenshot"), ContentBlock.of_image("aGk=", "image/png")]
        ),
        assistant(
            "We will switch to the async client instead.", ("p1", "apply_patch", {"patch": patch})
        ),
        Message.result("p1", False, "conflict"),
        Message.aborted(aborted),
        Message.user_text("latest question: why?"),
        assistant("Because."),
    ]
    compactor = LocalCompactor(RecentBudget(max_tokens=None, max_messages=1))
    preview = compactor.preview(history)
    assert preview.partition.system == (history[0],)
    assert preview.kept == (history[0], history[-1])
    text = preview.replacement_message.user[0].text  # type: ignore[index, union-attr]
    assert text.startswith(DIGEST_MARKER)
    assert "(9 messages)" in text
    assert (
        "- request 1: fix src/mod1.py, see https://docs.example.com/p1" in text
    )  # the user's words
    assert "SECRET1" not in text  # URL queries may be signed secrets: dropped
    assert "- and this screenshot (+1 image)" in text
    assert "## Most recent request\n> latest question: why?" in text
    assert "- src/mod1.py" in text and "- src/lib.rs" in text
    assert "- https://docs.example.com/p1" in text
    assert "- read_file ×1" in text and "- apply_patch ×1 (1 failed)" in text
    assert "- We will switch to the async client instead." in text
    assert "- I'll read the file 1 first." in text
    assert "- Should I also update the tests for 1?" in text
    assert "interrupted assistant turn (Writing the patch; partial tool calls: apply_patch)" in text
    parsed = Digest.parse(text)
    assert parsed is not None and parsed.render() == text  # the text form round-trips
    assert is_compaction_message(preview.replacement_message)  # type: ignore[arg-type]


def test_preview_token_figures_and_nothing_to_do() -> None:
    history = [Message.system_text("s"), *tool_turn(1), *tool_turn(2)]
    compactor = LocalCompactor(RecentBudget(max_tokens=None, max_messages=2))
    preview = compactor.preview(history)
    # the last two are [ToolResult, answer]; the result's call would go, so only the answer stays
    assert preview.previous_messages == 9 and preview.current_messages == 3
    assert preview.previous_tokens == estimate_messages_tokens(history)
    assert preview.current_tokens == estimate_messages_tokens(preview.replacement)
    assert preview.removed == tuple(history[1:8])
    assert preview.removed_tokens == max(preview.previous_tokens - preview.current_tokens, 0)
    small = LocalCompactor(RecentBudget(max_tokens=None, max_messages=50)).preview(history)
    assert small.nothing_to_compact and small.replacement == tuple(history)


def test_earlier_summary_is_kept_as_a_note() -> None:
    history = [Message.user_text(f"{SUMMARY_MARKER} The user is porting a parser."), *tool_turn(1)]
    preview = LocalCompactor(RecentBudget(max_tokens=None, max_messages=1)).preview(history)
    text = preview.replacement_message.user[0].text  # type: ignore[index, union-attr]
    assert "## Earlier summaries" in text and "The user is porting a parser." in text


# --- compacting ----------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_compact_returns_the_preview_replacement() -> None:
    history = [Message.system_text("s"), *tool_turn(1), *tool_turn(2)]
    compactor = LocalCompactor(RecentBudget(max_tokens=None, max_messages=4))
    output = await compactor.compact(request(history))
    assert output.messages == compactor.preview(history).replacement
    assert output.messages[0] == history[0] and output.messages[2:] == tuple(history[5:])
    assert output.usage.is_empty  # no model was paid for
    assert compactor.cancellation_mode is CancellationMode.COOPERATIVE


@pytest.mark.asyncio
async def test_compact_honours_cancellation() -> None:
    token = CancellationToken()
    token.cancel()
    with pytest.raises(Cancelled):
        await LocalCompactor().compact(request(tool_turn(1), token))


@pytest.mark.asyncio
async def test_300_compactions_stay_bounded_and_keep_accumulating() -> None:
    budget = RecentBudget(max_tokens=2000, max_messages=8)
    compactor = LocalCompactor(budget)
    history: tuple[Message, ...] = (Message.system_text("You are Rho."),)
    sizes: list[int] = []
    for n in range(300):
        history = (*history, *tool_turn(n))
        output = await compactor.compact(request(history))
        history = output.messages
        sizes.append(estimate_messages_tokens(history))
        assert len(history) <= 1 + 1 + budget.max_messages
        assert history[0] == Message.system_text("You are Rho.")
        assert sum(1 for m in history if is_compaction_message(m)) == (1 if n >= 2 else 0)
    # bounded: the size settles instead of growing with n
    assert max(sizes[100:]) <= max(sizes[:100]) * 1.5
    digest = Digest.parse(history[1].user[0].text)  # type: ignore[index]
    assert digest is not None
    # counts survive folding: every call before the kept window was counted once
    kept_calls = sum(1 for m in history[2:] for _ in m.tool_calls())
    assert digest.tools["read_file"][0] + kept_calls == 300
    assert digest.replaced_messages + len(history) - 2 == 1200
    assert len(digest.requests) == 12 and "request 29:" not in "".join(digest.requests)
    assert any("src/mod29" in f for f in digest.files)  # the newest files are listed


def test_budget_validation() -> None:
    with pytest.raises(ValueError):
        RecentBudget(max_tokens=None, max_messages=None)
    with pytest.raises(ValueError):
        RecentBudget(max_tokens=-1)


def test_compact_large_history() -> None:
    # 10k messages; how long it takes is the benchmarks' (compaction.local_preview_10k)
    history = [Message.system_text("s")] + [m for n in range(2500) for m in tool_turn(n)]
    preview = LocalCompactor().preview(history)
    assert preview.current_messages <= 26


def test_an_interrupted_replys_calls_touched_no_file() -> None:
    """N20: the digest listed app/middleware/idempotency.py and "write_file ×2" for a write the
    aborted turn streamed but never ran."""
    aborted = AbortedAssistant(
        content=(
            ContentBlock(text="Adding the middleware"),
            ContentBlock.of_tool_call(
                "w9", "write_file", {"path": "app/middleware/idempotency.py", "content": "x"}
            ),
        ),
        reasoning="",
        tool_calls=(
            PartialToolCall(id="w10", name="edit_file", arguments='{"path": "app/main.py"'),
        ),
        usage=ModelUsage(),
    )
    history = [
        Message.system_text("s"),
        *tool_turn(1),
        Message.aborted(aborted),
        Message.user_text("go on"),
        assistant("ok"),
    ]
    text = (
        LocalCompactor(RecentBudget(max_tokens=None, max_messages=1))
        .preview(history)
        .replacement_message.user[0]
        .text
    )  # type: ignore[index, union-attr]
    assert (
        "idempotency.py" not in text and "write_file" not in text.split("## Interrupted turns")[0]
    )
    assert (
        "interrupted assistant turn (Adding the middleware; partial tool calls: write_file, edit_file)"
        in text
    )
