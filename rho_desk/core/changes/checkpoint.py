"""Rho's workspace checkpoints: the journal's types, its strict reader, capture and restore rules.

A session folder may hold ``workspace-checkpoints/checkpoints.jsonl`` (storage.md §12): one line
per finalized turn, ``{"version":1,"checkpoint":{...}}``, with each file's original content
(base64), its expected state after the turn (content-free: digest, size, metadata), and the
effects the checkpoint does not claim to undo. The types here are upstream's
(``crates/rho/src/session/workspace_checkpoint.rs``), serialised in serde's field order, so a
line written here is byte-for-byte what Rho would write for the same state.

The reader follows upstream's ``read_locked_journal``: it stops at the first line without a
newline (a torn append), tolerates a line that is not JSON only when it is the last one, and
refuses an unknown version or a duplicate node id (both are errors, never skipped). A journal
may come from another machine, so it is stricter than upstream where upstream would crash or
skip: nesting is measured before parsing (more than 512 levels is an error, not a
``RecursionError``); a last line that is JSON but not a valid record (an unknown version, bad
base64, a missing field) is an error naming the line, not a torn append dropped in silence; a
path holding a NUL or a ``..`` component is an error; and the journal is opened through its
folder with no symbolic link followed (``workspace-checkpoints/`` itself included).

The restore policy is upstream's ``workspace_checkpoint_restore.rs``: a file is restored only
when it is still in the state the turn left (digest, size and metadata), so nothing written since
is ever overwritten; a restore writes a synced temporary file beside the target and renames it
over the target.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import enum
import errno
import hashlib
import itertools
import json
import os
import re
import stat
from collections.abc import Mapping
from pathlib import Path, PurePosixPath
from typing import Any, Final

import msgspec

from ..errors import InputError, StorageError
from ..system.fsio import fsync_dir, write_all
from ..tools.beneath import CHANGED, open_file_beneath, open_root
from ..wire.limits import TooDeep, check_depth

__all__ = [
    "CHECKPOINT_DIR_NAME",
    "CHECKPOINT_FORMAT_VERSION",
    "CHECKPOINT_JOURNAL_NAME",
    "DEFAULT_MAX_CHECKPOINT_FILE_BYTES",
    "DEFAULT_MAX_CHECKPOINT_SESSION_BYTES",
    "Absent",
    "BasicFileMetadata",
    "CapturedRegularFile",
    "CheckpointOutcome",
    "FileCheckpoint",
    "ObservedFileState",
    "ObservedRegular",
    "OriginalFileState",
    "ReadJournal",
    "RestoreClassification",
    "RestorePlanEntry",
    "Unsupported",
    "UnsupportedPath",
    "UntrackedEffect",
    "WorkspaceCheckpoint",
    "apply_restore",
    "capture_original",
    "checkpoint_json",
    "classify_restore",
    "decode_record",
    "encode_record",
    "journal_path",
    "observe_path",
    "observed_of_bytes",
    "observed_of_original",
    "plan_restore",
    "read_journal",
    "read_journal_bytes",
    "remove_file",
    "sha256_hex",
    "write_back",
]

CHECKPOINT_FORMAT_VERSION: Final = 1
CHECKPOINT_DIR_NAME: Final = "workspace-checkpoints"
CHECKPOINT_JOURNAL_NAME: Final = "checkpoints.jsonl"
DEFAULT_MAX_CHECKPOINT_FILE_BYTES: Final = 2 * 1024 * 1024
"""Upstream's capture limit for one regular file: 2 MiB."""
DEFAULT_MAX_CHECKPOINT_SESSION_BYTES: Final = 64 * 1024 * 1024
"""Upstream's cap on one session's journal: 64 MiB."""


def journal_path(session_dir: str | os.PathLike[str]) -> Path:
    """Where a folder session keeps its journal."""
    return Path(session_dir) / CHECKPOINT_DIR_NAME / CHECKPOINT_JOURNAL_NAME


def sha256_hex(data: bytes) -> str:
    """A ``FileDigest``: SHA-256 as lowercase hex."""
    return hashlib.sha256(data).hexdigest()


# -- types ------------------------------------------------------------------------------------------


class BasicFileMetadata(msgspec.Struct, frozen=True):
    """Portable metadata that affects restored file behaviour."""

    readonly: bool
    unix_mode: int | None = None
    """Permission bits (``mode & 0o7777``); omitted on the wire when ``None`` (non-Unix)."""


