"""``rho-desk import``: another agent's session written as a Rho session, with a receipt.

The session becomes a header version 4 transcript in Rho's own layout (``<home>/sessions/
<workspace key>/<created>_<id>/session.jsonl``) or wherever ``output`` says, its records the
ones :func:`build.build` made (by the Rho reader's rules): every tool call with its result in
order, images, reasoning (the text as the reasoning summary, signed thinking and encrypted
reasoning as provider context for the same model), compactions as compaction revisions, and
branches as branches. Rho's index row follows the write, as after Rho's own save.

The Rho session id is derived from the agent and its session id, so the same source always
lands in the same session: importing it again when it has not changed writes nothing and says
so (the receipt holds the source's digest); importing it after it grew appends only the new
revisions (the receipt remembers where each imported revision ended, so the revisions are cut
where they were cut before).

The receipt (:class:`ImportReceipt`, JSON beside the transcript: ``rho-desk-import.json`` in the
session folder, ``<file>.import.json`` beside a file) holds the source's path, agent, session id
and SHA-256 digest, what was kept (counts), every dropped field by JSON path with its count,
what the reading made up (results for interrupted calls), and each import's date and effect.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import os
import queue
import sys
import threading
import uuid
from collections.abc import Callable, Sequence
from contextlib import closing
from pathlib import Path
from typing import Final, Literal, TypeVar

import msgspec

from ..errors import InputError, StorageError
from ..stores.rho_files.errors import SessionIdMismatch
from ..stores.rho_files.layout import (
    SESSION_FILE,
    find_units,
    in_rho_home,
    unit_for_path,
    workspace_dir,
)
from ..stores.rho_files.reader import read_session
from ..stores.rho_files.records import DeltaTransition, NodeRecord, Record, SetLeafRecord
from ..system.fsio import atomic_write, ensure_private_dir, fsync_dir, write_all
from .base import AgentLog
from .build import AgentSessionFile, build
from .formats import detect, read_log

__all__ = [
    "RECEIPT_NAME",
    "ImportReceipt",
    "ImportResult",
    "import_session",
    "receipt_path",
    "rho_session_id",
]

_CHUNK: Final = 1024 * 1024
"""How much of the transcript is encoded before it is written."""
_BUFFERS: Final = 4
"""Chunks encoded ahead of the writes, at most."""
RECEIPT_NAME: Final = "rho-desk-import.json"
_OPENCODE: Final = "opencode"
"""``opencode.AGENT``."""
T = TypeVar("T")
_NAMESPACE: Final = uuid.UUID("5b0f3f8e-6a2d-4c84-8f0e-1d7c2a9b4e61")


class ReceiptSource(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    agent: str
    path: str
    session_id: str
    digest: str
    """``sha256:<hex>`` of the log's bytes (opencode: of its rows)."""
    bytes: int
    agent_version: str | None = None


