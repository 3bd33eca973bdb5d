"""What the menus' actions do, where it spans views or talks to the user.

``window`` (:class:`Commands`): the File, Library, Revision, View and Help actions (open, reload,
rename, trash, make active, fork, theme, settings export and import, help). ``session``
(:class:`SessionCommands`): the Session menu, Settings, Undo and Redo, which open the action
dialogs or change the session through its operations
(:class:`~rho_desk.qt.controllers.operations.SessionOperations`). Handlers that belong to one view
live in that view (find, J/K, expand). Every dialog is opened with ``open()`` or ``show()`` and
answered through its signals: no ``exec()``, no static ``QMessageBox`` call, no nested event loop
(style.md practice 7).
"""

from .session import SessionCommands
from .window import Commands

__all__ = ["Commands", "SessionCommands"]
