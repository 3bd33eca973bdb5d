"""The action dialogs of the desktop app: compact, export, edit, title and metadata, strip, settings.

Each dialog receives a :class:`~rho_desk.qt.services.context.DialogHost` (what it acts through:
the services, the provider profiles, one operation at a time, the one way to write a revision,
undo), implemented by :class:`~rho_desk.qt.controllers.operations.SessionOperations`. The
dialogs are opened, one per kind, by
:class:`~rho_desk.qt.controllers.commands.SessionCommands`; no dialog imports either of them, or
the window.

Modules: ``compaction`` (preview, run, cancel, undo), ``export`` (classes, live preview, audit,
override, receipt), ``edit`` (messages, title and metadata, provider blocks), ``settings``
(profiles and keys, compaction defaults, data directory, theme), ``trust`` (the tools' folder question), ``common`` and ``widgets`` (shared
pieces); their item models are in ``rho_desk.qt.models.dialogs``. The conversation controller is
``rho_desk.qt.controllers.continue_session``; its panel is ``rho_desk.qt.views.composer``, its
dock and the conflict banner ``rho_desk.qt.views.session_docks``.
"""
