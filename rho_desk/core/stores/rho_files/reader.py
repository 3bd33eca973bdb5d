"""Reading a Rho session transcript into a revision tree, strictly, as Rho reads it (§6.1).

One JSON record per line, decoded in C by msgspec straight into the record structs; the tree
applies each record with the rules of ``tree.py``. A torn final line (no ``\\n``, and the JSON
merely cut short) is ignored and reported as a :class:`RecoveryNote`; every other problem fails
the whole load with a typed :class:`SessionFileError` naming the file, the line and the reason.
Reading never writes, never takes a lock, and keeps what an append later needs: where the
valid content ends, and the file's size, identity and tail for the optimistic revision check
(:class:`FileEnd`, the one end-of-file state that the writer and the live tail reader carry on).
"""

from __future__ import annotations

import io
import os
import re
from collections.abc import Iterable, Sequence
from itertools import repeat
from operator import attrgetter, is_
from pathlib import Path
from typing import Any, Final, Generic, TypeVar

import msgspec
from msgspec.structs import force_setattr, replace

from ...errors import InputError, StorageError
from ...wire.codec import TruncatedJson, gc_paused, translate_error
from ...wire.model import AbortedAssistant, AssistantMessage, Message
from ...wire.snapshot import SessionSnapshot
from .errors import (
    CorruptRecord,
    NewerRecord,
    NotASessionFile,
    SessionFileError,
    SessionIdMismatch,
    UnsupportedSessionVersion,
    read_failure,
)
from .layout import SessionUnit, unit_for_path
from .records import (
    SHOWN_LATER,
    DeltaTransition,
    HeaderRecord,
    NodeRecord,
    Record,
    RecordShownLater,
    ShownLater,
    SnapshotDeltaRecord,
    SnapshotRecord,
    StoredDisplayMessage,
    StoredSnapshotDelta,
)
from .tree import SessionTree

__all__ = [
    "DAMAGED",
    "MAX_FILE_BYTES",
    "MAX_VERSION",
    "MIN_VERSION",
    "NEWER",
    "TAIL_BYTES",
    "FileEnd",
    "RecoveryNote",
    "SessionFile",
    "decode_line",
    "parse_session",
    "read_header",
    "read_session",
    "share_display",
    "snapshot_session",
]

MIN_VERSION: Final = 1
MAX_VERSION: Final = 4
TAIL_BYTES: Final = 4096
"""How much of the file's end the optimistic revision check compares."""
MAX_FILE_BYTES: Final = 4 * 1024**3
"""Refuse transcripts above 4 GiB: far beyond any real session, and beyond what fits in memory."""
MAX_HEADER_BYTES: Final = 1024**2

T = TypeVar("T")


class _Decoder(Generic[T]):
    """A msgspec decoder of ``type_`` made on its first use: resolving the record types takes
    a process about 10 ms, which one that reads no Rho file (it opens another agent's log,
    imports one) does not spend. Its first ``decode`` puts the decoder's own in its place."""

    def __init__(self, type_: Any) -> None:
        self._type = type_

    def decode(self, data: bytes | bytearray | memoryview) -> T:
        decode = msgspec.json.Decoder(self._type).decode
        self.decode = decode  # type: ignore[method-assign,assignment]
        return decode(data)  # type: ignore[no-any-return]


_DECODER: Final = _Decoder[Record](Record)
_SHOWN_LATER_DECODER: Final = _Decoder[RecordShownLater](RecordShownLater)
_DISPLAY_DECODER: Final = _Decoder[tuple[StoredDisplayMessage, ...]](
    tuple[StoredDisplayMessage, ...]
)
_ENCODER: Final = msgspec.json.Encoder()
_NO_DISPLAY: Final = b"[]"
_HEADER_DECODER: Final = _Decoder[HeaderRecord](HeaderRecord)
_READ_BUFFER: Final = 1024 * 1024
DAMAGED: Final = "damaged"
NEWER: Final = "newer-record"
_RAW_SHOWN: Final = 4096
"""How much of a record the reader keeps for showing (a newer record's text)."""
_INVALID_NUMBER: Final = re.compile(r"JSON is malformed: invalid number \(byte (\d+)\)")


