"""The action dialogs of the desktop app: compact, export, continue, edit, settings, undo.

:func:`rho_desk.qt.app.build_context` builds the :class:`~rho_desk.qt.dialogs.host.ActionHost`
once the main window exists; the host attaches the session actions (compact, export, continue,
edit, title and metadata, strip provider blocks, settings, undo, redo) and adds the continue
dock and the conflict banner to the window.

Modules: ``compaction`` (preview, run, cancel, undo), ``export`` (classes, live preview, audit,
override, receipt), ``edit`` (messages, title and metadata, provider blocks), ``settings``
(profiles and keys, compaction defaults, data directory, theme), ``revisions`` (every change as
a new revision; undo and redo), ``host`` (wiring), ``models`` (item models), ``prefs`` (their
settings), ``common`` and ``widgets`` (shared pieces). The conversation controller is
``rho_desk.qt.controllers.continue_session``; its panel is ``rho_desk.qt.views.composer``.
"""
