"""The records of a Rho session transcript: one msgspec struct per ``type``, decoded in C.

storage.md §5. Every line of a transcript is one JSON object whose string member ``type`` names
the record; the structs below form an internally tagged union on that field, so a whole line
decodes straight into typed values (the wire ``Message`` and ``SessionSnapshot`` included)
without an intermediate dict. Field order is declaration order and equals what Rho writes;
unknown extra keys are ignored, unknown ``type`` values are an error.
"""

from __future__ import annotations

import enum
from typing import Final, TypeAlias

import msgspec
from msgspec import field
from msgspec.structs import force_setattr

from ...wire.model import U64, U64_MAX, Message, ModelIdentity, check_u64
from ...wire.snapshot import CompactionState, SessionSnapshot

__all__ = [
    "MAX_NODE_ID_BYTES",
    "SHOWN_LATER",
    "CompactionFacts",
    "DeltaTransition",
    "HeaderRecord",
    "MessageRecord",
    "NodeKind",
    "NodeRecord",
    "Record",
    "RecordShownLater",
    "ReplaceHistoryRecord",
    "SetLeafRecord",
    "ShownLater",
    "SnapshotDeltaRecord",
    "SnapshotRecord",
    "SnapshotTransition",
    "StoredDisplayMessage",
    "StoredSnapshotDelta",
    "Transition",
    "UpgradeRecord",
    "parse_timestamp",
]

MAX_NODE_ID_BYTES: Final = 128


def parse_timestamp(text: str) -> int | None:
    """Decimal Unix seconds as Rust's ``u64::from_str`` reads them; ``None`` when it does not parse.

    Rust accepts an optional leading ``+`` and nothing else (no spaces, signs or underscores).
    """
    digits = text[1:] if text.startswith("+") else text
    if not digits or not digits.isascii() or not digits.isdigit():
        return None
    value = int(digits)
    return value if value <= U64_MAX else None


class NodeKind(enum.Enum):
    """What a saved revision did."""

    COMMIT = "commit"  # a turn, a host notice or an SDK store save: compaction state unchanged
    COMPACTION = "compaction"  # the compaction state changed (a new complete base)


class StoredDisplayMessage(msgspec.Struct, frozen=True, gc=False):
    """One entry of display history: what the user saw, and when it was saved."""

    timestamp: str
    """Unix seconds as a JSON string: the save time of the record that carries it."""
    message: Message
    """The message as displayed (the first user message of a turn in display form)."""


def _no_display() -> tuple[StoredDisplayMessage, ...]:
    # default_factory, not a default: read as [] when missing, but always written
    return ()


class CompactionFacts(msgspec.Struct, frozen=True, gc=False):
    """What a compaction node's compaction did (all keys always written)."""

    previous_messages: U64
    current_messages: U64
    previous_tokens: U64
    current_tokens: U64
    cost_usd_micros: U64 | None = None
    """Cost of the summary step; written as ``null`` when unknown."""

    def __post_init__(self) -> None:
        for name in self.__struct_fields__:
            check_u64(name, getattr(self, name))


class StoredSnapshotDelta(msgspec.Struct, frozen=True, omit_defaults=True, gc=False):
    """A snapshot expressed as "the base snapshot plus these appended messages" (§5.5)."""

    base_revision: U64
    """Revision of the snapshot this delta extends."""
    session_id: str
    """Must equal the base snapshot's id."""
    revision: U64
    """New revision; at least ``base_revision``."""
    appended_history: tuple[Message, ...]
    """Messages appended after the base history."""
    provider: ModelIdentity
    """Replaces the base provider."""
    compaction: CompactionState
    """Replaces the base compaction state."""
    metadata: dict[str, str]
    """Replaces the base metadata; required on read and always written, even ``{}``."""
    prompt_cache_key: str | None = None
    """Replaces the base key when present; omitted when absent."""

    def __post_init__(self) -> None:
        check_u64("base_revision", self.base_revision)
        check_u64("revision", self.revision)
        metadata = self.metadata
        if len(metadata) > 1 and list(metadata) != sorted(metadata):
            force_setattr(self, "metadata", dict(sorted(metadata.items())))


class SnapshotTransition(msgspec.Struct, tag_field="type", tag="snapshot", frozen=True, gc=False):
    """A node whose state is a complete snapshot."""

    snapshot: SessionSnapshot


class DeltaTransition(
    msgspec.Struct, tag_field="type", tag="snapshot_delta", frozen=True, gc=False
):
    """A node whose state is its parent's state plus a delta."""

    delta: StoredSnapshotDelta


Transition: TypeAlias = SnapshotTransition | DeltaTransition


class _Record(msgspec.Struct, tag_field="type", frozen=True, omit_defaults=True, gc=False):
    """Base of every transcript record: ``type`` comes first, then the fields in order."""


class HeaderRecord(_Record, tag="session", frozen=True):
    """The first line of every transcript (§5.1)."""

    version: int
    """Header grammar version, 1 to 4 (range checked by the reader, not the decoder)."""
    id: str
    """Session id; must equal the id in the file or folder name when the name carries one."""
    timestamp: str
    """Creation time (Unix seconds as a string)."""
    cwd: str
    """The absolute working directory; determines the workspace key."""
    agent_id: str | None = None
    """Agent definition the session was created with; omitted when absent."""
    agent_fingerprint: str | None = None
    """SHA-256 fingerprint (64 lowercase hex) of that definition; omitted when absent."""


class MessageRecord(_Record, tag="message", frozen=True):
    """Legacy v1: one message appended to model history (§5.2)."""

    timestamp: str
    message: Message
    display_message: Message | None = None
    """What the user saw instead; absent means the same as ``message``."""


