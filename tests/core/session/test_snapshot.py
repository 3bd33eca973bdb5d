"""``Session.snapshot()``: what a snapshot holds, and what the seed says it never holds."""

from __future__ import annotations

import pytest

from rho_desk.core.compaction.api import CompactionPolicy
from rho_desk.core.errors import Cancelled
from rho_desk.core.provider import ModelProvider, OutputDelta, ReasoningDelta
from rho_desk.core.session import SessionOptions
from rho_desk.core.session import events as ev
from rho_desk.core.testing import (
    ScriptedCompactor,
    ScriptedProvider,
    ScriptedTool,
    ScriptedTurn,
    tool_call_response,
)
from rho_desk.core.wire.codec import decode_snapshot, encode, encode_pretty
from rho_desk.core.wire.model import (
    AbortedAssistant,
    Message,
    ModelIdentity,
    ModelUsage,
)
from rho_desk.core.wire.snapshot import SessionSnapshot

from .conftest import build

SECRET = "sk-live-THIS-MUST-NEVER-LEAK-0123456789"
RAW_REASONING = "private chain of thought 42"


class SecretHoldingProvider(ScriptedProvider):
    """A provider holding a credential, the way a real adapter does."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self._api_key = SECRET
        self.headers = {"Authorization": f"Bearer {SECRET}"}
        self.endpoint = "https://api.example.test/v1"


@pytest.mark.asyncio
async def test_a_snapshot_never_holds_what_the_seed_excludes() -> None:
    provider = SecretHoldingProvider(
        [
            ScriptedTurn.streaming(
                [ReasoningDelta(RAW_REASONING)], tool_call_response(("c1", "tool", {}))
            ),
            ScriptedTurn.streaming([ReasoningDelta(RAW_REASONING)], "done"),
            ScriptedTurn.pending([OutputDelta("partial"), ReasoningDelta(RAW_REASONING)]),
        ]
    )
    tool = ScriptedTool("tool", "tool output")
    compactor = ScriptedCompactor()
    rho = build(
        provider, tools=[tool], compactor=compactor, policy=CompactionPolicy.after_messages(1000)
    )
    session = rho.session(SessionOptions(prompt_cache_key="cache-key"))
    await session.complete("first")
    run = session.start("second")
    async for event in run:
        if isinstance(event, ev.ReasoningDelta):
            run.cancel()
    with pytest.raises(Cancelled):
        await run.outcome()
    # a host may put raw reasoning into history directly; the snapshot still clears it
    session.append_message(
        Message.aborted(
            AbortedAssistant(content=(), reasoning=RAW_REASONING, tool_calls=(), usage=ModelUsage())
        )
    )
    snapshot = session.snapshot()
    for data in (encode(snapshot), encode_pretty(snapshot)):
        text = data.decode()
        assert SECRET not in text and "Bearer" not in text and "api.example.test" not in text
        assert RAW_REASONING not in text
        assert (
            "ScriptedCompactor" not in text
            and "after_messages" not in text
            and "tool output" in text
        )
    # the structure has no place for run state, tools, compactor or policy
    assert set(SessionSnapshot.__struct_fields__) == {
        "schema_version",
        "session_id",
        "revision",
        "history",
        "provider",
        "compaction",
        "metadata",
        "prompt_cache_key",
    }
    assert all(
        m.aborted_assistant is None or m.aborted_assistant.reasoning == "" for m in snapshot.history
    )
    assert RAW_REASONING in repr(session.history)  # in-memory history is not sanitized (spec §13.4)


def test_snapshot_fields_come_from_the_session() -> None:
    identity = ModelIdentity("p", "a", "m")
    history = (Message.user_text("hi"),)
    session = build(ScriptedProvider(identity=identity)).session(
        SessionOptions(
            id="sid",
            history=history,
            revision=9,
            metadata={"b": "2", "a": "1"},
            prompt_cache_key="k",
        )
    )
    snapshot = session.snapshot()
    assert snapshot == SessionSnapshot.new(
        "sid", 9, history, identity, metadata={"a": "1", "b": "2"}, prompt_cache_key="k"
    )
    assert decode_snapshot(encode_pretty(snapshot)) == snapshot
    assert encode(snapshot).startswith(b'{"schema_version":2,"session_id":"sid","revision":9,')


def test_a_snapshot_does_not_share_metadata_with_the_session() -> None:
    session = build().session(SessionOptions(metadata={"k": "v"}))
    snapshot = session.snapshot()
    snapshot.metadata["k"] = "changed"  # a careless host
    assert session.metadata == {"k": "v"}


def test_repr_of_a_provider_session_and_run_state_hold_no_secret() -> None:
    provider = SecretHoldingProvider()
    assert isinstance(provider, ModelProvider)
    session = build(provider).session()
    for text in (repr(provider), repr(session), repr(session.snapshot())):
        assert SECRET not in text
