"""Property tests of the wire format: random messages and snapshots round-trip unchanged, and
random bytes never crash the snapshot loader (only a typed ``WireFormatError`` escapes)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rho_desk.core.errors import WireFormatError
from rho_desk.core.wire.codec import (
    decode,
    decode_message,
    decode_snapshot,
    encode,
    encode_pretty,
    encode_pretty_changed,
    to_builtins,
)
from rho_desk.core.wire.model import (
    PORTABLE_FALLBACK_KIND,
    U64_MAX,
    AbortedAssistant,
    AssistantMessage,
    ContentBlock,
    ImageContent,
    Message,
    ModelIdentity,
    ModelUsage,
    PartialToolCall,
    ProviderContextBlock,
    ToolCall,
    ToolResult,
)
from rho_desk.core.wire.snapshot import CompactionState, SessionSnapshot

FAST = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])

text = st.text(max_size=20)
u64 = st.integers(0, U64_MAX)
opt_u64 = st.none() | u64
# Arbitrary JSON payloads: i64-range integers and finite floats (both round-trip exactly).
json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**63 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | text,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(text, inner, max_size=4),
    max_leaves=12,
)
json_objects = st.dictionaries(text, json_values, max_size=4)
identities = st.builds(ModelIdentity, text, text, text)
usage = st.builds(
    ModelUsage,
    input_tokens=opt_u64,
    output_tokens=opt_u64,
    cache_read_tokens=opt_u64,
    cache_write_tokens=opt_u64,
    total_tokens=opt_u64,
    context_window=opt_u64,
    cost_usd_micros=opt_u64,
)
blocks = st.one_of(
    st.builds(ContentBlock, text=text),
    st.builds(
        lambda d, m: ContentBlock(image=ImageContent(d, m)), st.text("ABCabc+/=", max_size=40), text
    ),
    st.builds(lambda i, n, a: ContentBlock(tool_call=ToolCall(i, n, a)), text, text, json_values),
)
contexts = st.builds(
    lambda identity, kind, position, data: ProviderContextBlock(
        identity=identity, kind=kind, position=position, data=data
    ),
    identities,
    st.sampled_from(["reasoning", "anthropic_content_block", PORTABLE_FALLBACK_KIND]) | text,
    opt_u64,
    json_values,
)
assistants = st.builds(
    AssistantMessage,
    content=st.lists(blocks, max_size=4).map(tuple),
    provenance=st.none() | identities,
    reasoning_summary=st.none() | text,
    provider_context=st.lists(contexts, max_size=3).map(tuple),
)
aborted = st.builds(
    lambda content, reasoning, provenance, summary, context, calls, u: AbortedAssistant(
        content=content,
        reasoning=reasoning,
        provenance=provenance,
        reasoning_summary=summary,
        provider_context=context,
        tool_calls=calls,
        usage=u,
    ),
    st.lists(blocks, max_size=3).map(tuple),
    text,
    st.none() | identities,
    st.none() | text,
    st.lists(contexts, max_size=2).map(tuple),
    st.lists(
        st.builds(
            lambda i, n, a: PartialToolCall(id=i, name=n, arguments=a),
            st.none() | text,
            st.none() | text,
            text,
        ),
        max_size=3,
    ).map(tuple),
    usage,
)
messages = st.one_of(
    st.builds(Message, system=text),
    st.builds(Message, user=st.lists(blocks, max_size=4).map(tuple)),
    st.builds(Message, assistant=st.lists(blocks, max_size=4).map(tuple)),
    st.builds(Message, enriched_assistant=assistants),
    st.builds(Message, aborted_assistant=aborted),
    st.builds(Message, tool_result=st.builds(ToolResult, text, st.booleans(), text)),
)
compaction_states = st.builds(CompactionState, u64, u64, u64, u64, opt_u64, opt_u64, opt_u64)
snapshots = st.builds(
    lambda sid, rev, history, provider, compaction, metadata, key: SessionSnapshot.new(
        sid, rev, history, provider, compaction, metadata=metadata, prompt_cache_key=key
    ),
    text.filter(bool),
    u64,
    st.lists(messages, max_size=6),
    identities,
    compaction_states,
    st.dictionaries(text, text, max_size=4),
    st.none() | text,
)


@FAST
@given(messages)
def test_messages_round_trip_through_json_unchanged(message: Message) -> None:
    data = encode(message)
    again = decode_message(data)
    assert again == message
    assert encode(again) == data  # and byte-stable
    # plain JSON of the wire shape (float *text* may differ from serde's: spec open question #2)
    assert json.loads(data) == json.loads(json.dumps(to_builtins(message)))


@FAST
@given(snapshots)
def test_snapshots_round_trip_through_json_unchanged(snapshot: SessionSnapshot) -> None:
    for data in (encode(snapshot), encode_pretty(snapshot)):
        again = decode_snapshot(data)
        assert again == snapshot
    assert all(
        m.aborted_assistant is None or m.aborted_assistant.reasoning == "" for m in snapshot.history
    )
    assert list(snapshot.metadata) == sorted(snapshot.metadata)


@FAST
@given(st.lists(messages, max_size=5))
def test_histories_round_trip(history: list[Message]) -> None:
    assert decode(encode(history), tuple[Message, ...]) == tuple(history)


def _message_offsets(data: bytes, history: tuple[Message, ...]) -> list[int]:
    """Where each message's lines start in a snapshot's pretty encoding, counted from the
    messages' own encodings (``"history": [``, then each message indented by 4 and ``,``)."""
    if not history:
        return []
    at = data.index(b'"history": [\n') + len(b'"history": [\n')
    out = []
    for message in history:
        out.append(at)
        at += len(encode_pretty(message).replace(b"\n", b"\n    ")) + 4 + 2
    return out


