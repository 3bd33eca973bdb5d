"""Every user action of the app: one registry, one way to wire a handler.

The table :data:`SPECS` declares each action once: id, menu text, shortcuts, menu, icon, and
when it is enabled (``requires``). :class:`Actions` turns the table into ``QAction`` objects
and menus. The code that implements an action wires it with one call,
``actions.attach(id, handler, enabled_when=...)``: the handler takes no arguments (it closes
over exactly the objects it needs), and ``enabled_when`` is an optional extra condition (e.g.
"there is something to undo"). An action without a handler stays visible but disabled, so the
menus show the whole app from the start. Keyboard first: every action has a shortcut, and a
test checks that no two collide.

Who attaches what: the main window wires the view actions (find, J/K, tabs, revisions),
:class:`~rho_desk.qt.window.commands.Commands` the file, library and help actions, and
:class:`~rho_desk.qt.window.session_commands.SessionCommands` the actions that open a dialog or
change the session (continue, compact, export, edit, settings, undo, redo).

Enabled state: each spec names the conditions it needs (``requires``): ``document`` (a session
is open), ``writable`` (it is a transcript, not a snapshot document), ``continuable`` (writable,
or another agent's session, continued as a Rho session once imported), ``tree`` (a v4 or
upgraded file, for set-leaf), ``library`` (a Rho home is listed), ``selection`` (a session is
selected in the browser), ``rho_selection`` (it is Rho's: another agent's session is never renamed
or deleted here). :meth:`Actions.set_state` updates them all at once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Final

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QAction, QActionGroup, QIcon, QKeySequence
from PySide6.QtWidgets import QMenu, QMenuBar, QWidget

from ...core.errors import BugError

__all__ = ["MENUS", "SPECS", "ActionSpec", "Actions"]


@dataclass(frozen=True, slots=True)
class ActionSpec:
    """One action, declared once."""

    id: str
    """Stable id, ``<menu>.<name>``; what handlers attach to."""
    text: str
    """Menu text with its ``&`` mnemonic."""
    shortcuts: tuple[str, ...]
    """Portable key sequences; the first is shown in the menu."""
    menu: str
    tip: str
    icon: str | None = None
    """Name of an SVG in ``resources/icons`` (see :mod:`rho_desk.qt.ui.resources`)."""
    requires: frozenset[str] = frozenset()
    checkable: bool = False
    local: bool = False
    """Only while the focus is inside the widget the action is added to (e.g. Delete in the
    session list), instead of anywhere in the window."""
    separator_before: bool = False


def _spec(
    id: str,
    text: str,
    shortcuts: str | tuple[str, ...],
    tip: str,
    *,
    icon: str | None = None,
    requires: Iterable[str] = (),
    checkable: bool = False,
    local: bool = False,
    sep: bool = False,
) -> ActionSpec:
    keys = (shortcuts,) if isinstance(shortcuts, str) else shortcuts
    return ActionSpec(
        id, text, keys, id.split(".", 1)[0], tip, icon, frozenset(requires), checkable, local, sep
    )


MENUS: Final = (
    ("file", "&File"),
    ("edit", "&Edit"),
    ("view", "&View"),
    ("library", "&Library"),
    ("revision", "&Revision"),
    ("session", "&Session"),
    ("help", "&Help"),
)

DOC = ("document",)

SPECS: Final[tuple[ActionSpec, ...]] = (
    # File
    _spec(
        "file.open",
        "&Open Session File…",
        "Ctrl+O",
        "Open a session file, folder or snapshot document",
        icon="open",
    ),
    _spec(
        "file.reload",
        "Reloa&d From Disk",
        "F5",
        "Read the open session file again",
        icon="reload",
        requires=DOC,
    ),
    _spec("file.close", "&Close Session", "Ctrl+W", "Close the open session", requires=DOC),
    _spec(
        "file.export_settings",
        "&Export Settings…",
        "Ctrl+Alt+E",
        "Save your preferences to a JSON file (no keys or secrets)",
        sep=True,
    ),
    _spec(
        "file.import_settings",
        "&Import Settings…",
        "Ctrl+Alt+I",
        "Apply preferences from a settings JSON file",
    ),
    _spec(
        "file.repair",
        "Re&pair Session…",
        "Ctrl+Shift+R",
        "Write a repaired copy of a damaged session and open it",
        requires=DOC,
    ),
    _spec("file.quit", "&Quit", "Ctrl+Q", "Quit rho-desk", sep=True),
    # Edit
    _spec(
        "edit.find",
        "&Find in Session…",
        "Ctrl+F",
        "Search the open conversation",
        icon="search",
        requires=DOC,
    ),
    _spec("edit.find_next", "Find &Next", ("F3", "Ctrl+G"), "Next match", requires=DOC),
    _spec(
        "edit.find_previous",
        "Find &Previous",
        ("Shift+F3", "Ctrl+Shift+G"),
        "Previous match",
        requires=DOC,
    ),
    _spec(
        "edit.copy_message",
        "&Copy Message Text",
        "Ctrl+Shift+C",
        "Copy the selected message's text",
        requires=DOC,
    ),
    _spec(
        "edit.undo",
        "&Undo",
        "Ctrl+Z",
        "Undo the last thing done, as the menu names it (a change of the session, a move to the trash, a restore, a rename)",
        sep=True,
    ),
    _spec(
        "edit.redo",
        "&Redo",
        "Ctrl+Shift+Z",
        "Return to the revision the last undo left",
        requires=("document", "writable"),
    ),
    _spec(
        "edit.settings",
        "&Settings…",
        "Ctrl+,",
        "Provider profiles, compaction defaults, data directory",
        icon="settings",
        sep=True,
    ),
    # View
    _spec(
        "view.browser",
        "Session &Browser",
        "Ctrl+B",
        "Show or hide the session browser",
        checkable=True,
    ),
    _spec(
        "view.conversation", "&Conversation", "Ctrl+1", "Show the conversation", icon="conversation"
    ),
    _spec("view.revisions", "&Revisions", "Ctrl+2", "Show the revision timeline", icon="timeline"),
    _spec(
        "view.statistics", "&Statistics", "Ctrl+3", "Show the compaction statistics", icon="stats"
    ),
    _spec(
        "view.changes",
        "C&hanges",
        "Ctrl+4",
        "Show the files the agent changed, by turn, with diffs",
        icon="diff",
    ),
    _spec(
        "view.turn_changes",
        "Changes of This T&urn",
        "Ctrl+Alt+C",
        "Show the files the selected message's turn changed",
        requires=DOC,
    ),
    _spec(
        "view.model_history",
        "&Model History",
        "Ctrl+M",
        "Show what the model was sent instead of what the user saw",
        checkable=True,
        requires=DOC,
        sep=True,
    ),
    _spec("view.next_message", "&Next Message", "J", "Select the next message", requires=DOC),
    _spec(
        "view.previous_message",
        "&Previous Message",
        "K",
        "Select the previous message",
        requires=DOC,
    ),
    _spec(
        "view.expand_message",
        "&Expand or Collapse Message",
        "O",
        "Show the whole message in the list, or its preview",
        requires=DOC,
    ),
    _spec(
        "view.raw_json",
        "Ra&w JSON",
        "Ctrl+J",
        "Show the selected message as stored (JSON)",
        checkable=True,
        requires=DOC,
    ),
    _spec("view.theme", "Cycle &Theme", "Ctrl+Shift+T", "System, light, dark", sep=True),
    # Library
    _spec(
        "library.search",
        "&Search Sessions…",
        "Ctrl+K",
        "Full-text search over every session",
        icon="search",
    ),
    _spec(
        "library.team",
        "Team &Library",
        "Ctrl+Shift+L",
        "The sessions published to your team library (again: this machine's sessions)",
        checkable=True,
    ),
    _spec(
        "library.refresh",
        "&Refresh",
        "Ctrl+R",
        "Re-scan the session files and the index",
        icon="reload",
        requires=("library",),
    ),
    _spec(
        "library.scope",
        "This &Workspace Only",
        "Ctrl+Shift+W",
        "List only the sessions of the current workspace",
        checkable=True,
        requires=("library",),
    ),
    _spec(
        "library.open_selected",
        "&Open Selected Session",
        "Ctrl+Return",
        "Open the session selected in the browser",
        requires=("selection",),
        sep=True,
    ),
    _spec(
        "library.rename",
        "Re&name…",
        "F2",
        "Set the selected session's title (stored in Rho's index)",
        requires=("rho_selection",),
        local=True,
    ),
    _spec(
        "library.trash",
        "Move to &Trash…",
        "Del",
        "Move the selected session to rho-desk's trash",
        icon="trash",
        requires=("rho_selection",),
        local=True,
    ),
    _spec(
        "library.usage",
        "&Usage and Cost…",
        "Ctrl+Shift+U",
        "What Rho's requests cost, by day, workspace, model and session (its usage ledger)",
        icon="stats",
    ),
    _spec(
        "library.trash_view",
        "&Deleted Sessions…",
        "Ctrl+Shift+Del",
        "Restore sessions from rho-desk's trash, or empty it",
        icon="trash",
    ),
    # Revision
    _spec(
        "revision.previous",
        "&Previous Revision",
        "[",
        "Show the revision before this one",
        requires=DOC,
    ),
    _spec("revision.next", "&Next Revision", "]", "Show the revision after this one", requires=DOC),
    _spec(
        "revision.active",
        "Show &Active Revision",
        "\\",
        "Show the revision Rho would resume",
        requires=DOC,
    ),
    _spec(
        "revision.make_active",
        "&Make Active",
        "Ctrl+Shift+A",
        "Make the shown revision the one Rho resumes (v4 files)",
        requires=("document", "writable", "tree"),
        sep=True,
    ),
    _spec(
        "revision.fork",
        "&Fork From Here…",
        "Ctrl+Shift+B",
        "Branch from the shown revision (a new session for v1–v3 files)",
        icon="fork",
        requires=("document", "writable"),
    ),
    _spec(
        "revision.diff_base",
        "Mark as Diff &Base",
        "Ctrl+Shift+D",
        "Compare later selections against this revision",
        requires=DOC,
        sep=True,
    ),
    _spec(
        "revision.diff",
        "&Diff With Base",
        "Ctrl+D",
        "Compare the shown revision with the diff base (default: its parent)",
        icon="diff",
        requires=DOC,
    ),
    # Session
    _spec(
        "session.continue",
        "&Continue Conversation",
        "Ctrl+L",
        "Write the next prompt and run it in the window (another agent's session: as a Rho session)",
        requires=("document", "continuable"),
    ),
    _spec(
        "session.compact",
        "C&ompact…",
        "Ctrl+Shift+K",
        "Preview and run a compaction",
        icon="compact",
        requires=("document", "writable"),
    ),
    _spec(
        "session.export",
        "&Export…",
        "Ctrl+E",
        "Export to JSON, Markdown or HTML with a redaction audit",
        icon="export",
        requires=DOC,
    ),
    _spec(
        "session.edit",
        "Edit &Messages…",
        "Ctrl+Shift+E",
        "Delete or edit messages as a new revision",
        requires=("document", "writable"),
    ),
    _spec(
        "session.metadata",
        "Edit &Title and Metadata…",
        "Ctrl+Shift+M",
        "Session title and string metadata",
        requires=("document", "writable"),
    ),
    _spec(
        "session.strip_provider",
        "&Strip Provider Blocks…",
        "Ctrl+Shift+P",
        "Remove opaque provider context as a new revision",
        requires=("document", "writable"),
    ),
    # Help
    _spec("help.shortcuts", "&Keyboard Shortcuts", "F1", "Every action and its shortcut"),
    _spec("help.about", "&About rho-desk", "Shift+F1", "Version and licences"),
)


class Actions(QObject):
    """The ``QAction`` of every :data:`SPECS` entry, and the menus built from them.

    Args:
        window: the main window; actions are added to it so their shortcuts work anywhere in
            it (``local`` actions are added to the widget given to :meth:`make_local` instead).
        icon_for: maps an icon name to a ``QIcon`` (``resources.icon``); optional.
    """

    def __init__(self, window: QWidget, icon_for: Callable[[str], QIcon] | None = None) -> None:
        super().__init__(window)
        self._window = window
        self._actions: dict[str, QAction] = {}
        self._handlers: dict[str, Callable[[], object]] = {}
        self._specs = {spec.id: spec for spec in SPECS}
        self._state: dict[str, bool] = {}
        self._conditions: dict[str, Callable[[], bool]] = {}
        for spec in SPECS:
            action = QAction(spec.text, window)
            action.setObjectName(f"action_{spec.id.replace('.', '_')}")
            action.setShortcuts([QKeySequence(k) for k in spec.shortcuts])
            action.setToolTip(f"{spec.tip} ({spec.shortcuts[0]})" if spec.shortcuts else spec.tip)
            action.setStatusTip(spec.tip)
            action.setCheckable(spec.checkable)
            if spec.icon and icon_for is not None:
                action.setIcon(icon_for(spec.icon))
            if spec.local:
                action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            else:
                window.addAction(action)
            action.setEnabled(False)
            action.triggered.connect(lambda _checked=False, i=spec.id: self.trigger(i))
            self._actions[spec.id] = action
        self.recent_menu: QMenu | None = None
        self.theme_group = QActionGroup(self)

    # -- access ---------------------------------------------------------------------------------

    def __getitem__(self, action_id: str) -> QAction:
        try:
            return self._actions[action_id]
        except KeyError:
            raise BugError(f"no action {action_id!r}") from None

    def __contains__(self, action_id: str) -> bool:
        return action_id in self._actions

    def spec(self, action_id: str) -> ActionSpec:
        return self._specs[action_id]

    def ids(self) -> list[str]:
        return list(self._actions)

    # -- handlers --------------------------------------------------------------------------------

    def attach(
        self,
        action_id: str,
        handler: Callable[[], object],
        *,
        enabled_when: Callable[[], bool] | None = None,
    ) -> QAction:
        """Make ``handler`` what the action does (replacing any earlier one) and enable it.

        Args:
            enabled_when: an extra condition, checked with the spec's ``requires`` flags every
                time the action's enabled state is computed (see :meth:`refresh`).
        """
        action = self[action_id]
        self._handlers[action_id] = handler
        if enabled_when is not None:
            self._conditions[action_id] = enabled_when
        else:
            self._conditions.pop(action_id, None)
        self._update(action_id)
        return action

    def attached(self, action_id: str) -> bool:
        return action_id in self._handlers

    def trigger(self, action_id: str) -> None:
        """Run the action's handler, if it has one and is enabled."""
        handler = self._handlers.get(action_id)
        if handler is not None and self[action_id].isEnabled():
            handler()

    def make_local(self, action_id: str, widget: QWidget) -> None:
        """Add a ``local`` action to ``widget`` (its shortcut works only with focus inside it)."""
        widget.addAction(self[action_id])

    # -- enabled state --------------------------------------------------------------------------

    def set_state(self, **flags: bool) -> None:
        """Update condition flags (``document=True``...) and every action's enabled state."""
        self._state.update(flags)
        for action_id in self._actions:
            self._update(action_id)

    def refresh(self, *action_ids: str) -> None:
        """Recompute the enabled state of these actions (after their condition changed)."""
        for action_id in action_ids:
            self._update(action_id)

    def _update(self, action_id: str) -> None:
        spec = self._specs[action_id]
        ok = action_id in self._handlers and all(self._state.get(r, False) for r in spec.requires)
        condition = self._conditions.get(action_id)
        self._actions[action_id].setEnabled(ok and (condition is None or condition()))

    # -- menus ------------------------------------------------------------------------------------

    def build_menus(self, bar: QMenuBar) -> dict[str, QMenu]:
        """Fill ``bar`` with one menu per :data:`MENUS` entry, in :data:`SPECS` order."""
        menus: dict[str, QMenu] = {}
        for key, title in MENUS:
            menu = bar.addMenu(title)
            menu.setObjectName(f"menu_{key}")
            menus[key] = menu
        for spec in SPECS:
            menu = menus[spec.menu]
            if spec.separator_before:
                menu.addSeparator()
            menu.addAction(self._actions[spec.id])
            if spec.id == "file.open":
                self.recent_menu = menu.addMenu("Open &Recent")
                self.recent_menu.setObjectName("menu_recent")
        return menus

    def shortcut_table(self) -> list[tuple[str, str, str]]:
        """``(menu, action text, shortcuts)`` for the shortcuts help."""
        titles = dict(MENUS)
        return [
            (titles[s.menu].replace("&", ""), s.text.replace("&", ""), ", ".join(s.shortcuts))
            for s in SPECS
        ]