class ReceiptKept(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    revisions: int
    branches: int
    compactions: int
    messages: int
    tool_calls: int
    tool_results: int
    images: int
    reasoning: int
    """Assistant messages with a reasoning summary."""
    provider_context: int
    """Opaque blocks kept for the same model (signed thinking, encrypted reasoning)."""


class ReceiptRun(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    at: str
    digest: str
    added: int
    """Revisions written by this import (0: nothing was new)."""


class ImportReceipt(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """What an import read, kept and left out (see the module docstring).

    Its published JSON Schema is rendered from ``receipt_schema``'s models, which describe the
    same fields in the same order (pydantic is not loaded to write or read a receipt).
    """

    format: Literal["rho-desk.import-receipt"] = "rho-desk.import-receipt"
    format_version: Literal[1] = 1
    source: ReceiptSource
    session_id: str
    """The Rho session's id."""
    transcript: str
    kept: ReceiptKept
    dropped: dict[str, int]
    """Each member of the source left out, by JSON path, with its count."""
    made: dict[str, int]
    """What the import added to keep the history well formed, with counts."""
    not_carried: dict[str, int] = msgspec.field(default_factory=dict)
    """What was read but a Rho session has no place for."""
    revision_ends: dict[str, str]
    """Rho node id -> the source step it ends with."""
    runs: list[ReceiptRun]


_RECEIPT_DECODER: Final = msgspec.json.Decoder(ImportReceipt)


class ImportResult(msgspec.Struct, frozen=True):
    transcript: Path
    receipt_path: Path
    receipt: ImportReceipt
    created: bool
    """A new Rho session was written (else an existing one was brought up to date)."""
    added: int
    """Revisions written (0 with ``created`` false: nothing was new)."""

    @property
    def noop(self) -> bool:
        return not self.created and self.added == 0


def rho_session_id(agent: str, session_id: str) -> str:
    """The Rho session id an imported session gets (the same for the same source)."""
    return str(uuid.uuid5(_NAMESPACE, f"{agent}\x00{session_id}"))


def receipt_path(transcript: Path) -> Path:
    if transcript.name == SESSION_FILE:
        return transcript.parent / RECEIPT_NAME
    return transcript.with_name(transcript.name + ".import.json")


def source_digest(path: Path, agent: str) -> tuple[str, int]:
    """``sha256:<hex>`` of the log and its size (opencode: of the session's rows in order)."""
    digest = hashlib.sha256()
    if agent == _OPENCODE:  # its reader (and sqlite3) loaded only for its sessions
        import sqlite3

        from . import opencode

        database, session_id = opencode.split(path)
        size = 0
        with closing(opencode.connect(database)) as db:
            try:
                for query in (
                    "select id, data from message where session_id = ? order by time_created, id",
                    "select id, data from part where session_id = ? order by message_id, id",
                ):
                    for row_id, data in db.execute(query, (session_id,)):
                        chunk = f"{row_id}\x00{data}\x00".encode("utf-8", "surrogatepass")
                        digest.update(chunk)
                        size += len(chunk)
            except sqlite3.Error as exc:
                raise StorageError(f"{path}: cannot read: {exc}") from None
        return f"sha256:{digest.hexdigest()}", size
    try:
        with open(path, "rb") as handle:
            size = 0
            while chunk := handle.read(1024 * 1024):
                digest.update(chunk)
                size += len(chunk)
    except OSError as exc:
        raise StorageError(f"{path}: cannot read: {exc.strerror or exc}") from None
    return f"sha256:{digest.hexdigest()}", size


def _beside(function: Callable[[Path, str], T], path: Path, name: str) -> Callable[[], T]:
    """Run ``function(path, name)`` in a thread of its own; the returned call waits for it and
    gives its value, or raises what it raised.

    The digest reads the file and hashes it in C with the GIL released: beside the read, whose
    Python work holds the GIL, it costs the import no time when a second core is free.
    """
    outcome: list[T] = []
    failure: list[BaseException] = []

    def work() -> None:
        try:
            outcome.append(function(path, name))
        except BaseException as exc:  # handed to the caller
            failure.append(exc)

    thread = threading.Thread(target=work, name="rho-desk import digest", daemon=True)
    thread.start()

    def result() -> T:
        thread.join()
        if failure:
            raise failure[0]
        return outcome[0]

    return result


def import_session(
    source: Path | str,
    *,
    home: Path | None = None,
    output: Path | None = None,
    agent: str | None = None,
    clock: float | None = None,
) -> ImportResult:
    """Import the session at ``source`` into the Rho home ``home`` (or as the file ``output``).

    Raises:
        InputError: not another agent's session, malformed (file, line, reason), or the Rho
            session it maps to no longer fits it (it was changed in a way an append cannot follow).
        StorageError: reading or writing failed (nothing half-written is left).
    """
    path = Path(source)
    name = agent or detect(path)
    if name is None:
        raise InputError(
            "not a session of Claude Code, Codex, Gemini CLI, opencode or Pi", source=str(path)
        )
    if home is None and output is None:
        raise InputError("import needs a Rho home (--into) or an output file (-o)")
    digest_of_source = _beside(source_digest, path, name)
    try:
        log = read_log(path, agent=name)
    except BaseException:
        with contextlib.suppress(Exception):  # the reading's error is the one to tell
            digest_of_source()
        raise
    digest, size = digest_of_source()
    sid = rho_session_id(name, log.session_id)
    now = dt.datetime.fromtimestamp(
        clock if clock is not None else dt.datetime.now(dt.UTC).timestamp(), dt.UTC
    )
    stamp = now.isoformat(timespec="seconds").replace("+00:00", "Z")
    existing = _existing(sid, log, home, output)
    if existing is not None:
        previous = _read_receipt(receipt_path(existing))
        if previous is not None and previous.source.digest == digest:
            return ImportResult(existing, receipt_path(existing), previous, False, 0)
        ends = set(previous.revision_ends.values()) if previous is not None else set()
        built = build(log, session_id=sid, split_after=ends)
        added = _append(existing, built)
        receipt = _receipt(
            log,
            built,
            existing,
            digest,
            size,
            previous,
            ReceiptRun(at=stamp, digest=digest, added=added),
        )
        atomic_write(receipt_path(existing), _encode(receipt))
        return ImportResult(existing, receipt_path(existing), receipt, False, added)
    built = build(log, session_id=sid)
    if output is not None:
        transcript = output
    else:
        assert home is not None  # one of the two is given: checked above
        transcript = workspace_dir(home, log.cwd) / f"{log.created}_{sid}" / SESSION_FILE
    _create(transcript, built)
    receipt = _receipt(
        log,
        built,
        transcript,
        digest,
        size,
        None,
        ReceiptRun(at=stamp, digest=digest, added=len(built.sources)),
    )
    atomic_write(receipt_path(transcript), _encode(receipt))
    return ImportResult(transcript, receipt_path(transcript), receipt, True, len(built.sources))


def _existing(sid: str, log: AgentLog, home: Path | None, output: Path | None) -> Path | None:
    if output is not None:
        return output if output.exists() else None
    assert home is not None
    units = find_units(home, sid, cwd=log.cwd)
    return units[0].transcript if units else None


def _read_receipt(path: Path) -> ImportReceipt | None:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise StorageError(f"{path}: cannot read: {exc.strerror or exc}") from None
    try:
        return _RECEIPT_DECODER.decode(data)
    except msgspec.DecodeError as exc:
        raise InputError(
            f"not an import receipt rho-desk can read: {str(exc).splitlines()[0]}", source=str(path)
        ) from None


def _encode(receipt: ImportReceipt) -> bytes:
    return msgspec.json.format(msgspec.json.encode(receipt), indent=2) + b"\n"


def _create(transcript: Path, built: AgentSessionFile) -> None:
    """Write the new transcript whole, synced. Every record holds the Rho reader's rules by the
    way ``build`` made it (its node ids checked as they were attached); the name must carry the
    session's id, as Rho checks it."""
    unit = unit_for_path(transcript)
    sid = built.tree.session_id
    if unit.session_id is not None and unit.session_id != sid:
        raise SessionIdMismatch(
            f"session id {sid!r} does not match {unit.session_id!r} from the file name "
            "(a name with no `_`, or ending in `_<id>`, keeps them together)",
            source=str(transcript),
        )
    folder = transcript.parent
    try:
        if transcript.name == SESSION_FILE:
            ensure_private_dir(folder.parent.parent)
            ensure_private_dir(folder.parent)
            try:
                folder.mkdir(mode=0o700)
            except FileExistsError:
                raise InputError(
                    "a session with this id and creation time already exists", source=str(folder)
                ) from None
        fd = os.open(transcript, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
    except FileExistsError:
        raise InputError("the file exists already", source=str(transcript)) from None
    except OSError as exc:
        raise StorageError(f"{transcript}: cannot create: {exc.strerror or exc}") from None
    try:
        try:
            _write_records(fd, built.records)
            os.fsync(fd)
            st = os.fstat(fd)
        finally:
            os.close(fd)
        fsync_dir(folder)
    except BaseException as exc:  # nothing half-written is left
        with contextlib.suppress(OSError):
            transcript.unlink()
        if isinstance(exc, OSError):
            raise StorageError(f"{transcript}: cannot write: {exc.strerror or exc}") from None
        raise
    # Rho's index row for it, as after Rho's own save (only inside a Rho home: the index's
    # modules are loaded only then)
    header = built.tree.header
    if header is not None and in_rho_home(unit, header.cwd):
        from ..stores.rho_files.summary import record_written

        record_written(built.tree, unit, transcript, st.st_size, st.st_mtime_ns)


def _write_records(fd: int, records: Sequence[Record]) -> None:
    """The records as JSON lines, in one pass: each encoded into a buffer that goes to the file
    whenever it holds a chunk (never the whole transcript in memory, nor a copy of it).

    A thread of its own writes the chunks while the next ones are encoded: a write is mostly
    the kernel copying the bytes, without the GIL, so on a second core it costs the import no
    time. A few buffers go back and forth between the two.

    Raises:
        OSError: a write failed (the writing thread's error, raised here).
    """
    encode_into = msgspec.json.Encoder().encode_into
    free: queue.SimpleQueue[bytearray] = queue.SimpleQueue()
    full: queue.SimpleQueue[bytearray | None] = queue.SimpleQueue()
    for _ in range(_BUFFERS):
        free.put(bytearray())
    failure: list[BaseException] = []

    def write() -> None:
        offset = 0
        while (chunk := full.get()) is not None:
            if not failure:
                try:
                    write_all(fd, chunk)
                    _write_back(fd, offset, len(chunk))
                    offset += len(chunk)
                except BaseException as exc:  # handed to the encoding side, which stops
                    failure.append(exc)
                    chunk = bytearray()  # the error's traceback holds a view of the chunk
            chunk.clear()
            free.put(chunk)

    writer = threading.Thread(target=write, name="rho-desk import writer", daemon=True)
    writer.start()
    try:
        buffer = free.get()
        for record in records:
            encode_into(record, buffer, -1)
            buffer += b"\n"
            if len(buffer) >= _CHUNK:
                full.put(buffer)
                if failure:
                    break
                buffer = free.get()
        else:
            if buffer:
                full.put(buffer)
    finally:
        full.put(None)
        writer.join()
    if failure:
        raise failure[0]


def _write_back(fd: int, offset: int, length: int) -> None:
    """Start writing the bytes just written to disk, without waiting: the fsync that ends the
    write then finds most of them there already (a 180 MB transcript's fsync: about 0.1 s
    less). Linux's POSIX_FADV_DONTNEED queues the writeback of dirty pages (it drops only
    clean ones, so what was just written stays cached); a no-op where it is not offered."""
    if _ADVISE is not None:
        with contextlib.suppress(OSError):  # advice only
            _ADVISE(fd, offset, length, os.POSIX_FADV_DONTNEED)


_ADVISE: Final = getattr(os, "posix_fadvise", None) if sys.platform == "linux" else None


def _append(transcript: Path, built: AgentSessionFile) -> int:
    """Append the revisions of ``built`` that the transcript does not hold yet."""
    from ..stores.rho_files.writer import SessionWriter

    session = read_session(transcript)
    added = 0
    with SessionWriter(session) as writer:
        tree = writer.tree
        for record in built.records[1:]:
            if isinstance(record, NodeRecord):
                if record.id in tree.nodes:
                    continue
                writer.append(record)
                added += 1
            elif isinstance(record, SetLeafRecord) and added and record.target_id in tree.nodes:
                writer.set_leaf(tree.nodes[record.target_id])
    return added


def _receipt(
    log: AgentLog,
    built: AgentSessionFile,
    transcript: Path,
    digest: str,
    size: int,
    previous: ImportReceipt | None,
    run: ReceiptRun,
) -> ImportReceipt:
    tree = built.tree
    messages = calls = results = images = reasoning = context = 0
    for record in built.records[1:]:
        if not isinstance(record, NodeRecord):
            continue
        transition = record.transition
        history = (
            transition.delta.appended_history
            if isinstance(transition, DeltaTransition)
            else transition.snapshot.history
        )
        messages += len(history)
        for message in history:
            if message.tool_result is not None:
                results += 1
                continue
            assistant = message.enriched_assistant or message.aborted_assistant
            if assistant is not None:
                reasoning += assistant.reasoning_summary is not None
                context += len(assistant.provider_context)
            for block in message.content:
                if block.tool_call is not None:
                    calls += 1
                elif block.image is not None:
                    images += 1
    ends = dict(previous.revision_ends) if previous is not None else {}
    ends.update({node_id: steps[-1] for node_id, steps in built.sources.items() if steps})
    requests = len(log.requests)
    return ImportReceipt(
        source=ReceiptSource(
            agent=log.agent,
            path=str(log.path),
            session_id=log.session_id,
            digest=digest,
            bytes=size,
            agent_version=log.version,
        ),
        session_id=built.tree.session_id or "",
        transcript=str(transcript),
        kept=ReceiptKept(
            revisions=tree.node_count,
            branches=tree.branch_count,
            compactions=sum(1 for n in tree.nodes.values() if n.kind.value == "compaction"),
            messages=messages,
            tool_calls=calls,
            tool_results=results,
            images=images,
            reasoning=reasoning,
            provider_context=context,
        ),
        dropped=dict(sorted(log.loss.dropped.items())),
        made=dict(sorted(log.loss.made.items())),
        not_carried={
            "token usage of model requests (Rho records usage in its ledger, not in sessions)": requests
        }
        if requests
        else {},
        revision_ends=ends,
        runs=[*(previous.runs if previous is not None else []), run],
    )


def receipt_json_schema() -> dict[str, object]:
    """The published JSON Schema of :class:`ImportReceipt` (rendered by pydantic, loaded here)."""
    from .receipt_schema import receipt_json_schema

    return receipt_json_schema()
