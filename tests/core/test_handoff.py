"""Provider handoff (spec/engine.md §4): what may be replayed to which identity, and reports."""

from __future__ import annotations

from rho_desk.core.provider.handoff import (
    HandoffReport,
    prepare_assistant,
    report_message_omissions,
    report_omissions,
    strip_provider_context,
)
from rho_desk.core.wire.model import (
    PORTABLE_FALLBACK_KIND,
    AbortedAssistant,
    AssistantMessage,
    ContentBlock,
    Message,
    ModelIdentity,
    ModelUsage,
    ProviderContextBlock,
)

A = ModelIdentity("openai", "responses", "gpt-5")
B = ModelIdentity("anthropic", "anthropic-messages", "claude")
TEXT = (ContentBlock(text="answer"),)


def block(
    identity: ModelIdentity, kind: str = "reasoning", position: int | None = 0, data: object = None
) -> ProviderContextBlock:
    return ProviderContextBlock(
        identity=identity, kind=kind, position=position, data=data if data is not None else {"x": 1}
    )


def test_same_identity_replays_context_and_appends_nothing() -> None:
    message = AssistantMessage(
        content=TEXT, provenance=A, reasoning_summary="sum", provider_context=(block(A), block(B))
    )
    prepared = prepare_assistant(message.with_portable_fallback("fallback"), A)
    assert prepared.replay_context == (block(A),)
    assert prepared.content == TEXT


def test_other_identity_gets_the_fallback_before_the_summary() -> None:
    message = AssistantMessage(
        content=TEXT, provenance=A, reasoning_summary="sum", provider_context=(block(A),)
    )
    prepared = prepare_assistant(message.with_portable_fallback("portable notice"), B)
    assert prepared.replay_context == ()
    assert prepared.content == (*TEXT, ContentBlock(text="portable notice"))


def test_summary_is_wrapped_when_there_is_no_fallback_even_for_the_same_identity() -> None:
    message = AssistantMessage(content=TEXT, provenance=A, reasoning_summary="  checked  ")
    prepared = prepare_assistant(message, A)
    assert prepared.content == (
        *TEXT,
        ContentBlock(text="<reasoning_summary>\n  checked  \n</reasoning_summary>"),
    )


def test_blank_fallback_and_summary_append_nothing() -> None:
    message = AssistantMessage(content=TEXT, reasoning_summary="   ").with_portable_fallback(" \n")
    assert prepare_assistant(message, B).content == TEXT


def test_fallback_kind_with_a_position_is_an_ordinary_block() -> None:
    odd = block(A, kind=PORTABLE_FALLBACK_KIND, position=1, data="not a fallback")
    message = AssistantMessage(content=TEXT, provider_context=(odd,))
    assert prepare_assistant(message, A).replay_context == (odd,)
    assert message.portable_fallback_text() is None
    assert report_omissions([message], B) == HandoffReport(1, (PORTABLE_FALLBACK_KIND,))


def test_report_example_sorts_and_deduplicates_kinds() -> None:
    message = AssistantMessage(
        content=TEXT, provider_context=(block(A, "zeta"), block(A, "alpha"), block(A, "zeta", 2))
    )
    report = report_omissions([message], B)
    assert report == HandoffReport(3, ("alpha", "zeta")) and report.has_omissions()
    assert not report_omissions([message], A).has_omissions()


def test_fallback_blocks_are_never_counted() -> None:
    message = AssistantMessage(content=TEXT, provenance=A).with_portable_fallback("notice")
    assert report_omissions([message], B) == HandoffReport(0, ())


def test_message_report_covers_enriched_and_aborted_assistants_only() -> None:
    aborted = AbortedAssistant(
        content=(),
        reasoning="",
        provider_context=(block(A, "signed"),),
        tool_calls=(),
        usage=ModelUsage(),
    )
    history = [
        Message.user_text("q"),
        Message.enriched(AssistantMessage(content=TEXT, provider_context=(block(A, "enc"),))),
        Message.aborted(aborted),
        Message.assistant_text("legacy"),
        Message.result("c", True, "r"),
    ]
    assert report_message_omissions(history, B) == HandoffReport(2, ("enc", "signed"))
    assert report_message_omissions(history, A) == HandoffReport(0, ())


def test_strip_provider_context_keeps_fallbacks_and_everything_else() -> None:
    enriched = AssistantMessage(
        content=TEXT, provenance=A, provider_context=(block(A),)
    ).with_portable_fallback("f")
    aborted = AbortedAssistant(
        content=(), reasoning="", provider_context=(block(A),), tool_calls=(), usage=ModelUsage()
    )
    stripped = strip_provider_context(
        [Message.enriched(enriched), Message.aborted(aborted), Message.user_text("q")]
    )
    assert [b.kind for b in stripped[0].provider_context()] == [PORTABLE_FALLBACK_KIND]
    assert stripped[1].provider_context() == () and stripped[2] == Message.user_text("q")


def test_the_snapshot_report_matches_the_session_report() -> None:
    from rho_desk.core.wire.snapshot import SessionSnapshot

    history = [Message.enriched(AssistantMessage(content=TEXT, provider_context=(block(A, "k"),)))]
    snapshot = SessionSnapshot.new("s", 1, history, A)
    assert report_message_omissions(snapshot.history, B) == HandoffReport(1, ("k",))
