"""Opening a path under a folder without following a symlink anywhere on the way.

The workspace authorizes a path by resolving it (symlinks followed) to its real location, then
does the I/O later, after an approval perhaps. Another process may swap a folder on the way for
a symlink in between. So the I/O never goes through a path resolved again: it opens the real
location it authorized one component at a time from a directory descriptor, refusing any
symlink, and reads or writes through the descriptor it gets. A swap makes the open fail
(``ELOOP``, ``ENOTDIR``, ``EXDEV``); it can never land outside.

On Linux 5.6+ one ``openat2(2)`` call does the walk in the kernel (``RESOLVE_BENEATH |
RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS``); elsewhere, or where a sandbox filters that
system call, each component is opened with ``O_NOFOLLOW`` from the one before it.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import struct
import sys
from collections.abc import Callable
from pathlib import Path, PurePosixPath
from typing import Final

from ..system.fsio import write_all

__all__ = [
    "CHANGED",
    "kernel",
    "open_dir_beneath",
    "open_file_beneath",
    "open_root",
    "replace_beneath",
    "uses_openat2",
]

CHANGED: Final = frozenset({errno.ELOOP, errno.ENOTDIR, errno.EXDEV, errno.EAGAIN})
"""Errors an open gets when a component became a symlink, a file or a mount on the way."""

_CLOEXEC: Final = getattr(os, "O_CLOEXEC", 0)
_NOFOLLOW: Final = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY: Final = getattr(os, "O_DIRECTORY", 0)
_PATH: Final = getattr(os, "O_PATH", os.O_RDONLY)
_NONBLOCK: Final = getattr(os, "O_NONBLOCK", 0)

_RESOLVE_NO_MAGICLINKS: Final = 0x02
_RESOLVE_NO_SYMLINKS: Final = 0x04
_RESOLVE_BENEATH: Final = 0x08
_RESOLVE: Final = _RESOLVE_BENEATH | _RESOLVE_NO_SYMLINKS | _RESOLVE_NO_MAGICLINKS
# openat2 has the same number on every architecture that uses the generic system call table.
_OPENAT2_MACHINES: Final = frozenset(
    {"x86_64", "amd64", "aarch64", "arm64", "riscv64", "ppc64le", "s390x"}
)
_SYS_OPENAT2: Final = 437


class _Openat2:
    """``openat2(2)`` through libc's ``syscall``, or ``None`` where the kernel lacks it."""

    def __init__(self) -> None:
        self._call: Callable[..., int] | None = None
        self.available = sys.platform == "linux" and os.uname().machine.lower() in _OPENAT2_MACHINES
        if self.available:
            import ctypes  # here, not at import: most commands never open beneath a folder

            self._get_errno = ctypes.get_errno
            try:
                libc = ctypes.CDLL(None, use_errno=True)
                call = libc.syscall
                call.restype = ctypes.c_long
                call.argtypes = [
                    ctypes.c_long,
                    ctypes.c_int,
                    ctypes.c_char_p,
                    ctypes.c_char_p,
                    ctypes.c_size_t,
                ]
                self._call = call
            except (OSError, AttributeError):
                self.available = False

    def open(self, dir_fd: int, relative: str, flags: int, mode: int) -> int | None:
        """The descriptor, or ``None`` when the kernel (or a sandbox) refuses the call itself."""
        if self._call is None:
            return None
        how = struct.pack("=QQQ", flags | _CLOEXEC, mode if flags & os.O_CREAT else 0, _RESOLVE)
        fd = self._call(_SYS_OPENAT2, dir_fd, os.fsencode(relative), how, len(how))
        if fd >= 0:
            return int(fd)
        code = self._get_errno()
        if code in (errno.ENOSYS, errno.EPERM) or (code == errno.EINVAL and not relative):
            self.available = False  # a kernel before 5.6, or a seccomp filter: walk instead
            self._call = None
            return None
        raise OSError(code, os.strerror(code), relative)


_kernel_call: _Openat2 | None = None


def kernel() -> _Openat2:
    """The ``openat2`` caller of this process (made at first use)."""
    global _kernel_call
    if _kernel_call is None:
        _kernel_call = _Openat2()
    return _kernel_call


def uses_openat2() -> bool:
    """True while opens go through ``openat2`` (false on older kernels and other systems)."""
    return kernel().available


def _walk(dir_fd: int, parts: tuple[str, ...], flags: int, mode: int) -> int:
    """Open ``parts`` under ``dir_fd`` with ``O_NOFOLLOW`` on every component."""
    current = dir_fd
    try:
        for name in parts[:-1]:
            following = os.open(name, _PATH | _DIRECTORY | _NOFOLLOW | _CLOEXEC, dir_fd=current)
            if current != dir_fd:
                os.close(current)
            current = following
        return os.open(parts[-1], flags | _NOFOLLOW | _CLOEXEC, mode, dir_fd=current)
    finally:
        if current != dir_fd:
            os.close(current)


