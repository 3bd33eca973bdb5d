"""The action dialogs of the desktop app: compact, export, continue, edit, settings, undo.

Part 1's composition root calls :func:`install` once the main window exists; it builds the
:class:`~rho_desk.qt.dialogs.host.ActionHost`, which attaches every action this package owns
(``owner="actions"`` in ``rho_desk/qt/actions.py``) and adds the continue dock and the conflict
banner to the window. Nothing else in the app needs to know these dialogs exist.

Modules: ``compaction`` (preview, run, cancel, undo), ``export`` (classes, live preview, audit,
override, receipt), ``edit`` (messages, title and metadata, provider blocks), ``settings``
(profiles and keys, compaction defaults, data directory, theme), ``revisions`` (every change as
a new revision; undo and redo), ``host`` (wiring), ``models`` (item models), ``prefs`` (their
settings), ``common`` and ``widgets`` (shared pieces). The conversation controller is
``rho_desk.qt.continue_session``; its panel is ``rho_desk.qt.views.composer``.
"""

from __future__ import annotations

from typing import Any

__all__ = ["install"]


def install(context: Any) -> Any:
    """Attach the dialogs to the app described by ``context`` (an ``AppContext``).

    Returns the :class:`~rho_desk.qt.dialogs.host.ActionHost` (also kept as ``context.dialogs``).
    """
    from .host import ActionHost

    host = ActionHost(context)
    host.attach()
    context.dialogs = host
    return host
