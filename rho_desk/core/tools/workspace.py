"""The workspace the coding tools may touch: the session's folder plus the folders granted to it.

Paths resolve the way Rho's SDK resolves them (``Workspace::resolve_for_read`` /
``resolve_for_write``): ``..`` is refused outright, a relative path joins the root, symlinks are
followed, and the real target must lie under the root or a granted folder. A missing write
target resolves through its nearest existing parent.

The I/O that follows never resolves the path again. :meth:`Workspace.open_file`,
:meth:`~Workspace.open_folder` and :meth:`~Workspace.replace` open the real location that was
authorized from its root's descriptor, one component at a time and refusing every symlink
(``openat2`` with ``RESOLVE_BENEATH``; see :mod:`.beneath`), then read or write through the
descriptor. A folder swapped for a symlink after authorization makes the call fail with
"workspace path changed after authorization"; it never reaches outside.

This is stricter than Rho itself, which (since upstream #537) lets tools reach outside the
workspace: a session opened here may come from another machine, and whatever a tool reads is sent
to a model provider. Only folders the user grants for this session widen it.

**Hard links.** A path cannot tell that a file in the workspace is also a file outside it: a hard
link is the same file under two names, and its other name may be ``~/.ssh/id_ed25519``. Its
``stat`` can: a regular file with more than one link (``st_nlink > 1``) counts as outside, for
every tool (reading, writing, editing, searching), when its path is resolved and again on the
descriptor the I/O opens, unless the user granted that file itself for the session (``grant``
takes a file too: ``rho-desk continue --grant FILE``).
"""

from __future__ import annotations

import enum
import os
import stat
from collections.abc import Callable, Iterable
from pathlib import Path, PurePosixPath
from typing import TypeVar

import msgspec

from . import beneath
from .protocol import ToolError, ToolErrorKind

__all__ = ["PathState", "ResolvedPath", "Workspace", "WorkspaceMissing"]

_T = TypeVar("_T")


class WorkspaceMissing(ToolError):
    """The session's folder does not exist (any more) on this machine."""


class PathState(enum.Enum):
    EXISTING = "existing"
    MISSING_WRITE_TARGET = "missing_write_target"


class ResolvedPath(msgspec.Struct, frozen=True):
    """A path checked against the workspace: its real location and the root that admits it."""

    path: Path
    root: Path
    """The workspace root, or the granted folder, that contains ``path``."""
    state: PathState

    @property
    def in_primary(self) -> bool:
        """True when the primary workspace (not a granted folder) admits the path."""
        return self.root == self._primary

    _primary: Path


def _denied(message: str) -> ToolError:
    return ToolError(ToolErrorKind.POLICY_DENIED, message)


def _outside(path: str | Path) -> ToolError:
    return _denied(f"path '{path}' is outside the workspace and granted roots")


