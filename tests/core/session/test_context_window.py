"""The engine never sends a request larger than the provider's known context window."""

from __future__ import annotations

import pytest

from rho_desk.core.compaction.api import CompactionPolicy
from rho_desk.core.compaction.tokens import estimate_context_tokens
from rho_desk.core.errors import ContextWindowExceeded
from rho_desk.core.session import SessionOptions
from rho_desk.core.session import events as ev
from rho_desk.core.testing import ScriptedCompactor, ScriptedProvider, ScriptedTurn
from rho_desk.core.wire.model import Message

from .conftest import build, collect, names, of_type

pytestmark = pytest.mark.asyncio

OLD = tuple(Message.user_text(f"an older message number {i} " * 20) for i in range(6))
PROMPT = "continue, please"
SUMMARY = (Message.system_text("summary"), Message.user_text(PROMPT))


def _request_tokens() -> int:
    return estimate_context_tokens([*OLD, Message.user_text(PROMPT)], [])


async def test_a_request_over_the_window_is_never_sent_and_says_by_how_much() -> None:
    provider = ScriptedProvider([ScriptedTurn.completed("never")])
    window = _request_tokens() - 100
    provider.context_window = window
    session = build(provider).session(SessionOptions(history=OLD))
    run = session.start(PROMPT)
    events = await collect(run)
    with pytest.raises(ContextWindowExceeded) as caught:
        await run.outcome()
    assert provider.requests == []  # nothing reached the provider
    assert (
        session.history == OLD and session.revision == 0
    )  # the seed: a fatal error commits nothing
    assert (caught.value.tokens, caught.value.window) == (window + 100, window)
    assert (
        f"tokens (estimated), 100 over the model's {window:,}-token context window"
        in caught.value.text()
    )
    failed = of_type(events, ev.Failed)[0]
    assert "100 over" in failed.message


async def test_a_server_that_counts_tokens_calibrates_the_window_check_and_it_is_said() -> None:
    """The provider counts the request's text at twice the estimate (a small model's tokenizer):
    the estimate that fitted no longer fits, and the refusal says the count was calibrated."""
    provider = ScriptedProvider([ScriptedTurn.completed("never")])
    provider.context_window = _request_tokens() + 100  # fits the plain estimate

    async def counted(text: str) -> int:
        return len(text) // 2  # twice the estimate's four characters a token

    provider.count_tokens = counted  # type: ignore[method-assign]
    session = build(provider).session(SessionOptions(history=OLD))
    run = session.start(PROMPT)
    events = await collect(run)
    with pytest.raises(ContextWindowExceeded) as caught:
        await run.outcome()
    assert provider.requests == [] and caught.value.calibrated
    assert caught.value.tokens > 1.5 * _request_tokens()
    assert "tokens (estimated, calibrated by the server's token count), " in caught.value.text()
    assert "calibrated" in of_type(events, ev.Failed)[0].message


async def test_automatic_compaction_runs_first_when_it_is_configured() -> None:
    provider = ScriptedProvider([ScriptedTurn.completed("answer")])
    provider.context_window = _request_tokens() - 100
    compactor = ScriptedCompactor([SUMMARY])
    # The policy's own trigger is far away: only the window makes it compact.
    policy = CompactionPolicy.after_messages(1_000)
    session = build(provider, compactor=compactor, policy=policy).session(
        SessionOptions(history=OLD)
    )
    run = session.start(PROMPT)
    events = await collect(run)
    outcome = await run.outcome()
    assert names(events)[:4] == [
        "Started",
        "CompactionStarted",
        "CompactionCompleted",
        "StepStarted",
    ]
    assert len(compactor.requests) == 1 and len(provider.requests) == 1
    assert provider.requests[0].messages == SUMMARY
    assert outcome.revision == 2  # the compaction, then the turn


async def test_still_too_large_after_compaction_fails_before_sending() -> None:
    provider = ScriptedProvider([ScriptedTurn.completed("never")])
    provider.context_window = 5
    compactor = ScriptedCompactor([SUMMARY])
    session = build(
        provider, compactor=compactor, policy=CompactionPolicy.after_messages(1_000)
    ).session(SessionOptions(history=OLD))
    run = session.start(PROMPT)
    await collect(run)
    with pytest.raises(ContextWindowExceeded):
        await run.outcome()
    assert provider.requests == [] and len(compactor.requests) == 1
    # the compaction committed on its own (as automatic compactions do); the turn did not
    assert session.revision == 1 and session.history == SUMMARY


async def test_a_request_that_fits_is_untouched() -> None:
    provider = ScriptedProvider([ScriptedTurn.completed("answer")])
    provider.context_window = _request_tokens()
    session = build(provider).session(SessionOptions(history=OLD))
    run = session.start(PROMPT)
    await collect(run)
    assert (await run.outcome()).revision == 1 and len(provider.requests) == 1
