"""The desktop app: the only code that imports PySide6 or qasync.

Its packages have a direction; each imports only those below it (the layers contract in
``pyproject.toml``)::

    app.py          start-up and shutdown: builds the services, the window and the features
    window/         the main window, its actions, commands and the operations on the open session
    browser/ changes/ compact/ continue_/ conversation/ edit/ export/ recovery/ revisions/
    settings/ usage/
                    the features: each owns its views, item models and presenter, and none
                    imports another
    services/       the long-lived services: bridge, document, library, team, settings, notifier
    ui/             the base: text, theme and icons, Markdown, screen sizes, roles, shared widgets
"""

from __future__ import annotations

import sys

import PySide6  # noqa: F401  (its import installs shiboken's import hooks, adjusted below)


def _skip_feature_source_scan() -> None:
    """Stop PySide6 reading the source of every module imported after it.

    To give each module a default for its ``__feature__`` switching (``snake_case``,
    ``true_property``), shiboken's import hook searches every newly imported module's source
    for the string "PySide6" (``inspect.getsource``). rho-desk selects no feature, so the answer
    never matters here, and the search costs about 300 source files read at launch (40 ms) and
    their lines kept in ``linecache`` for the life of the process (8 MB). Every module is
    declared one that does not switch; a PySide6 without this private function is left as is.
    """
    feature = sys.modules.get("shibokensupport.feature")
    if feature is not None and callable(getattr(feature, "_mod_uses_pyside", None)):
        setattr(feature, "_mod_uses_pyside", lambda _module: False)  # noqa: B010 (a module attribute)


_skip_feature_source_scan()
