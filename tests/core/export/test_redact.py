"""Placeholders and secret redaction keep a valid, meaningful snapshot."""

from __future__ import annotations

import json

import pytest

from rho_desk.core.export import (
    ContentClass,
    SecretScanner,
    Selection,
    apply_selection,
    audit_bytes,
    export_snapshot,
    iter_slots,
)
from rho_desk.core.export._redact import EXCLUDED_ARGUMENT_KEY, human_size
from rho_desk.core.provider.handoff import prepare_assistant
from rho_desk.core.wire.codec import decode_snapshot, encode_pretty
from rho_desk.core.wire.model import AssistantMessage, ContentBlock, Message, PartialToolCall
from rho_desk.core.wire.snapshot import SessionSnapshot

from .builders import IDENTITY, OTHER, SECRETS, canary, canary_snapshot

C = ContentClass
KEY = b"\x07" * 32


def test_round_trip_everything_included_no_secrets_equals_the_source() -> None:
    source = canary_snapshot()
    result = export_snapshot(source, Selection.everything(), key=KEY)
    assert result.redactions == [] and result.report.findings == []
    assert result.data == encode_pretty(source)
    assert decode_snapshot(result.data) == source


@pytest.mark.parametrize("name", ["session-snapshot-v1.json", "session-snapshot-v2.json"])
def test_round_trip_of_the_upstream_fixtures(rho_fixtures, name: str) -> None:  # type: ignore[no-untyped-def]
    source = decode_snapshot((rho_fixtures / name).read_bytes())
    result = export_snapshot(source, Selection.everything(), key=KEY)
    assert decode_snapshot(result.data) == source
    assert result.data == encode_pretty(source)


@pytest.mark.parametrize("name", ["session-v1.jsonl", "session-v2.jsonl", "session-v3.jsonl"])
def test_session_files_export_at_a_revision(rho_fixtures, name: str) -> None:  # type: ignore[no-untyped-def]
    from rho_desk.core.stores.open import open_snapshot

    source = open_snapshot(rho_fixtures / name)
    result = export_snapshot(source, Selection.excluding([C.METADATA]), key=KEY)
    exported = decode_snapshot(result.data)
    assert exported.revision == source.revision and len(exported.history) == len(source.history)
    assert exported.prompt_cache_key is None
    assert set(exported.metadata) == {"rho_desk.export.excluded", "rho_desk.export.redacted"}
    assert result.report.findings == []


def test_placeholders_say_what_was_there() -> None:
    excluded, _ = apply_selection(canary_snapshot(), Selection.including([]))
    h = excluded.history
    assert h[0].system == "[instructions excluded: system prompt, 168 B]"
    user = [b.text for b in h[1].user or ()]
    assert user[0] == "[user excluded: text, 39 B]"
    assert user[1] == "[images excluded: image/png, 1.0 KB]"
    assert user[2] is not None and user[2].startswith("[documents excluded: attached file, ")
    assert user[3] == "[documents excluded: attachment label, 58 B]"
    call = h[4].enriched_assistant.content[1].tool_call  # type: ignore[union-attr]
    assert call.id == "call-1" and call.name == "bash"
    assert call.arguments == {
        EXCLUDED_ARGUMENT_KEY: "[tool_records excluded: arguments (command, timeout_seconds), 63 B]"
    }
    assert h[6].tool_result.content == "[tool_records excluded: tool error output, 29 B]"  # type: ignore[union-attr]
    assert h[11].tool_result.content == (  # type: ignore[union-attr]
        "[tool_records excluded: tool output, 36 B]\n\n[documents excluded: extraction notice]\n"
        "[documents excluded: document warning]"
    )
    aborted = h[12].aborted_assistant
    assert aborted is not None
    assert aborted.tool_calls == (
        PartialToolCall(
            id="call-5", name="bash", arguments="[tool_records excluded: partial arguments, 35 B]"
        ),
    )
    assert aborted.usage.input_tokens == 10 and aborted.provenance == OTHER
    assert excluded.metadata == {} and excluded.prompt_cache_key is None


