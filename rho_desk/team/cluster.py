"""A throwaway PostgreSQL cluster: initdb in a temporary folder, started and stopped on demand.

For tests, benchmarks and trying the team library out on one machine. The server refuses to run
as root, so when this process is root the data and socket folders are handed to the
unprivileged ``postgres`` account (created by the Debian package) and every server program runs
as that user through ``su``. The cluster listens on a Unix socket in its own folder and on
``127.0.0.1`` at a free port; local (socket) connections are trusted, TCP connections need a
password (SCRAM), so the password paths of libpq (``.pgpass``, service files) can be exercised.

Nothing here is used by the app: hosts run their own server.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import secrets
import shlex
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path
from typing import Final

from ..core.errors import DatabaseUnavailable

__all__ = ["BINDIR", "ClusterError", "ThrowawayCluster", "find_bindir"]

BINDIR: Final = Path("/usr/lib/postgresql/15/bin")
_SERVICE_USER: Final = "postgres"


class ClusterError(DatabaseUnavailable):
    """The throwaway cluster could not be created, started or stopped."""


def find_bindir() -> Path:
    """The folder holding ``initdb`` and ``pg_ctl`` (Debian's, else whatever ``PATH`` has)."""
    override = os.environ.get("RHO_DESK_PG_BINDIR")
    candidates = [Path(override)] if override else []
    candidates.append(BINDIR)
    found = shutil.which("pg_ctl")
    if found:
        candidates.append(Path(found).resolve().parent)
    for folder in candidates:
        if (folder / "initdb").is_file() and (folder / "pg_ctl").is_file():
            return folder
    raise ClusterError(
        "PostgreSQL server programs not found (initdb, pg_ctl): install the Debian package "
        "'postgresql' (./run-tests does so as root) or set RHO_DESK_PG_BINDIR"
    )


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class ThrowawayCluster:
    """One PostgreSQL cluster in a temporary folder; ``start()`` then ``stop()`` (or ``with``).

    ``password`` is the superuser's (``postgres``) password for TCP connections; ``dsn`` and
    ``socket_dsn`` connect as the superuser to the ``postgres`` database.
    """

    def __init__(self, *, bindir: Path | None = None, fast: bool = True) -> None:
        self.bindir = bindir or find_bindir()
        self.fast = fast
        self.port = 0
        self.password = secrets.token_urlsafe(16)
        self.root: Path | None = None
        self._running = False
        self._user: pwd.struct_passwd | None = None

    def __repr__(self) -> str:
        return f"ThrowawayCluster(port={self.port}, running={self._running})"

    # -- paths and commands -------------------------------------------------------------------

    @property
    def data(self) -> Path:
        assert self.root is not None, "the cluster was not started"
        return self.root / "data"

    @property
    def sockets(self) -> Path:
        assert self.root is not None, "the cluster was not started"
        return self.root / "run"

    @property
    def log(self) -> Path:
        assert self.root is not None, "the cluster was not started"
        return self.root / "server.log"

    def dsn_for(self, user: str, password: str | None = None, dbname: str = "postgres") -> str:
        """A TCP connection string (libpq key/value form) for ``user``."""
        parts = [
            f"host=127.0.0.1 port={self.port} dbname={dbname} user={user}",
            "connect_timeout=5",
        ]
        if password is not None:
            parts.append(f"password={password}")
        return " ".join(parts)

    @property
    def dsn(self) -> str:
        """The superuser over TCP (with its password)."""
        return self.dsn_for(_SERVICE_USER, self.password)

    @property
    def socket_dsn(self) -> str:
        """The superuser over the Unix socket (trusted: no password)."""
        return f"host={self.sockets} port={self.port} dbname=postgres user={_SERVICE_USER}"

    def _run(
        self, *argv: str | Path, check: bool = True, timeout: float = 60
    ) -> subprocess.CompletedProcess[str]:
        command = [str(a) for a in argv]
        if self._user is not None:
            command = ["su", self._user.pw_name, "-s", "/bin/bash", "-c", shlex.join(command)]
        try:
            result = subprocess.run(
                command, capture_output=True, text=True, timeout=timeout, check=False
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise ClusterError(f"{argv[0]}: {exc}") from exc
        if check and result.returncode != 0:
            detail = (result.stderr or result.stdout).strip().splitlines()[-3:]
            raise ClusterError(
                f"{Path(argv[0]).name} failed ({result.returncode}): {' | '.join(detail)}"
            )
        return result

    # -- lifecycle ----------------------------------------------------------------------------

    def start(self) -> ThrowawayCluster:
        """Create the cluster (first call) and start the server; ready when this returns.

        Raises:
            ClusterError: no server programs, no unprivileged user to run them, or the server
                did not start (the message quotes the end of its log).
        """
        if self._running:
            return self
        if self.root is None:
            self._create()
        if not self.port:
            self.port = _free_port()
        options = f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.sockets}"
        if self.fast:
            options += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
        result = self._run(
            self.bindir / "pg_ctl",
            "start",
            "-w",
            "-t",
            "30",
            "-D",
            self.data,
            "-l",
            self.log,
            "-o",
            options,
            check=False,
        )
        if result.returncode != 0:
            tail = ""
            with contextlib.suppress(OSError):
                tail = " | ".join(self.log.read_text(errors="replace").strip().splitlines()[-3:])
            raise ClusterError(
                f"the PostgreSQL server did not start: {tail or result.stderr.strip()}"
            )
        self._running = True
        return self

    def _create(self) -> None:
        if os.geteuid() == 0:
            try:
                self._user = pwd.getpwnam(_SERVICE_USER)
            except KeyError:
                raise ClusterError(
                    "running as root and there is no 'postgres' account to run the server as "
                    "(the Debian package 'postgresql' creates it)"
                ) from None
        root = Path(tempfile.mkdtemp(prefix="rho-desk-pg-"))
        self.root = root
        (root / "run").mkdir()
        pwfile = root / "pwfile"
        pwfile.write_text(self.password + "\n")
        os.chmod(pwfile, 0o600)
        if self._user is not None:
            for path in (root, root / "run", pwfile):
                os.chown(path, self._user.pw_uid, self._user.pw_gid)
        self._run(
            self.bindir / "initdb",
            "-D",
            self.data,
            "-U",
            _SERVICE_USER,
            "--pwfile",
            pwfile,
            "--auth-local=trust",
            "--auth-host=scram-sha-256",
            "-E",
            "UTF8",
            "--locale=C.UTF-8",
            "--no-sync",
        )
        pwfile.unlink()

    def stop(self, mode: str = "fast") -> None:
        """Stop the server (``fast``: roll back open transactions; ``immediate``: like a crash)."""
        if not self._running:
            return
        self._running = False
        self._run(
            self.bindir / "pg_ctl",
            "stop",
            "-w",
            "-t",
            "30",
            "-D",
            self.data,
            "-m",
            mode,
            check=False,
        )

    @property
    def running(self) -> bool:
        return self._running

    def destroy(self) -> None:
        """Stop the server and delete the cluster's folder."""
        try:
            self.stop("immediate")
        finally:
            if self.root is not None:
                shutil.rmtree(self.root, ignore_errors=True)
                self.root = None

    def __enter__(self) -> ThrowawayCluster:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.destroy()
