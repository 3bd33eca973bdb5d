"""The Session menu, Settings, Undo and Redo: the actions that open a dialog or change the session.

:class:`SessionCommands` attaches them (compact, export, continue, edit, title and metadata,
strip provider blocks, settings, undo, redo) and opens each dialog non-modally, one at a time per
kind (``show()``, never ``exec()``). Every dialog is given the session's operations typed as
:class:`~rho_desk.qt.services.context.DialogHost`. The Undo and Redo actions say what they
would restore and are enabled only with a step to take.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget

if TYPE_CHECKING:
    from ..services.bridge import EngineBridge
    from ..services.document import SessionDocument
    from .actions import Actions
    from .operations import SessionOperations

__all__ = ["SessionCommands"]


class SessionCommands:
    """The handlers of the session actions.

    Args:
        operations: what the dialogs, Undo and Redo act through.
        window: the parent of the dialogs.
        show_continue: show the continue dock with the cursor in its composer.
    """

    def __init__(
        self,
        actions: Actions,
        operations: SessionOperations,
        *,
        window: QWidget,
        document: SessionDocument,
        bridge: EngineBridge,
        show_continue: Callable[[], None],
    ) -> None:
        self.actions = actions
        self.operations = operations
        self.window = window
        self.dialogs: dict[str, QWidget] = {}
        """The open dialog of each kind."""
        self._show_continue = show_continue
        self.document = document
        document.sig_tree_changed.connect(self._update_undo)
        operations.sig_undo_changed.connect(self._update_undo)
        # the window recomputes every action's enabled state after operations; refine ours after it
        bridge.sig_operation_finished.connect(self._on_bridge_operation_finished)

    def attach(self) -> None:
        a, ops = self.actions, self.operations
        a.attach("session.compact", lambda: self.show_dialog("compact"))
        a.attach("session.export", lambda: self.show_dialog("export"))
        a.attach("session.edit", lambda: self.show_dialog("edit"))
        a.attach("session.metadata", lambda: self.show_dialog("metadata"))
        a.attach("session.strip_provider", lambda: self.show_dialog("strip"))
        a.attach("edit.settings", lambda: self.show_dialog("settings"))
        a.attach("session.continue", self.continue_session)
        # Enabled only with a step to take, on top of the spec's document/writable flags; the
        # generic flag updates consult these too, so they cannot re-enable an empty Undo.
        a.attach("edit.undo", ops.undo, enabled_when=lambda: bool(ops.undo_status().undo))
        a.attach("edit.redo", ops.redo, enabled_when=lambda: bool(ops.undo_status().redo))
        self._update_undo()

    def continue_session(self) -> None:
        """Continue the open session: the composer, or for another agent's session first the
        offer to continue it as a Rho session (imported, then opened)."""
        if self.document.agent is not None:
            self.operations.continue_as_rho(self._show_continue)
        else:
            self._show_continue()

    # -- dialogs ----------------------------------------------------------------------------------------

    def dialog_factory(self, kind: str) -> Callable[[], QWidget]:
        from ..compact.dialog import CompactionDialog
        from ..edit.dialog import EditMessagesDialog, MetadataDialog, StripProviderDialog
        from ..export.dialog import ExportDialog
        from ..settings.dialog import SettingsDialog

        host, window = self.operations, self.window
        factories: dict[str, Callable[[], QWidget]] = {
            "compact": lambda: CompactionDialog(host, window),
            "export": lambda: ExportDialog(host, window),
            "edit": lambda: EditMessagesDialog(host, window),
            "metadata": lambda: MetadataDialog(host, window),
            "strip": lambda: StripProviderDialog(host, window),
            "settings": lambda: SettingsDialog(host, window),
        }
        return factories[kind]

    def show_dialog(self, kind: str) -> QWidget:
        """Open the ``kind`` dialog non-modally (or raise the open one)."""
        current = self.dialogs.get(kind)
        if current is not None and current.isVisible():
            current.raise_()
            current.activateWindow()
            return current
        if current is not None:
            current.deleteLater()
        dialog = self.dialog_factory(kind)()
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        ident = id(dialog)
        dialog.destroyed.connect(lambda _obj=None, k=kind, d=ident: self._forget(k, d))
        self.dialogs[kind] = dialog
        dialog.show()
        return dialog

    def _forget(self, kind: str, ident: int) -> None:
        current = self.dialogs.get(kind)
        if current is not None and id(current) == ident:
            del self.dialogs[kind]

    # -- undo and redo ----------------------------------------------------------------------------------

    def _update_undo(self) -> None:
        """The actions name what they would do (*Undo Move to Trash “…”*), or, when the last
        thing done cannot be undone, say so disabled (*Can't Undo Publish to Team …*)."""
        status = self.operations.undo_status()
        for action_id, label, word in (
            ("edit.undo", status.undo, "Undo"),
            ("edit.redo", status.redo, "Redo"),
        ):
            self.actions[action_id].setText(f"&{word} {label}" if label else f"&{word}")
        blocked = self.operations.cannot_undo()
        if blocked is not None:
            self.actions["edit.undo"].setText(f"Can't &Undo {blocked}")
        self.actions.refresh("edit.undo", "edit.redo")

    def _on_bridge_operation_finished(self, _changes: object, _initiator: object) -> None:
        self._update_undo()
