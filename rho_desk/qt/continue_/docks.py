"""The main window's two docks around its central layout: the continued conversation and the
conflict banner.

:class:`ContinueDock` (bottom) holds the composer and the live reply
(:class:`~rho_desk.qt.continue_.composer.ContinuePanel`) and keeps a modest share of the window.
:class:`ConflictDock` (top) is a strip that says the session changed on disk, or that
continuing stopped, and offers Reload, Fork and Dismiss; what Reload and Fork do is the caller's
(:class:`~rho_desk.qt.window.operations.SessionOperations` answers them).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, cast

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QResizeEvent, QShowEvent
from PySide6.QtWidgets import QDockWidget, QMainWindow, QSizePolicy, QWidget

from ..ui.blocks import Banner

if TYPE_CHECKING:
    from ...core.errors import RevisionConflict
    from ..services.context import OperationHost
    from .composer import ContinuePanel
    from .controller import ConflictInfo, ContinueController, TurnState

__all__ = ["ConflictBanner", "ConflictDock", "ContinueDock"]


class ConflictBanner(Banner):
    """ "The session changed on disk" with Reload, Fork and Dismiss.

    Signals:
        sig_reload_requested(), sig_fork_requested(), sig_dismissed()
    """

    sig_reload_requested = Signal()
    """Reload was clicked."""
    sig_fork_requested = Signal()
    """Fork was clicked."""
    sig_dismissed = Signal()
    """Dismiss was clicked."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("warning", parent)
        self.setObjectName("LibraryNotice")
        self.reload_button = self.add_button(
            "&Reload", "Read the file again and continue from its newest revision (F5)"
        )
        self.reload_button.setObjectName("ConflictReload")
        self.fork_button = self.add_button(
            "F&ork", "Keep your side: a new branch (v4) or a new session (v1–v3)"
        )
        self.fork_button.setObjectName("ConflictFork")
        self.dismiss_button = self.add_button("Dismiss")
        self.reload_button.clicked.connect(self.sig_reload_requested)
        self.fork_button.clicked.connect(self.sig_fork_requested)
        self.dismiss_button.clicked.connect(self.sig_dismissed)