class UnsupportedPath:
    """Why an existing path could not be captured (``{"kind": ...}``)."""

    __slots__ = ("kind", "limit", "size")

    def __init__(self, kind: str, size: int | None = None, limit: int | None = None) -> None:
        if kind not in ("symlink", "non_regular", "too_large", "unreadable"):
            raise ValueError(f"unknown unsupported-path kind {kind!r}")
        self.kind = kind
        """``symlink``, ``non_regular``, ``too_large`` (with ``size`` and ``limit``) or ``unreadable``."""
        self.size = size
        self.limit = limit

    def __eq__(self, other: object) -> bool:
        return isinstance(other, UnsupportedPath) and (self.kind, self.size, self.limit) == (
            other.kind,
            other.size,
            other.limit,
        )

    def __hash__(self) -> int:
        return hash((self.kind, self.size, self.limit))

    def __repr__(self) -> str:
        return (
            f"UnsupportedPath({self.kind!r})"
            if self.kind != "too_large"
            else f"UnsupportedPath(too_large, {self.size}, {self.limit})"
        )

    def describe(self) -> str:
        if self.kind == "too_large":
            return f"too large to capture ({self.size} bytes; the limit is {self.limit})"
        return {
            "symlink": "a symbolic link",
            "non_regular": "not a regular file",
            "unreadable": "unreadable",
        }[self.kind]


class Absent(msgspec.Struct, frozen=True):
    """The path did not exist."""


class Unsupported(msgspec.Struct, frozen=True):
    """The path existed but could not be captured safely."""

    reason: UnsupportedPath


class CapturedRegularFile(msgspec.Struct, frozen=True):
    """A regular file captured before the first mutation in a turn (content included)."""

    bytes: bytes
    metadata: BasicFileMetadata
    digest: str


class ObservedRegular(msgspec.Struct, frozen=True):
    """A regular file as observed, content-free (expected-after and current comparisons)."""

    digest: str
    size: int
    metadata: BasicFileMetadata


OriginalFileState = Absent | CapturedRegularFile | Unsupported
ObservedFileState = Absent | ObservedRegular | Unsupported


class FileCheckpoint(msgspec.Struct, frozen=True):
    path: str
    """Absolute path, as captured."""
    original: OriginalFileState
    expected_after: ObservedFileState


class UntrackedEffect(msgspec.Struct, frozen=True):
    """A side effect the checkpoint does not claim to reverse."""

    kind: str
    """``shell_command``, ``untracked_mutating_tool`` or ``external_effect``."""
    source: str
    """The tool that caused it (``bash``, ``process``, ``agent``...)."""


class CheckpointOutcome(enum.Enum):
    """Why a turn reached its durable boundary."""

    COMPLETED = "completed"
    CANCELLED = "cancelled"
    FAILED = "failed"


class WorkspaceCheckpoint(msgspec.Struct, frozen=True):
    """One finalized workspace checkpoint, tied to the conversation node its turn committed.

    Equality and the hash leave out ``line`` (where it was read from).
    """

    session_id: str
    node_id: str
    revision: int
    started_at: int
    finalized_at: int
    outcome: CheckpointOutcome
    files: tuple[FileCheckpoint, ...]
    limitations: tuple[UntrackedEffect, ...] = ()
    line: int | None = None
    """1-based journal line it was read from (not on the wire)."""

    def _compared(self) -> tuple[object, ...]:
        return (
            self.session_id,
            self.node_id,
            self.revision,
            self.started_at,
            self.finalized_at,
            self.outcome,
            self.files,
            self.limitations,
        )

    def __eq__(self, other: object) -> bool:
        if type(other) is not WorkspaceCheckpoint:
            return NotImplemented
        return self._compared() == other._compared()

    def __hash__(self) -> int:
        return hash(self._compared())


class ReadJournal(msgspec.Struct, frozen=True):
    checkpoints: tuple[WorkspaceCheckpoint, ...]
    valid_len: int
    """Bytes of whole, valid records (an append truncates to this first)."""


# -- wire ---------------------------------------------------------------------------------------


class _Bad(ValueError):
    pass


