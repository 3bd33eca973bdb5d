"""Tool arguments as a client sends them: validated one by one, each refusal one clear sentence.

A client is usually a model, and a model may send anything: a number as a string, a list where a
word was due, a field that does not exist, a megabyte of query. :class:`Args` takes each
argument once, by its kind, and :meth:`Args.done` refuses any name the tool does not know.
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Sequence
from typing import Any

from ..core.errors import InputError
from ..core.export import ALL_CLASSES, Selection, UnknownContentClass, parse_classes

__all__ = ["Args", "BadArguments"]


class BadArguments(InputError):
    """An argument of the wrong kind, out of range, or unknown (the text says which and why)."""


class Args:
    """The arguments of one call of ``tool``."""

    def __init__(self, tool: str, arguments: dict[str, Any] | None) -> None:
        if arguments is not None and not isinstance(arguments, dict):
            raise BadArguments(f"{tool}: arguments must be an object")
        self.tool = tool
        self._values = dict(arguments or {})
        self._used: set[str] = set()

    def _take(self, name: str) -> Any:
        self._used.add(name)
        value = self._values.get(name)
        return value

    def _bad(self, name: str, why: str) -> BadArguments:
        return BadArguments(f"{self.tool}: {name} {why}")

    def done(self) -> None:
        """Refuse arguments the tool does not take."""
        unknown = sorted(set(self._values) - self._used)
        if unknown:
            names = ", ".join(repr(n[:40]) for n in unknown[:5])
            raise BadArguments(
                f"{self.tool}: unknown argument(s) {names}; it takes {', '.join(sorted(self._used))}"
            )

    def peek_str(self, name: str) -> str | None:
        value = self._values.get(name)
        return value[:200] if isinstance(value, str) else None

    def text(self, name: str, *, required: bool = False, limit: int = 1000) -> str:
        value = self._take(name)
        if value is None:
            if required:
                raise self._bad(name, "is required")
            return ""
        if not isinstance(value, str):
            raise self._bad(name, f"must be a string, not {_kind(value)}")
        if required and not value.strip():
            raise self._bad(name, "must not be empty")
        if len(value) > limit:
            raise self._bad(name, f"is too long ({len(value):,} characters; at most {limit:,})")
        return value

    def path(self, name: str) -> str | None:
        value = self.text(name, limit=4096)
        if not value:
            return None
        if "\x00" in value or "\n" in value:
            raise self._bad(name, "must be one line")
        return os.path.expanduser(value)

    def integer(self, name: str, *, default: int | None, low: int, high: int) -> Any:
        value = self._take(name)
        if value is None:
            return default
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or (isinstance(value, float) and not value.is_integer())
        ):
            raise self._bad(name, f"must be a whole number, not {_kind(value)}")
        number = int(value)
        if not low <= number <= high:
            raise self._bad(name, f"must be between {low} and {high:,}, not {number}")
        return number

    def choice(self, name: str, options: Sequence[str], *, required: bool = False) -> str:
        value = self.text(name, required=required, limit=100)
        if value not in options:
            raise self._bad(name, f"must be one of {', '.join(options)}, not {value[:40]!r}")
        return value

    def day(self, name: str) -> dt.date | None:
        value = self.text(name, limit=40).strip()
        if not value:
            return None
        try:
            return dt.date.fromisoformat(value[:10])
        except ValueError:
            raise self._bad(name, f"must be a date (YYYY-MM-DD), not {value!r}") from None

    def date(self, name: str) -> int | None:
        """A date or a date and time (ISO 8601; UTC unless it says otherwise) as Unix seconds."""
        value = self.text(name, limit=40).strip()
        if not value:
            return None
        try:
            stamp = dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            raise self._bad(
                name, f"must be a date (YYYY-MM-DD) or an ISO 8601 time, not {value!r}"
            ) from None
        if stamp.tzinfo is None:
            stamp = stamp.replace(tzinfo=dt.UTC)
        return int(stamp.timestamp())

    def classes(self, name: str) -> Selection:
        """Content class names (a list, or names separated by commas), as ``rho-desk export
        --include``; absent: every class (the export's default). Secrets are redacted always."""
        value = self._take(name)
        if value is None:
            return Selection.including(ALL_CLASSES)
        if isinstance(value, list) and all(isinstance(v, str) for v in value) and len(value) <= 20:
            names: str | list[str] = value
        elif isinstance(value, str) and len(value) <= 400:
            names = value
        else:
            raise self._bad(name, "must be a list of content class names")
        try:
            return Selection.including(parse_classes(names, source=name))
        except UnknownContentClass as exc:
            raise BadArguments(f"{self.tool}: {exc.text()}") from None


def _kind(value: object) -> str:
    return {
        bool: "a boolean",
        int: "a number",
        float: "a number",
        str: "a string",
        list: "a list",
        dict: "an object",
        type(None): "null",
    }.get(type(value), type(value).__name__)
