"""The conversation as shown: Rho's display history as an export, and its JSON document.

An export takes one of two histories (``HISTORY_KINDS``):

* ``display`` (the default): what Rho and rho-desk show, as Rho's own transcript export takes
  it (spec/export.md §2.1): every node's display messages from the root to the revision, a
  ``◆ Compacted context`` marker after each compaction, cut at the first incomplete tool turn.
  After a compaction this is the whole conversation, not the digest the model is sent;
* ``model``: the model context, the snapshot Rho resumes with.

The display history travels through the same class selection, redaction and audit as a
snapshot (:func:`display_snapshot` puts it in one, in place of the model history); only the JSON
form differs: a ``rho-desk.display-export`` document (:class:`~rho_desk.core.wire.display.DisplayExport`) whose JSON Schema is
published as ``docs/schemas/display-export.v1.json``.

Why a msgspec struct and not a pydantic model: its messages are the wire format's msgspec
structs (``rho_desk.core.wire.model``, the one definition of Rho's message grammar), and an
export of a large session is on the 100 MB path the ``export.audit_100mb`` benchmark measures,
where msgspec encodes in C without an intermediate dict (environment.md §5: pydantic validation
costs about 2.5x parsing). ``msgspec.json.schema`` gives the JSON Schema from the same types.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, Final

import msgspec

from ..errors import InputError
from ..wire.display import (
    DISPLAY_FORMAT,
    DISPLAY_VERSION,
    DisplayEntry,
    DisplayExport,
    decode_display_export,
)
from ..wire.model import Message, MessageKind
from ..wire.snapshot import SessionSnapshot
from ._classes import ContentClass
from ._classify import EXPORT_MARKER_PREFIX, Slot, SlotKind, json_path, message_slots

__all__ = [
    "DISPLAY_FORMAT",
    "DISPLAY_VERSION",
    "HISTORY_KINDS",
    "DisplayEntry",
    "DisplayExport",
    "aligned_timestamps",
    "decode_display_export",
    "display_export_schema",
    "display_slots",
    "display_snapshot",
    "encode_display_export",
    "index_title",
    "open_export_source",
    "with_title",
]

HISTORY_KINDS: Final = ("display", "model")
TITLE_KEY: Final = "title"


def display_snapshot(model: SessionSnapshot, messages: Sequence[Message]) -> SessionSnapshot:
    """``model`` with its history replaced by the display history (ids, metadata kept).

    Rho's display history never holds the system and project instructions (spec/export.md
    §4.1), so the model context's ``System`` messages go first: the ``instructions`` class then
    decides, like every other class, whether they leave the machine, and an export that includes
    it carries them in every format. They have no saved time (see :func:`aligned_timestamps`).
    """
    shown = tuple(messages)
    if not any(m.kind is MessageKind.SYSTEM for m in shown):
        shown = tuple(m for m in model.history if m.kind is MessageKind.SYSTEM) + shown
    return msgspec.structs.replace(model, history=shown)


def aligned_timestamps(timestamps: Sequence[str | None] | None, count: int) -> list[str | None]:
    """``timestamps`` for a display history of ``count`` messages: aligned with its end (the
    instructions :func:`display_snapshot` puts first have none), ``None`` where unknown."""
    if timestamps is None or len(timestamps) > count:
        return [None] * count
    return [None] * (count - len(timestamps)) + list(timestamps)


def with_title(snapshot: SessionSnapshot, title: str | None) -> SessionSnapshot:
    """``snapshot`` with ``title`` in its metadata (where transcripts take their heading), unless
    it has one already. The title is then selected and redacted like all metadata."""
    title = " ".join((title or "").split())
    if not title or snapshot.metadata.get(TITLE_KEY):
        return snapshot
    return msgspec.structs.replace(snapshot, metadata={**snapshot.metadata, TITLE_KEY: title})


def encode_display_export(
    snapshot: SessionSnapshot, timestamps: Sequence[str | None] | None
) -> bytes:
    """The display export document of a (selected, redacted) display snapshot, pretty JSON."""
    from ..wire.codec import encode_pretty

    stamps = aligned_timestamps(timestamps, len(snapshot.history))
    document = DisplayExport(
        format=DISPLAY_FORMAT,
        format_version=DISPLAY_VERSION,
        history="display",
        session_id=snapshot.session_id,
        revision=snapshot.revision,
        metadata=dict(snapshot.metadata),
        messages=[
            DisplayEntry(message=m, timestamp=t)
            for m, t in zip(snapshot.history, stamps, strict=True)
        ],
    )
    return encode_pretty(document)


def display_slots(snapshot: SessionSnapshot, timestamps: Sequence[str | None]) -> Iterator[Slot]:
    """Every string of the display document of ``snapshot``, with its path and class, in the
    order they are encoded (what ``iter_slots`` is for a snapshot)."""
    yield Slot("$.format", None, DISPLAY_FORMAT)
    yield Slot("$.history", None, "display")
    yield Slot("$.session_id", None, snapshot.session_id)
    for key, value in snapshot.metadata.items():
        path = json_path("$.metadata", key)
        cls = None if key.startswith(EXPORT_MARKER_PREFIX) else ContentClass.METADATA
        yield Slot(path + "@key", cls, key, SlotKind.KEY)
        yield Slot(path, cls, value)
    stamps = aligned_timestamps(timestamps, len(snapshot.history))
    for i, message in enumerate(snapshot.history):
        yield from message_slots(message, f"$.messages[{i}].message")
        stamp = stamps[i]
        if stamp is not None:
            yield Slot(f"$.messages[{i}].timestamp", None, stamp)


def display_export_schema() -> dict[str, Any]:
    """The JSON Schema of display exports (published as ``docs/schemas/display-export.v1.json``)."""
    schema: dict[str, Any] = msgspec.json.schema(DisplayExport)
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = "https://rho-desk.invalid/schemas/display-export.v1.json"
    return schema


def index_title(transcript: Path, session_id: str) -> str | None:
    """The title Rho's index gives ``session_id``, read-only (the index is not migrated); in the
    bundled demo library, which ships no index (its rows would name absolute paths), the title
    its ``demo-titles.json`` gives, as the demo's index is built with."""
    from ..stores.demo import TITLES_FILE, demo_titles
    from ..stores.index import salvage_titles

    for parent in Path(transcript).absolute().parents:
        if parent.name == "sessions":
            titles = salvage_titles(parent, busy_timeout=1.0)
            found = next((t for (_wk, sid), t in sorted(titles.items()) if sid == session_id), None)
            if found is None:
                demo = demo_titles(parent.parent / TITLES_FILE)
                found = next((t for _cwd, sid, t in demo if sid == session_id), None)
            return found
    return None


