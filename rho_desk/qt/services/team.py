"""The app's side of the team library: one connection pool, its state, and recovery.

:class:`TeamService` owns a :class:`~rho_desk.team.library.TeamLibrary` for the database named
in Settings (``prefs/team/database``, a connection string without password: the password comes
from the keyring, ``~/.pgpass`` or a service file). Every call is a coroutine the views run
through the bridge; psycopg's async driver keeps the GUI thread free. When the database cannot
be reached, or drops the connection, the service says so (``sig_state_changed``: the Team panel
shows a banner) and tries again every few seconds until it answers, then says so again.

Opening a published session verifies its signed receipt (the Ed25519 signature, the export's
hash against it, a fresh audit: ``team.verify``) and writes the export (already redacted and
audited) to a private file in rho-desk's cache folder (mode 0600): a model-context export as it
is, a display export as a snapshot of its messages. The document opens that file read-only, like
any snapshot document.

Publishing runs the export pipeline with the export dialog's history choice and rho-desk's own
keys (``ExportKeys``: the receipt is signed), as ``rho-desk publish`` does.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from PySide6.QtCore import QObject, Signal

from ...core.errors import DatabaseUnavailable, KnownError
from ...core.system.fsio import atomic_write
from .bridge import EngineBridge, in_thread
from .settings import PREFS_TEAM_DATABASE, Settings

if TYPE_CHECKING:
    # psycopg and the export stack load when the team library is first used, not at start-up
    from ...core.export import ExportKeys, ExportSource, Selection
    from ...team.library import (
        PublishedSession,
        PublishedVersion,
        PublishOutcome,
        SearchHit,
        TeamLibrary,
    )
    from ...team.publish import Publication
    from ...team.verify import Verification

__all__ = ["OpenedVersion", "TeamService", "TeamState"]

RETRY_MS: Final = 3000
CALL_TIMEOUT_S: Final = 3.0
"""How long a call waits for a connection before the panel says the database is unreachable."""


class TeamState:
    UNCONFIGURED = "unconfigured"
    CONNECTING = "connecting"
    CONNECTED = "connected"
    UNREACHABLE = "unreachable"


@dataclass(frozen=True)
class OpenedVersion:
    path: Path
    version: PublishedVersion
    verification: Verification


def cache_dir() -> Path:
    base = os.environ.get("RHO_DESK_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "rho-desk"
    )
    return Path(base) / "team"


class TeamService(QObject):
    """The team database the app reads and publishes to (see the module docstring).

    Signals:
        sig_state_changed(str, str): a :class:`TeamState` value and a message for a person.
        sig_reconfigured(): the database setting changed.
    """

    sig_state_changed = Signal(str, str)
    sig_reconfigured = Signal()
    """The team database setting changed (the old connection is closed)."""

    def __init__(
        self, settings: Settings, bridge: EngineBridge, parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self.settings = settings
        self.bridge = bridge
        """Owns the retry task (cancelled when the window closes), as every task of the app."""
        self.library: TeamLibrary | None = None
        self.state = TeamState.UNCONFIGURED
        self.message = ""
        self._retry = bridge.timer(self, RETRY_MS, self._on_retry)
        self._connecting: asyncio.Task[Any] | None = None
        self._lock = asyncio.Lock()

    @property
    def dsn(self) -> str:
        """Settings' team database, else ``$RHO_DESK_TEAM_DB`` (the command line's default too)."""
        from ...team import TEAM_DB_ENV

        return (
            str(self.settings.get(PREFS_TEAM_DATABASE)).strip()
            or os.environ.get(TEAM_DB_ENV, "").strip()
        )

    @property
    def configured(self) -> bool:
        return bool(self.dsn)

    def _set_state(self, state: str, message: str = "") -> None:
        changed = (state, message) != (self.state, self.message)
        self.state, self.message = state, message
        if changed:
            self.sig_state_changed.emit(state, message)

    # -- connection ----------------------------------------------------------------------------

    async def aconnect(self) -> TeamLibrary:
        """The open library (connecting first if needed).

        Raises:
            DatabaseUnavailable, CredentialsUnavailable, StorageError: as ``TeamLibrary.open``.
        """
        from ...team.db import safe_dsn
        from ...team.library import TeamLibrary

        async with self._lock:
            if self.library is not None:
                return self.library
            dsn = self.dsn
            if not dsn:
                self._set_state(
                    TeamState.UNCONFIGURED,
                    "No team database: set one in Settings, or $RHO_DESK_TEAM_DB.",
                )
                raise KnownError("no team database is set (Settings ▸ General ▸ Team database)")
            self._set_state(TeamState.CONNECTING, f"Connecting to {safe_dsn(dsn)}…")
            try:
                self.library = await TeamLibrary.open(dsn, max_size=2, timeout=CALL_TIMEOUT_S)
            except DatabaseUnavailable as exc:
                self._unreachable(exc)
                raise
            except KnownError as exc:
                self._set_state(TeamState.UNREACHABLE, exc.text())
                raise
            self._set_state(TeamState.CONNECTED, f"Connected to {safe_dsn(dsn)}")
            return self.library

    def _unreachable(self, exc: KnownError) -> None:
        self._set_state(TeamState.UNREACHABLE, f"{exc.text()} Retrying every {RETRY_MS // 1000} s…")
        self._retry.start()

    async def _guard(self, job: Any) -> Any:
        library = await self.aconnect()
        try:
            result = await job(library)
        except DatabaseUnavailable as exc:
            self._unreachable(exc)
            raise
        if self.state != TeamState.CONNECTED:
            self._set_state(TeamState.CONNECTED, f"Connected to {library.where}")
        return result

    def _on_retry(self) -> None:
        if self._connecting is not None and not self._connecting.done():
            return
        # (while the window closes, the bridge drops this and returns a cancelled task)
        self._connecting = self.bridge.run(
            self._aretry(), context="Reconnecting to the team database"
        )

    async def _aretry(self) -> None:
        # (_guard re-arms the retry while the database is still unreachable)
        with contextlib.suppress(KnownError):
            await self._guard(lambda lib: lib.teams())

    async def areconfigure(self) -> None:
        """The setting changed: drop the pool; the next call connects to the new database."""
        self._retry.stop()
        async with self._lock:
            library, self.library = self.library, None
        if library is not None:
            with contextlib.suppress(Exception):
                await library.close()
        self._set_state(TeamState.UNCONFIGURED if not self.configured else TeamState.CONNECTING, "")
        self.sig_reconfigured.emit()

    async def aclose(self) -> None:
        self._retry.stop()
        if self.library is not None:
            with contextlib.suppress(Exception):
                await self.library.close()
            self.library = None

    # -- reading and publishing ----------------------------------------------------------------

    async def alist(self, limit: int = 200) -> list[PublishedSession]:
        result: list[PublishedSession] = await self._guard(lambda lib: lib.sessions(limit=limit))
        return result

    async def asearch(self, text: str, limit: int = 50) -> list[SearchHit]:
        result: list[SearchHit] = await self._guard(lambda lib: lib.search(text, limit=limit))
        return result

    async def ateams(self) -> list[str]:
        result: list[str] = await self._guard(lambda lib: lib.teams())
        return result

    async def aopen(
        self, team: str, session_id: str, *, key: bytes, known_secrets: list[str]
    ) -> OpenedVersion:
        """Fetch the latest published version, verify its signed receipt, write it to a private file."""
        from ...team.verify import verify_version

        version: PublishedVersion = await self._guard(lambda lib: lib.show(session_id, team=team))
        verification = await in_thread(
            verify_version, version, key=key, known_secrets=known_secrets
        )
        folder = cache_dir()
        safe = "".join(
            c if c.isalnum() or c in "-_." else "_"
            for c in f"{team}-{session_id}-r{version.revision}"
        )
        path = folder / f"{safe}.json"
        await in_thread(_write_viewable, path, version.export)
        return OpenedVersion(path, version, verification)

    async def apublish(
        self,
        team: str,
        source: ExportSource,
        selection: Selection,
        *,
        keys: ExportKeys,
        known_secrets: list[str],
        allow_findings: bool,
    ) -> tuple[Publication, PublishOutcome]:
        """Publish ``source`` (its history as chosen in the export dialog), signed with ``keys``."""
        from ...team.db import keyring_password

        # the database's own password is redacted like any credential rho-desk holds
        own = await in_thread(keyring_password, self.dsn)
        known = [*known_secrets, *([own] if own else [])]

        def job(lib: TeamLibrary) -> Any:
            return lib.publish(
                team,
                source,
                selection,
                keys=keys,
                known_secrets=known,
                allow_findings=allow_findings,
            )

        result: tuple[Publication, PublishOutcome] = await self._guard(job)
        return result


def _write_viewable(path: Path, export: bytes) -> None:
    """The export as stored (audited, signed), which the viewer opens as it is: a model export as a
    snapshot document, a display export with the times of its messages."""
    atomic_write(path, export, mode=0o600)
