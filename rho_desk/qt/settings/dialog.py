"""The settings dialog: provider profiles and their keys, compaction defaults, data directory, theme.

* **Providers**: the profiles of the shared ``ProfileStore`` (the same file the command line
  reads), edited with a form; their API keys are stored in or removed from the keyring, always
  in a worker thread (a keyring call may block on D-Bus or an unlock prompt). A key typed here is
  sent to the keyring and the field is cleared: it is never shown again, never written to
  QSettings, and never logged. The list says where each profile's key comes from.
* **Compaction**: the default compactor (local, or a profile's model), the automatic policy
  (off, after N messages, at N estimated context tokens) and the recent budget.
* **General**: the Rho data directory to browse, the profile a continued conversation uses, and
  the theme (follow the system, light, dark).
* **Folders**: the folders trusted for the model's tools on this machine; revoking one applies
  at once (the next turn with tools in it asks again).
* **Other Agents**: which other agents' sessions the library lists (Claude Code, Codex, Gemini
  CLI, opencode, Pi) and where each keeps them (empty: the agent's own default); a change lists
  the library again.

Profile changes and keys apply at once (their own buttons); the other options apply with OK or
Apply. Everything non-secret goes through the typed settings registry.
"""

from __future__ import annotations

from collections.abc import Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QModelIndex, Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSpinBox,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)
from shiboken6 import isValid

from ...core.errors import InputError, error_text
from ...core.tools.permissions import DEFAULT_MODE, PermissionMode
from ...providers.credentials import (
    KeyringStatus,
    adelete_api_key,
    aset_api_key,
    keyring_status,
    resolve_api_key,
)
from ...providers.profiles import ProfileError, ProfileKind, ProfileSet, ProviderProfile
from ..services.bridge import in_thread
from ..services.outcomes import OpChanges
from ..services.settings import (
    LOCAL_COMPACTOR,
    PREFS_AGENT_HOMES,
    PREFS_AGENTS_LISTED,
    PREFS_COMPACTION_COMPACTOR,
    PREFS_COMPACTION_KEEP_MESSAGES,
    PREFS_COMPACTION_KEEP_TOKENS,
    PREFS_COMPACTION_POLICY,
    PREFS_COMPACTION_THRESHOLD,
    PREFS_CONTINUE_PROFILE,
    PREFS_DATA_DIR,
    PREFS_TEAM_DATABASE,
    PREFS_THEME,
)
from ..ui.blocks import Banner, BusyRow, budget_spin_boxes, make_table, section_title
from ..ui.screen import fit_to_screen
from .model import ProfileListModel

if TYPE_CHECKING:
    from ...core.tools.trust import TrustedFolder
    from ..services.context import DialogHost

__all__ = ["SettingsDialog", "key_state"]

_AGENT_CHECKS = {
    "claude-code": "C&laude Code",
    "codex": "Code&x",
    "gemini": "Gem&ini CLI",
    "opencode": "&opencode",
    "pi": "Pi codi&ng agent",
}
"""Each agent's tick box, with a mnemonic no other control of the page or dialog uses."""

_POLICIES = (
    ("off", "Off"),
    ("messages", "After a number of messages"),
    ("tokens", "At a context-token estimate"),
)
_THEMES = (("system", "Follow the system"), ("light", "Light"), ("dark", "Dark"))


def key_state(profile: ProviderProfile) -> str:
    """Where ``profile``'s key would come from when a conversation continues (blocking: reads the
    keyring; the value is dropped): what :func:`resolve_api_key` finds, so the table says what a
    turn sends (a key stored for a keyless local server is sent too).

    ``keyring``, ``environment (NAME)``, ``not needed``, ``missing`` or ``keyring unavailable``.
    """
    from ...core.errors import CredentialsUnavailable, MissingApiKey

    try:
        resolved = resolve_api_key(profile)
    except MissingApiKey:
        return "missing"
    except CredentialsUnavailable:
        return "keyring unavailable"
    if resolved is None:
        return "not needed"
    return "keyring" if resolved.source == "keyring" else f"environment ({profile.api_key_env})"