class RecoveryNote(msgspec.Struct, frozen=True):
    """Something the reader tolerated and the user should know about."""

    source: str
    line: int
    """1-based line number of the fragment."""
    offset: int
    """Byte offset where the fragment starts."""
    length: int
    """Bytes in the fragment."""
    reason: str
    kind: str = "torn-tail"
    """``torn-tail`` (an unfinished last line, ignored as Rho ignores it), ``damaged`` (a bad
    line met in tolerant mode: everything from it on was not read) or ``newer-record`` (a record
    of a type a newer Rho wrote: passed over, the lines after it read)."""
    raw: str = ""
    """The line's text, for a ``newer-record`` (cut at 4 KiB): what the user is shown."""

    def text(self) -> str:
        return f"{self.source}:{self.line}: {self.reason}"


class FileEnd(msgspec.Struct, frozen=True):
    """Where a transcript stood when this process last read or wrote it.

    What an append checks before writing (same identity, size, mtime and last bytes: nobody else
    wrote) and where it writes (after ``valid_end``, with a ``\\n`` first when the last record
    has none, over a torn fragment), and where a live re-read starts. The reader makes it, the
    writer and the live tail reader (:mod:`.tail`) replace it with the state after their work.
    """

    size: int = 0
    """File size (including a torn fragment); ``-1`` when unknown after a failed cut-back."""
    valid_end: int = 0
    """End of the last complete record; a torn fragment lies between here and ``size``."""
    ends_with_newline: bool = True
    """False when the last complete record has no ``\\n`` (an append must add one first)."""
    tail: bytes = b""
    """The last ``TAIL_BYTES`` bytes of the file (for the optimistic check)."""
    identity: tuple[int, int] = (0, 0)
    """``(st_dev, st_ino)`` of the file."""
    mtime_ns: int = 0
    """Modification time; 0 when not known (parsed bytes)."""
    line_count: int = 0
    """Lines (including blank ones and a torn fragment)."""

    @property
    def torn(self) -> bool:
        """The file ends in an unfinished line (ignored by readers, cut by the next append)."""
        return self.valid_end < self.size

    @property
    def next_line(self) -> int:
        """The line number the next appended record gets (a torn fragment's line is reused)."""
        return self.line_count if self.torn else self.line_count + 1

    def appended(self, data: bytes, mtime_ns: int) -> FileEnd:
        """The end after ``data`` (complete records, the last one ending in ``\\n``) was appended
        at ``size`` (no torn fragment left)."""
        return replace(
            self,
            size=self.size + len(data),
            valid_end=self.size + len(data),
            ends_with_newline=True,
            tail=(self.tail + data)[-TAIL_BYTES:],
            mtime_ns=mtime_ns,
            line_count=self.line_count + data.count(b"\n") - (0 if self.ends_with_newline else 1),
        )

    def same_file(self, st: os.stat_result) -> bool:
        """Whether ``st`` is the file this end describes (same device and inode)."""
        return (st.st_dev, st.st_ino) == self.identity


