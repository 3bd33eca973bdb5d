import enum
import json
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import pytest

from rho_desk.core.text.jsonable import json_fields


class Colour(enum.Enum):
    RED = "red"


@dataclass(frozen=True)
class Inner:
    n: int


@dataclass(frozen=True)
class Row:
    name: str
    at: datetime
    where: Path
    colour: Colour
    parts: tuple[Inner, ...]
    rank: float


def test_every_field_in_order_as_json_values() -> None:
    row = Row(
        "a",
        datetime(2026, 1, 2, 3, 4, tzinfo=UTC),
        Path("/x/y"),
        Colour.RED,
        (Inner(1),),
        0.123456789,
    )
    out = json_fields(row, rank=round(row.rank, 3))
    assert list(out) == ["name", "at", "where", "colour", "parts", "rank"]
    assert out == {
        "name": "a",
        "at": "2026-01-02T03:04:00+00:00",
        "where": "/x/y",
        "colour": "red",
        "parts": [{"n": 1}],
        "rank": 0.123,
    }
    json.dumps(out)


def test_a_value_without_a_json_form_is_refused() -> None:
    @dataclass
    class Odd:
        value: object

    with pytest.raises(TypeError, match="no JSON form for bytes"):
        json_fields(Odd(b"raw"))
