"""No input crashes or hangs the reader: every prefix, mutations and random bytes (hypothesis)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rho_desk.core.stores.rho_files import SessionFileError, parse_session, summary_of
from rho_desk.core.stores.rho_files.check import CheckTarget, _load_findings

from ....conftest import RHO_FIXTURES
from .helpers import (
    V4_EXAMPLE,
    assistant,
    delta,
    header,
    legacy_delta,
    legacy_snapshot,
    node,
    set_leaf,
    shown,
    snapshot,
    transcript,
    user,
)

ODD_ARGS = {
    "ToolCall": {
        "id": "c1",
        "name": "calc",
        "arguments": {"n": -12.5e-3, "m": 1234567, "t": True, "z": None, "s": 'é\\"\u2028'},
    }
}
RICH_V4 = transcript(
    header(),
    node(
        "a",
        None,
        "1767225601",
        snap=snapshot(1, [user("héllo ✓"), {"Assistant": [ODD_ARGS]}]),
        display=shown("1767225601", user("héllo ✓")),
    ),
    node(
        "b",
        "a",
        "1767225602",
        dlt=delta(1, 2, [{"ToolResult": {"id": "c1", "ok": False, "content": "-1"}}]),
    ),
    set_leaf("a"),
    node(
        "c",
        "a",
        "1767225604",
        dlt=delta(1, 3, [assistant("naïve 日本")]),
        display=shown("1767225604", assistant("x")),
    ),
)
RICH_V3 = transcript(
    header(version=3),
    legacy_snapshot("11", snapshot(1, [user("q")], key="k"), shown("11", user("q"))),
    legacy_delta("12", delta(1, 2, [assistant("-7")]), shown("12", assistant("-7"))),
    legacy_delta("13", delta(2, 3, [user("ü")], metadata={"k": "v"})),
)
SAMPLES = {
    "v1": (RHO_FIXTURES / "session-v1.jsonl").read_bytes(),
    "v2": (RHO_FIXTURES / "session-v2.jsonl").read_bytes(),
    "v3": (RHO_FIXTURES / "session-v3.jsonl").read_bytes(),
    "v4-example": V4_EXAMPLE.encode(),
    "v4-rich": RICH_V4,
    "v3-rich": RICH_V3,
}


def complete_records(data: bytes) -> int:
    """Non-blank lines that are whole (terminated) in ``data``."""
    return sum(1 for line in data.split(b"\n")[:-1] if line.strip())


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_every_prefix_loads_to_its_complete_records(name: str) -> None:
    """A file cut at any byte is a torn tail: it loads to the state of its complete lines."""
    data = SAMPLES[name]
    for cut in range(len(data) + 1):
        session = parse_session(data[:cut], source=name)
        whole = complete_records(data[:cut])
        assert session.tree.record_count in (whole, whole + 1), (
            cut
        )  # +1: an unterminated complete line
        if session.notes:
            assert session.tree.record_count == whole and session.valid_end <= cut
        assert len(session.notes) <= 1


def check_any(data: bytes) -> None:
    try:
        session = parse_session(data, source="fuzz")
    except SessionFileError as exc:
        assert exc.source == "fuzz" and exc.line is not None and exc.line >= 1
        assert str(exc).startswith("fuzz:")
        assert list(_load_findings(CheckTarget(path=Path("fuzz"), kind="transcript", error=exc)))
        return
    tree = session.tree
    # the count kept as children are added is the count a walk of the nodes finds
    assert tree.branch_count == sum(1 for n in tree.nodes.values() if len(n.children) > 1)
    if tree.header is not None:
        summary_of(session)
        if tree.active_leaf is not None:
            tree.display()
            try:
                tree.snapshot()
            except (
                SessionFileError
            ) as exc:  # a legacy snapshot of another session: refused on resume
                assert "belongs to session" in str(exc)


FUZZ = settings(max_examples=300, deadline=2000, suppress_health_check=[HealthCheck.too_slow])


@FUZZ
@given(st.sampled_from(sorted(SAMPLES)), st.data())
def test_mutated_files_never_crash(name: str, data: st.DataObject) -> None:
    raw = bytearray(SAMPLES[name])
    for _ in range(data.draw(st.integers(1, 4))):
        kind = data.draw(
            st.sampled_from(["flip", "insert", "delete", "dup-line", "swap-lines", "truncate"])
        )
        if not raw:
            break
        at = data.draw(st.integers(0, len(raw) - 1))
        if kind == "flip":
            raw[at] = data.draw(st.integers(0, 255))
        elif kind == "insert":
            raw[at:at] = data.draw(st.binary(min_size=1, max_size=8))
        elif kind == "delete":
            del raw[at : at + data.draw(st.integers(1, 16))]
        elif kind == "truncate":
            del raw[at:]
        else:
            lines = bytes(raw).split(b"\n")
            i, j = (
                data.draw(st.integers(0, len(lines) - 1)),
                data.draw(st.integers(0, len(lines) - 1)),
            )
            if kind == "dup-line":
                lines.insert(j, lines[i])
            else:
                lines[i], lines[j] = lines[j], lines[i]
            raw = bytearray(b"\n".join(lines))
    check_any(bytes(raw))


@FUZZ
@given(st.binary(max_size=2000))
def test_random_bytes_never_crash(data: bytes) -> None:
    check_any(data)


@FUZZ
@given(
    st.lists(
        st.sampled_from([line for sample in SAMPLES.values() for line in sample.split(b"\n")]),
        max_size=12,
    )
)
def test_random_record_sequences_never_crash(lines: list[bytes]) -> None:
    check_any(b"\n".join(lines))


@FUZZ
@given(
    st.recursive(
        st.none()
        | st.booleans()
        | st.integers()
        | st.floats(allow_nan=False)
        | st.text(max_size=5),
        lambda children: (
            st.lists(children, max_size=3)
            | st.dictionaries(st.text(max_size=4), children, max_size=3)
        ),
        max_leaves=20,
    )
)
def test_random_json_values_in_records_never_crash(value: object) -> None:
    import json

    for template in (
        '{"type":"node","id":"x","parent_id":"a","timestamp":"1","kind":"commit","transition":%s}',
        '{"type":"snapshot","timestamp":"1","snapshot":%s,"display_messages":[]}',
        '{"type":"set_leaf","timestamp":%s,"target_id":"a"}',
    ):
        line = (template % json.dumps(value)).encode()
        check_any(transcript(header()) + line + b"\n")
