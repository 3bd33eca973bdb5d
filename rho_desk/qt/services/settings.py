"""The app's settings: every QSettings option declared once, typed, versioned; never a secret.

One registry (:data:`REGISTRY`) lists every option as a :class:`Setting` (key, type, default,
meaning). Keys live in two groups: ``prefs/`` for what the user chose (theme, data directory,
browser scope) and ``persist/`` for what the app remembers on its own (geometry, splitter and
header state, recent files). A stored ``settings_version`` runs the upgrade hooks in
:data:`UPGRADES` once, in order.

:class:`Settings` is the only object that touches ``QSettings``; it converts the strings an INI
backend hands back (``"true"``, ``"42"``, a one-element list as a bare string) into the declared
types, so no caller ever sees a coercion surprise (the frescobaldi counter-example in
style.md). Keys that look like credentials are refused at declaration time: API keys live in
the keyring (``rho_desk.providers.credentials``), never here.

Tests redirect everything to a temp folder with :func:`use_settings_dir`. The application must
set its organisation and application names (``app.py``) before the first ``Settings`` exists.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Generic, TypeVar

from PySide6.QtCore import QByteArray, QObject, QSettings, Signal

from ...core.agents.base import AGENT_LABELS, AGENTS
from ...core.compaction.api import CompactionPolicy
from ...core.compaction.auto import LOCAL_COMPACTOR, POLICY_CHOICES, AutoCompaction
from ...core.compaction.local import RecentBudget
from ...core.errors import BugError

__all__ = [
    "LOCAL_COMPACTOR",
    "PERSIST_BROWSER_SPLITTER",
    "PERSIST_CONVERSATION_SPLITTER",
    "PERSIST_LAST_SESSION",
    "PERSIST_RECENT_FILES",
    "PERSIST_REVISIONS_SPLITTER",
    "PERSIST_TOOL_FOLDERS",
    "PERSIST_WINDOW_GEOMETRY",
    "PERSIST_WINDOW_STATE",
    "POLICY_CHOICES",
    "PREFS_AGENTS_LISTED",
    "PREFS_AGENT_HOMES",
    "PREFS_BROWSER_SCOPE",
    "PREFS_BROWSER_SORT",
    "PREFS_COMPACTION_COMPACTOR",
    "PREFS_COMPACTION_KEEP_MESSAGES",
    "PREFS_COMPACTION_KEEP_TOKENS",
    "PREFS_COMPACTION_POLICY",
    "PREFS_COMPACTION_THRESHOLD",
    "PREFS_CONTEXT_WINDOW",
    "PREFS_CONTINUE_PROFILE",
    "PREFS_DATA_DIR",
    "PREFS_EXPORT_FORMAT",
    "PREFS_EXPORT_INCLUDED",
    "PREFS_FOLLOW_LIVE",
    "PREFS_HISTORY_MODE",
    "PREFS_LIVE_POLL_MS",
    "PREFS_TEAM_DATABASE",
    "PREFS_THEME",
    "RECENT_FILES_MAX",
    "REGISTRY",
    "SETTINGS_VERSION",
    "UPGRADES",
    "Setting",
    "Settings",
    "agent_homes_from_settings",
    "auto_compaction_from_settings",
    "budget_from_settings",
    "declare",
    "policy_from_settings",
    "remember_tool_folder",
    "tool_folder_for",
    "use_settings_dir",
]

T = TypeVar("T")

SETTINGS_VERSION: Final = 1
"""Version of the settings layout this build writes (``settings_version`` in the file)."""
VERSION_KEY: Final = "settings_version"
RECENT_FILES_MAX: Final = 10

# A setting's name must never suggest a credential (style.md practice 14).
_SECRET_NAME: Final = re.compile(r"(?i)(api[_-]?key|secret|token|password|passwd|credential|auth)")
_GROUPS: Final = ("prefs/", "persist/")


@dataclass(frozen=True, slots=True)
class Setting(Generic[T]):
    """One declared option.

    Attributes:
        key: full QSettings key, ``prefs/...`` or ``persist/...``.
        type: ``str``, ``int``, ``bool``, ``bytes`` or ``list`` (a list of strings).
        default: value when nothing is stored (or the stored value does not convert).
        doc: what the option means, for the settings dialog and for readers.
        choices: allowed values of a ``str`` option (anything else reads as the default).
        minimum: smallest allowed value of an ``int`` option.
    """

    key: str
    type: type
    default: T
    doc: str
    choices: tuple[str, ...] = ()
    minimum: int | None = None


REGISTRY: dict[str, Setting[Any]] = {}
"""Every declared option by key (the one place options exist)."""


def declare(
    key: str,
    type_: type,
    default: T,
    doc: str,
    *,
    choices: tuple[str, ...] = (),
    minimum: int | None = None,
) -> Setting[T]:
    """Add an option to :data:`REGISTRY` and return it (module level, at import time).

    Raises:
        BugError: the key is outside ``prefs/``/``persist/``, declared twice, names a
            credential, or its default does not fit its type.
    """
    if not key.startswith(_GROUPS):
        raise BugError(f"setting {key!r} must live under prefs/ or persist/")
    if key in REGISTRY:
        raise BugError(f"setting {key!r} is declared twice")
    if _SECRET_NAME.search(key):
        raise BugError(f"setting {key!r} looks like a credential; secrets belong in the keyring")
    if type_ not in (str, int, bool, bytes, list):
        raise BugError(f"setting {key!r} has unsupported type {type_.__name__}")
    if not isinstance(default, type_) or (type_ is int and isinstance(default, bool)):
        raise BugError(f"setting {key!r}: default {default!r} is not a {type_.__name__}")
    if choices and default not in choices:
        raise BugError(f"setting {key!r}: default {default!r} is not one of its choices")
    setting: Setting[T] = Setting(key, type_, default, doc, choices, minimum)
    REGISTRY[key] = setting
    return setting


# --- prefs/: what the user chose ---------------------------------------------------------------

PREFS_THEME: Final = declare(
    "prefs/theme",
    str,
    "system",
    "Colour theme: follow the system, or force light or dark.",
    choices=("system", "light", "dark"),
)
PREFS_DATA_DIR: Final = declare(
    "prefs/data_dir",
    str,
    "",
    "Rho data directory to browse; empty means $RHO_HOME, else ~/.rho (the demo library when "
    "neither exists).",
)
PREFS_BROWSER_SCOPE: Final = declare(
    "prefs/browser/scope",
    str,
    "all",
    "Session browser scope: one workspace, or all of them.",
    choices=("workspace", "all"),
)
PREFS_BROWSER_SORT: Final = declare(
    "prefs/browser/sort",
    str,
    "updated",
    "Session browser sort key.",
    choices=("updated", "created", "size", "messages", "compactions", "title"),
)
PREFS_HISTORY_MODE: Final = declare(
    "prefs/conversation/history",
    str,
    "display",
    "Which history the conversation shows: what the user saw (display) or what the model "
    "was sent (model).",
    choices=("display", "model"),
)
PREFS_FOLLOW_LIVE: Final = declare(
    "prefs/live/follow",
    bool,
    True,
    "Reload an open session when another program appends to it, and follow the newest revision.",
)
PREFS_LIVE_POLL_MS: Final = declare(
    "prefs/live/poll_ms",
    int,
    1000,
    "Fallback poll interval for live updates, in milliseconds (file-system notifications are "
    "used first).",
    minimum=200,
)
PREFS_TEAM_DATABASE: Final = declare(
    "prefs/team/database",
    str,
    "",
    "Team library (PostgreSQL) connection string for the Team panel and Publish, without a "
    "password: rho-desk takes it from the keyring, ~/.pgpass or a service file. Empty: no team "
    "library.",
)
PREFS_AGENTS_LISTED: Final[Setting[list[str]]] = declare(
    "prefs/agents/listed",
    list,
    list(AGENTS),
    "Other coding agents whose sessions the library lists beside Rho's: claude-code, codex, gemini, "
    "opencode, pi (read-only; Continue imports one as a Rho session). Empty: Rho's only. The demo "
    "library lists none.",
)
_HOME_DEFAULTS: Final = {
    "claude-code": "$CLAUDE_CONFIG_DIR, else ~/.claude",
    "codex": "$CODEX_HOME, else ~/.codex",
    "gemini": "~/.gemini (under $GEMINI_CLI_HOME if set)",
    "opencode": "$XDG_DATA_HOME/opencode, else ~/.local/share/opencode",
    "pi": "$PI_CODING_AGENT_DIR, else ~/.pi/agent",
}
PREFS_AGENT_HOMES: Final[dict[str, Setting[str]]] = {
    agent: declare(
        f"prefs/agents/{agent}/home",
        str,
        "",
        f"{AGENT_LABELS[agent]}'s data folder, where the library looks for its sessions; empty: "
        f"{_HOME_DEFAULTS[agent]}.",
    )
    for agent in AGENTS
}
PREFS_CONTEXT_WINDOW: Final = declare(
    "prefs/stats/context_window",
    int,
    200_000,
    "Context window (tokens) the gauge assumes when neither the session's usage, a provider "
    "profile, nor the table of known models names one.",
    minimum=1,
)

# the action dialogs' options: compaction defaults (which compactor, the recent budget, the
# automatic policy), the profile a continued conversation runs on, the last export choices
PREFS_COMPACTION_COMPACTOR: Final = declare(
    "prefs/compaction/compactor",
    str,
    LOCAL_COMPACTOR,
    "Compactor for manual and automatic compaction: empty for the local (offline) compactor, "
    "else the name of the provider profile that writes the summary.",
)
PREFS_COMPACTION_POLICY: Final = declare(
    "prefs/compaction/policy",
    str,
    "off",
    "Automatic compaction while continuing a conversation: off, after a number of messages, or "
    "at a context-token estimate.",
    choices=POLICY_CHOICES,
)
PREFS_COMPACTION_THRESHOLD: Final = declare(
    "prefs/compaction/threshold",
    int,
    200,
    "Threshold of the automatic policy (messages, or estimated context tokens).",
    minimum=1,
)
PREFS_COMPACTION_KEEP_TOKENS: Final = declare(
    "prefs/compaction/recent_budget",
    int,
    8000,
    "Largest token estimate of the recent messages a compaction keeps verbatim (0: no limit).",
    minimum=0,
)
PREFS_COMPACTION_KEEP_MESSAGES: Final = declare(
    "prefs/compaction/recent_messages",
    int,
    24,
    "Most recent messages a compaction keeps verbatim (0: no limit).",
    minimum=0,
)
PREFS_CONTINUE_PROFILE: Final = declare(
    "prefs/continue/profile",
    str,
    "",
    "Provider profile a continued conversation runs on (empty: the default profile).",
)
PREFS_EXPORT_INCLUDED: Final = declare(
    "prefs/export/included",
    list,
    [
        "instructions",
        "user",
        "assistant",
        "tool_records",
        "images",
        "documents",
        "reasoning_summaries",
    ],
    "Content classes the export dialog starts with (the last ones used).",
)
PREFS_EXPORT_FORMAT: Final = declare(
    "prefs/export/format",
    str,
    "json",
    "Export format the dialog starts with.",
    choices=("json", "markdown", "html"),
)

# --- persist/: what the app remembers -----------------------------------------------------------

PERSIST_WINDOW_GEOMETRY: Final = declare(
    "persist/window/geometry", bytes, b"", "Main window geometry (QWidget.saveGeometry)."
)
PERSIST_WINDOW_STATE: Final = declare(
    "persist/window/state", bytes, b"", "Main window tool bars and docks (QMainWindow.saveState)."
)
PERSIST_BROWSER_SPLITTER: Final = declare(
    "persist/splitters/browser", bytes, b"", "Browser | document splitter state."
)
PERSIST_CONVERSATION_SPLITTER: Final = declare(
    "persist/splitters/conversation", bytes, b"", "Message list | detail pane splitter state."
)
PERSIST_REVISIONS_SPLITTER: Final = declare(
    "persist/splitters/revisions", bytes, b"", "Revision tree | diff splitter state."
)
PERSIST_RECENT_FILES: Final[Setting[list[str]]] = declare(
    "persist/recent_files", list, [], "Recently opened session files, newest first."
)
PERSIST_LAST_SESSION: Final = declare(
    "persist/last_session", str, "", "The session file open when the app last closed."
)
PERSIST_TOOL_FOLDERS: Final[Setting[list[str]]] = declare(
    "persist/continue/tool_folders",
    list,
    [],
    "Folders chosen for the tools of sessions whose recorded folder is missing on this machine, "
    "newest first: each a JSON pair [recorded folder, chosen folder], offered again for the next "
    "session of that workspace (paths only).",
)
TOOL_FOLDERS_MAX: Final = 20


# --- upgrades ----------------------------------------------------------------------------------

Upgrade = Callable[[QSettings], None]
UPGRADES: dict[int, Upgrade] = {}
"""``to_version -> hook``: run in order for every version above the stored one.

