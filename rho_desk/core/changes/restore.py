"""Restoring a file to its content before a turn, by Rho's rule, with undo, planting nothing.

A restore is offered only when the file on disk is still exactly as the turn left it (Rho's
``expected_after``: digest, size and metadata; for a change reconstructed from tool calls, the
digest and size of the reconstructed content). Anything else is a conflict and nothing is
written: a change made since, by a person or a later turn, is never overwritten.

:func:`preview_restore` says what would happen and shows the diff from the file as it is to the
file as it would be, with the mode it would have; :func:`restore_file` checks again right before
writing (upstream re-observes too) and returns a :class:`RestoreReceipt` holding what was on disk,
so :func:`undo_restore` can put it back, by the same rule: only while the file still is what the
restore wrote.

A restore writes a file, as the model's tools do, and its path, content and mode come from the
session file and its checkpoint journal, which may come from another machine. So it writes only
what a user could have meant:

* **only in the session's own workspace** (its recorded folder, which must be trusted for tools on
  this machine and not one tools never run in): a journal naming another trusted folder, or
  ``~/.bashrc``, cannot be restored into;
* **through the workspace's descriptor**, never by path: the folders on the way are opened one by
  one with no symbolic link followed (``rho_desk.core.tools.beneath``), the file replaced by a
  temporary file renamed in its own folder, so a link planted on the way cannot lead outside;
* **with a clamped mode**: a file that exists keeps its own mode; a file the restore creates gets
  the recorded mode without setuid, setgid or sticky bits and without group or other write
  (``mode & 0o755``, less the umask), so a journal cannot make ``-rwsrwsrwx``;
* **nothing larger than a capture**: Rho captures at most 2 MiB of a file, so content larger than
  that is not a capture and is refused;
* **not in ``.git/``** unless the user names the file (``restore_file(..., named=path)``): git
  runs the hooks there and reads its config from there;
* and the preview says what to look at: the mode, an executable, a hook.

Paths with ``..`` or a NUL are refused before anything is looked at.
"""

from __future__ import annotations

import contextlib
import os
import stat
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from ..errors import KnownError, StorageError
from ..tools.beneath import open_dir_beneath, open_root, replace_beneath
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
    capture_original,
    classify_restore,
    observe_path,
    observed_of_original,
    sha256_hex,
)
from .model import FileChange
from .patch import unified_diff

__all__ = [
    "MAX_RESTORE_BYTES",
    "RestoreConflict",
    "RestorePreview",
    "RestoreReceipt",
    "preview_restore",
    "restore_file",
    "undo_restore",
]

MAX_RESTORE_BYTES = DEFAULT_MAX_CHECKPOINT_FILE_BYTES
"""The most a restore writes: Rho's capture limit (2 MiB)."""
_CLAMP = 0o755
"""What a created file's recorded mode keeps: no setuid/setgid/sticky, no group or other write."""
_HOOK_FOLDERS = frozenset({"hooks", ".husky", ".githooks"})


class RestoreConflict(KnownError):
    """The file is not in the state a restore (or its undo) needs; nothing was written."""


@dataclass(frozen=True, slots=True)
class _Place:
    """Where a restore writes: the workspace's real path and the file beneath it."""

    root: Path
    relative: PurePosixPath


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
    mode: int | None = None
    """The permission bits the file will have (``None``: it is deleted, or not POSIX)."""
    notes: tuple[str, ...] = ()
    """What to look at before restoring: the mode and where it comes from, an executable, a hook."""
    named: str = ""
    """Why the user must name the file to restore it (inside ``.git/``); empty when not."""
    place: _Place | None = None

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
    place: _Place


def _refused(
    change: FileChange, reason: str, current: ObservedFileState | None = None
) -> RestorePreview:
    return RestorePreview(
        change, None, RestoreClassification.UNSUPPORTED, current or Absent(), "", reason
    )


def _place(path: str, workspace: str | None, trust: TrustStore | None) -> _Place | str:
    """Where ``path`` lies in the session's ``workspace``, or why a restore may not write it."""
    if not workspace:
        return "the session names no workspace, and a restore writes only in the session's own workspace"
    if "\0" in path or "\0" in workspace:
        return "the path holds a NUL character"
    if not os.path.isabs(path) or ".." in PurePosixPath(path).parts:
        return "the path is not a plain absolute path (a restore never follows '..')"
    if not os.path.isdir(workspace):  # judged as is, not by the nearest folder that exists (/home)
        return f"the session's workspace {workspace} is not on this machine, and a restore writes only there"
    root = Path(os.path.realpath(workspace))
    why = refusal(root)
    if why is not None:
        return f"the session's workspace is never written by rho-desk ({why})"
    if (trust if trust is not None else TrustStore()).trusted_root(root) is None:
        return (
            f"the session's workspace {root} is not a folder trusted for tools on this machine "
            "(trust it first: Settings, or continue the session with tools)"
        )
    target = PurePosixPath(os.path.normpath(path))
    for base in (PurePosixPath(root), PurePosixPath(os.path.normpath(workspace))):
        with contextlib.suppress(ValueError):
            relative = target.relative_to(base)
            if relative.parts:
                return (
                    _Place(root, relative)
                    if _no_link_on_the_way(root, relative)
                    else ("a folder on its way is a symbolic link, and a restore never follows one")
                )
    return f"it is outside the session's workspace {root}, and a restore writes only there"