def _need(obj: Mapping[str, Any], key: str, kind: type | tuple[type, ...], where: str) -> Any:
    if key not in obj:
        raise _Bad(f"missing field `{key}` in {where}")
    value = obj[key]
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise _Bad(f"invalid type for `{key}` in {where}")
    return value


def _u64(obj: Mapping[str, Any], key: str, where: str) -> int:
    value = _need(obj, key, int, where)
    if isinstance(value, bool) or value < 0 or value > 2**64 - 1:
        raise _Bad(f"`{key}` in {where} is not an unsigned 64-bit integer")
    return int(value)


def _metadata_of(obj: Any) -> BasicFileMetadata:
    if not isinstance(obj, dict):
        raise _Bad("invalid type for `metadata`")
    readonly = _need(obj, "readonly", bool, "metadata")
    mode = obj.get("unix_mode")
    if mode is not None and (
        not isinstance(mode, int) or isinstance(mode, bool) or not 0 <= mode <= 2**32 - 1
    ):
        raise _Bad("invalid `unix_mode` in metadata")
    return BasicFileMetadata(readonly, mode)


def _metadata_json(meta: BasicFileMetadata) -> dict[str, Any]:
    out: dict[str, Any] = {"readonly": meta.readonly}
    if meta.unix_mode is not None:
        out["unix_mode"] = meta.unix_mode
    return out


def _reason_of(obj: Any) -> UnsupportedPath:
    if not isinstance(obj, dict):
        raise _Bad("invalid type for `reason`")
    kind = _need(obj, "kind", str, "reason")
    if kind == "too_large":
        return UnsupportedPath(kind, _u64(obj, "size", "reason"), _u64(obj, "limit", "reason"))
    if kind not in ("symlink", "non_regular", "unreadable"):
        raise _Bad(f"unknown variant `{kind}` of the unsupported-path reason")
    return UnsupportedPath(kind)


def _reason_json(reason: UnsupportedPath) -> dict[str, Any]:
    if reason.kind == "too_large":
        return {"kind": "too_large", "size": reason.size, "limit": reason.limit}
    return {"kind": reason.kind}


def _digest_of(obj: Mapping[str, Any], where: str) -> str:
    return str(_need(obj, "digest", str, where))


def _original_of(obj: Any) -> OriginalFileState:
    if not isinstance(obj, dict):
        raise _Bad("invalid type for `original`")
    state = _need(obj, "state", str, "original")
    if state == "absent":
        return Absent()
    if state == "unsupported":
        return Unsupported(_reason_of(obj.get("reason")))
    if state == "regular":
        try:
            data = base64.b64decode(_need(obj, "bytes", str, "original"), validate=True)
        except (binascii.Error, ValueError):
            raise _Bad("`bytes` of an original file is not standard base64") from None
        return CapturedRegularFile(
            data, _metadata_of(obj.get("metadata")), _digest_of(obj, "original")
        )
    raise _Bad(f"unknown variant `{state}` of `original.state`")


def _observed_of(obj: Any, where: str = "expected_after") -> ObservedFileState:
    if not isinstance(obj, dict):
        raise _Bad(f"invalid type for `{where}`")
    state = _need(obj, "state", str, where)
    if state == "absent":
        return Absent()
    if state == "unsupported":
        return Unsupported(_reason_of(obj.get("reason")))
    if state == "regular":
        return ObservedRegular(
            _digest_of(obj, where), _u64(obj, "size", where), _metadata_of(obj.get("metadata"))
        )
    raise _Bad(f"unknown variant `{state}` of `{where}.state`")


def _original_json(state: OriginalFileState) -> dict[str, Any]:
    if isinstance(state, Absent):
        return {"state": "absent"}
    if isinstance(state, Unsupported):
        return {"state": "unsupported", "reason": _reason_json(state.reason)}
    return {
        "state": "regular",
        "bytes": base64.b64encode(state.bytes).decode("ascii"),
        "metadata": _metadata_json(state.metadata),
        "digest": state.digest,
    }


def _observed_json(state: ObservedFileState) -> dict[str, Any]:
    if isinstance(state, Absent):
        return {"state": "absent"}
    if isinstance(state, Unsupported):
        return {"state": "unsupported", "reason": _reason_json(state.reason)}
    return {
        "state": "regular",
        "digest": state.digest,
        "size": state.size,
        "metadata": _metadata_json(state.metadata),
    }