class SettingsDialog(QDialog):
    """Preferences (see the module docstring).

    Signals:
        sig_applied(): the non-secret options were applied.
        sig_profiles_changed(): a profile or key was saved or removed.
    """

    sig_applied = Signal()
    """OK or Apply stored the options."""
    sig_profiles_changed = Signal()
    """A provider profile or an API key changed."""

    def __init__(self, host: DialogHost, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.host = host
        self.setObjectName("SettingsDialog")
        self.setWindowTitle("Settings")
        self.tabs = QTabWidget()
        self.tabs.setObjectName("SettingsTabs")
        self.tabs.setAccessibleName("Settings pages")
        self.tabs.addTab(self._providers_tab(), "&Providers")
        self.tabs.addTab(self._compaction_tab(), "&Compaction")
        self.tabs.addTab(self._general_tab(), "&General")
        self.tabs.addTab(self._folders_tab(), "&Folders")
        self.tabs.addTab(self._agents_tab(), "Oth&er Agents")
        self.busy = BusyRow()
        self.busy.hide()
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok
            | QDialogButtonBox.StandardButton.Apply
            | QDialogButtonBox.StandardButton.Cancel
        )
        self.buttons.accepted.connect(self._on_ok_clicked)
        self.buttons.rejected.connect(self.close)
        self.buttons.button(QDialogButtonBox.StandardButton.Apply).clicked.connect(self.apply)
        layout = QVBoxLayout(self)
        layout.addWidget(self.tabs, 1)
        layout.addWidget(self.busy)
        layout.addWidget(self.buttons)
        fit_to_screen(self, 900, 600)
        self.file_dialog: QFileDialog | None = None
        self._load_options()
        self.reload_profiles()
        self.reload_trusted()

    # -- providers --------------------------------------------------------------------------------

    def _providers_tab(self) -> QWidget:
        self.profiles = ProfileListModel(self)
        # Name and model share the spare width and elide in the middle, so a long model id (a
        # file path, "vendor/model-name-version") never pushes the Key column out of view.
        self.profile_table = make_table(
            "ProfileTable", self.profiles, stretch=2, label="Provider profiles"
        )
        self.profile_table.horizontalHeader().setSectionResizeMode(
            0, QHeaderView.ResizeMode.Stretch
        )
        self.profile_table.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.profile_table.selectionModel().currentRowChanged.connect(
            self._on_profile_current_changed
        )
        self.add_button = QPushButton("&New")
        self.add_button.setToolTip("A new profile (Ctrl+N)")
        self.add_button.setShortcut("Ctrl+N")
        self.remove_button = QPushButton("&Remove")
        self.remove_button.setToolTip("Remove the selected profile and its stored key")
        self.default_button = QPushButton("Make &Default")
        self.default_button.setToolTip("Use the selected profile when nothing else is chosen")
        list_buttons = QHBoxLayout()
        for button in (self.add_button, self.remove_button, self.default_button):
            list_buttons.addWidget(button)
        list_buttons.addStretch(1)
        left = QVBoxLayout()
        left.addWidget(self.profile_table, 1)
        left.addLayout(list_buttons)
        self.keyring_label = QLabel("Keyring: checking…")
        self.keyring_label.setWordWrap(True)
        self.keyring_label.setProperty("muted", True)
        left.addWidget(self.keyring_label)

        self.name = QLineEdit()
        self.kind = QComboBox()
        self.kind.addItem(
            "OpenAI-compatible (Chat Completions)", ProfileKind.OPENAI_COMPATIBLE.value
        )
        self.kind.addItem("Anthropic (Messages)", ProfileKind.ANTHROPIC.value)
        self.base_url = QLineEdit()
        self.base_url.setPlaceholderText("https://api.openai.com/v1")
        self.model_name = QLineEdit()
        self.context_window = QSpinBox()
        self.context_window.setRange(0, 100_000_000)
        self.context_window.setSingleStep(1024)
        self.context_window.setSpecialValueText("unknown")
        self.requires_key = QCheckBox("The server needs an API key")
        self.api_key_env = QLineEdit()
        self.api_key_env.setPlaceholderText("optional: read the key from this environment variable")
        self.reasoning = QCheckBox("Send reasoning controls")
        self.permission_mode = QComboBox()
        self.permission_mode.setObjectName("ProfilePermissionMode")
        self.permission_mode.setToolTip(
            "What the model's coding tools may do when a conversation continues "
            "with this profile (the continue panel can change it per session)"
        )
        for mode in PermissionMode:
            if mode is PermissionMode.OFF:
                continue
            self.permission_mode.addItem(
                f"{mode.label}{' (default)' if mode is DEFAULT_MODE else ''}", mode.value
            )
        self.permission_mode.addItem(PermissionMode.OFF.label, PermissionMode.OFF.value)
        self.save_profile_button = QPushButton("&Save Profile")
        self.save_profile_button.setObjectName("SaveProfile")
        self.save_profile_button.setToolTip("Write the profile to the profiles file (Ctrl+S)")
        self.save_profile_button.setShortcut("Ctrl+S")
        form = QFormLayout()
        form.addRow("N&ame:", self.name)
        form.addRow("K&ind:", self.kind)
        form.addRow("Base &URL:", self.base_url)
        form.addRow("&Model:", self.model_name)
        form.addRow("Context &window:", self.context_window)
        form.addRow("", self.requires_key)
        form.addRow("Key &variable:", self.api_key_env)
        form.addRow("", self.reasoning)
        form.addRow("&Tools:", self.permission_mode)
        form.addRow("", self.save_profile_button)

        self.api_key = QLineEdit()
        self.api_key.setObjectName("ApiKeyField")
        self.api_key.setAccessibleName("API key")
        self.api_key.setEchoMode(QLineEdit.EchoMode.Password)
        self.api_key.setPlaceholderText("paste a key to store it in the keyring")
        self.store_key_button = QPushButton("Store &Key")
        self.store_key_button.setObjectName("StoreKey")
        self.clear_key_button = QPushButton("Remove Ke&y")
        self.clear_key_button.setObjectName("RemoveKey")
        self.key_status = QLabel("")
        self.key_status.setObjectName("KeyStatus")
        self.key_status.setWordWrap(True)
        key_row = QHBoxLayout()
        key_row.addWidget(self.api_key, 1)
        key_row.addWidget(self.store_key_button)
        key_row.addWidget(self.clear_key_button)
        right = QVBoxLayout()
        right.addWidget(section_title("Profile"))
        right.addLayout(form)
        right.addSpacing(8)
        right.addWidget(section_title("API key (kept in the system keyring, never shown again)"))
        right.addLayout(key_row)
        right.addWidget(self.key_status)
        right.addStretch(1)
        self.profile_notice = Banner("warning")
        self.profile_notice.hide()

        tab = QWidget()
        columns = QHBoxLayout()
        columns.addLayout(left, 5)
        columns.addLayout(right, 6)
        outer = QVBoxLayout(tab)
        outer.addLayout(columns, 1)
        outer.addWidget(self.profile_notice)

        self.add_button.clicked.connect(self._on_add_clicked)
        self.remove_button.clicked.connect(self._on_remove_clicked)
        self.default_button.clicked.connect(self._on_default_clicked)
        self.save_profile_button.clicked.connect(self.save_profile)
        self.store_key_button.clicked.connect(self.store_key)
        self.clear_key_button.clicked.connect(self.remove_key)
        return tab

    def reload_profiles(self, select: str | None = None) -> None:
        """Read the profiles file and the key states (off the GUI thread)."""
        host = self.host

        async def read() -> tuple[ProfileSet, dict[str, str], KeyringStatus]:
            loaded = await in_thread(host.profiles.load)
            states = {}
            for profile in loaded.profiles:
                states[profile.name] = await in_thread(key_state, profile)
            status = await in_thread(keyring_status)
            return loaded, states, status

        def show(value: tuple[ProfileSet, dict[str, str], KeyringStatus]) -> None:
            loaded, states, status = value
            current = select or self.selected_name()
            self.profiles.set_profiles(loaded.profiles, loaded.default)
            for name, state in states.items():
                self.profiles.set_key_state(name, state)
            if not status.available:
                why = f" ({status.backend}: {status.problem})" if status.problem else ""
                self.keyring_label.setText(
                    f"Keyring: none available{why}. Keys cannot be stored; a profile can read "
                    "its key from an environment variable instead."
                )
            elif not status.secure:
                self.keyring_label.setText(
                    f"Keyring: {status.backend} stores secrets in plain text; rho-desk refuses "
                    "to store keys there."
                )
            else:
                self.keyring_label.setText(f"Keyring: {status.backend}")
            row = self.profiles.row_of(current) if current else -1
            self.profile_table.selectRow(row if row >= 0 else 0)
            self._fill_combos()

        def failed(exc: BaseException) -> None:
            self.profile_notice.show_text(error_text(exc))

        host.bridge.run(
            read(), on_success=show, on_error=failed, context="Reading provider profiles"
        )

    def selected_name(self) -> str | None:
        index = self.profile_table.currentIndex()
        if not index.isValid() or index.row() >= len(self.profiles.profiles):
            return None
        return str(self.profiles.profiles[index.row()].name)

    def _on_profile_current_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if not current.isValid() or current.row() >= len(self.profiles.profiles):
            return
        p = self.profiles.profiles[current.row()]
        self.name.setText(p.name)
        self.kind.setCurrentIndex(self.kind.findData(p.kind.value))
        self.base_url.setText(p.base_url)
        self.model_name.setText(p.model)
        self.context_window.setValue(p.context_window or 0)
        self.requires_key.setChecked(p.requires_key)
        self.api_key_env.setText(p.api_key_env or "")
        self.reasoning.setChecked(p.reasoning)
        self._show_permission_mode(p.permission_mode)
        self.api_key.clear()
        self.key_status.setText(f"Key: {self.profiles.keys.get(p.name, 'checking…')}")
        self.profile_notice.hide()

    def _show_permission_mode(self, value: str | None) -> None:
        try:
            mode = PermissionMode.parse(value) if value else DEFAULT_MODE
        except InputError:
            mode = DEFAULT_MODE
        self.permission_mode.setCurrentIndex(self.permission_mode.findData(mode.value))

    def form_profile(self) -> ProviderProfile:
        """The profile the form describes.

        Raises:
            ProfileError: a field is invalid (the text says which).
        """
        base: ProviderProfile | None = None
        name = self.selected_name()
        if name is not None:
            base = next((p for p in self.profiles.profiles if p.name == name), None)
        fields: dict[str, Any] = {
            "name": self.name.text().strip(),
            "kind": ProfileKind(self.kind.currentData()),
            "base_url": self.base_url.text().strip(),
            "model": self.model_name.text().strip(),
            "context_window": self.context_window.value() or None,
            "requires_key": self.requires_key.isChecked(),
            "api_key_env": self.api_key_env.text().strip() or None,
            "reasoning": self.reasoning.isChecked(),
            "permission_mode": None
            if self.permission_mode.currentData() == DEFAULT_MODE.value
            else self.permission_mode.currentData(),
        }
        if base is not None and base.name == fields["name"]:
            return base.replace(**fields)  # keeps what the form does not show (headers, pricing...)
        try:
            return ProviderProfile(**fields)
        except TypeError as exc:  # pragma: no cover - fields are typed above
            raise ProfileError(str(exc)) from None

    def save_profile(self) -> None:
        try:
            profile = self.form_profile()
        except ProfileError as exc:
            self.profile_notice.show_text(error_text(exc))
            return
        self.profile_notice.hide()
        self._run_profile_job(
            in_thread(self.host.profiles.upsert, profile),
            f"Saved profile {profile.name}.",
            select=profile.name,
        )

    def _on_add_clicked(self) -> None:
        self.profile_table.clearSelection()
        self.profile_table.setCurrentIndex(self.profiles.index(-1, -1))
        self.name.setText("new-profile")
        self.kind.setCurrentIndex(0)
        self.base_url.setText("https://api.openai.com/v1")
        self.model_name.setText("")
        self.context_window.setValue(0)
        self.requires_key.setChecked(True)
        self.api_key_env.clear()
        self.reasoning.setChecked(False)
        self._show_permission_mode(None)
        self.key_status.setText("Save the profile, then store its key.")
        self.name.setFocus()
        self.name.selectAll()

    def _on_remove_clicked(self) -> None:
        name = self.selected_name()
        if name is None:
            return

        async def remove() -> None:
            await in_thread(self.host.profiles.remove, name)
            await adelete_api_key(name)

        self._run_profile_job(remove(), f"Removed profile {name} and its stored key.")

    def _on_default_clicked(self) -> None:
        name = self.selected_name()
        if name is not None:
            self._run_profile_job(
                in_thread(self.host.profiles.set_default, name),
                f"{name} is the default profile.",
                select=name,
            )

    def store_key(self) -> None:
        """Send the typed key to the keyring (worker thread) and clear the field."""
        name = self.selected_name()
        key = self.api_key.text()
        self.api_key.clear()  # the key is not kept in the widget, whatever happens next
        if name is None:
            self.profile_notice.show_text("Save the profile before storing its key.")
            return
        if not key.strip():
            self.profile_notice.show_text("Paste a key first.")
            return
        self._run_profile_job(
            aset_api_key(name, key.strip()),
            f"Stored the key of {name} in the keyring.",
            select=name,
        )

    def remove_key(self) -> None:
        name = self.selected_name()
        if name is not None:
            self._run_profile_job(
                adelete_api_key(name), f"Removed the key of {name} from the keyring.", select=name
            )

    def _run_profile_job(
        self, coro: Coroutine[Any, Any, object], done_text: str, *, select: str | None = None
    ) -> None:
        self.busy.busy("Working…")

        def done(_value: object) -> None:
            self.busy.done(done_text)
            self.sig_profiles_changed.emit()
            self.host.bridge.emit_changes(OpChanges(settings=True))
            self.reload_profiles(select)

        def failed(exc: BaseException) -> None:
            self.busy.done("Nothing changed.")
            self.profile_notice.show_text(error_text(exc))

        self.host.bridge.run(coro, on_success=done, on_error=failed, context="Provider settings")

    # -- compaction and general ----------------------------------------------------------------------

    def _compaction_tab(self) -> QWidget:
        self.compactor = QComboBox()
        self.compactor.setObjectName("DefaultCompactor")
        self.policy = QComboBox()
        self.policy.setObjectName("CompactionPolicy")
        for value, label in _POLICIES:
            self.policy.addItem(label, value)
        self.threshold = QSpinBox()
        self.threshold.setRange(1, 100_000_000)
        self.threshold.setSingleStep(1000)
        self.keep_tokens, self.keep_messages = budget_spin_boxes()
        form = QFormLayout()
        form.addRow("Default c&ompactor:", self.compactor)
        form.addRow("&Automatic compaction:", self.policy)
        form.addRow("&Threshold:", self.threshold)
        form.addRow("Keep recent (to&kens):", self.keep_tokens)
        form.addRow("Keep recent (&messages):", self.keep_messages)
        note = QLabel(
            "Automatic compaction runs while a conversation is continued, before each model step, when the "
            "history reaches the threshold. Manual compaction (Ctrl+Shift+K) uses the same compactor and "
            "budget."
        )
        note.setWordWrap(True)
        note.setProperty("muted", True)
        tab = QWidget()
        layout = QVBoxLayout(tab)
        layout.addLayout(form)
        layout.addWidget(note)
        layout.addStretch(1)
        self.policy.currentIndexChanged.connect(self._on_policy_changed)
        return tab

    def _general_tab(self) -> QWidget:
        self.data_dir = QLineEdit()
        self.data_dir.setObjectName("DataDirectory")
        self.data_dir.setAccessibleName("Rho data directory")
        self.data_dir.setPlaceholderText("default: $RHO_HOME, else ~/.rho")
        browse = QPushButton("&Browse…")
        browse.clicked.connect(self._on_browse_clicked)
        row = QHBoxLayout()
        row.addWidget(self.data_dir, 1)
        row.addWidget(browse)
        self.continue_profile = QComboBox()
        self.continue_profile.setObjectName("ContinueProfile")
        self.theme = QComboBox()
        self.theme.setObjectName("ThemeChoice")
        for value, label in _THEMES:
            self.theme.addItem(label, value)
        self.team_db = QLineEdit()
        self.team_db.setObjectName("TeamDatabase")
        self.team_db.setPlaceholderText(
            "host=... dbname=... user=... (password: keyring or ~/.pgpass)"
        )
        self.team_db.setToolTip(
            "The team library's PostgreSQL connection string. A password typed here "
            "is moved to the keyring; settings never hold it."
        )
        form = QFormLayout()
        data_label = QLabel("Rho &data directory:")  # a row of a layout gets no buddy by itself
        data_label.setBuddy(self.data_dir)
        form.addRow(data_label, row)
        form.addRow("Continue &with:", self.continue_profile)
        form.addRow("&Theme:", self.theme)
        form.addRow("Tea&m database:", self.team_db)
        tab = QWidget()
        layout = QVBoxLayout(tab)
        layout.addLayout(form)
        layout.addStretch(1)
        return tab

    def _folders_tab(self) -> QWidget:
        self.trusted = QListWidget()
        self.trusted.setObjectName("TrustedFolders")
        self.trusted.setAccessibleName("Folders trusted for the model's tools")
        self.revoke = QPushButton("&Revoke Trust")
        self.revoke.setObjectName("RevokeTrust")
        self.revoke.setToolTip(
            "The model's tools no longer run in the selected folder without asking"
        )
        self.revoke.clicked.connect(self._on_revoke_clicked)
        self.trusted_notice = Banner("warning")
        self.trusted_notice.hide()
        note = QLabel(
            "The model's tools run only in folders you trusted on this machine (a session file names its "
            "folder; it does not grant it). A trusted folder covers its subfolders. Revoking applies at "
            "once: the next turn with tools asks again."
        )
        note.setWordWrap(True)
        note.setProperty("muted", True)
        row = QHBoxLayout()
        row.addStretch(1)
        row.addWidget(self.revoke)
        tab = QWidget()
        layout = QVBoxLayout(tab)
        layout.addWidget(note)
        layout.addWidget(self.trusted_notice)
        layout.addWidget(self.trusted, 1)
        layout.addLayout(row)
        return tab

    def _agents_tab(self) -> QWidget:
        from ...core.agents.base import AGENT_LABELS, AGENTS
        from ...core.agents.formats import default_homes

        defaults = default_homes()
        note = QLabel(
            "The library lists these agents' sessions beside Rho's, with a badge: read, searched and "
            "exported like Rho's, never changed. Continue on one imports it as a Rho session first. "
            "Leave a folder empty for the agent's own default."
        )
        note.setWordWrap(True)
        note.setProperty("muted", True)
        form = QFormLayout()
        self.agent_listed: dict[str, QCheckBox] = {}
        self.agent_home: dict[str, QLineEdit] = {}
        for agent in AGENTS:
            box = QCheckBox(_AGENT_CHECKS.get(agent, AGENT_LABELS[agent]))
            box.setObjectName(f"AgentListed_{agent}")
            box.setToolTip(f"List {AGENT_LABELS[agent]}'s sessions in the library")
            home = QLineEdit()
            home.setObjectName(f"AgentHome_{agent}")
            home.setAccessibleName(f"{AGENT_LABELS[agent]}'s data folder")
            home.setPlaceholderText(f"default: {defaults[agent]}")
            box.toggled.connect(home.setEnabled)
            self.agent_listed[agent], self.agent_home[agent] = box, home
            form.addRow(box, home)
        tab = QWidget()
        layout = QVBoxLayout(tab)
        layout.addWidget(note)
        layout.addLayout(form)
        layout.addStretch(1)
        return tab

    def _agent_choices(self) -> tuple[list[str], dict[str, str]]:
        """The agents ticked, and each agent's folder as typed."""
        listed = [agent for agent, box in self.agent_listed.items() if box.isChecked()]
        return listed, {agent: edit.text().strip() for agent, edit in self.agent_home.items()}

    def reload_trusted(self) -> None:
        """List the trusted folders (read off the GUI thread)."""

        def show(folders: tuple[TrustedFolder, ...]) -> None:
            self.trusted.clear()
            for entry in folders:
                item = QListWidgetItem(str(entry.path))
                item.setData(Qt.ItemDataRole.UserRole, str(entry.path))
                self.trusted.addItem(item)
            self.revoke.setEnabled(bool(folders))
            if folders:
                self.trusted.setCurrentRow(0)

        def failed(exc: BaseException) -> None:
            self.trusted_notice.show_text(error_text(exc))

        self.host.bridge.run(
            in_thread(self.host.trust.folders),
            on_success=show,
            on_error=failed,
            context="Reading the trusted folders",
        )

    def _on_revoke_clicked(self) -> None:
        item: QListWidgetItem | None = self.trusted.currentItem()
        if item is None:
            return
        folder = str(item.data(Qt.ItemDataRole.UserRole))

        def done(_removed: bool) -> None:
            self.busy.done(f"The tools no longer run in {folder} without asking.")
            self.reload_trusted()

        def failed(exc: BaseException) -> None:
            self.trusted_notice.show_text(error_text(exc))

        self.host.bridge.run(
            in_thread(self.host.trust.revoke, folder),
            on_success=done,
            on_error=failed,
            context="Revoking a trusted folder",
        )

    def _load_options(self) -> None:
        s = self.host.settings
        self.policy.setCurrentIndex(self.policy.findData(s.get(PREFS_COMPACTION_POLICY)))
        self.threshold.setValue(s.get(PREFS_COMPACTION_THRESHOLD))
        self.keep_tokens.setValue(s.get(PREFS_COMPACTION_KEEP_TOKENS))
        self.keep_messages.setValue(s.get(PREFS_COMPACTION_KEEP_MESSAGES))
        self.data_dir.setText(s.get(PREFS_DATA_DIR))
        self.team_db.setText(s.get(PREFS_TEAM_DATABASE))
        self.theme.setCurrentIndex(self.theme.findData(s.get(PREFS_THEME)))
        chosen: list[str] = s.get(PREFS_AGENTS_LISTED)
        listed = set(chosen)
        for agent, box in self.agent_listed.items():
            box.setChecked(agent in listed)
            self.agent_home[agent].setText(s.get(PREFS_AGENT_HOMES[agent]))
            self.agent_home[agent].setEnabled(agent in listed)
        self._on_policy_changed()

    def _fill_combos(self) -> None:
        s = self.host.settings
        names = [p.name for p in self.profiles.profiles]
        self.compactor.clear()
        self.compactor.addItem("Local digest (offline)", LOCAL_COMPACTOR)
        for name in names:
            self.compactor.addItem(f"Summary by {name}", name)
        self.compactor.setCurrentIndex(
            max(0, self.compactor.findData(s.get(PREFS_COMPACTION_COMPACTOR)))
        )
        self.continue_profile.clear()
        self.continue_profile.addItem("The default profile", "")
        for name in names:
            self.continue_profile.addItem(name, name)
        self.continue_profile.setCurrentIndex(
            max(0, self.continue_profile.findData(s.get(PREFS_CONTINUE_PROFILE)))
        )

    def _on_policy_changed(self, *_args: object) -> None:
        kind = self.policy.currentData()
        self.threshold.setEnabled(kind != "off")
        self.threshold.setSuffix(" messages" if kind == "messages" else " tokens")

    def _on_browse_clicked(self) -> None:
        dialog = QFileDialog(
            self, "Choose a Rho data directory", self.data_dir.text() or str(Path.home())
        )
        dialog.setFileMode(QFileDialog.FileMode.Directory)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.fileSelected.connect(self.data_dir.setText)
        self.file_dialog = dialog
        dialog.open()

    def apply(self) -> None:
        """Store the non-secret options (and switch theme and data directory now)."""
        host = self.host
        s = host.settings
        s.set(PREFS_COMPACTION_COMPACTOR, str(self.compactor.currentData() or LOCAL_COMPACTOR))
        s.set(PREFS_COMPACTION_POLICY, str(self.policy.currentData()))
        s.set(PREFS_COMPACTION_THRESHOLD, self.threshold.value())
        s.set(PREFS_COMPACTION_KEEP_TOKENS, self.keep_tokens.value())
        s.set(PREFS_COMPACTION_KEEP_MESSAGES, self.keep_messages.value())
        s.set(PREFS_CONTINUE_PROFILE, str(self.continue_profile.currentData() or ""))
        theme = str(self.theme.currentData())
        if theme != s.get(PREFS_THEME):
            s.set(PREFS_THEME, theme)
            host.theme.set_preference(theme)
        listed, homes = self._agent_choices()
        agents_changed = listed != s.get(PREFS_AGENTS_LISTED) or any(
            homes[a] != s.get(PREFS_AGENT_HOMES[a]) for a in homes
        )
        if agents_changed:
            s.set(PREFS_AGENTS_LISTED, listed)
            for agent, home in homes.items():
                s.set(PREFS_AGENT_HOMES[agent], home)
        folder = self.data_dir.text().strip()
        if folder != s.get(PREFS_DATA_DIR):
            s.set(PREFS_DATA_DIR, folder)
            if folder:
                host.open_data_dir(Path(folder).expanduser())
                agents_changed = False  # listed again with the new home
        if agents_changed and host.library.is_open:
            host.bridge.run(host.library.areopen(), context="Listing the other agents' sessions")
        team_db = self.team_db.text().strip()
        saving_team = team_db != s.get(PREFS_TEAM_DATABASE)
        if saving_team:
            from ...team.db import safe_dsn

            # a password typed here never stays on screen: it goes to the keyring, or nowhere
            self.team_db.setText(safe_dsn(team_db) if team_db else "")
            host.bridge.run(
                self._aset_team_database(team_db),
                on_success=self._on_team_database_saved,
                on_error=self._on_team_database_refused,
                context="Setting the team database",
            )
        host.bridge.emit_changes(OpChanges(settings=True))
        self.busy.done(
            "Settings applied; saving the team database…" if saving_team else "Settings applied."
        )
        self.sig_applied.emit()

    async def _aset_team_database(self, dsn: str) -> None:
        """Store ``dsn`` without its password (moved to the keyring), then reload the team list.
        Runs on after the dialog closed (OK): it touches no widget."""
        from ...team.db import keep_password_in_keyring

        stripped = await in_thread(keep_password_in_keyring, dsn) if dsn else ""
        self.host.settings.set(PREFS_TEAM_DATABASE, stripped)
        await self.host.team.areconfigure()  # the team browser lists the new database

    def _on_team_database_saved(self, _result: object) -> None:
        if isValid(self) and self.isVisible():
            self.busy.done("Settings applied.")

    def _on_team_database_refused(self, exc: BaseException) -> None:
        """Nothing of the team database was saved: say why once, in the dialog if it is open."""
        message = f"The team database was not saved: {error_text(exc)}"
        if isValid(self) and self.isVisible():
            self.team_db.setText(self.host.settings.get(PREFS_TEAM_DATABASE))
            self.busy.done(message)
        self.host.notifier.error(message)

    def _on_ok_clicked(self) -> None:
        self.apply()
        self.close()
