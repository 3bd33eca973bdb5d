"""rho-desk's own folders, and the ownership rule for the private ones.

The folders themselves are :mod:`rho_desk.core.system.dirs`'s (:func:`~rho_desk.core.system.dirs.config_dir`
holds settings, provider profiles and the key file). A private folder is judged as ssh judges ``~/.ssh`` (``StrictModes``): it must belong to the
user running rho-desk (or to root) and be writable by nobody else. Another local user who could
write there could rename the key file away, and rho-desk would quietly make a new signing key,
or plant a ``keys`` file of their own. A symbolic link is judged by its target: the target's
owner and mode. :class:`UnsafePath` names the folder, the reason and the fix.

:func:`open_private_file` opens a file inside such a folder as ssh opens a private key: without
following a symbolic link, without blocking (a FIFO planted in its place must not hang the
process), and judged by ``fstat`` on the open descriptor before a byte is read.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import Final

from ..errors import CredentialsUnavailable, InputError

__all__ = [
    "UnsafePath",
    "check_private_folder",
    "open_private_file",
    "private_folder",
]


class UnsafePath(InputError, CredentialsUnavailable):
    """A folder or file holding keys or settings that another local user can change, or a key
    file that is not a plain file of this user's (CLI exit status 2).

    Also a ``CredentialsUnavailable``: whoever reads keys may catch either.
    """


def _login(uid: int) -> str | None:
    try:
        import pwd

        return pwd.getpwuid(uid).pw_name
    except (ImportError, KeyError):
        return None


def _owner_name(uid: int) -> str:
    name = _login(uid)
    return f"uid {uid}" if name is None else f"{name} (uid {uid})"


def check_private_folder(folder: Path, *, what: str = "rho-desk's key folder") -> None:
    """Refuse ``folder`` (judged through symlinks) unless only this user can change it.

    A missing folder passes (nothing is in it to trust; it is created private when needed).

    Raises:
        UnsafePath: it is writable by group or others, owned by another user, or not a folder.
    """
    if os.name != "posix":  # pragma: no cover - Windows ACLs are another model
        return
    try:
        info = os.stat(folder)  # follows links: the target is what is judged
    except FileNotFoundError:
        return
    except OSError as exc:
        raise UnsafePath(
            f"cannot check {what}: {exc.strerror or exc}", source=str(folder)
        ) from None
    real = os.path.realpath(folder)
    shown = str(folder) if real == str(folder) else f"{folder} (-> {real})"
    if not stat.S_ISDIR(info.st_mode):
        raise UnsafePath(f"{what} is not a folder", source=shown)
    me = os.geteuid()
    if info.st_uid not in (me, 0):
        raise UnsafePath(
            f"{what} belongs to {_owner_name(info.st_uid)}, not to you ({_owner_name(me)}); another user "
            f"could replace the keys in it. Use a folder of your own (move it away and let rho-desk "
            f"create it again), or take it back: chown {_login(me) or me} {real}",
            source=shown,
        )
    mode = stat.S_IMODE(info.st_mode)
    if mode & 0o022:
        who = (
            "group and others"
            if mode & 0o022 == 0o022
            else "others"
            if mode & 0o002
            else "its group"
        )
        raise UnsafePath(
            f"{what} is writable by {who} (mode {mode:04o}); they could replace or remove the keys in "
            f"it. Make it private: chmod 700 {real}",
            source=shown,
        )


def private_folder(folder: Path, *, what: str = "rho-desk's key folder") -> Path:
    """``folder``, created private (0700) when missing, after :func:`check_private_folder`.

    Raises:
        UnsafePath: as ``check_private_folder``, or it cannot be created.
    """
    check_private_folder(folder, what=what)
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as exc:
        raise UnsafePath(
            f"cannot create {what}: {exc.strerror or exc}", source=str(folder)
        ) from None
    check_private_folder(folder, what=what)
    return folder


_KINDS: Final = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


def _kind(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def open_private_file(
    path: Path, *, what: str, create: bool = False, private: bool = True
) -> int | None:
    """A descriptor on ``path`` (read-only; ``create``: read-write, created 0600 if missing),
    opened with ``O_NOFOLLOW | O_NONBLOCK`` and checked with ``fstat``: a regular file owned by
    this user, and (``private``) readable by nobody else. ``None``: it does not exist (and
    ``create`` is false). The caller closes the descriptor.

    Raises:
        UnsafePath: a symbolic link, not a regular file, another user's, or readable by others.
        CredentialsUnavailable: it cannot be opened (permissions, I/O).
    """
    flags = os.O_NONBLOCK | os.O_CLOEXEC | getattr(os, "O_NOFOLLOW", 0)
    flags |= (os.O_RDWR | os.O_CREAT) if create else os.O_RDONLY
    try:
        fd = os.open(path, flags, 0o600)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise UnsafePath(
                f"{what} is a symbolic link, which rho-desk does not follow here; put the real file "
                f"in its place or point rho-desk at it",
                source=str(path),
            ) from None
        raise CredentialsUnavailable(f"Cannot open {what} {path}: {exc.strerror or exc}.") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise UnsafePath(
                f"{what} is {_kind(info.st_mode)}, not a regular file; remove it (rho-desk creates "
                "the file again when it needs one)",
                source=str(path),
            )
        if os.name == "posix" and info.st_uid != os.geteuid():
            raise UnsafePath(
                f"{what} belongs to {_owner_name(info.st_uid)}, not to you; another user could have "
                "written the keys in it. Remove it, or restore your own from a backup",
                source=str(path),
            )
        if private and os.name == "posix" and info.st_mode & 0o077:
            raise UnsafePath(
                f"{what} is readable by others (mode {stat.S_IMODE(info.st_mode):04o}). Make it "
                f"private (chmod 600 {path}); if others may have read it, delete it",
                source=str(path),
            )
    except BaseException:
        os.close(fd)
        raise
    if not create:
        # the descriptor was opened non-blocking only so that a FIFO could not hang the open
        os.set_blocking(fd, True)
    return fd