def _no_link_on_the_way(root: Path, relative: PurePosixPath) -> bool:
    """Whether the folders of ``relative`` that exist under ``root`` are real folders."""
    folder = root.joinpath(*relative.parts[:-1])
    while folder != root and not os.path.lexists(folder):
        folder = folder.parent
    return os.path.realpath(folder) == str(folder)


def _in_git(relative: PurePosixPath) -> bool:
    return any(part.casefold() == ".git" for part in relative.parts[:-1])


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _created_mode(metadata: BasicFileMetadata) -> int:
    """The mode of a file a restore creates: the recorded one, clamped (see the module)."""
    recorded = metadata.unix_mode if metadata.unix_mode is not None else 0o644
    mode = recorded & _CLAMP & ~_umask()
    return mode & ~0o222 if metadata.readonly else mode


def _mode_and_notes(
    place: _Place,
    checkpoint: FileCheckpoint,
    classification: RestoreClassification,
    current: ObservedFileState,
) -> tuple[int | None, tuple[str, ...]]:
    notes: list[str] = []
    mode: int | None = None
    original = checkpoint.original
    if classification is RestoreClassification.DELETE:
        notes.append("the file is deleted (the turn created it)")
    elif os.name == "posix" and isinstance(original, CapturedRegularFile):
        if isinstance(current, ObservedRegular) and current.metadata.unix_mode is not None:
            mode = current.metadata.unix_mode
            notes.append(f"mode {mode:04o}, kept from the file it replaces")
        else:
            mode = _created_mode(original.metadata)
            recorded = original.metadata.unix_mode
            if recorded is not None and recorded & 0o7777 != mode:
                notes.append(
                    f"mode {mode:04o} (the session recorded {recorded & 0o7777:04o}; a restore never sets "
                    "setuid, setgid, sticky or group/other write)"
                )
            else:
                notes.append(f"mode {mode:04o}")
        if mode & 0o111:
            notes.append("executable: it can be run")
    parts = place.relative.parts
    if _in_git(place.relative):
        notes.append("inside .git/: git runs its hooks and reads its configuration from there")
    if any(part in _HOOK_FOLDERS for part in parts[:-1]):
        notes.append("a hook: a tool runs it on its own (git at a commit, a checkout, a push)")
    return mode, tuple(notes)


def _too_large(checkpoint: FileCheckpoint) -> str:
    original = checkpoint.original
    if isinstance(original, CapturedRegularFile) and len(original.bytes) > MAX_RESTORE_BYTES:
        return (
            f"the session holds {len(original.bytes):,} bytes for it, more than Rho ever captures "
            f"({MAX_RESTORE_BYTES:,}), so it is not a capture and is not written"
        )
    return ""


def _synthesized(change: FileChange, current: ObservedFileState) -> FileCheckpoint | None:
    """A checkpoint for a change reconstructed from tool calls (both sides known)."""
    if not change.diffable:
        return None
    metadata = (
        current.metadata if isinstance(current, ObservedRegular) else BasicFileMetadata(False, None)
    )
    if change.before is None:
        original: CapturedRegularFile | Absent = Absent()
    else:
        original = CapturedRegularFile(change.before, metadata, sha256_hex(change.before))
    if change.after is None:
        expected: ObservedFileState = Absent()
    else:
        digest = sha256_hex(change.after)
        if (
            isinstance(current, ObservedRegular)
            and current.digest == digest
            and current.size == len(change.after)
        ):
            expected = current  # metadata is not in the transcript: digest and size decide
        else:
            expected = ObservedRegular(digest, len(change.after), metadata)
    return FileCheckpoint(change.abs_path, original, expected)


def _current_bytes(path: str) -> bytes | None:
    original = capture_original(path, DEFAULT_MAX_CHECKPOINT_FILE_BYTES)
    return original.bytes if isinstance(original, CapturedRegularFile) else None


_REASONS = {
    RestoreClassification.CONFLICT: "the file changed since this turn (restoring would overwrite that change)",
    RestoreClassification.UNSUPPORTED: "Rho could not capture this file, so there is nothing to restore",
    RestoreClassification.SKIPPED: "the turn left this file as it found it",
}