_EFFECT_KINDS: Final = ("shell_command", "untracked_mutating_tool", "external_effect")


_SEPARATORS: Final = re.compile(r"[/\\]")


def _path_of(item: Mapping[str, Any]) -> str:
    path = str(_need(item, "path", str, "file"))
    if "\0" in path:
        raise _Bad("a file's `path` holds a NUL character")
    if ".." in _SEPARATORS.split(path):
        raise _Bad("a file's `path` has a `..` component")
    return path


def _checkpoint_of(obj: Any, line: int | None) -> WorkspaceCheckpoint:
    if not isinstance(obj, dict):
        raise _Bad("invalid type for `checkpoint`")
    where = "checkpoint"
    node_id = _need(obj, "node_id", str, where)
    if not node_id or node_id.strip() != node_id or len(node_id.encode("utf-8")) > 128:
        raise _Bad("`node_id` is empty, has outer whitespace or is longer than 128 bytes")
    outcome_text = _need(obj, "outcome", str, where)
    try:
        outcome = CheckpointOutcome(outcome_text)
    except ValueError:
        raise _Bad(f"unknown outcome `{outcome_text}`") from None
    files = []
    for item in _need(obj, "files", list, where):
        if not isinstance(item, dict):
            raise _Bad("invalid type for a `files` entry")
        files.append(
            FileCheckpoint(
                _path_of(item),
                _original_of(item.get("original")),
                _observed_of(item.get("expected_after")),
            )
        )
    limitations = []
    for item in obj.get("limitations", []) or []:
        if not isinstance(item, dict):
            raise _Bad("invalid type for a `limitations` entry")
        kind = _need(item, "kind", str, "limitation")
        if kind not in _EFFECT_KINDS:
            raise _Bad(f"unknown limitation kind `{kind}`")
        limitations.append(UntrackedEffect(kind, _need(item, "source", str, "limitation")))
    return WorkspaceCheckpoint(
        session_id=_need(obj, "session_id", str, where),
        node_id=node_id,
        revision=_u64(obj, "revision", where),
        started_at=_u64(obj, "started_at", where),
        finalized_at=_u64(obj, "finalized_at", where),
        outcome=outcome,
        files=tuple(files),
        limitations=tuple(limitations),
        line=line,
    )


def checkpoint_json(checkpoint: WorkspaceCheckpoint) -> dict[str, Any]:
    """The ``checkpoint`` object in serde's field order."""
    return {
        "session_id": checkpoint.session_id,
        "node_id": checkpoint.node_id,
        "revision": checkpoint.revision,
        "started_at": checkpoint.started_at,
        "finalized_at": checkpoint.finalized_at,
        "outcome": checkpoint.outcome.value,
        "files": [
            {
                "path": f.path,
                "original": _original_json(f.original),
                "expected_after": _observed_json(f.expected_after),
            }
            for f in checkpoint.files
        ],
        "limitations": [{"kind": e.kind, "source": e.source} for e in checkpoint.limitations],
    }


def encode_record(checkpoint: WorkspaceCheckpoint) -> bytes:
    """One journal line (with its newline), compact as ``serde_json::to_vec`` writes it."""
    record = {"version": CHECKPOINT_FORMAT_VERSION, "checkpoint": checkpoint_json(checkpoint)}
    return json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"


class _UnknownVersion(ValueError):
    pass


class _NotJson(ValueError):
    pass


def decode_record(raw: bytes, line: int | None = None) -> WorkspaceCheckpoint:
    """One line's record (without its newline).

    Raises:
        TooDeep: the line nests deeper than :data:`~rho_desk.core.wire.limits.MAX_DEPTH`.
        ValueError: not a valid version-1 record (``_UnknownVersion`` for another version,
            ``_NotJson`` for a line that is not JSON at all).
    """
    check_depth(raw, line=line)
    try:
        obj = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise _NotJson(str(exc)) from None
    if not isinstance(obj, dict):
        raise _Bad("a journal record is a JSON object")
    version = _u64(obj, "version", "record")
    if version != CHECKPOINT_FORMAT_VERSION:
        raise _UnknownVersion(f"unsupported workspace checkpoint version {version}")
    return _checkpoint_of(obj.get("checkpoint"), line)


