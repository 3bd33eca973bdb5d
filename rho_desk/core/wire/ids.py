"""Opaque identifiers (sessions, runs, steering, tool calls) and revisions."""

from __future__ import annotations

import uuid
from typing import Final, NewType

from ..errors import InputError

__all__ = ["INITIAL_REVISION", "InvalidId", "Revision", "RunId", "SessionId", "check_id", "new_id"]

SessionId = NewType("SessionId", str)
RunId = NewType("RunId", str)
Revision = int
INITIAL_REVISION: Final[Revision] = 0


class InvalidId(InputError):
    """An empty identifier: the only invalid one."""

    def __init__(self) -> None:
        super().__init__("identifier must not be empty")


def new_id() -> str:
    """A fresh random UUID v4 in canonical lowercase hyphenated form."""
    return str(uuid.uuid4())


def check_id(value: str) -> str:
    """``value`` unchanged if it is a valid id (any non-empty string), else ``InvalidId``."""
    if not isinstance(value, str) or not value:
        raise InvalidId()
    return value