def preview_restore(
    change: FileChange, trust: TrustStore | None = None, *, workspace: str | None
) -> RestorePreview:
    """What restoring ``change.path`` to its content before the turn would do (reads only).

    ``workspace``: the session's recorded folder (``SessionChanges.workspace``), the only place a
    restore writes. ``trust``: the trusted folders (default: this user's, from rho-desk's config
    folder).
    """
    path = change.checkpoint.path if change.checkpoint is not None else change.abs_path
    place = _place(path, workspace, trust)
    if isinstance(place, str):
        return _refused(change, place)
    current = observe_path(path)
    checkpoint = (
        change.checkpoint if change.checkpoint is not None else _synthesized(change, current)
    )
    if checkpoint is None:
        return _refused(
            change, "the content before this turn is not known, so it cannot be restored", current
        )
    too_large = _too_large(checkpoint)
    if too_large:
        return _refused(change, too_large, current)
    classification = classify_restore(checkpoint, current)
    diff = ""
    if classification.mutates:
        target = (
            checkpoint.original.bytes
            if isinstance(checkpoint.original, CapturedRegularFile)
            else None
        )
        diff = unified_diff(change.path, _current_bytes(path), target)
    mode, notes = _mode_and_notes(place, checkpoint, classification, current)
    named = ""
    if classification.mutates and _in_git(place.relative):
        named = "it is inside .git/, where git runs hooks and reads its configuration: name the file to restore it"
    return RestorePreview(
        change,
        checkpoint,
        classification,
        current,
        diff,
        _REASONS.get(classification, ""),
        mode,
        notes,
        named,
        place,
    )


def restore_file(
    preview: RestorePreview, trust: TrustStore | None = None, *, named: str | None = None
) -> RestoreReceipt:
    """Apply a previewed restore, after checking the file, its place and its folder's trust again.

    ``named``: the file's path as the user typed it, needed when ``preview.named`` says so.

    Raises:
        RestoreConflict: the restore is not possible, or the file changed since the preview.
        StorageError: the write failed (the file is unchanged).
    """
    checkpoint, display = preview.checkpoint, preview.change.path
    if checkpoint is None or not preview.possible or preview.place is None:
        raise RestoreConflict(f"{display}: {preview.reason or 'nothing to restore'}")
    place = _place(checkpoint.path, str(preview.place.root), trust)
    if isinstance(place, str) or place != preview.place:
        raise RestoreConflict(
            f"{display}: {place if isinstance(place, str) else 'its place changed'}; nothing was written"
        )
    if preview.named and named not in (display, str(place.relative), checkpoint.path):
        raise RestoreConflict(f"{display}: {preview.named}; nothing was written")
    if _too_large(checkpoint):
        raise RestoreConflict(f"{display}: {_too_large(checkpoint)}")
    previous = capture_original(checkpoint.path)
    if (
        observed_of_original(previous) != preview.current
        or classify_restore(checkpoint, preview.current) is not preview.classification
    ):
        raise RestoreConflict(f"{display}: the file changed since the preview; nothing was written")
    if not isinstance(previous, CapturedRegularFile | Absent):
        raise RestoreConflict(
            f"{display}: the file on disk cannot be kept for undo; nothing was written"
        )
    original = checkpoint.original
    if preview.classification is RestoreClassification.DELETE:
        _remove(place)
    else:
        assert isinstance(
            original, CapturedRegularFile
        )  # CREATE and MODIFY restore captured content
        _write(place, original.bytes, _created_mode(original.metadata))
    return RestoreReceipt(checkpoint.path, display, previous, observe_path(checkpoint.path), place)


def undo_restore(receipt: RestoreReceipt) -> None:
    """Put back what was on disk before the restore, while the file is still what it wrote.

    Raises:
        RestoreConflict: the file changed since the restore; nothing was written.
        StorageError: the write failed.
    """
    if observe_path(receipt.path) != receipt.restored:
        raise RestoreConflict(
            f"{receipt.display}: the file changed since the restore; it was not undone"
        )
    previous = receipt.previous
    if isinstance(previous, Absent):
        if os.path.lexists(receipt.path):
            _remove(receipt.place)
        return
    mode = previous.metadata.unix_mode  # the user's own file, as it was: its mode exactly
    _write(
        receipt.place,
        previous.bytes,
        mode if mode is not None else _created_mode(previous.metadata),
    )


def _write(place: _Place, data: bytes, new_mode: int) -> None:
    """``data`` at the place, through the workspace's descriptor; an existing file keeps its mode."""
    try:
        root = open_root(place.root)
        try:
            replace_beneath(root, place.relative, data, create_folders=True, new_mode=new_mode)
        finally:
            os.close(root)
    except OSError as exc:
        raise StorageError(f"{place.root / place.relative}: {exc.strerror or exc}") from None


def _remove(place: _Place) -> None:
    """Remove the regular file at the place, through its folder's descriptor (never a link's target)."""
    try:
        root = open_root(place.root)
        try:
            folder = open_dir_beneath(root, place.relative.parent)
        finally:
            os.close(root)
        try:
            name = place.relative.name
            if not stat.S_ISREG(os.stat(name, dir_fd=folder, follow_symlinks=False).st_mode):
                raise StorageError(
                    f"{place.root / place.relative}: restore target is no longer a regular file"
                )
            os.unlink(name, dir_fd=folder)
            os.fsync(folder)
        finally:
            os.close(folder)
    except OSError as exc:
        raise StorageError(f"{place.root / place.relative}: {exc.strerror or exc}") from None