class SessionFile(msgspec.Struct):
    """A transcript as read: its tree, what was tolerated, and where the file stood then."""

    path: Path
    unit: SessionUnit
    tree: SessionTree
    notes: list[RecoveryNote] = msgspec.field(default_factory=list)
    end: FileEnd = msgspec.field(default_factory=FileEnd)
    """Where the file ended when read; the writer and live updates move it on."""

    @property
    def header(self) -> HeaderRecord | None:
        return self.tree.header

    @property
    def size(self) -> int:
        """File size when read (including a torn fragment)."""
        return self.end.size

    @property
    def valid_end(self) -> int:
        """End of the last complete record."""
        return self.end.valid_end

    @property
    def ends_with_newline(self) -> bool:
        return self.end.ends_with_newline

    @property
    def tail(self) -> bytes:
        return self.end.tail

    @property
    def identity(self) -> tuple[int, int]:
        return self.end.identity

    @property
    def mtime_ns(self) -> int:
        return self.end.mtime_ns

    @property
    def line_count(self) -> int:
        return self.end.line_count

    @property
    def torn(self) -> bool:
        return self.end.torn

    def release(self) -> None:
        """Break the tree's parent/children links: for a file no one will read any more.

        Revision nodes point at their parents and children, a reference cycle per link, so a
        dropped tree waits for the cyclic GC, and is never freed if it was frozen out of it
        meanwhile (``gc.freeze()`` after a bulk load). With the links cut, reference counting
        frees every node and message at once. The tree is unusable afterwards.
        """
        for node in self.tree.nodes.values():
            node.children = []
            node.parent = None

    @property
    def damage(self) -> RecoveryNote | None:
        """The first bad line, when the file was read tolerantly and has one (else ``None``).

        Such a file was read up to its last good revision only; it must not be appended to.
        """
        return next((note for note in self.notes if note.kind == DAMAGED), None)

    @property
    def newer(self) -> RecoveryNote | None:
        """The first record a newer Rho wrote that this version does not know (else ``None``).

        Such a file reads fine, but must not be written to: rho-desk cannot keep what it does
        not understand consistent with what it appends.
        """
        return next((note for note in self.notes if note.kind == NEWER), None)


def read_session(
    path: Path | str, *, check_name: bool = True, tolerant: bool = False, share: bool = True
) -> SessionFile:
    """Read and validate the transcript at ``path`` (a file, or a session folder).

    The file is read line by line, so at most one line's bytes are held besides the decoded
    records (a 60 MB transcript does not cost 60 MB of raw bytes on top of its objects).

    Args:
        check_name: require the header id to equal the id in the file/folder name when the
            name carries one (as Rho does); ``False`` for copies under other names.
        tolerant: a bad line after a valid header stops the read instead of failing it: the
            tree holds every revision before that line, and :attr:`SessionFile.damage` names
            the line and the reason (read-only use; repair it with ``repair.py``).
        share: let display entries hold the history's message objects (:func:`share_display`),
            which frees the copies of a session kept open; a one-shot read that drops the tree
            soon after saves the time (``False``).

    Raises:
        SessionFileError: the transcript is invalid (file, line and reason in the message).
        InputError: ``path`` is not a file.
        StorageError: the file cannot be read.
    """
    unit = unit_for_path(Path(path))
    transcript = unit.transcript
    source = str(transcript)
    try:
        with open(transcript, "rb", buffering=_READ_BUFFER) as handle:
            st = os.fstat(handle.fileno())
            if st.st_size > MAX_FILE_BYTES:
                raise InputError(
                    f"file is {st.st_size} bytes, more than the {MAX_FILE_BYTES} a session may have",
                    source=source,
                )
            session = _parse_lines(
                handle, source, unit.session_id if check_name else None, tolerant, share
            )
    except OSError as exc:
        raise read_failure(exc, source) from None
    session.path = transcript
    session.unit = unit
    # the mtime from before reading: if the file changes while we read, our first append fails
    # its revision check instead of trusting a mixed view
    session.end = replace(session.end, identity=(st.st_dev, st.st_ino), mtime_ns=st.st_mtime_ns)
    if session.damage is not None:
        session.end = replace(
            session.end, size=st.st_size
        )  # the lines after the damage were not read
    return session


