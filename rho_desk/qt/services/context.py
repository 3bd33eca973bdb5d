"""The typed seams of the desktop app: the services built once, and what a dialog's host offers.

:class:`Services` holds the long-lived objects :func:`rho_desk.qt.app.build_context` creates
(settings, theme, notifier, bridge, document, library). The main window receives it; everything
below the window receives only the pieces it uses, through its constructor.

:class:`OperationHost` is what the continue controller and its panel use of the operations on
the open session (:class:`rho_desk.qt.window.operations.SessionOperations` implements it):
the services, the provider profiles, one-long-operation-at-a-time, and the one way to write a
revision. :class:`DialogHost` adds what the dialogs use; a dialog depends on that protocol, never
on the class that implements it, the commands that open it or the window, so no dialog imports
them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from .undo import UndoStack

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from ...core.stores.rho_files import RevisionNode, SessionWriter
    from ...core.stores.summary import SessionSummary
    from ...core.tools.trust import TrustStore
    from ...providers.profiles import ProfileSet, ProfileStore, ProviderProfile
    from ..ui.theme import ThemeManager
    from .bridge import EngineBridge
    from .document import SessionDocument
    from .library import LibraryService
    from .messages import Notifier
    from .outcomes import OpResult
    from .settings import Settings
    from .team import TeamService

__all__ = ["DialogHost", "OperationHost", "Services"]


@dataclass(frozen=True, slots=True, eq=False)
class Services:
    """The app's long-lived services (one of each per app)."""

    settings: Settings
    theme: ThemeManager
    notifier: Notifier
    bridge: EngineBridge
    document: SessionDocument
    library: LibraryService
    team: TeamService
    undo: UndoStack = field(default_factory=UndoStack)
    """Edit ▸ Undo's one stack: the open file's revision changes and the window's other actions."""


class OperationHost(Protocol):
    """What a long operation's controller needs from the window it runs in."""

    @property
    def bridge(self) -> EngineBridge: ...
    @property
    def document(self) -> SessionDocument: ...
    @property
    def settings(self) -> Settings: ...
    @property
    def notifier(self) -> Notifier: ...
    @property
    def profiles(self) -> ProfileStore: ...
    @property
    def trust(self) -> TrustStore:
        """The folders trusted for the model's tools on this machine."""

    @property
    def operation(self) -> str | None:
        """The long operation running now, if any."""

    def claim(self, operation: str) -> bool:
        """Start a long operation unless another one runs."""

    def release(self, operation: str) -> None:
        """The operation ended."""

    async def aprofile_set(self) -> ProfileSet:
        """The profiles file, read off the GUI thread."""

    async def aprofiles(self) -> tuple[ProviderProfile, ...]:
        """The stored provider profiles."""

    async def acommit(
        self,
        label: str,
        produce: Callable[[SessionWriter], RevisionNode],
        *,
        base: str | None = None,
    ) -> OpResult[RevisionNode]:
        """Write one revision (base checked, writer and tree lock held), undoable as ``label``."""


class DialogHost(OperationHost, Protocol):
    """What the dialogs use of the window they belong to (an :class:`OperationHost` and more)."""

    @property
    def theme(self) -> ThemeManager: ...
    @property
    def library(self) -> LibraryService: ...
    @property
    def team(self) -> TeamService: ...

    export_dir: Path | None
    """Where the last export was written (the next file dialog starts there)."""

    @property
    def undo_stack(self) -> UndoStack:
        """Edit ▸ Undo's stack (what cannot be undone, such as a publish, ends it)."""

    def summary_for_open(self) -> SessionSummary | None:
        """The library's summary of the open session, if it is in the library."""

    def open_data_dir(self, folder: Path) -> None:
        """Show one of rho-desk's folders in the file manager."""

    def undo(self, on_success: Callable[[OpResult[str]], object] | None = None) -> None:
        """Undo the last revision-changing operation."""
