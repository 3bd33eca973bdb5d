"""The display export document (``rho-desk.display-export``, version 1): a conversation as shown.

What an export with ``--history display`` writes as JSON and what the team library stores for a
session published as shown: the display messages (compaction markers among them, as plain
messages) with the times Rho saved them. Its JSON Schema is published as
``docs/schemas/display-export.v1.json``; :mod:`rho_desk.core.export` builds it, and the viewer
opens it like a snapshot document (``core.stores.open``).
"""

from __future__ import annotations

from typing import Final, Literal

import msgspec

from .model import Message, ModelIdentity
from .snapshot import SessionSnapshot

__all__ = [
    "DISPLAY_FORMAT",
    "DISPLAY_VERSION",
    "DisplayEntry",
    "DisplayExport",
    "decode_display_export",
    "display_identity",
]

DISPLAY_FORMAT: Final = "rho-desk.display-export"
DISPLAY_VERSION: Final = 1


class DisplayEntry(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """One message as shown, with the time Rho saved it."""

    message: Message
    timestamp: str | None = None
    """Unix seconds as Rho stores them (a string); absent for a snapshot's messages."""


class DisplayExport(msgspec.Struct, frozen=True, kw_only=True):
    """The JSON document of a display export (``rho-desk.display-export``, version 1).

    ``metadata`` is the session's custom metadata as selected and redacted (the export's
    ``metadata`` class); its ``title`` is the session's title when the export kept it, and
    ``rho_desk.export.excluded`` lists the classes left out.
    """

    format: Literal["rho-desk.display-export"]
    format_version: Literal[1]
    history: Literal["display"]
    session_id: str
    revision: int
    metadata: dict[str, str]
    messages: list[DisplayEntry]


_NO_PROVIDER: Final = ModelIdentity("display", "display", "display")


def decode_display_export(data: bytes) -> tuple[SessionSnapshot, list[str | None]] | None:
    """A display export document as a display snapshot and its timestamps (``None``: not one)."""
    if DISPLAY_FORMAT.encode() not in data[:256]:
        return None  # cheap: ``format`` is the first field; other JSON is not parsed twice
    try:
        document = msgspec.json.decode(data, type=DisplayExport)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None
    carrier = SessionSnapshot.new(
        document.session_id,
        document.revision,
        [e.message for e in document.messages],
        _NO_PROVIDER,
        metadata=document.metadata,
    )
    return carrier, [e.timestamp for e in document.messages]


def display_identity(shown: SessionSnapshot) -> ModelIdentity | None:
    """The model a display document's conversation was last answered by (a display export names
    none): the provenance of its last assistant turn; ``None`` when it has no such turn."""
    for message in reversed(shown.history):
        turn = message.enriched_assistant
        if turn is not None and turn.provenance is not None:
            return turn.provenance
    return None