class ContinueDock(QDockWidget):
    """ "Continue conversation": the composer and the live reply, added to ``window``'s bottom
    area, hidden until :meth:`show_continue`.

    The panel is built on first use (the dock shown, a turn started, :attr:`panel` asked for),
    not at start-up: its widgets and modules are not what the first look at a session needs.
    """

    def __init__(
        self, window: QMainWindow, controller: ContinueController, host: OperationHost
    ) -> None:
        super().__init__("Continue conversation", window)
        self._window = window
        self._controller, self._host = controller, host
        self._panel: ContinuePanel | None = None
        self.setObjectName("ContinueDock")
        self.setAllowedAreas(
            Qt.DockWidgetArea.BottomDockWidgetArea | Qt.DockWidgetArea.RightDockWidgetArea
        )
        window.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, self)
        self.hide()
        window.installEventFilter(self)  # keeps the dock's share when the window shrinks
        # a turn the panel did not start (none in the app; a script's) still finds it listening
        controller.sig_state_changed.connect(self._on_controller_state_changed)

    @property
    def panel(self) -> ContinuePanel:
        """The composer and the live reply (built now if not yet)."""
        return self._build_panel() if self._panel is None else self._panel

    def _build_panel(self) -> ContinuePanel:
        from .composer import ContinuePanel

        self._panel = panel = ContinuePanel(
            self._controller, self._host
        )  # it follows the controller from here on
        self.setWidget(panel)
        self._controller.sig_state_changed.disconnect(self._on_controller_state_changed)
        return panel

    def _on_controller_state_changed(self, _state: TurnState) -> None:
        if self._panel is None:
            self._build_panel()

    def showEvent(self, event: QShowEvent) -> None:
        if self._panel is None:  # shown by a restored window state, or a menu
            self._build_panel()
        super().showEvent(event)

    def _cap(self) -> int:
        """The dock's height: at most 28% of the window (270 px on a large one), so on a 700 px
        laptop screen the conversation keeps the larger share, with several cards in view."""
        return max(150, min(270, self._window.height() * 28 // 100))

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        window = self._window
        if (
            watched is window
            and event.type() == QEvent.Type.Resize
            and self.isVisible()
            and not self.isFloating()
            and window.dockWidgetArea(self) == Qt.DockWidgetArea.BottomDockWidgetArea
        ):
            resized = cast(QResizeEvent, event)
            if resized.size().height() < resized.oldSize().height() and self.height() > self._cap():
                window.resizeDocks([self], [self._cap()], Qt.Orientation.Vertical)
        return False

    def show_continue(self) -> None:
        """Show the dock and put the cursor in the composer (Ctrl+L)."""
        if not self.isVisible():
            self.show()
            self._window.resizeDocks([self], [self._cap()], Qt.Orientation.Vertical)
        self.raise_()
        self.panel.focus_composer()


class ConflictDock(QDockWidget):
    """The conflict banner as a strip at ``window``'s top: shown when the document or the
    continued conversation reports a conflict, hidden when both are resolved or a file loads.

    Args:
        reload, fork: what the banner's Reload and Fork do (the strip hides first).
    """

    def __init__(
        self,
        window: QMainWindow,
        controller: ContinueController,
        *,
        reload: Callable[[], None],
        fork: Callable[[], None],
    ) -> None:
        super().__init__("Session changed on disk", window)
        self._window = window
        self.controller = controller
        self.document = controller.document
        self.banner = ConflictBanner()
        self.banner.setSizePolicy(
            QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed
        )  # a strip, not a pane
        self.setObjectName("ConflictDock")
        self.setTitleBarWidget(QWidget())
        self.setFeatures(QDockWidget.DockWidgetFeature.NoDockWidgetFeatures)
        self.setWidget(self.banner)
        window.addDockWidget(Qt.DockWidgetArea.TopDockWidgetArea, self)
        self.hide()
        self._reload, self._fork = reload, fork
        self.banner.sig_reload_requested.connect(self._on_banner_reload_requested)
        self.banner.sig_fork_requested.connect(self._on_banner_fork_requested)
        self.banner.sig_dismissed.connect(self.hide)
        controller.sig_conflict.connect(self._on_controller_conflict)
        self.document.sig_conflict_changed.connect(self._on_document_conflict_changed)
        self.document.sig_loaded.connect(self._on_document_loaded)
        self.document.sig_closed.connect(self._on_document_loaded)

    def _on_banner_reload_requested(self) -> None:
        self.hide()
        self._reload()

    def _on_banner_fork_requested(self) -> None:
        self.hide()
        self._fork()

    def _on_document_conflict_changed(self, conflict: RevisionConflict | None) -> None:
        if conflict is None:
            if self.controller.conflict is None:
                self.hide()
            return
        self.show_text(
            "<b>This session changed on disk</b> since rho-desk read it (Rho, or another program, wrote to it). "
            "Nothing was overwritten. Reload (F5) to see the new revisions, or fork to keep working from yours."
        )

    def _on_controller_conflict(self, info: ConflictInfo | None) -> None:
        if info is None:
            if self.document.conflict is None:
                self.hide()
            return
        self.show_text(f"<b>Continuing stopped.</b> {info.message}")

    def _on_document_loaded(self) -> None:
        if self.document.conflict is None and self.controller.conflict is None:
            self.hide()

    def show_text(self, text: str) -> None:
        """Show the strip with ``text``, as tall as its wrapped text at the window's width."""
        self.banner.text.setText(text)
        self.show()
        height = self.banner.heightForWidth(self._window.width())
        height = height if height > 0 else self.banner.sizeHint().height()
        self.setMaximumHeight(height + 2)
        self._window.resizeDocks([self], [height], Qt.Orientation.Vertical)
