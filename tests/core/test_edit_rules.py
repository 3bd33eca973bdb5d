"""The rules of editing messages (rho_desk.core.revisions.rules): pairing and text replacement."""

from __future__ import annotations

import pytest

from rho_desk.core.errors import InputError
from rho_desk.core.revisions.rules import (
    apply_edits,
    pair_closure,
    provider_block_counts,
    replace_text,
)
from rho_desk.core.wire import (
    AssistantMessage,
    ContentBlock,
    Message,
    ModelIdentity,
    ProviderContextBlock,
)

from ..qt.helpers import PROVIDER, turn

OTHER = ModelIdentity("anthropic", "anthropic-messages", "claude-test")


def test_deleting_a_tool_call_deletes_its_results_and_back() -> None:
    history = (Message.system_text("s"), *turn(0), *turn(1))
    # turn(i): user, assistant with a tool call, its result, the answer
    assert pair_closure(history, [2]) == {2, 3}
    assert pair_closure(history, [3]) == {2, 3}
    assert pair_closure(history, [1]) == {1}
    two_calls = Message.assistant_blocks(
        [ContentBlock.of_tool_call("a", "x", {}), ContentBlock.of_tool_call("b", "y", {})]
    )
    history = (
        Message.user_text("u"),
        two_calls,
        Message.result("a", True, "1"),
        Message.result("b", True, "2"),
    )
    assert pair_closure(history, [3]) == {1, 2, 3}  # through the call, to its other result
    assert apply_edits(history, {1, 2, 3}, {}) == (Message.user_text("u"),)


def test_replacing_text_keeps_structure_and_drops_native_blocks() -> None:
    native = ProviderContextBlock(
        identity=OTHER, kind="anthropic_content_block", position=0, data={"signature": "S"}
    )
    message = Message.enriched(
        AssistantMessage(
            content=(
                ContentBlock.of_text("old"),
                ContentBlock.of_tool_call("c", "read", {}),
                ContentBlock.of_text(" more"),
            ),
            provenance=PROVIDER,
            provider_context=(native,),
        )
    )
    edited = replace_text(message, "new")
    assert [b.text for b in edited.content] == ["new", None]
    assert edited.enriched_assistant.provider_context == ()  # type: ignore[union-attr]
    assert replace_text(Message.result("c", False, "err"), "fixed").tool_result.ok is False  # type: ignore[union-attr]
    assert replace_text(Message.system_text("a"), "b") == Message.system_text("b")
    with pytest.raises(InputError, match="empty"):
        replace_text(Message.user_text("x"), "  ")
    assert provider_block_counts([message]) == {(str(OTHER), "anthropic_content_block"): 1}