def test_excluded_provider_context_becomes_a_fallback_that_is_never_replayed() -> None:
    excluded, _ = apply_selection(canary_snapshot(), Selection.excluding([C.PROVIDER_CONTEXT]))
    message = excluded.history[4].enriched_assistant
    assert message is not None
    [block] = message.provider_context
    assert block.is_portable_fallback and not block.is_replayable_to(IDENTITY)
    assert (
        block.data
        == "[provider_context excluded: 2 blocks (openai_response_output_item, rho.sdk.portable_fallback.v1), 106 B]"
    )
    prepared = prepare_assistant(message, IDENTITY)
    assert prepared.replay_context == ()
    assert prepared.content[-1].text == block.data


def test_one_class_of_a_mixed_tool_result() -> None:
    docs_out, _ = apply_selection(canary_snapshot(), Selection.excluding([C.DOCUMENTS]))
    content = docs_out.history[11].tool_result.content  # type: ignore[union-attr]
    assert content.startswith(canary("result_extracted")) and canary("doc_warning") not in content
    tools_out, _ = apply_selection(canary_snapshot(), Selection.excluding([C.TOOL_RECORDS]))
    content = tools_out.history[11].tool_result.content  # type: ignore[union-attr]
    assert canary("result_extracted") not in content and canary("doc_warning") in content


def test_markers_are_the_only_metadata_left_when_metadata_is_excluded() -> None:
    result = export_snapshot(canary_snapshot(), Selection.excluding([C.METADATA]), key=KEY)
    exported = decode_snapshot(result.data)
    assert exported.metadata == {
        "rho_desk.export.excluded": "metadata",
        "rho_desk.export.redacted": "true",
    }
    assert exported.prompt_cache_key is None


def _with(*messages: Message, **kw: object) -> SessionSnapshot:
    return SessionSnapshot.new("s-1", 3, messages, IDENTITY, **kw)  # type: ignore[arg-type]


def test_a_secret_in_a_call_id_is_redacted_alike_on_both_sides() -> None:
    secret = SECRETS[0].value
    source = _with(
        Message.enriched(
            AssistantMessage(
                content=(ContentBlock.of_tool_call(secret, "bash", {"command": "ls"}),)
            )
        ),
        Message.result(secret, True, "ok"),
    )
    result = export_snapshot(source, Selection.everything(), key=KEY)
    exported = decode_snapshot(result.data)
    call_id = next(exported.history[0].tool_calls()).id
    assert call_id == exported.history[1].tool_result.id  # type: ignore[union-attr]
    assert (
        call_id.startswith("[secret redacted: openai-api-key fp:")
        and secret not in result.data.decode()
    )
    assert {r.path for r in result.redactions} == {
        "$.history[0].EnrichedAssistant.content[0].ToolCall.id",
        "$.history[1].ToolResult.id",
    }


def test_a_secret_in_an_image_replaces_the_image_with_text() -> None:
    import base64

    data = base64.b64encode(
        b"\x89PNG\r\n\x1a\n" + bytes(5000) + SECRETS[4].value.encode() + bytes(100)
    ).decode()
    source = _with(
        Message.user_blocks(
            [ContentBlock.of_image(data, "image/png"), ContentBlock.of_text("look")]
        )
    )
    result = export_snapshot(source, Selection.everything(), key=KEY)
    exported = decode_snapshot(result.data)
    blocks = exported.history[0].user or ()
    assert blocks[0].text == "[images redacted: contained a secret, image/png, 5.1 KB]"
    assert blocks[1].text == "look"
    [redaction] = result.redactions
    assert (redaction.rule, redaction.path, redaction.cls, redaction.encoding) == (
        "aws-access-key-id",
        "$.history[0].User[0].Image.data",
        C.IMAGES,
        "base64",
    )
    assert result.report.findings == []


def test_secrets_in_keys_and_metadata_are_redacted() -> None:
    secret = SECRETS[2].value
    source = _with(
        Message.enriched(
            AssistantMessage(
                content=(ContentBlock.of_tool_call("c", "http", {secret: 1, "other": secret}),)
            )
        ),
        metadata={"token": secret, secret: "v"},
        prompt_cache_key=f"rho:{secret}",
    )
    result = export_snapshot(source, Selection.everything(), key=KEY)
    assert secret not in result.data.decode()
    exported = decode_snapshot(result.data)
    arguments = next(exported.history[0].tool_calls()).arguments
    assert len(arguments) == 2 and isinstance(arguments, dict)
    assert (
        exported.metadata["rho_desk.export.excluded"] == ""
        and exported.metadata["rho_desk.export.redacted"] == "true"
    )
    paths = sorted(r.path for r in result.redactions)
    assert "$.prompt_cache_key" in paths and any(p.endswith("@key") for p in paths)
    # the key that is a secret is masked on every path that names it
    assert all(secret not in p for p in paths)
    assert "$.metadata.[secret: github-token]@key" in paths
    report = audit_bytes(encode_pretty(source), scanner=SecretScanner(), key=KEY)
    assert report.findings and all(secret not in f.location for f in report.findings)