def snapshot_session(
    snapshot: SessionSnapshot,
    path: Path,
    size: int = 0,
    *,
    timestamps: Sequence[str | None] | None = None,
) -> SessionFile:
    """A snapshot document as a one-revision transcript of version 3 (read-only use): its header
    and one complete ``snapshot`` record whose display history is the messages but the system
    prompt, built as records, validated by the tree as the reader validates them.

    Args:
        size: the document's size in bytes, what the window says of the open file.
        timestamps: one per message of the history, when the document records them (a display
            export does); a snapshot records none ("0").
    """
    source = str(path)
    times = timestamps if timestamps is not None else ("0",) * len(snapshot.history)
    known = [t for t in times if t and t != "0"]
    # the session began with its first message and this revision was saved with its last
    header = HeaderRecord(3, snapshot.session_id, known[0] if known else "0", "")
    shown = tuple(
        StoredDisplayMessage(t or "0", m)
        for t, m in zip(times, snapshot.history, strict=True)
        if m.system is None
    )
    tree = _start(header, source, 1, None)
    tree.apply(SnapshotRecord(known[-1] if known else "0", snapshot, shown), line=2, offset=0)
    return SessionFile(
        path=path,
        unit=unit_for_path(path),
        tree=tree,
        end=FileEnd(size=size, valid_end=size, line_count=2),
    )


def parse_session(
    data: bytes, *, source: str = "<bytes>", name_id: str | None = None, tolerant: bool = False
) -> SessionFile:
    """Parse transcript bytes (see :func:`read_session`; ``name_id`` is the id from the name)."""
    session = _parse_lines(io.BytesIO(data), source, name_id, tolerant)
    if session.damage is not None:
        session.end = replace(session.end, size=len(data))
    return session


def _parse_lines(
    lines: Iterable[bytes],
    source: str,
    name_id: str | None,
    tolerant: bool = False,
    share: bool = True,
) -> SessionFile:
    """The line loop of §6.1 over ``lines`` (each with its ``\n``, the last one maybe without)."""
    tree: SessionTree | None = None
    notes: list[RecoveryNote] = []
    pos = 0
    line = 0
    valid_end = 0
    ends_with_newline = True
    tail = b""
    decode = decode_line
    shared: dict[object, object] = {}
    with gc_paused():
        for raw in lines:
            line += 1
            length = len(raw)
            terminated = raw.endswith(b"\n")
            tail = raw[-TAIL_BYTES:] if length >= TAIL_BYTES else (tail + raw)[-TAIL_BYTES:]
            if raw[0] != 0x7B and not raw.strip():
                pos += length  # blank or whitespace-only: skipped
                continue
            try:
                record = decode(raw, terminated, source, line)
            except NewerRecord as error:
                if tree is None:
                    raise _not_a_session(error) from None
                notes.append(_newer_note(error, raw, pos))
                pos += length
                valid_end = pos
                ends_with_newline = terminated
                continue
            except SessionFileError as error:
                if tree is None:
                    raise _not_a_session(error) from None
                if tolerant:
                    notes.append(_damage_note(error, pos, length))
                    break
                raise
            if record is None:
                notes.append(_torn_note(raw, pos, source, line))
                pos += length
                break
            if tree is None:
                tree = _start(record, source, line, name_id)
            else:
                if share:
                    share_display(record, shared)
                if tolerant:
                    try:
                        tree.apply(record, line=line, offset=pos)
                    except SessionFileError as failure:
                        notes.append(_damage_note(failure, pos, length))
                        break
                else:
                    tree.apply(record, line=line, offset=pos)
            pos += length
            valid_end = pos
            ends_with_newline = terminated
    if tree is None:
        tree = SessionTree(None, source=source)
    return SessionFile(
        path=Path(source),
        unit=unit_for_path(Path(source)),
        tree=tree,
        notes=notes,
        end=FileEnd(
            size=pos,
            valid_end=valid_end,
            ends_with_newline=ends_with_newline,
            tail=tail,
            line_count=line,
        ),
    )


