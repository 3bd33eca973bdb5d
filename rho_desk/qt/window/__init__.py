"""The main window and what composes it: the action registry and its menus, the commands behind
them (File, Library, Revision, View, Help; the Session menu), and the operations on the open
session that every dialog and the continued conversation go through.

A dialog knows its host only as :class:`~rho_desk.qt.services.context.DialogHost`, implemented
by :class:`~rho_desk.qt.window.operations.SessionOperations`; the dialogs are opened, one per
kind, by :class:`~rho_desk.qt.window.session_commands.SessionCommands`. Nothing below this
package imports it (the layers contract in ``pyproject.toml``). Every dialog is opened with
``open()`` or ``show()`` and answered through its signals: no ``exec()``, no static
``QMessageBox`` call, no nested event loop (style.md practice 7)."""