def test_a_header_value_split_from_its_name_is_redacted() -> None:
    # only the JSON holds "Authorization": "…" together: the value string alone is no secret
    source = _with(
        Message.enriched(
            AssistantMessage(
                content=(
                    ContentBlock.of_tool_call(
                        "c", "http", {"headers": {"Authorization": "Zm9vYmFyYmF6cXV4"}}
                    ),
                )
            )
        )
    )
    result = export_snapshot(source, Selection.everything(), key=KEY)
    assert "Zm9vYmFyYmF6cXV4" not in result.data.decode()
    assert [r.rule for r in result.redactions] == ["authorization-header"]
    assert result.report.findings == []


def test_redaction_records_hold_no_value() -> None:
    source = _with(Message.user_text(f"key {SECRETS[0].value}"))
    result = export_snapshot(source, Selection.everything(), key=KEY)
    [redaction] = result.redactions
    assert SECRETS[0].value not in repr(redaction) and SECRETS[0].value not in json.dumps(
        redaction.to_json()
    )
    assert redaction.to_json() == {
        "rule": "openai-api-key",
        "path": "$.history[0].User[0].Text",
        "class": "user",
        "fingerprint": redaction.fingerprint,
        "encoding": "plain",
    }


def test_same_secret_same_fingerprint_across_exports_and_keys_differ() -> None:
    source = _with(
        Message.user_text(SECRETS[0].text), Message.user_text(f"again {SECRETS[0].text}")
    )
    a = export_snapshot(source, Selection.everything(), key=KEY)
    b = export_snapshot(source, Selection.excluding([C.METADATA]), key=KEY)
    c = export_snapshot(source, Selection.everything(), key=b"\x08" * 32)
    assert len({r.fingerprint for r in a.redactions + b.redactions}) == 1
    assert a.redactions[0].fingerprint != c.redactions[0].fingerprint


def test_human_sizes() -> None:
    assert [human_size(n) for n in (0, 999, 1000, 4500, 45_000, 1_234_567, 3 * 10**9)] == [
        "0 B",
        "999 B",
        "1.0 KB",
        "4.5 KB",
        "45 KB",
        "1.2 MB",
        "3.0 GB",
    ]


def test_every_string_of_an_everything_export_is_classified() -> None:
    # nothing escapes the walk: the slots' texts cover every string value on the wire
    source = canary_snapshot()
    texts = {s.text for s in iter_slots(source)}
    for name in ("system", "args_nested", "partial_args", "context_aborted", "cache_key"):
        assert any(canary(name) in t for t in texts)


@pytest.mark.asyncio
async def test_the_engine_restores_a_redacted_export_and_continues() -> None:
    from rho_desk.core.session import Rho, SessionOptions
    from rho_desk.core.testing import ScriptedProvider, ScriptedTurn

    from .builders import secrets_messages

    source = canary_snapshot(extra=secrets_messages())
    selection = Selection.excluding([C.IMAGES, C.PROVIDER_CONTEXT, C.TOOL_RECORDS, C.METADATA])
    exported = decode_snapshot(export_snapshot(source, selection, key=KEY).data)
    provider = ScriptedProvider([ScriptedTurn.completed("carrying on")])
    session = (
        Rho.builder().provider(provider).build().session(SessionOptions.from_snapshot(exported))
    )
    assert session.revision == exported.revision and session.history == exported.history
    outcome = await session.complete("continue from the shared session")
    assert outcome.revision == exported.revision + 1
    assert session.history[-1].text() == "carrying on"
    # what the model is sent from the shared session: placeholders, never the excluded content
    sent = encode_pretty(list(provider.requests[0].messages)).decode()
    assert canary("result_ok") not in sent and canary("context_enriched") not in sent
    assert "[tool_records excluded: tool output" in sent and SECRETS[0].value not in sent