def read_journal_bytes(data: bytes, source: str | None = None) -> ReadJournal:
    """Parse journal bytes as upstream's ``read_locked_journal`` does, more strictly (see the module).

    Raises:
        InputError: a line is too deep, an earlier line is not JSON, a record is invalid or of
            an unknown version, or a node id repeats (the file and the line named).
    """
    checkpoints: list[WorkspaceCheckpoint] = []
    seen: set[str] = set()
    valid = 0
    lines = data.split(b"\n")
    # The split leaves the bytes after the last newline (possibly empty) as the final item.
    complete = lines[:-1]
    for number, raw in enumerate(complete, start=1):
        try:
            checkpoint = decode_record(raw, number)
        except TooDeep as exc:
            raise TooDeep(exc.reason, source=source, line=number) from None
        except _UnknownVersion as exc:
            raise InputError(str(exc), source=source, line=number) from None
        except _NotJson as exc:
            if number == len(complete) and not lines[-1]:
                break  # upstream tolerates a bad last line: a torn append's remains
            raise InputError(
                f"invalid checkpoint journal record: {exc}", source=source, line=number
            ) from None
        except ValueError as exc:  # JSON, but not a record: never a torn append
            raise InputError(
                f"invalid checkpoint journal record: {exc}", source=source, line=number
            ) from None
        if checkpoint.node_id in seen:
            raise InputError(
                f"duplicate workspace checkpoint node '{checkpoint.node_id}'",
                source=source,
                line=number,
            )
        seen.add(checkpoint.node_id)
        valid += len(raw) + 1
        checkpoints.append(checkpoint)
    return ReadJournal(tuple(checkpoints), valid)


_NOFOLLOW: Final = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC: Final = getattr(os, "O_CLOEXEC", 0)
_DIRECTORY: Final = getattr(os, "O_DIRECTORY", 0)
_NONBLOCK: Final = getattr(os, "O_NONBLOCK", 0)


def _open_no_follow(path: Path, flags: int, mode: int = 0o600) -> int:
    return os.open(path, flags | _NOFOLLOW | _CLOEXEC, mode)


