"""The event-stream decoder: line endings, fields, comments, chunking, bounds."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rho_desk.providers.sse import SseDecoder, SseError, SseEvent


def decode(*chunks: bytes) -> list[SseEvent]:
    decoder = SseDecoder()
    return [event for chunk in chunks for event in decoder.feed(chunk)]


def test_basic_event_and_type() -> None:
    assert decode(b'event: message_start\ndata: {"a":1}\n\n') == [
        SseEvent("message_start", '{"a":1}')
    ]


def test_default_type_multiline_data_and_single_leading_space() -> None:
    assert decode(b"data:one\ndata:  two\n\n") == [SseEvent("message", "one\n two")]


@pytest.mark.parametrize("newline", [b"\n", b"\r\n", b"\r"])
def test_every_line_ending(newline: bytes) -> None:
    stream = newline.join([b"event: x", b"data: 1", b"", b"data: 2", b"", b""])
    assert decode(stream) == [SseEvent("x", "1"), SseEvent("message", "2")]


def test_crlf_split_across_chunks_is_one_break() -> None:
    assert decode(b"data: a\r", b"\n\r", b"\n") == [SseEvent("message", "a")]


def test_comments_ids_retry_and_unknown_fields() -> None:
    events = decode(b": keep-alive\nid: 7\nretry: 100\nfoo: bar\ndata: x\n\n: ping\n\ndata: y\n\n")
    assert events == [SseEvent("message", "x", "7"), SseEvent("message", "y", "7")]


def test_event_without_data_is_not_dispatched_and_resets_type() -> None:
    assert decode(b"event: ping\n\ndata: z\n\n") == [SseEvent("message", "z")]


def test_bom_and_utf8_split_inside_a_character() -> None:
    raw = "\ufeffdata: héllo 🦀\n\n".encode()
    split = raw.index("🦀".encode()) + 2
    assert decode(raw[:split], raw[split:]) == [SseEvent("message", "héllo 🦀")]


def test_unterminated_event_is_held_back() -> None:
    decoder = SseDecoder()
    assert list(decoder.feed(b'data: {"partial": tr')) == []
    assert decoder.has_partial_event
    assert list(decoder.feed(b"ue}\n")) == []
    assert decoder.has_partial_event  # data seen, blank line not yet
    assert list(decoder.feed(b"\n")) == [SseEvent("message", '{"partial": true}')]
    assert not decoder.has_partial_event


def test_bounds() -> None:
    with pytest.raises(SseError):
        list(SseDecoder(max_event_bytes=64).feed(b"data: " + b"x" * 100))
    decoder = SseDecoder(max_event_bytes=64)
    with pytest.raises(SseError):
        for _ in range(10):
            list(decoder.feed(b"data: " + b"x" * 20 + b"\n"))
    with pytest.raises(SseError):
        list(SseDecoder().feed(b"data: \xff\xfe\n\n"))


@settings(max_examples=200, deadline=None)
@given(
    events=st.lists(
        st.tuples(
            st.sampled_from(["", "delta", "message_stop"]),
            st.text(
                alphabet=st.characters(blacklist_categories=["Cs"], blacklist_characters="\r\n"),
                max_size=30,
            ),
        ),
        max_size=8,
    ),
    newline=st.sampled_from(["\n", "\r\n", "\r"]),
    cuts=st.lists(st.integers(min_value=0, max_value=400), max_size=12),
)
def test_any_chunking_gives_the_same_events(
    events: list[tuple[str, str]], newline: str, cuts: list[int]
) -> None:
    text = ""
    for kind, data in events:
        if kind:
            text += f"event: {kind}{newline}"
        text += f"data: {data}{newline}{newline}"
    raw = text.encode()
    points = sorted({min(c, len(raw)) for c in cuts} | {0, len(raw)})
    chunks = [raw[a:b] for a, b in itertools.pairwise(points)]
    expected = [SseEvent(kind or "message", data) for kind, data in events]
    assert decode(raw) == expected
    assert decode(*chunks) == expected