class ReplaceHistoryRecord(_Record, tag="replace_history", frozen=True):
    """Legacy v1: the complete new model history after a compaction (§5.3)."""

    timestamp: str
    messages: tuple[Message, ...]


class SnapshotRecord(_Record, tag="snapshot", frozen=True):
    """Legacy v2/v3: a complete SDK snapshot plus the display tail of the save (§5.4)."""

    timestamp: str
    snapshot: SessionSnapshot
    display_messages: tuple[StoredDisplayMessage, ...]


class SnapshotDeltaRecord(_Record, tag="snapshot_delta", frozen=True):
    """Legacy v3: a delta on the latest snapshot plus the display tail of the save (§5.5)."""

    timestamp: str
    delta: StoredSnapshotDelta
    display_messages: tuple[StoredDisplayMessage, ...]


class NodeRecord(_Record, tag="node", kw_only=True, frozen=True):
    """v4 (and upgraded legacy files): one saved revision in the session tree (§5.6)."""

    id: str
    """Node id: non-empty, no surrounding whitespace, at most 128 bytes (writers use UUID v4)."""
    parent_id: str | None = None
    """Parent node; absent only for the root."""
    timestamp: str
    """Save time; every display message of the node carries the same value."""
    kind: NodeKind
    compaction_facts: CompactionFacts | None = None
    """Only on compaction nodes; omitted otherwise."""
    transition: Transition
    display_messages: tuple[StoredDisplayMessage, ...] = field(default_factory=_no_display)
    """Display tail contributed by this node; ``[]`` when missing, always written."""


class SetLeafRecord(_Record, tag="set_leaf", frozen=True):
    """Makes an existing node the active leaf (§5.7)."""

    timestamp: str
    target_id: str


class UpgradeRecord(_Record, tag="upgrade", frozen=True):
    """Marks a v1-v3 file as continued with tree records (§5.8)."""

    timestamp: str
    active_leaf_id: str
    """Must equal the current virtual leaf of the legacy projection."""


Record: TypeAlias = (
    HeaderRecord
    | MessageRecord
    | ReplaceHistoryRecord
    | SnapshotRecord
    | SnapshotDeltaRecord
    | NodeRecord
    | SetLeafRecord
    | UpgradeRecord
)
"""Any transcript line."""


class _SnapshotShownLater(_Record, tag="snapshot", frozen=True):
    """A ``snapshot`` record as the reader first decodes it: its display tail left as JSON."""

    timestamp: str
    snapshot: SessionSnapshot
    display_messages: msgspec.Raw

    def history(self) -> tuple[Message, ...]:
        return self.snapshot.history

    def complete(self, display_messages: tuple[StoredDisplayMessage, ...]) -> SnapshotRecord:
        """The record this stands for, with ``display_messages`` as its decoded tail."""
        return SnapshotRecord(self.timestamp, self.snapshot, display_messages)


class _DeltaShownLater(_Record, tag="snapshot_delta", frozen=True):
    """A ``snapshot_delta`` record as the reader first decodes it: its display tail left as JSON."""

    timestamp: str
    delta: StoredSnapshotDelta
    display_messages: msgspec.Raw

    def history(self) -> tuple[Message, ...]:
        return self.delta.appended_history

    def complete(self, display_messages: tuple[StoredDisplayMessage, ...]) -> SnapshotDeltaRecord:
        """The record this stands for, with ``display_messages`` as its decoded tail."""
        return SnapshotDeltaRecord(self.timestamp, self.delta, display_messages)


class _NodeShownLater(_Record, tag="node", kw_only=True, frozen=True):
    """A ``node`` record as the reader first decodes it: its display tail left as JSON."""

    id: str
    parent_id: str | None = None
    timestamp: str
    kind: NodeKind
    compaction_facts: CompactionFacts | None = None
    transition: Transition
    display_messages: msgspec.Raw = msgspec.Raw(b"[]")

    def history(self) -> tuple[Message, ...]:
        transition = self.transition
        if isinstance(transition, DeltaTransition):
            return transition.delta.appended_history
        return transition.snapshot.history

    def complete(self, display_messages: tuple[StoredDisplayMessage, ...]) -> NodeRecord:
        """The record this stands for, with ``display_messages`` as its decoded tail."""
        return NodeRecord(
            id=self.id,
            parent_id=self.parent_id,
            timestamp=self.timestamp,
            kind=self.kind,
            compaction_facts=self.compaction_facts,
            transition=self.transition,
            display_messages=display_messages,
        )


ShownLater: TypeAlias = _SnapshotShownLater | _DeltaShownLater | _NodeShownLater
"""A record with a display tail, decoded but for that tail (:data:`RecordShownLater`)."""

SHOWN_LATER: Final = (_SnapshotShownLater, _DeltaShownLater, _NodeShownLater)

RecordShownLater: TypeAlias = (
    HeaderRecord
    | MessageRecord
    | ReplaceHistoryRecord
    | _SnapshotShownLater
    | _DeltaShownLater
    | _NodeShownLater
    | SetLeafRecord
    | UpgradeRecord
)
"""Any transcript line, the display tails of revisions left as raw JSON: most of a display
tail repeats the end of its record's history, and decoding it a second time was about a sixth
of reading a big file (the reader compares its bytes with the history's encoding instead)."""


LEGACY_RECORDS: Final = (MessageRecord, ReplaceHistoryRecord, SnapshotRecord, SnapshotDeltaRecord)
TREE_RECORDS: Final = (NodeRecord, SetLeafRecord)