def decode_line(raw: bytes, terminated: bool, source: str, line: int) -> Record | None:
    """Decode one transcript line (with its ``\\n`` when ``terminated``) into its record.

    The one record decoder of the file layer: the reader and the live tail reader use it.

    Returns:
        The record; ``None`` for a torn line: the last line, without ``\\n``, whose JSON is
        merely cut short.

    Raises:
        SessionFileError: the line is not a valid record (file, line and reason).
    """
    try:
        # the trailing "\n" is JSON whitespace: no need to copy the line without it
        record = _SHOWN_LATER_DECODER.decode(raw)
        if isinstance(record, SHOWN_LATER):
            return record.complete(_display_of(record))
        return record
    except (msgspec.MsgspecError, RecursionError, ValueError, TypeError):
        pass  # decoded again below, whole: the error its reader is told names the failing part
    try:
        return _DECODER.decode(raw)
    except (msgspec.MsgspecError, RecursionError, ValueError, TypeError) as exc:
        error: InputError = translate_error(exc, source=source, line=line)
        if isinstance(error, TruncatedJson) or _number_cut_at_end(exc, len(raw) - terminated):
            if not terminated:
                return None
            error = CorruptRecord(
                "invalid JSON: the line ends before the value does", source=source, line=line
            )
        raise _as_corrupt(error) from None


def _display_of(record: ShownLater) -> tuple[StoredDisplayMessage, ...]:
    """The display tail of ``record``, decoded only where it is not the end of its history.

    Rho saves each turn's messages twice, in the history and in the display tail, and most
    display tails are the history's last messages, saved at the record's time: then the tail's
    bytes equal the encoding of those messages (the encoding is serde_json's, byte for byte),
    and the entries are made of the history's own objects, equal to what decoding the bytes
    again would give. Anything else (a message shown in another form, a compaction marker, a
    file written with other spacing) is decoded as it stands.

    Raises:
        msgspec.ValidationError, msgspec.DecodeError, ValueError: the tail is not valid.
    """
    raw = record.display_messages
    data = bytes(raw)  # (a memoryview compares byte by byte in Python's loop, bytes with memcmp)
    if data == _NO_DISPLAY:
        return ()
    history = record.history()
    n = len(history)
    timestamp = record.timestamp
    for m in (n, n - 1):  # all of it, or all but the system prompt a full snapshot starts with
        if m > 0:
            shown = tuple(map(StoredDisplayMessage, repeat(timestamp, m), history[n - m :]))
            if _ENCODER.encode(shown) == data:
                return shown
    return _DISPLAY_DECODER.decode(raw)


def share_display(record: Record, shared: dict[object, object] | None = None) -> None:
    """Let the record's display entries hold the very message objects of its history, and its
    repeated small values one object each.

    A save stores most messages twice: once in the snapshot (or delta) history and once as
    display history (storage.md §5.4-§5.6), and decoding makes two equal objects of each. A 100k
    message session would keep both copies for as long as it is open. Entries whose message
    equals the history's message at the matching place get the history's object instead (and
    the record's own timestamp string), so the copy is freed at once. Nothing changes in value
    (equality is value equality: two tool-call argument objects with their keys in another
    order would count as equal, which Rho, writing both from one value, never produces).

    ``shared``: the values met so far in this file (one per read); the provenance of every
    assistant message, the record's provider and session id and the tool names are replaced
    by the first equal one (a session names a handful of models and tools tens of thousands of
    times: ~12 MB of copies in a 100k-message session).
    """
    if isinstance(record, SnapshotDeltaRecord):
        history = record.delta.appended_history
    elif isinstance(record, SnapshotRecord):
        history = record.snapshot.history
    elif isinstance(record, NodeRecord):
        transition = record.transition
        history = (
            transition.delta.appended_history
            if isinstance(transition, DeltaTransition)
            else transition.snapshot.history
        )
    else:
        return
    if shared is not None:
        _intern(record, history, shared)
    display = record.display_messages
    if display and history:
        if _shared_already(display, history, record.timestamp):
            return  # the reader made the entries of the history's objects (_display_of)
        shown = _share_slice(display, history, record.timestamp)
        if shown is not None:
            force_setattr(record, "display_messages", shown)
        else:
            _share(display, history, record.timestamp)


_message_of: Final = attrgetter("message")
_timestamp_of: Final = attrgetter("timestamp")


def _shared_already(
    display: tuple[StoredDisplayMessage, ...], history: tuple[Message, ...], timestamp: str
) -> bool:
    """Whether the display entries are, all of them, the last messages of the history as the
    very objects, with the record's very timestamp string."""
    m, n = len(display), len(history)
    return (
        m <= n
        and display[0].message is history[n - m]
        and all(map(is_, map(_message_of, display), history[n - m :]))
        and all(map(is_, map(_timestamp_of, display), repeat(timestamp, m)))
    )