def read_journal(path: str | os.PathLike[str]) -> ReadJournal:
    """The journal at ``path``; empty when there is none.

    Opened through its folder: the folder (``workspace-checkpoints/``) with ``O_NOFOLLOW |
    O_DIRECTORY``, the journal in it with ``O_NOFOLLOW | O_NONBLOCK``; a symbolic link in either
    place is refused, and so is anything but a regular file (a FIFO cannot hang the read).

    Raises:
        InputError: the journal or its folder is a symlink or not a regular file/folder, it is
            corrupt, or from a newer Rho.
        StorageError: it cannot be read.
    """
    path = Path(path)
    try:
        folder = os.open(path.parent, os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC)
    except FileNotFoundError:
        return ReadJournal((), 0)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR):
            raise InputError(
                "the checkpoint journal's folder is a symlink or not a folder", source=str(path)
            ) from None
        raise StorageError(f"{path.parent}: {exc.strerror or exc}") from None
    try:
        try:
            fd = os.open(path.name, os.O_RDONLY | _NOFOLLOW | _CLOEXEC | _NONBLOCK, dir_fd=folder)
        except FileNotFoundError:
            return ReadJournal((), 0)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise InputError(
                    "checkpoint journal cannot be a symlink", source=str(path)
                ) from None
            raise StorageError(f"{path}: {exc.strerror or exc}") from None
    finally:
        os.close(folder)
    try:
        with os.fdopen(fd, "rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                raise InputError("checkpoint journal is not a regular file", source=str(path))
            os.set_blocking(handle.fileno(), True)
            data = handle.read()
    except OSError as exc:
        raise StorageError(f"{path}: {exc.strerror or exc}") from None
    return read_journal_bytes(data, str(path))


# -- capture and observation -------------------------------------------------------------------------


def _open_real(path: Path) -> int:
    """``path`` opened for reading with no symbolic link followed in any of its components (an
    absolute path; a relative one gets ``O_NOFOLLOW`` on its last component only).

    The paths recorded are the real paths the tools were allowed to write; another process that
    swaps a folder on the way for a link out of the workspace gets the capture refused, not
    another file's content into the journal.
    """
    if not path.is_absolute():
        return _open_no_follow(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    root = open_root(Path("/"))
    try:
        return open_file_beneath(root, PurePosixPath(*path.parts[1:]))
    finally:
        os.close(root)


def _basic_metadata(info: os.stat_result) -> BasicFileMetadata:
    mode = stat.S_IMODE(info.st_mode)
    readonly = not bool(mode & 0o222)
    return BasicFileMetadata(readonly, mode if os.name == "posix" else None)


def _read_regular(
    path: Path, max_file_bytes: int
) -> tuple[str, bytes, BasicFileMetadata | None, UnsupportedPath | None]:
    """``("absent"|"regular"|"unsupported", bytes, metadata, reason)`` as upstream's ``read_regular``."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return "absent", b"", None, None
    except NotADirectoryError:
        return "absent", b"", None, None
    except OSError:
        return "unsupported", b"", None, UnsupportedPath("unreadable")
    if stat.S_ISLNK(info.st_mode):
        return "unsupported", b"", None, UnsupportedPath("symlink")
    if not stat.S_ISREG(info.st_mode):
        return "unsupported", b"", None, UnsupportedPath("non_regular")
    if info.st_size > max_file_bytes:
        return "unsupported", b"", None, UnsupportedPath("too_large", info.st_size, max_file_bytes)
    try:
        fd = _open_real(path)
    except OSError as exc:
        # a folder on the way became a symbolic link since it was checked: not followed
        kind = "symlink" if exc.errno in CHANGED else "unreadable"
        return "unsupported", b"", None, UnsupportedPath(kind)
    try:
        opened = os.fstat(fd)
        if not stat.S_ISREG(opened.st_mode):
            return "unsupported", b"", None, UnsupportedPath("non_regular")
        chunks = []
        remaining = max_file_bytes + 1
        while remaining > 0:
            chunk = os.read(fd, min(remaining, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            remaining -= len(chunk)
        data = b"".join(chunks)
    except OSError:
        return "unsupported", b"", None, UnsupportedPath("unreadable")
    finally:
        os.close(fd)
    if len(data) > max_file_bytes:
        return "unsupported", b"", None, UnsupportedPath("too_large", len(data), max_file_bytes)
    return "regular", data, _basic_metadata(opened), None


def capture_original(
    path: str | os.PathLike[str], max_file_bytes: int = DEFAULT_MAX_CHECKPOINT_FILE_BYTES
) -> OriginalFileState:
    """The state of ``path`` with its content, before a mutation (no symlink is followed)."""
    state, data, meta, reason = _read_regular(Path(path), max_file_bytes)
    if state == "absent":
        return Absent()
    if state == "unsupported":
        assert reason is not None
        return Unsupported(reason)
    assert meta is not None
    return CapturedRegularFile(data, meta, sha256_hex(data))


def observe_path(
    path: str | os.PathLike[str], max_file_bytes: int = DEFAULT_MAX_CHECKPOINT_FILE_BYTES
) -> ObservedFileState:
    """The content-free state of ``path`` now."""
    state, data, meta, reason = _read_regular(Path(path), max_file_bytes)
    if state == "absent":
        return Absent()
    if state == "unsupported":
        assert reason is not None
        return Unsupported(reason)
    assert meta is not None
    return ObservedRegular(sha256_hex(data), len(data), meta)


def observed_of_bytes(data: bytes, metadata: BasicFileMetadata) -> ObservedRegular:
    return ObservedRegular(sha256_hex(data), len(data), metadata)


def observed_of_original(original: OriginalFileState) -> ObservedFileState:
    if isinstance(original, CapturedRegularFile):
        return ObservedRegular(original.digest, len(original.bytes), original.metadata)
    return original


# -- restore policy ------------------------------------------------------------------------------


class RestoreClassification(enum.Enum):
    """One pure restore decision for a tracked path (upstream ``RestoreClassification``)."""

    CREATE = "create"
    """The turn deleted the file: write it back."""
    MODIFY = "modify"
    """The turn changed the file: write the original back."""
    DELETE = "delete"
    """The turn created the file: remove it."""
    CONFLICT = "conflict"
    """The file changed since the turn (or never reached the state it left): left alone."""
    UNSUPPORTED = "unsupported"
    """The original or the after state could not be captured: nothing to restore."""
    SKIPPED = "skipped"
    """The turn left the file as it found it."""

    @property
    def mutates(self) -> bool:
        return self in (
            RestoreClassification.CREATE,
            RestoreClassification.MODIFY,
            RestoreClassification.DELETE,
        )


class RestorePlanEntry(msgspec.Struct, frozen=True):
    path: str
    classification: RestoreClassification


def classify_restore(file: FileCheckpoint, current: ObservedFileState) -> RestoreClassification:
    """Upstream's ``classify_restore``: the action for ``file`` given its current state."""
    if isinstance(file.original, Unsupported) or isinstance(file.expected_after, Unsupported):
        return RestoreClassification.UNSUPPORTED
    if current != file.expected_after:
        return RestoreClassification.CONFLICT
    original, after = file.original, file.expected_after
    if isinstance(original, Absent):
        return (
            RestoreClassification.DELETE
            if isinstance(after, ObservedRegular)
            else RestoreClassification.SKIPPED
        )
    if isinstance(after, Absent):
        return RestoreClassification.CREATE
    if after == observed_of_original(original):
        return RestoreClassification.SKIPPED
    return RestoreClassification.MODIFY


def plan_restore(
    checkpoint: WorkspaceCheckpoint, current: Mapping[str, ObservedFileState]
) -> tuple[list[RestorePlanEntry], tuple[UntrackedEffect, ...]]:
    """Upstream's ``plan_restore``: a preview that reads and writes nothing.

    Raises:
        KeyError: ``current`` lacks a path of the checkpoint.
    """
    entries = []
    for file in checkpoint.files:
        if file.path not in current:
            raise KeyError(f"current state is missing for {file.path}")
        entries.append(RestorePlanEntry(file.path, classify_restore(file, current[file.path])))
    return entries, checkpoint.limitations


_TEMP_IDS = itertools.count()


def _restore_bytes(path: Path, data: bytes, metadata: BasicFileMetadata | None) -> None:
    """Upstream's ``atomic_restore_file``: ``.<name>.rho-rewind-<pid>-<n>`` beside it, fsync, rename."""
    parent = path.parent
    parent.mkdir(parents=True, exist_ok=True)
    temp = parent / f".{path.name}.rho-rewind-{os.getpid()}-{next(_TEMP_IDS)}"
    fd = _open_no_follow(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL)
    try:
        try:
            write_all(fd, data)
            if metadata is not None:
                if metadata.unix_mode is not None and os.name == "posix":
                    os.fchmod(fd, metadata.unix_mode)
                elif os.name == "posix":
                    current = stat.S_IMODE(os.fstat(fd).st_mode)
                    os.fchmod(fd, current & ~0o222 if metadata.readonly else current | 0o200)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            temp.unlink()
        raise
    with contextlib.suppress(OSError):
        fsync_dir(parent)


def _remove_regular(path: Path) -> None:
    info = os.lstat(path)
    if not stat.S_ISREG(info.st_mode):
        raise OSError(errno.EINVAL, "restore target is no longer a regular file")
    path.unlink()
    with contextlib.suppress(OSError):
        fsync_dir(path.parent)


def apply_restore(file: FileCheckpoint, classification: RestoreClassification) -> None:
    """Upstream's ``apply_restore`` for one planned action.

    Raises:
        StorageError: the write or the removal failed, or the classification is no mutation.
    """
    path = Path(file.path)
    try:
        if classification in (RestoreClassification.CREATE, RestoreClassification.MODIFY):
            if not isinstance(file.original, CapturedRegularFile):
                raise StorageError("checkpoint has no captured file content")
            _restore_bytes(path, file.original.bytes, file.original.metadata)
        elif classification is RestoreClassification.DELETE:
            _remove_regular(path)
        else:
            raise StorageError("restore classification is not a workspace mutation")
    except OSError as exc:
        raise StorageError(f"{path}: {exc.strerror or exc}") from None


def write_back(
    path: str | os.PathLike[str], data: bytes, metadata: BasicFileMetadata | None
) -> None:
    """Atomically put ``data`` at ``path`` (the restore's write, for undoing a restore)."""
    try:
        _restore_bytes(Path(path), data, metadata)
    except OSError as exc:
        raise StorageError(f"{path}: {exc.strerror or exc}") from None


def remove_file(path: str | os.PathLike[str]) -> None:
    try:
        _remove_regular(Path(path))
    except OSError as exc:
        raise StorageError(f"{path}: {exc.strerror or exc}") from None
