"""Restoring a file to its content before a turn, by Rho's rule, with undo.

A restore is offered only when the file on disk is still exactly as the turn left it (Rho's
``expected_after``: digest, size and metadata; for a change reconstructed from tool calls, the
digest and size of the reconstructed content). Anything else is a conflict and nothing is
written: a change made since, by a person or a later turn, is never overwritten.

:func:`preview_restore` says what would happen and shows the diff from the file as it is to the
file as it would be; :func:`restore_file` checks again right before writing (upstream re-observes
too) and returns a :class:`RestoreReceipt` holding what was on disk, so :func:`undo_restore` can
put it back, by the same rule: only while the file still is what the restore wrote. Writes are
atomic (synced temporary file beside the target, rename, folder sync).

A restore writes a file, as the model's tools do, and its path and content come from the session
file and its journal, which may come from another machine. So it is offered only inside a folder
trusted for tools on this machine (:class:`~rho_desk.core.tools.trust.TrustStore`), outside the
folders tools never run in; anywhere else the preview says why and nothing can be written.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ..errors import KnownError
from ..tools.trust import TrustStore, refusal
from .checkpoint import (
    DEFAULT_MAX_CHECKPOINT_FILE_BYTES,
    Absent,
    BasicFileMetadata,
    CapturedRegularFile,
    FileCheckpoint,
    ObservedFileState,
    ObservedRegular,
    RestoreClassification,
    apply_restore,
    capture_original,
    classify_restore,
    observe_path,
    observed_of_original,
    remove_file,
    sha256_hex,
    write_back,
)
from .diff import unified_diff
from .model import FileChange

__all__ = ["RestoreConflict", "RestorePreview", "RestoreReceipt", "preview_restore", "restore_file", "undo_restore"]


class RestoreConflict(KnownError):
    """The file is not in the state a restore (or its undo) needs; nothing was written."""


@dataclass(frozen=True, slots=True)
class RestorePreview:
    change: FileChange
    checkpoint: FileCheckpoint | None
    """What the restore applies (``None``: nothing can be restored)."""
    classification: RestoreClassification
    current: ObservedFileState
    diff: str
    """From the file as it is now to the file as the restore leaves it."""
    reason: str
    """Why nothing can be restored (empty when it can)."""

    @property
    def possible(self) -> bool:
        return self.classification.mutates


@dataclass(frozen=True, slots=True)
class RestoreReceipt:
    path: str
    display: str
    previous: CapturedRegularFile | Absent
    """What was on disk before the restore (put back by :func:`undo_restore`)."""
    restored: ObservedFileState
    """What the restore left on disk."""


def _synthesized(change: FileChange, current: ObservedFileState) -> FileCheckpoint | None:
    """A checkpoint for a change reconstructed from tool calls (both sides known)."""
    if not change.diffable:
        return None
    metadata = current.metadata if isinstance(current, ObservedRegular) else BasicFileMetadata(False, None)
    if change.before is None:
        original: CapturedRegularFile | Absent = Absent()
    else:
        original = CapturedRegularFile(change.before, metadata, sha256_hex(change.before))
    if change.after is None:
        expected: ObservedFileState = Absent()
    else:
        digest = sha256_hex(change.after)
        if isinstance(current, ObservedRegular) and current.digest == digest and current.size == len(change.after):
            expected = current  # metadata is not in the transcript: digest and size decide
        else:
            expected = ObservedRegular(digest, len(change.after), metadata)
    return FileCheckpoint(change.abs_path, original, expected)


def _current_bytes(path: str) -> bytes | None:
    original = capture_original(path, DEFAULT_MAX_CHECKPOINT_FILE_BYTES)
    return original.bytes if isinstance(original, CapturedRegularFile) else None


def _untrusted(path: str, trust: TrustStore | None) -> str | None:
    """Why a restore may not write ``path`` (its nearest existing folder judged), or ``None``."""
    folder = Path(path).parent
    while not folder.is_dir() and folder.parent != folder:
        folder = folder.parent
    why = refusal(folder)
    if why is not None:
        return f"its folder is never written by rho-desk ({why})"
    if (trust if trust is not None else TrustStore()).trusted_root(folder) is None:
        return f"{folder} is not a folder trusted for tools on this machine (trust it first: Settings, or continue the session with tools)"
    return None


_REASONS = {
    RestoreClassification.CONFLICT: "the file changed since this turn (restoring would overwrite that change)",
    RestoreClassification.UNSUPPORTED: "Rho could not capture this file, so there is nothing to restore",
    RestoreClassification.SKIPPED: "the turn left this file as it found it",
}


def preview_restore(change: FileChange, trust: TrustStore | None = None) -> RestorePreview:
    """What restoring ``change.path`` to its content before the turn would do (reads only).

    ``trust``: the trusted folders (default: this user's, from rho-desk's config folder).
    """
    current = observe_path(change.abs_path)
    why = _untrusted(change.abs_path, trust)
    if why is not None:
        return RestorePreview(change, None, RestoreClassification.UNSUPPORTED, current, "", why)
    checkpoint = change.checkpoint if change.checkpoint is not None else _synthesized(change, current)
    if checkpoint is None:
        return RestorePreview(change, None, RestoreClassification.UNSUPPORTED, current, "",
                              "the content before this turn is not known, so it cannot be restored")
    classification = classify_restore(checkpoint, current)
    diff = ""
    if classification.mutates:
        target = checkpoint.original.bytes if isinstance(checkpoint.original, CapturedRegularFile) else None
        diff = unified_diff(change.path, _current_bytes(change.abs_path), target)
    return RestorePreview(change, checkpoint, classification, current, diff, _REASONS.get(classification, ""))


def restore_file(preview: RestorePreview, trust: TrustStore | None = None) -> RestoreReceipt:
    """Apply a previewed restore, after checking the file, and its folder's trust, again.

    Raises:
        RestoreConflict: the restore is not possible, or the file changed since the preview.
        StorageError: the write failed (the file is unchanged).
    """
    checkpoint = preview.checkpoint
    if checkpoint is None or not preview.possible:
        raise RestoreConflict(f"{preview.change.path}: {preview.reason or 'nothing to restore'}")
    why = _untrusted(checkpoint.path, trust)
    if why is not None:
        raise RestoreConflict(f"{preview.change.path}: {why}; nothing was written")
    previous = capture_original(checkpoint.path)
    if observed_of_original(previous) != preview.current or classify_restore(checkpoint, preview.current) is not preview.classification:
        raise RestoreConflict(f"{preview.change.path}: the file changed since the preview; nothing was written")
    if not isinstance(previous, CapturedRegularFile | Absent):
        raise RestoreConflict(f"{preview.change.path}: the file on disk cannot be kept for undo; nothing was written")
    apply_restore(checkpoint, preview.classification)
    return RestoreReceipt(checkpoint.path, preview.change.path, previous, observe_path(checkpoint.path))


def undo_restore(receipt: RestoreReceipt) -> None:
    """Put back what was on disk before the restore, while the file is still what it wrote.

    Raises:
        RestoreConflict: the file changed since the restore; nothing was written.
        StorageError: the write failed.
    """
    if observe_path(receipt.path) != receipt.restored:
        raise RestoreConflict(f"{receipt.display}: the file changed since the restore; it was not undone")
    previous = receipt.previous
    if isinstance(previous, Absent):
        if os.path.lexists(receipt.path):
            remove_file(receipt.path)
        return
    write_back(Path(receipt.path), previous.bytes, previous.metadata)