class Workspace:
    """The session's folder and the folders granted for this session.

    Args:
        root: the session's recorded folder (header ``cwd``); must exist.
        granted: further folders the user allowed for this session.

    Raises:
        WorkspaceMissing: ``root`` is not an existing folder.
    """

    __slots__ = ("_granted", "_granted_files", "root")

    def __init__(
        self, root: str | os.PathLike[str], granted: Iterable[str | os.PathLike[str]] = ()
    ) -> None:
        self.root = self._canonical_dir(Path(root), "workspace root")
        self._granted: list[Path] = []
        self._granted_files: dict[tuple[int, int], Path] = {}
        for folder in granted:
            self.grant(folder)

    @staticmethod
    def _canonical_dir(path: Path, label: str) -> Path:
        if not path.is_absolute():
            raise WorkspaceMissing(
                ToolErrorKind.EXECUTION, f"{label} must be an absolute path: {path}"
            )
        try:
            canonical = path.resolve(strict=True)
        except OSError as exc:
            raise WorkspaceMissing(
                ToolErrorKind.EXECUTION,
                f"{label} must be an existing directory: {path} ({exc.strerror or exc})",
            ) from None
        if not canonical.is_dir():
            raise WorkspaceMissing(ToolErrorKind.EXECUTION, f"{label} must be a directory: {path}")
        return canonical

    @property
    def granted(self) -> tuple[Path, ...]:
        """The granted folders, then the granted files (real paths)."""
        return (*self._granted, *self._granted_files.values())

    def grant(self, folder: str | os.PathLike[str]) -> Path:
        """Allow ``folder`` (and everything under it) for this session; returns its real path.

        A regular file may be granted too: the tools may then use it although it has several
        hard links (its other names may be anywhere; the user says it is theirs to share). Its
        path must still lie in the workspace or a granted folder."""
        path = Path(folder)
        if path.is_absolute() and path.is_file():
            canonical = path.resolve(strict=True)
            info = os.stat(canonical)
            self._granted_files[(info.st_dev, info.st_ino)] = canonical
            return canonical
        canonical = self._canonical_dir(path, "granted folder")
        if canonical not in self._granted:
            self._granted.append(canonical)
        return canonical

    def admits(self, info: os.stat_result) -> bool:
        """Whether the tools may use what ``info`` describes: anything but a regular file with
        several hard links, unless that file was granted (see the module)."""
        return (
            not stat.S_ISREG(info.st_mode)
            or info.st_nlink <= 1
            or (info.st_dev, info.st_ino) in self._granted_files
        )

    @staticmethod
    def linked(path: str | Path, links: int) -> ToolError:
        """The refusal for a file with ``links`` hard links."""
        return _denied(
            f"path '{path}' is a file with {links} hard links: another of its names may be outside the workspace, "
            "so it counts as outside (the user can grant the file itself for the session: rho-desk continue --grant FILE)"
        )

    def _scope(self, canonical: Path) -> Path | None:
        if canonical.is_relative_to(self.root):
            return self.root
        best: Path | None = None
        for folder in self._granted:
            if canonical.is_relative_to(folder) and (
                best is None or len(folder.parts) > len(best.parts)
            ):
                best = folder
        return best

    def _lexical(self, requested: str) -> Path:
        if "\0" in requested:
            raise _denied("path contains a NUL byte")
        if ".." in PurePosixPath(requested).parts:
            raise _denied(f"path '{requested}' contains parent traversal")
        path = Path(requested)
        if path.is_absolute():
            if self._scope(path) is None and self._scope_nearest(path) is None:
                raise _outside(requested)
            return path
        return self.root / path

    def _scope_nearest(self, path: Path) -> Path | None:
        current = path
        while True:
            try:
                return self._scope(current.resolve(strict=True))
            except OSError:
                if current.parent == current:
                    return None
                current = current.parent

    def _resolved(self, canonical: Path, scope: Path, state: PathState) -> ResolvedPath:
        return ResolvedPath(canonical, scope, state, self.root)

    def _existing(self, lexical: Path, purpose: str) -> ResolvedPath:
        """``lexical`` with its symlinks followed, refused unless it lands inside an admitted folder."""
        try:
            canonical = lexical.resolve(strict=True)
        except OSError as exc:
            raise ToolError(
                ToolErrorKind.EXECUTION,
                f"workspace {purpose} path '{lexical}' cannot be resolved: {exc.strerror or exc}",
            ) from None
        scope = self._scope(canonical)
        if scope is None:
            raise _outside(lexical)
        try:
            info = os.stat(canonical)
        except OSError as exc:
            raise ToolError(
                ToolErrorKind.EXECUTION,
                f"workspace {purpose} path '{lexical}': {exc.strerror or exc}",
            ) from None
        if not self.admits(info):
            raise self.linked(lexical, info.st_nlink)
        return self._resolved(canonical, scope, PathState.EXISTING)

    def resolve_for_read(self, requested: str) -> ResolvedPath:
        """An existing path, symlinks followed, inside the workspace or a granted folder.

        Raises:
            ToolError: ``PolicyDenied`` when it escapes, ``Execution`` when it does not exist.
        """
        return self._existing(self._lexical(requested), "read")

    def resolve_for_write(self, requested: str) -> ResolvedPath:
        """An existing path (as for reading), or a missing one under an existing admitted folder.

        A dangling symlink counts as existing, so a write can never follow it out.
        """
        lexical = self._lexical(requested)
        if os.path.lexists(lexical):
            return self._existing(lexical, "write")
        ancestor = lexical
        missing: list[str] = []
        while not os.path.lexists(ancestor):
            if ancestor.parent == ancestor:
                raise ToolError(
                    ToolErrorKind.EXECUTION, f"write path '{lexical}' has no existing parent"
                )
            missing.append(ancestor.name)
            ancestor = ancestor.parent
        try:
            canonical = ancestor.resolve(strict=True)
        except OSError as exc:
            raise ToolError(
                ToolErrorKind.EXECUTION,
                f"write parent '{ancestor}' cannot be resolved: {exc.strerror or exc}",
            ) from None
        scope = self._scope(canonical)
        if scope is None:
            raise _outside(lexical)
        for name in reversed(missing):
            canonical = canonical / name
        return self._resolved(canonical, scope, PathState.MISSING_WRITE_TARGET)

    # -- I/O through descriptors ------------------------------------------------------------------

    @staticmethod
    def _beneath(resolved: ResolvedPath) -> PurePosixPath:
        return PurePosixPath(resolved.path.relative_to(resolved.root).as_posix())

    @staticmethod
    def _changed(exc: OSError) -> OSError | ToolError:
        if exc.errno in beneath.CHANGED:
            return _denied("workspace path changed after authorization")
        return exc

    def _opened(self, resolved: ResolvedPath, opener: Callable[[int, PurePosixPath], _T]) -> _T:
        try:
            root = beneath.open_root(resolved.root)
            try:
                return opener(root, self._beneath(resolved))
            finally:
                os.close(root)
        except OSError as exc:
            raise self._changed(exc) from None

    def open_file(self, resolved: ResolvedPath) -> int:
        """A read-only descriptor for the authorized regular file (the caller closes it).

        Raises:
            ToolError: ``PolicyDenied`` when a folder on the way became a symlink since, or the
                file has several hard links (one made since it was resolved included).
            OSError: the file is gone, is a folder, or is not a regular file (a FIFO...).
        """
        fd = self._opened(resolved, beneath.open_file_beneath)
        info = os.fstat(fd)
        if not self.admits(info):
            os.close(fd)
            raise self.linked(self.display(str(resolved.path)), info.st_nlink)
        return fd

    def open_folder(self, resolved: ResolvedPath) -> int:
        """A read-only descriptor for the authorized folder (the caller closes it)."""
        return self._opened(resolved, beneath.open_dir_beneath)

    def read_bytes(self, resolved: ResolvedPath) -> bytes:
        """The whole content of the authorized regular file."""
        with os.fdopen(self.open_file(resolved), "rb") as handle:
            return handle.read()

    def replace(self, resolved: ResolvedPath, data: bytes) -> None:
        """Replace the authorized file atomically; a missing write target's folders are created."""
        create = resolved.state is PathState.MISSING_WRITE_TARGET
        self._opened(
            resolved,
            lambda root, relative: beneath.replace_beneath(
                root, relative, data, create_folders=create
            ),
        )

    def display(self, requested: str) -> str:
        """The path as Rho shows it: relative to the root when inside it, normalised."""
        path = Path(os.path.normpath(self.root / requested))
        if path == self.root:
            return "."
        if path.is_relative_to(self.root):
            return path.relative_to(self.root).as_posix()
        return path.as_posix()

    def approval_name(self, requested: str, resolved: ResolvedPath) -> str:
        """The path as shown, and the real file it leads to when a symbolic link on the way makes
        that another one (``notes.md → docs/real.md``): an approval names what will be written."""
        shown = self.display(requested)
        real = resolved.path
        real_shown = (
            real.relative_to(self.root).as_posix()
            if real.is_relative_to(self.root)
            else real.as_posix()
        )
        return shown if real_shown == shown else f"{shown} → {real_shown}"

    def __repr__(self) -> str:
        return f"Workspace({str(self.root)!r}, granted={len(self._granted)})"