def _share_slice(
    display: tuple[StoredDisplayMessage, ...], history: tuple[Message, ...], timestamp: str
) -> tuple[StoredDisplayMessage, ...] | None:
    """The common case in C loops: the display entries are, in order, the messages of a slice
    of the history that ends at its end (a turn's messages, maybe after the system prompt), all
    saved at the record's time. Then new entries are made of the history's objects; else
    ``None`` (the general walk of :func:`_share` handles it)."""
    m, n = len(display), len(history)
    if m > n:
        return None
    start = n - m
    part = history[start:]
    if (
        tuple(map(_message_of, display)) != part
        or list(map(_timestamp_of, display)).count(timestamp) != m
    ):
        return None
    return tuple(map(StoredDisplayMessage, repeat(timestamp, m), part))


def _intern(
    record: SnapshotRecord | SnapshotDeltaRecord | NodeRecord,
    history: tuple[Message, ...],
    shared: dict[object, object],
) -> None:
    """Replace the record's provider and session id, and its history's provenances and tool
    names, by the equal objects already in ``shared`` (adding those not yet there)."""
    get = shared.setdefault
    state: StoredSnapshotDelta | SessionSnapshot
    if isinstance(record, SnapshotDeltaRecord):
        state = record.delta
    elif isinstance(record, SnapshotRecord):
        state = record.snapshot
    else:
        transition = record.transition
        state = transition.delta if isinstance(transition, DeltaTransition) else transition.snapshot
    force_setattr(state, "provider", get(state.provider, state.provider))
    force_setattr(state, "session_id", get(state.session_id, state.session_id))
    for message in history:
        assistant: AssistantMessage | AbortedAssistant | None = message.enriched_assistant
        if assistant is None:
            assistant = message.aborted_assistant
            if assistant is None:
                continue
        identity = assistant.provenance
        if identity is not None:
            same = get(identity, identity)
            if same is not identity:
                force_setattr(assistant, "provenance", same)
        for block in assistant.content:
            call = block.tool_call
            if call is not None:
                force_setattr(call, "name", get(call.name, call.name))


def _share(
    display: tuple[StoredDisplayMessage, ...], history: tuple[Message, ...], timestamp: str
) -> None:
    if not display or not history:
        return
    n, m = len(history), len(display)
    # where the display tail starts in the history: at its beginning (a turn's new messages,
    # maybe after a system prompt) or at its end (what a full snapshot added last)
    first = display[0].message
    at = next((j for j in (0, 1, 2, n - m, n - m - 1) if 0 <= j < n and history[j] == first), None)
    if at is None:
        return
    for entry in display:
        if entry.timestamp == timestamp:
            force_setattr(entry, "timestamp", timestamp)
        message = entry.message
        # display history leaves system prompts out: look a step or two ahead
        for j in range(at, min(at + 3, n)):
            candidate = history[j]
            if candidate is message or candidate == message:
                force_setattr(entry, "message", candidate)
                at = j + 1
                break


def _number_cut_at_end(exc: Exception, length: int) -> bool:
    """A number cut short at the very end (``-``, ``1.``, ``1e+``): msgspec calls that malformed,
    but it is a truncation like any other (serde reports "EOF while parsing")."""
    match = _INVALID_NUMBER.fullmatch(str(exc))
    return match is not None and int(match[1]) >= length


def _start(record: Record, source: str, line: int, name_id: str | None) -> SessionTree:
    if not isinstance(record, HeaderRecord):
        raise NotASessionFile(
            f"{NotASessionFile.PREFIX}: the first record must be the session header, "
            f"not `{type(record).__struct_config__.tag}`",
            source=source,
            line=line,
        )
    check_header(record, source=source, line=line, name_id=name_id)
    return SessionTree(record, source=source)


