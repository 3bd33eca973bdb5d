"""Duplicate keys in a transcript line, as Rho's serde reader sees them.

serde refuses an object that names one struct field twice ("duplicate field `id`"), so Rho
refuses the whole file. Free-form maps are different: a tool call's ``arguments``, a provider
block's ``data`` and the snapshot ``metadata`` are maps, where serde keeps the last value, as
msgspec does everywhere. rho-desk's reader decodes with msgspec (last value wins) and does not
parse each line a second time just to look for duplicates (that would double the cost of opening
a large session); ``rho-desk check`` reports them (error ``duplicate-key``: Rho will not load the
file) and ``repair`` drops such lines. See docs/compatibility.md.
"""

from __future__ import annotations

import json
from typing import Any, Final

__all__ = ["MAP_FIELDS", "refused_duplicate"]

MAP_FIELDS: Final = frozenset({"arguments", "data", "metadata"})
"""Members whose value is a free-form map in Rho's types (duplicates allowed, last one wins)."""


class _Object(dict[str, Any]):
    __slots__ = ("duplicates",)

    def __init__(self, pairs: list[tuple[str, Any]]) -> None:
        super().__init__(pairs)
        seen: set[str] = set()
        self.duplicates: list[str] = []
        for key, _ in pairs:
            if key in seen:
                self.duplicates.append(key)
            seen.add(key)


def refused_duplicate(raw: bytes) -> str | None:
    """Why serde would refuse this line for a repeated key (``None``: no such key, or not JSON).

    The answer names the key and where it is, e.g. ``duplicate field `id` (at $.delta)``.
    """
    if raw.count(b'":') < 2:
        return None
    try:
        value = json.loads(raw, object_pairs_hook=_Object)
    except ValueError:
        return None  # not JSON at all: the reader says why
    return _walk(value, "$", in_map=False)


def _walk(value: Any, path: str, *, in_map: bool) -> str | None:
    if isinstance(value, _Object):
        if value.duplicates and not in_map:
            return f"duplicate field `{value.duplicates[0]}` (at {path})"
        for key, child in value.items():
            found = _walk(child, f"{path}.{key}", in_map=in_map or key in MAP_FIELDS)
            if found is not None:
                return found
    elif isinstance(value, list):
        for index, child in enumerate(value):
            found = _walk(child, f"{path}[{index}]", in_map=in_map)
            if found is not None:
                return found
    return None