def open_export_source(
    path: Path, revision: int | None, history: str | None
) -> tuple[SessionSnapshot, str, list[str | None] | None, str | None]:
    """What ``rho-desk export`` exports from ``path``: the snapshot to run through the export,
    the history kind, the display timestamps, and the session's title in Rho's index.

    A snapshot document holds only the model context: with ``history`` unset it is exported as
    ``model``; asking for ``display`` is an error.

    Raises:
        InputError: no such revision, or ``display`` asked of a snapshot document.
    """
    from ..stores.open import is_session_file, open_snapshot

    path = Path(path)
    if history is not None and history not in HISTORY_KINDS:
        raise InputError(f"unknown history {history!r}; choose display or model")
    if not is_session_file(path):
        if history == "display":
            raise InputError(
                "a snapshot document holds only the model context, not the conversation as shown; "
                "pass --history model",
                source=str(path),
            )
        return open_snapshot(path, revision), "model", None, None
    from ..agents.build import AgentSessionFile
    from ..stores.open import read_transcript

    session = read_transcript(path)
    tree = session.tree
    node = tree.find_revision(revision) if revision is not None else None
    model = tree.snapshot(node)
    # another agent's session names itself; a Rho session's title is in Rho's index
    title = (
        session.log.title
        if isinstance(session, AgentSessionFile)
        else index_title(path, model.session_id)
    )
    if history == "model":
        return model, "model", None, title
    shown = tree.display(node, markers=True, trimmed=True)
    return (
        display_snapshot(model, [e.message for e in shown]),
        "display",
        [e.timestamp for e in shown],
        title,
    )