def check_header(
    header: HeaderRecord, *, source: str, line: int = 1, name_id: str | None = None
) -> None:
    """Version in 1..=4 and, when the name carries one, the same id as the name."""
    if isinstance(header.version, bool) or not MIN_VERSION <= header.version <= MAX_VERSION:
        raise UnsupportedSessionVersion(
            f"unsupported session version {header.version}", source=source, line=line
        )
    if not header.id:
        raise CorruptRecord("the session header has an empty id", source=source, line=line)
    if name_id is not None and header.id != name_id:
        raise SessionIdMismatch(
            f"session id {header.id!r} in the header does not match {name_id!r} from the file name",
            source=source,
            line=line,
        )


def _as_corrupt(error: InputError) -> SessionFileError:
    if isinstance(error, SessionFileError):
        return error
    reason, path = error.reason, error.path
    if path == "$.type" and reason.startswith("Invalid value "):
        # a string tag no variant has: a well-formed record of a newer Rho's
        return NewerRecord(
            reason.removeprefix("Invalid value ").strip("'"), source=error.source, line=error.line
        )
    return CorruptRecord(reason, source=error.source, line=error.line, path=path)


def _newer_note(error: NewerRecord, raw: bytes, pos: int) -> RecoveryNote:
    text = raw[:_RAW_SHOWN].decode("utf-8", "replace").rstrip("\n")
    if len(raw) > _RAW_SHOWN:
        text += " …"
    reason = (
        f"record type {error.record_type!r} was written by a newer Rho: shown as it is, not read"
    )
    return RecoveryNote(
        error.source or "", error.line or 0, pos, len(raw), reason, kind=NEWER, raw=text
    )


def _not_a_session(error: SessionFileError) -> NotASessionFile:
    """A first line that does not decode as a record: whatever this is, it is no transcript."""
    reason = error.reason if error.path in (None, "$") else f"{error.reason} (at {error.path})"
    return NotASessionFile(
        f"{NotASessionFile.PREFIX}: line {error.line or 1} is not a session header ({reason})",
        source=error.source,
        line=error.line,
    )


def _damage_note(failure: SessionFileError, pos: int, length: int) -> RecoveryNote:
    reason = failure.reason
    if failure.path is not None and failure.path != "$":
        reason += f" (at {failure.path})"
    return RecoveryNote(failure.source or "", failure.line or 0, pos, length, reason, kind=DAMAGED)


def _torn_note(fragment: bytes, pos: int, source: str, line: int) -> RecoveryNote:
    reason = f"torn last line ignored ({len(fragment)} bytes of an unfinished record)"
    try:
        fragment.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start >= len(fragment) - 3 and exc.reason == "unexpected end of data":
            # Rho decodes lines as text first and would refuse the whole file until the tail is
            # repaired (storage.md open question 13); we read it as the torn write it is.
            reason += "; it ends inside a UTF-8 character, which Rho itself cannot read past"
    return RecoveryNote(source, line, pos, len(fragment), reason)


def read_header(path: Path | str) -> HeaderRecord:
    """Only the first line of a transcript, which must be its header (Rho's discovery helpers).

    Raises:
        SessionFileError: line 1 is not a valid header (not even a blank line may precede it).
        StorageError: the file cannot be read.
    """
    transcript = unit_for_path(Path(path)).transcript
    source = str(transcript)
    try:
        with open(transcript, "rb") as handle:
            first = handle.readline(MAX_HEADER_BYTES)
    except OSError as exc:
        raise StorageError(f"{transcript}: cannot read: {exc.strerror or exc}") from exc
    if not first.strip():
        raise NotASessionFile(
            f"{NotASessionFile.PREFIX}: it does not start with a session header",
            source=source,
            line=1,
        )
    try:
        header = _HEADER_DECODER.decode(first)
    except (msgspec.MsgspecError, RecursionError, ValueError, TypeError) as exc:
        raise _not_a_session(_as_corrupt(translate_error(exc, source=source, line=1))) from None
    check_header(header, source=source)
    return header
