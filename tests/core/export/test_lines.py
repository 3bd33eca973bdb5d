"""``_lines.break_before``: the last line break before a position, raw or JSON-escaped.

The readers of the scanner (the entropy pass's first word of a line and aligned headers, the dump
decoder's line start, ``curl -u``'s command, the structure window's cut) ask it where a line
begins; it must answer as the plain definition does: the later of the last raw newline and the
last escaped ``\\n`` in ``[floor, pos)``.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from rho_desk.core.export.scanner._lines import break_before


def _plain(data: bytes, floor: int, pos: int) -> tuple[int, int]:
    raw, escaped = data.rfind(b"\n", floor, pos), data.rfind(b"\\n", floor, pos)
    if raw < 0 and escaped < 0:
        return -1, 0
    return (raw, 1) if raw > escaped else (escaped, 2)


@settings(max_examples=600, deadline=None)
@given(
    st.lists(st.sampled_from([b"\n", b"\\", b"n", b"\\n", b"a", b" ", b'"']), max_size=40),
    st.data(),
)
def test_the_last_break_is_the_later_of_raw_and_escaped(
    parts: list[bytes], draw: st.DataObject
) -> None:
    data = b"".join(parts)
    pos = draw.draw(st.integers(0, len(data)))
    floor = draw.draw(st.integers(0, pos))
    assert break_before(data, floor, pos) == _plain(data, floor, pos)


def test_a_break_of_each_kind() -> None:
    assert break_before(b"a\nbc", 0, 4) == (1, 1)
    assert break_before(b"a\\nbc", 0, 5) == (1, 2)
    assert break_before(b"a\\n\nbc", 0, 6) == (3, 1)
    assert break_before(b"a\n\\nbc", 0, 6) == (2, 2)
    assert break_before(b"abc", 0, 3) == (-1, 0)
    assert break_before(b"a\nbc", 2, 4) == (-1, 0)
