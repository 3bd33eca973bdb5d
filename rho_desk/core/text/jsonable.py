"""A dataclass as a JSON object, the one way the command line's ``--json`` outputs are built.

Field by field in declaration order: datetimes become ISO 8601 text, paths text, enums their value,
tuples lists, nested dataclasses objects. ``extra`` adds or replaces keys (a derived value, a
rounded one).
"""

from __future__ import annotations

import dataclasses
import enum
from datetime import datetime
from pathlib import PurePath
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

__all__ = ["json_fields", "json_value"]


def json_value(value: object) -> object:
    """``value`` made of JSON's types (see the module)."""
    if value is None or isinstance(value, str | int | float | bool):
        return value
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, PurePath):
        return str(value)
    if isinstance(value, enum.Enum):
        return json_value(value.value)
    if isinstance(value, list | tuple):
        return [json_value(v) for v in value]
    if isinstance(value, dict):
        return {str(k): json_value(v) for k, v in value.items()}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return json_fields(value)
    raise TypeError(f"no JSON form for {type(value).__name__}")


def json_fields(obj: DataclassInstance, **extra: object) -> dict[str, object]:
    """Every field of ``obj`` as JSON values, then ``extra`` (which may replace a field)."""
    out = {f.name: json_value(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
    out.update({k: json_value(v) for k, v in extra.items()})
    return out
