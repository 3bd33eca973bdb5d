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

from typing import Any, Final

from ...wire.limits import MAX_DEPTH, nesting_depth, parse_pairs

__all__ = ["MAP_FIELDS", "line_problem", "refused_duplicate"]

MAP_FIELDS: Final = frozenset({"arguments", "data", "metadata"})
"""Members whose value is a free-form map in Rho's types (duplicates allowed, last one wins)."""


def refused_duplicate(raw: bytes) -> str | None:
    """Why serde would refuse this line for a repeated key (``None``: no such key, or not JSON).

    The answer names the key and where it is, e.g. ``duplicate field `id` (at $.delta)``.
    """
    found = line_problem(raw)
    return found[1] if found is not None and found[0] == "duplicate-key" else None


def line_problem(raw: bytes) -> tuple[str, str] | None:
    """Why a reader refuses this line before its records are read: ``("too-deep", reason)``
    (nested deeper than rho-desk inspects; Rho stops at 128) or ``("duplicate-key", reason)``;
    ``None`` otherwise (or not JSON at all: the reader says why). Never recurses."""
    if nesting_depth(raw, stop_above=MAX_DEPTH) > MAX_DEPTH:
        return "too-deep", f"JSON nesting is deeper than {MAX_DEPTH} levels"
    if raw.count(b'":') < 2:
        return None
    try:
        value = parse_pairs(raw)
    except (ValueError, RecursionError):
        return None  # not JSON at all: the reader says why
    found = _walk(value)
    return None if found is None else ("duplicate-key", found)


def _walk(value: Any) -> str | None:
    """The first struct field named twice (maps excepted), iteratively."""
    stack: list[tuple[Any, str, bool]] = [(value, "$", False)]
    while stack:
        item, path, in_map = stack.pop()
        if isinstance(item, dict):
            duplicate = getattr(item, "duplicate", None)
            if duplicate is not None and not in_map:
                return f"duplicate field `{duplicate}` (at {path})"
            stack.extend(
                (child, f"{path}.{key}", in_map or key in MAP_FIELDS)
                for key, child in reversed(item.items())
            )
        elif isinstance(item, list):
            stack.extend(
                (child, f"{path}[{index}]", in_map)
                for index, child in reversed(list(enumerate(item)))
            )
    return None
