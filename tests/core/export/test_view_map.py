"""The structure reader's view: text in a JSON string (in a JSON string…) decoded, and every offset
of the decoded text mapped back to the bytes it came from, so a value found in the view is
redacted where it stands in the export."""

from __future__ import annotations

import bisect
import json

from hypothesis import given, settings
from hypothesis import strategies as st

from rho_desk.core.export.scanner._window import view

_TEXT = st.text(
    # no backslash (the view decodes as many levels as the text holds escapes) and no character
    # beyond the BMP (a surrogate pair's halves are two characters to it)
    alphabet=st.sampled_from(list('ab Z9:="/\n\t\r\x01\u00e9\u20ac')),
    max_size=60,
)


def _json_body(text: str, levels: int, ascii_only: bool) -> bytes:
    for _ in range(levels):
        text = json.dumps(text, ensure_ascii=ascii_only)[1:-1]
    return text.encode("utf-8", "surrogatepass")


@settings(max_examples=400, deadline=None)
@given(_TEXT, st.integers(1, 3), st.booleans())
def test_the_view_decodes_each_level_and_maps_every_byte_back(
    text: str, levels: int, ascii_only: bool
) -> None:
    source = _json_body(text + "\n", levels, ascii_only)  # a line break: the view decodes it
    v = view(source, 0, len(source))
    assert v.text == (text + "\n").encode("utf-8", "surrogatepass")
    decoded = v.text
    for i in range(len(decoded)):
        start, end = v.raw(i, i + 1)
        assert 0 <= start < end <= len(source)
        # the bytes a decoded byte came from: the byte itself, copied, or an escape whose
        # character (decoded as JSON strings, level by level) holds it
        raw = source[start:end]
        if raw != decoded[i : i + 1]:
            piece = raw.decode("utf-8", "surrogatepass")
            for _ in range(levels):
                if "\\" not in piece:
                    break
                piece = json.loads(f'"{piece}"')
            assert decoded[i : i + 1] in piece.encode("utf-8", "surrogatepass"), (i, raw)
    # and back: a source offset's place in the view is the first byte decoded from it or after it
    starts = [v.raw(i, i + 1)[0] for i in range(len(decoded))]
    assert starts == sorted(starts)
    for at in range(len(source) + 1):
        assert v.local(at) == bisect.bisect_left(starts, at), at


@settings(max_examples=200, deadline=None)
@given(_TEXT, _TEXT, st.integers(1, 2))
def test_a_span_of_whole_characters_maps_to_its_escaped_form(
    before: str, middle: str, levels: int
) -> None:
    source = _json_body(before + "\n" + middle + "\n", levels, ascii_only=True)
    v = view(source, 0, len(source))
    head = (before + "\n").encode("utf-8", "surrogatepass")
    span = middle.encode("utf-8", "surrogatepass")
    start, end = v.raw(len(head), len(head) + len(span))
    assert source[start:end] == _json_body(middle, levels, ascii_only=True)
    assert v.local(start) == len(head)
