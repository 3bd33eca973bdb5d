"""Session leases: Rho's ``.<id>.active.lock`` files and the OS locks taken on them (§8.7).

Opening a session for use takes a *shared*, non-blocking ``flock``; deleting one takes an
*exclusive*, non-blocking one. So a deletion fails while anyone has the session open, and
opening fails while a deletion runs. Shared leases do not exclude each other: Rho and rho-desk
may both have a session open (our optimistic revision check covers that case). The lock file
is empty, created on first use (mode 0600) and never deleted, as upstream does.

On platforms without ``fcntl`` (Windows) leases are not enforced.
"""

from __future__ import annotations

import errno
import os
import sys
from pathlib import Path
from types import TracebackType

from .errors import LeaseUnavailable, SessionBeingDeleted, SessionInUse

if sys.platform != "win32":
    import fcntl

__all__ = ["SessionLease"]


class SessionLease:
    """A held lock on one lease file; release it with :meth:`release` or a ``with`` block.

    Use :meth:`shared` (open for use) or :meth:`exclusive` (delete).
    """

    __slots__ = ("_fd", "is_exclusive", "path")

    def __init__(self, path: Path, fd: int | None, exclusive: bool) -> None:
        self.path = path
        self.is_exclusive = exclusive
        self._fd = fd

    @classmethod
    def shared(cls, path: Path) -> SessionLease:
        """Take the shared lease of an open session.

        Raises:
            SessionBeingDeleted: another process is deleting the session.
            LeaseUnavailable: the lease file cannot be created or locked.
        """
        return cls._take(path, exclusive=False)

    @classmethod
    def exclusive(cls, path: Path) -> SessionLease:
        """Take the exclusive lease needed to delete a session.

        Raises:
            SessionInUse: Rho or rho-desk has the session open (a shared lease is held).
            LeaseUnavailable: the lease file cannot be created or locked.
        """
        return cls._take(path, exclusive=True)

    @classmethod
    def _take(cls, path: Path, *, exclusive: bool) -> SessionLease:
        if sys.platform == "win32":  # pragma: no cover
            return cls(path, None, exclusive)
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        except OSError as exc:
            raise LeaseUnavailable(
                f"{path}: cannot open the lease file: {exc.strerror or exc}"
            ) from exc
        try:
            if hasattr(os, "fchmod"):
                os.fchmod(fd, 0o600)
            fcntl.flock(fd, (fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH) | fcntl.LOCK_NB)
        except OSError as exc:
            os.close(fd)
            if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                session = path.name.removeprefix(".").removesuffix(".active.lock")
                if exclusive:
                    raise SessionInUse(
                        f"refusing to delete active session {session}: it is open in Rho or rho-desk"
                    ) from None
                raise SessionBeingDeleted(
                    f"session {session} is being deleted by another process"
                ) from None
            raise LeaseUnavailable(
                f"{path}: cannot lock the lease file: {exc.strerror or exc}"
            ) from exc
        return cls(path, fd, exclusive)

    @property
    def held(self) -> bool:
        return self._fd is not None

    def release(self) -> None:
        """Give the lease back (closing the file releases the lock). Idempotent."""
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)

    def __enter__(self) -> SessionLease:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.release()

    def __del__(self) -> None:
        self.release()

    def __repr__(self) -> str:
        mode = "exclusive" if self.is_exclusive else "shared"
        return f"SessionLease({str(self.path)!r}, {mode}, held={self.held})"