def _open(dir_fd: int, relative: PurePosixPath, flags: int, mode: int = 0o666) -> int:
    parts = relative.parts
    if not parts or relative.is_absolute() or ".." in parts:
        raise OSError(errno.EXDEV, "path is not beneath its folder", str(relative))
    if len(parts) == 1:  # one name: O_NOFOLLOW alone refuses a symlink, no system call to spare
        return os.open(parts[0], flags | _NOFOLLOW | _CLOEXEC, mode, dir_fd=dir_fd)
    openat2 = kernel()
    if openat2.available:
        fd = openat2.open(dir_fd, str(relative), flags, mode)
        if fd is not None:
            return fd
    return _walk(dir_fd, parts, flags, mode)


def open_root(root: Path) -> int:
    """A descriptor for the folder ``root``, a real path with no symlink in it (read-only)."""
    if not root.is_absolute():
        raise OSError(errno.EINVAL, "not an absolute path", str(root))
    slash = os.open("/", _PATH | _DIRECTORY | _CLOEXEC)
    try:
        if root == Path("/"):
            return os.open(".", os.O_RDONLY | _DIRECTORY | _CLOEXEC, dir_fd=slash)
        return _open(slash, PurePosixPath(*root.parts[1:]), os.O_RDONLY | _DIRECTORY)
    finally:
        os.close(slash)


def open_dir_beneath(root_fd: int, relative: PurePosixPath, *, create: bool = False) -> int:
    """A read-only descriptor for the folder ``relative`` under ``root_fd`` (``.`` is the root).

    With ``create``, missing folders on the way are made (mode 0777 less the umask), each
    opened without following a symlink someone may have put there in the meantime.
    """
    if not relative.parts or relative == PurePosixPath("."):
        return os.open(".", os.O_RDONLY | _DIRECTORY | _CLOEXEC, dir_fd=root_fd)
    if not create:
        return _open(root_fd, relative, os.O_RDONLY | _DIRECTORY)
    current = os.open(".", os.O_RDONLY | _DIRECTORY | _CLOEXEC, dir_fd=root_fd)
    try:
        for name in relative.parts:
            try:
                following = _open(current, PurePosixPath(name), os.O_RDONLY | _DIRECTORY)
            except FileNotFoundError:
                with contextlib.suppress(FileExistsError):
                    os.mkdir(name, 0o777, dir_fd=current)
                following = _open(current, PurePosixPath(name), os.O_RDONLY | _DIRECTORY)
            os.close(current)
            current = following
    except BaseException:
        os.close(current)
        raise
    return current


def open_file_beneath(root_fd: int, relative: PurePosixPath) -> int:
    """A read-only descriptor for the regular file ``relative`` under ``root_fd``.

    Opened non-blocking, so a FIFO planted in its place cannot hang the read.

    Raises:
        IsADirectoryError: it is a folder.
        OSError: ``EINVAL`` when it is not a regular file (a FIFO, a socket, a device).
    """
    fd = _open(root_fd, relative, os.O_RDONLY | _NONBLOCK)
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(relative))
        if not stat.S_ISREG(mode):
            raise OSError(errno.EINVAL, "not a regular file", str(relative))
        if _NONBLOCK:
            os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def replace_beneath(
    root_fd: int,
    relative: PurePosixPath,
    data: bytes,
    *,
    create_folders: bool,
    new_mode: int | None = None,
) -> None:
    """Replace the file ``relative`` under ``root_fd`` atomically: temp file, fsync, rename, folder fsync.

    The temp file is created beside the target through the folder's descriptor (``O_EXCL |
    O_NOFOLLOW``) and renamed over the name in that same folder, so whatever the name is by then
    (a file, a symlink someone planted) is replaced, never followed. An existing file keeps its
    mode; a new one gets ``new_mode``, by default 0666 less the umask.
    """
    folder = open_dir_beneath(root_fd, relative.parent, create=create_folders)
    try:
        name = relative.name
        try:
            info = os.stat(name, dir_fd=folder, follow_symlinks=False)
            mode = stat.S_IMODE(info.st_mode) if stat.S_ISREG(info.st_mode) else None
        except FileNotFoundError:
            mode = None
        if mode is None and new_mode is not None:
            mode = new_mode
        elif mode is None:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        temp = f".tmp-{name}-{os.getpid()}-{os.urandom(4).hex()}"
        fd = os.open(
            temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC, mode, dir_fd=folder
        )
        try:
            try:
                os.fchmod(fd, mode)
                write_all(fd, data)
                os.fsync(fd)
            finally:
                os.close(fd)
            os.rename(temp, name, src_dir_fd=folder, dst_dir_fd=folder)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temp, dir_fd=folder)
            raise
        os.fsync(folder)
    finally:
        os.close(folder)