def _rewritten(message: Message, how: int) -> Message:
    """The message with its strings changed as a redaction changes them (longer, shorter, other
    characters) or an image turned into a text block."""
    if how == 0:
        return Message(system="[secret redacted: kind fp:0123456789abcdef] é \u2028 \x00")
    if how == 1:
        return Message(user=(ContentBlock(text=""),))
    if how == 2:
        return Message(
            tool_result=ToolResult("call-1", False, 'line\n  [secret redacted: x fp:00]\t"')
        )
    return Message(assistant=(ContentBlock(image=ImageContent("QUJD", "image/png")),))


@FAST
@given(snapshots, st.data())
def test_a_few_messages_encoded_again_give_the_bytes_of_a_whole_encoding(
    before: SessionSnapshot, data: st.DataObject
) -> None:
    """``encode_pretty_changed`` (an export after redaction: the changed messages encoded into the
    previous bytes) gives exactly ``encode_pretty`` of the new snapshot, whatever it is told is
    near a change: offsets inside the changed messages (it patches), elsewhere (it may not find
    a changed message, then encodes whole), or none."""
    previous = encode_pretty(before)
    history = list(before.history)
    changed = data.draw(st.sets(st.sampled_from(range(len(history))))) if history else set()
    for i in changed:
        history[i] = _rewritten(history[i], data.draw(st.integers(0, 3)))
    metadata = {**before.metadata, **data.draw(st.dictionaries(text, text, max_size=2))}
    after = before.replace(history=tuple(history), metadata=dict(sorted(metadata.items())))
    changed = {i for i in changed if before.history[i] != after.history[i]}
    starts = _message_offsets(previous, before.history)
    inside = [starts[i] + data.draw(st.integers(5, 9)) for i in changed]
    near = data.draw(
        st.sampled_from(["inside", "inside and elsewhere", "anywhere", "none"]), label="near"
    )
    offsets = {
        "inside": inside,
        "inside and elsewhere": [*inside, 0, len(previous) - 1, *starts[:1]],
        "anywhere": data.draw(st.lists(st.integers(0, max(0, len(previous) - 1)), max_size=6)),
        "none": [],
    }[near]
    assert encode_pretty_changed(previous, before, after, changed, offsets) == encode_pretty(after)


def test_changed_messages_are_encoded_alone_when_found_near_the_offsets_given(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The patch is taken (no whole encoding) when every changed message holds an offset given,
    and it is not taken when one of them does not (a message equal to a changed one elsewhere),
    also when an unchanged message holds one instead."""
    from rho_desk.core.wire import codec

    history = [Message(system=f"message {i} " * 40) for i in range(50)]
    history[30] = history[10]
    before = SessionSnapshot.new("s", 1, history, ModelIdentity("p", "a", "m"))
    previous = encode_pretty(before)
    whole: list[int] = []
    real = codec.encode_pretty

    def counted(value: object) -> bytes:
        if isinstance(value, SessionSnapshot) and value.history:
            whole.append(len(value.history))
        return real(value)

    monkeypatch.setattr(codec, "encode_pretty", counted)
    starts = _message_offsets(previous, before.history)
    # the patch is taken, a changed message is not found, an unchanged one is found instead
    for where, found in (([3, 10, 30, 49], True), ([3, 10, 49], False), ([3, 10, 20, 49], False)):
        after_history = list(history)
        for i in (3, 10, 30, 49):
            after_history[i] = _rewritten(history[i], 0)
        after = before.replace(history=tuple(after_history))
        whole.clear()
        near = [starts[i] + 20 for i in where]
        out = encode_pretty_changed(previous, before, after, [3, 10, 30, 49], near)
        assert out == real(after)
        assert (whole == []) is found


def _fuzz_load(data: bytes) -> None:
    try:
        snapshot = decode_snapshot(data, source="fuzz.json")
    except WireFormatError as error:
        assert error.source == "fuzz.json" and error.reason
    else:
        assert isinstance(snapshot, SessionSnapshot)


@settings(max_examples=400, deadline=None)
@given(st.binary(max_size=200))
def test_random_bytes_never_crash_the_snapshot_loader(data: bytes) -> None:
    _fuzz_load(data)


@FAST
@given(snapshots, st.data())
def test_corrupted_snapshots_fail_with_a_typed_error(
    snapshot: SessionSnapshot, data: st.DataObject
) -> None:
    raw = bytearray(encode(snapshot))
    for _ in range(data.draw(st.integers(1, 4))):
        position = data.draw(st.integers(0, len(raw) - 1))
        mutation = data.draw(st.sampled_from(["flip", "delete", "truncate", "insert"]))
        if mutation == "flip":
            raw[position] = data.draw(st.integers(0, 255))
        elif mutation == "delete":
            del raw[position]
        elif mutation == "truncate":
            del raw[position:]
        else:
            raw[position:position] = data.draw(
                st.sampled_from([b"{", b"}", b'"', b",", b"null", b"\xff", b"[]"])
            )
        if not raw:
            break
    _fuzz_load(bytes(raw))


@FAST
@given(json_values)
def test_random_json_documents_never_crash_the_snapshot_loader(value: Any) -> None:
    _fuzz_load(json.dumps(value).encode())


def test_deep_nesting_is_a_typed_error() -> None:
    with pytest.raises(WireFormatError) as caught:
        decode_snapshot(
            b'{"schema_version":2,"session_id":"s","revision":1,"history":[],"provider":'
            + b"[" * 100_000,
            source="fuzz.json",
        )
    assert caught.value.source == "fuzz.json" and caught.value.reason
