"""Limits on JSON from elsewhere: nesting depth and duplicate keys, checked without recursion.

A session file, an export or a receipt may come from anyone. Python's own JSON parser and every
function that walks a decoded value recurse once per nesting level, so a line of 100,000 ``[``
would end in ``RecursionError`` (a crash, not an answer). Every place that inspects JSON from a
file (``check``, ``repair``, ``audit``, receipt verification) first measures the nesting with
:func:`nesting_depth`, a loop over the brackets outside strings, and refuses anything deeper than
:data:`MAX_DEPTH` with an ``InputError`` naming the file and the line. The session reader
decodes with msgspec, whose own recursion guard turns the same input into "JSON nesting is too
deep" at the line (``codec.translate_error``).

:func:`loads_unique` parses a document for verification and refuses a repeated key anywhere in
it: JSON parsers keep the last value, a person reads the first (a receipt with ``"history":
"model"`` before the real ``"display"`` must not verify).
"""

from __future__ import annotations

import array
import itertools
from typing import Any, Final

from ..errors import InputError

__all__ = [
    "MAX_DEPTH",
    "DuplicateKey",
    "TooDeep",
    "check_depth",
    "find_duplicate",
    "loads_unique",
    "nesting_depth",
    "parse_pairs",
]

MAX_DEPTH: Final = 512
"""The deepest nesting rho-desk inspects (Rho's serde_json reader stops at 128)."""

_OTHER: Final = bytes(b for b in range(256) if b not in b"[]{}")
_STEPS: Final = bytes.maketrans(b"[{]}", b"\x01\x01\xff\xff")


class TooDeep(InputError):
    """JSON nested deeper than :data:`MAX_DEPTH`."""


class DuplicateKey(InputError):
    """A JSON object that names one key twice."""


def nesting_depth(raw: bytes | str, *, stop_above: int | None = None) -> int:
    """The deepest nesting of ``[``/``{`` outside strings in ``raw`` (0 for a scalar).

    Iterative and linear, at the speed of ``bytes`` methods: escaped backslashes and quotes are
    blanked, the text is split at the remaining quotes (every other piece is inside a string),
    and the running depth of the brackets left is summed in C. With ``stop_above``, a text with
    too few brackets to nest deeper is not scanned at all (0 is returned).
    """
    data = raw.encode("utf-8", "surrogatepass") if isinstance(raw, str) else raw
    if stop_above is not None and data.count(b"[") + data.count(b"{") <= stop_above:
        return 0
    # a backslash occurs only inside strings; ``\\`` first, so ``\\"`` still ends its string
    plain = data.replace(b"\\\\", b"__").replace(b'\\"', b"__")
    outside = b"".join(plain.split(b'"')[0::2])
    steps = array.array("b", outside.translate(_STEPS, _OTHER))  # [ { -> 1, ] } -> -1
    return max(0, max(itertools.accumulate(steps), default=0))


def check_depth(
    raw: bytes | str, *, source: str | None = None, line: int | None = None, limit: int = MAX_DEPTH
) -> None:
    """Refuse ``raw`` when it nests deeper than ``limit``.

    Raises:
        TooDeep: naming ``source`` and ``line``.
    """
    if nesting_depth(raw, stop_above=limit) > limit:
        raise TooDeep(f"JSON nesting is deeper than {limit} levels", source=source, line=line)


class _Pairs(dict[str, Any]):
    __slots__ = ("duplicate",)

    def __init__(self, pairs: list[tuple[str, Any]]) -> None:
        super().__init__(pairs)
        self.duplicate: str | None = None
        if len(self) != len(pairs):
            seen: set[str] = set()
            for key, _ in pairs:
                if key in seen:
                    self.duplicate = key
                    break
                seen.add(key)


def find_duplicate(
    value: Any, path: str = "$", *, skip: frozenset[str] = frozenset()
) -> tuple[str, str] | None:
    """The first repeated key in a value parsed with ``object_pairs_hook=_Pairs``, and where it
    is (``None``: none). Members named in ``skip`` are free-form maps whose duplicates are
    allowed. Iterative: the nesting was bounded before parsing, but no stack is spent on it."""
    stack: list[tuple[Any, str]] = [(value, path)]
    while stack:
        item, where = stack.pop()
        if isinstance(item, _Pairs):
            if item.duplicate is not None:
                return item.duplicate, where
            stack.extend(
                (child, f"{where}.{key}")
                for key, child in reversed(item.items())
                if key not in skip
            )
        elif isinstance(item, list):
            stack.extend(
                (child, f"{where}[{index}]") for index, child in reversed(list(enumerate(item)))
            )
    return None


def parse_pairs(raw: bytes | str) -> Any:
    """``raw`` parsed with every object a dict that remembers a repeated key (for
    :func:`find_duplicate`); the caller bounded its depth first.

    Raises:
        ValueError: not JSON.
    """
    import json  # here: only the check for repeated keys needs it

    return json.loads(raw, object_pairs_hook=_Pairs)


def loads_unique(raw: bytes | str, *, source: str | None = None, limit: int = MAX_DEPTH) -> Any:
    """Parse a JSON document for verification: bounded depth, no repeated key anywhere.

    Raises:
        TooDeep: nested deeper than ``limit``.
        DuplicateKey: an object names one key twice (the path says where).
        InputError: not JSON.
    """
    check_depth(raw, source=source, limit=limit)
    try:
        value = parse_pairs(raw)
    except ValueError as exc:
        raise InputError(f"not JSON: {exc}", source=source) from None
    found = find_duplicate(value)
    if found is not None:
        key, where = found
        raise DuplicateKey(
            f"the key {key!r} appears twice in one object: a parser keeps one value, a reader may see the "
            "other, so the document is refused",
            source=source,
            path=where,
        )
    return value
