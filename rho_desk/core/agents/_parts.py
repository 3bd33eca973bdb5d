"""Small conversions every reader shares: texts, images, data URLs, usage figures, member access
that checks the structure it relies on."""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from ..wire.model import U64_MAX, ContentBlock
from .base import AgentLogError

__all__ = [
    "IMAGE_TYPES",
    "Where",
    "count",
    "data_url_image",
    "dollars_to_micros",
    "image_block",
    "json_text",
    "split",
    "string",
]

IMAGE_TYPES: Final = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})


def string(value: object, default: str = "") -> str:
    """``value`` when it is a string, else ``default``."""
    return value if isinstance(value, str) else default


def mapping(value: object) -> dict[str, Any]:
    """``value`` when it is an object, else an empty one."""
    return value if isinstance(value, dict) else {}


def count(value: object) -> int | None:
    """A token count: a non-negative integer (a float that is one is accepted), else ``None``."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if 0 <= value <= U64_MAX else None
    if isinstance(value, float) and math.isfinite(value) and value >= 0 and value.is_integer():
        return min(int(value), U64_MAX)
    return None


def dollars_to_micros(value: object) -> int | None:
    """A cost in US dollars (a number) in millionths, ``None`` when it is not a finite number."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if not math.isfinite(value) or value < 0:
        return None
    return min(round(value * 1_000_000), U64_MAX)


def image_block(data: object, mime: object) -> ContentBlock | None:
    """A Rho image block from base64 text and a media type, or ``None`` when either is missing."""
    if not isinstance(data, str) or not data or not isinstance(mime, str) or not mime:
        return None
    return ContentBlock.of_image(data, mime)


def data_url_image(url: object) -> ContentBlock | None:
    """The image of a ``data:<mime>;base64,<data>`` URL, or ``None`` for any other URL."""
    if not isinstance(url, str) or not url.startswith("data:"):
        return None
    head, comma, data = url.partition(",")
    if not comma or not head.endswith(";base64"):
        return None
    mime = head[5:-7].split(";", 1)[0] or "application/octet-stream"
    return image_block(data, mime)


def json_text(value: object) -> str:
    """A JSON value as compact text (a string stays itself)."""
    if isinstance(value, str):
        return value
    import msgspec

    try:
        return msgspec.json.encode(value).decode("utf-8")
    except (TypeError, ValueError, RecursionError):
        return str(value)


class Where:
    """Typed access to the members of one record, failing with the file and the line.

    ``where`` names the record in messages (``assistant message``); each accessor raises
    :class:`AgentLogError` when the member is there with a type the reader cannot use, and
    returns the default when it is missing or ``null``.
    """

    __slots__ = ("line", "source")

    def __init__(self, source: str, line: int) -> None:
        self.source = source
        self.line = line

    def fail(self, reason: str) -> AgentLogError:
        return AgentLogError(reason, source=self.source, line=self.line)

    def text(
        self, obj: Mapping[str, Any], name: str, what: str, *, required: bool = False
    ) -> str | None:
        value = obj.get(name)
        if value is None:
            if required:
                raise self.fail(f"{what} has no `{name}`")
            return None
        if not isinstance(value, str):
            raise self.fail(f"`{name}` of {what} is not a string")
        return value

    def obj(
        self, obj: Mapping[str, Any], name: str, what: str, *, required: bool = False
    ) -> dict[str, Any] | None:
        value = obj.get(name)
        if value is None:
            if required:
                raise self.fail(f"{what} has no `{name}`")
            return None
        if not isinstance(value, dict):
            raise self.fail(f"`{name}` of {what} is not an object")
        return value

    def array(
        self, obj: Mapping[str, Any], name: str, what: str, *, required: bool = False
    ) -> list[Any] | None:
        value = obj.get(name)
        if value is None:
            if required:
                raise self.fail(f"{what} has no `{name}`")
            return None
        if not isinstance(value, list):
            raise self.fail(f"`{name}` of {what} is not an array")
        return value

    def objects(self, items: list[Any], what: str) -> list[dict[str, Any]]:
        """``items`` when every one is an object."""
        for item in items:
            if not isinstance(item, dict):
                raise self.fail(f"an item of {what} is not an object")
        return items


def split(path: Path | str) -> tuple[Path, str | None]:
    """``<database>#<session id>`` as the database and the id (``None`` when none is named)."""
    text = str(path)
    if "#" in text:
        head, _, tail = text.rpartition("#")
        if head and Path(head).is_file():
            return Path(head), tail or None
    return Path(text), None