Version 1 is the first layout; a future rename adds ``UPGRADES[2] = _rename_x`` here.
"""


def budget_from_settings(settings: Settings) -> RecentBudget:
    """The recent budget the settings describe (both limits 0 falls back to the defaults)."""
    return AutoCompaction.budget_of(
        settings.get(PREFS_COMPACTION_KEEP_TOKENS), settings.get(PREFS_COMPACTION_KEEP_MESSAGES)
    )


def policy_from_settings(settings: Settings) -> CompactionPolicy | None:
    """The automatic compaction policy the settings describe (``None`` when off)."""
    return AutoCompaction.policy_of(
        settings.get(PREFS_COMPACTION_POLICY), settings.get(PREFS_COMPACTION_THRESHOLD)
    )


def auto_compaction_from_settings(settings: Settings) -> AutoCompaction:
    """The automatic compaction of a continued conversation, as the settings describe it."""
    return AutoCompaction(
        policy_from_settings(settings),
        settings.get(PREFS_COMPACTION_COMPACTOR),
        budget_from_settings(settings),
    )


def agent_homes_from_settings(
    settings: Settings, env: Mapping[str, str] | None = None
) -> dict[str, Path]:
    """The other agents the library lists, each with its data folder (a setting, else the
    agent's own default, ``core.agents.formats.default_homes``)."""
    from ...core.agents.formats import default_homes

    defaults = default_homes(env)
    listed = [a for a in settings.get(PREFS_AGENTS_LISTED) if a in PREFS_AGENT_HOMES]
    out: dict[str, Path] = {}
    for agent in listed:
        chosen = settings.get(PREFS_AGENT_HOMES[agent]).strip()
        out[agent] = Path(chosen).expanduser() if chosen else defaults[agent]
    return out


def use_settings_dir(folder: Path) -> None:
    """Send every ``QSettings`` of this process to INI files under ``folder`` (tests, portable use).

    Must run before the first :class:`Settings` is created.
    """
    QSettings.setDefaultFormat(QSettings.Format.IniFormat)
    for scope in (QSettings.Scope.UserScope, QSettings.Scope.SystemScope):
        QSettings.setPath(QSettings.Format.IniFormat, scope, str(folder))


class Settings(QObject):
    """Typed access to the declared options.

    Signals:
        sig_setting_changed(str): an option was set or reset (its key).

    Args:
        backend: the ``QSettings`` to use (default: the application's, by its names).
    """

    sig_setting_changed = Signal(str)
    """An option was set or reset; carries its key."""

    def __init__(self, backend: QSettings | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._qs = backend if backend is not None else QSettings()
        self._upgrade()

    @property
    def backend(self) -> QSettings:
        return self._qs

    def file_name(self) -> str:
        return self._qs.fileName()

    # -- values ----------------------------------------------------------------------------------

    def get(self, setting: Setting[T]) -> T:
        """The stored value converted to the declared type (the default when absent or invalid)."""
        self._known(setting)
        raw = self._qs.value(setting.key)
        if raw is None:
            return _copy(setting.default)
        try:
            value = _convert(raw, setting.type)
        except (TypeError, ValueError):
            return _copy(setting.default)
        if setting.choices and value not in setting.choices:
            return _copy(setting.default)
        if setting.minimum is not None and value < setting.minimum:
            return _copy(setting.default)
        return value  # type: ignore[no-any-return]

    def set(self, setting: Setting[T], value: T) -> None:
        """Store ``value`` (checked against the declaration).

        Raises:
            BugError: the value does not fit the declared type, choices or minimum.
        """
        self._known(setting)
        if setting.type is list:
            if not isinstance(value, list | tuple) or not all(isinstance(v, str) for v in value):
                raise BugError(f"setting {setting.key!r} takes a list of strings")
            stored: Any = list(value)
        elif setting.type is bytes:
            if not isinstance(value, bytes | bytearray | QByteArray):
                raise BugError(f"setting {setting.key!r} takes bytes")
            stored = QByteArray(value)
        else:
            if not isinstance(value, setting.type) or (
                setting.type is int and isinstance(value, bool)
            ):
                raise BugError(
                    f"setting {setting.key!r} takes a {setting.type.__name__}, not {value!r}"
                )
            if setting.choices and value not in setting.choices:
                raise BugError(
                    f"setting {setting.key!r}: {value!r} is not one of {setting.choices}"
                )
            if setting.minimum is not None and value < setting.minimum:  # type: ignore[operator]
                raise BugError(f"setting {setting.key!r}: {value!r} is below {setting.minimum}")
            stored = value
        self._qs.setValue(setting.key, stored)
        self.sig_setting_changed.emit(setting.key)

    def reset(self, setting: Setting[Any]) -> None:
        """Forget the stored value (the default applies again)."""
        self._known(setting)
        self._qs.remove(setting.key)
        self.sig_setting_changed.emit(setting.key)

    def sync(self) -> None:
        """Write pending changes to disk (Qt also does this on its own, and at exit)."""
        self._qs.sync()

    def items(self) -> Iterator[tuple[Setting[Any], Any]]:
        """Every declared option with its current value."""
        for setting in REGISTRY.values():
            yield setting, self.get(setting)

    # -- recent files ------------------------------------------------------------------------

    def recent_files(self) -> list[str]:
        return self.get(PERSIST_RECENT_FILES)[:RECENT_FILES_MAX]

    def add_recent_file(self, path: str) -> list[str]:
        """Put ``path`` first in the recent-files list (no duplicates, at most ten)."""
        files = [path] + [p for p in self.recent_files() if p != path]
        files = files[:RECENT_FILES_MAX]
        self.set(PERSIST_RECENT_FILES, files)
        return files

    def remove_recent_file(self, path: str) -> None:
        self.set(PERSIST_RECENT_FILES, [p for p in self.recent_files() if p != path])

    # -- internals -----------------------------------------------------------------------------

    @staticmethod
    def _known(setting: Setting[Any]) -> None:
        if REGISTRY.get(setting.key) is not setting:
            raise BugError(f"setting {setting.key!r} is not declared in the registry")

    def _upgrade(self) -> None:
        raw = self._qs.value(VERSION_KEY)
        try:
            stored = int(raw) if raw is not None else 0
        except (TypeError, ValueError):
            stored = 0
        if stored > SETTINGS_VERSION:
            return  # written by a newer rho-desk: read what we know, never downgrade it
        for version in sorted(v for v in UPGRADES if stored < v <= SETTINGS_VERSION):
            UPGRADES[version](self._qs)
        if stored != SETTINGS_VERSION:
            self._qs.setValue(VERSION_KEY, SETTINGS_VERSION)

    @property
    def stored_version(self) -> int:
        raw = self._qs.value(VERSION_KEY)
        try:
            return int(raw) if raw is not None else 0
        except (TypeError, ValueError):
            return 0


def _copy(value: T) -> T:
    return list(value) if isinstance(value, list) else value  # type: ignore[return-value]


def _convert(raw: Any, kind: type) -> Any:
    """What an INI (or native) backend returned, as ``kind``."""
    if kind is bool:
        if isinstance(raw, bool):
            return raw
        text = str(raw).strip().lower()
        if text in ("true", "1", "yes", "on"):
            return True
        if text in ("false", "0", "no", "off"):
            return False
        raise ValueError(raw)
    if kind is int:
        if isinstance(raw, bool):
            raise TypeError(raw)
        return int(str(raw).strip()) if not isinstance(raw, int) else raw
    if kind is str:
        if isinstance(raw, list | tuple):
            raise TypeError(raw)
        return str(raw)
    if kind is bytes:
        if isinstance(raw, QByteArray):
            return bytes(raw.data())
        if isinstance(raw, bytes | bytearray):
            return bytes(raw)
        raise TypeError(raw)
    if kind is list:
        # An INI backend returns a one-element list as a bare string and an empty one as None.
        if isinstance(raw, str):
            return [raw] if raw else []
        if isinstance(raw, list | tuple):
            return [str(v) for v in raw]
        raise TypeError(raw)
    raise TypeError(kind)  # pragma: no cover - declare() refuses other types


def _tool_folder_pairs(settings: Settings) -> list[tuple[str, str]]:
    pairs = []
    for entry in settings.get(PERSIST_TOOL_FOLDERS):
        try:
            recorded, chosen = json.loads(entry)
        except (ValueError, TypeError):
            continue  # not a pair: skipped, and dropped at the next write
        if isinstance(recorded, str) and isinstance(chosen, str):
            pairs.append((recorded, chosen))
    return pairs


def tool_folder_for(settings: Settings, recorded: str) -> str | None:
    """The folder last chosen for the tools of a session recorded in ``recorded`` (when that
    folder still exists), else ``None``."""
    for was, chosen in _tool_folder_pairs(settings):
        if was == recorded:
            return chosen if Path(chosen).is_dir() else None
    return None


def remember_tool_folder(settings: Settings, recorded: str, chosen: str) -> None:
    """Remember ``chosen`` as the tools' folder for sessions recorded in ``recorded`` (newest
    first, at most :data:`TOOL_FOLDERS_MAX` workspaces)."""
    pairs = [(recorded, chosen)] + [p for p in _tool_folder_pairs(settings) if p[0] != recorded]
    settings.set(PERSIST_TOOL_FOLDERS, [json.dumps(p) for p in pairs[:TOOL_FOLDERS_MAX]])
