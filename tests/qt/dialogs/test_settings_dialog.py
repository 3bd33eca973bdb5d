"""The settings dialog: profiles and their keys (keyring, off-thread, never kept), compaction
defaults, data directory and theme through the typed settings registry."""

from __future__ import annotations

from pathlib import Path

from rho_desk.providers.credentials import SERVICE
from rho_desk.providers.profiles import ProfileKind, ProfileStore
from rho_desk.qt.services.settings import (
    PREFS_COMPACTION_COMPACTOR,
    PREFS_COMPACTION_POLICY,
    PREFS_COMPACTION_THRESHOLD,
    PREFS_CONTINUE_PROFILE,
    PREFS_DATA_DIR,
    PREFS_THEME,
    policy_from_settings,
)

from ..conftest import laid_out, until

KEY = "sk-settings-" + "q1w2e3r4t5y6" * 3


def _dialog(make_window, run):
    context = make_window()
    dialog = context.session_commands.show_dialog("settings")
    run(until(lambda: bool(dialog.profiles.keys)))  # the profiles and their keys' states are read
    return context, dialog


def test_a_new_profile_and_its_key(make_window, run, memory_keyring, isolated_dirs: Path) -> None:
    context, dialog = _dialog(make_window, run)
    assert dialog.profiles.rowCount() == 1 and dialog.profiles.keys["ollama-local"] == "not needed"
    dialog._on_add_clicked()
    dialog.name.setText("work")
    dialog.base_url.setText("https://llm.example.com/v1?key=oops")
    dialog.model_name.setText("gpt-work")
    dialog.save_profile()
    assert "query string" in dialog.profile_notice.text.text()  # refused: keys never go in a URL
    dialog.base_url.setText("https://llm.example.com/v1")
    dialog.save_profile()
    run(
        until(
            lambda: (
                dialog.profiles.keys.get("work") == "missing" and dialog.selected_name() == "work"
            )
        )
    )
    stored = ProfileStore().get("work")
    assert stored.kind is ProfileKind.OPENAI_COMPATIBLE and stored.model == "gpt-work"
    assert dialog.selected_name() == "work" and dialog.profiles.keys["work"] == "missing"
    # the key goes to the keyring, in a worker thread; the field is cleared at once
    dialog.api_key.setText(KEY)
    dialog.store_key()
    assert dialog.api_key.text() == ""
    run(until(lambda: dialog.profiles.keys.get("work") == "keyring"))
    assert memory_keyring.entries[(SERVICE, "profile:work")] == KEY
    assert dialog.profiles.keys["work"] == "keyring"
    # never in QSettings, never in the profiles file, never on screen
    context.settings.sync()
    for path in (isolated_dirs / "settings").rglob("*"):
        if path.is_file():
            assert KEY not in path.read_text(errors="replace")
    assert KEY not in ProfileStore().path.read_text()
    assert all(KEY not in w.text() for w in dialog.findChildren(type(dialog.api_key)))
    dialog.remove_key()
    run(until(lambda: dialog.profiles.keys.get("work") == "missing"))
    assert (SERVICE, "profile:work") not in memory_keyring.entries and dialog.profiles.keys[
        "work"
    ] == "missing"
    dialog._on_default_clicked()
    run(until(lambda: dialog.profiles.default == "work"))
    assert ProfileStore().load().default == "work"
    dialog._on_remove_clicked()
    run(until(lambda: [p.name for p in dialog.profiles.profiles] == ["ollama-local"]))
    assert [p.name for p in ProfileStore().profiles()] == ["ollama-local"]


def test_compaction_defaults_data_dir_and_theme(make_window, run, tmp_path: Path) -> None:
    context, dialog = _dialog(make_window, run)
    dialog.policy.setCurrentIndex(dialog.policy.findData("tokens"))
    dialog.threshold.setValue(50_000)
    dialog.continue_profile.setCurrentIndex(dialog.continue_profile.findData("ollama-local"))
    dialog.compactor.setCurrentIndex(dialog.compactor.findData("ollama-local"))
    home = tmp_path / "rho"
    (home / "sessions").mkdir(parents=True)
    dialog.data_dir.setText(str(home))
    dialog.theme.setCurrentIndex(dialog.theme.findData("dark"))
    applied: list[bool] = []
    dialog.sig_applied.connect(lambda: applied.append(True))
    dialog.apply()
    run(until(lambda: context.library.home == home and context.theme.theme.dark))
    s = context.settings
    assert (
        applied
        and s.get(PREFS_COMPACTION_POLICY) == "tokens"
        and s.get(PREFS_COMPACTION_THRESHOLD) == 50_000
    )
    assert policy_from_settings(s).trigger_tokens == 50_000
    assert (
        s.get(PREFS_COMPACTION_COMPACTOR) == "ollama-local"
        and s.get(PREFS_CONTINUE_PROFILE) == "ollama-local"
    )
    assert s.get(PREFS_THEME) == "dark" and context.theme.theme.dark
    assert s.get(PREFS_DATA_DIR) == str(home) and context.library.home == home
    # off again: no policy
    dialog.policy.setCurrentIndex(dialog.policy.findData("off"))
    assert not dialog.threshold.isEnabled()
    dialog.apply()
    assert policy_from_settings(s) is None


def test_a_long_model_name_never_pushes_the_key_column_out_of_view(make_window, run) -> None:
    from rho_desk.providers.profiles import ProviderProfile

    model = "/home/someone/models/" + "SmolLM2-135M-Instruct-" * 8 + "Q4_1.gguf"
    ProfileStore().upsert(
        ProviderProfile(
            name="local-gguf",
            kind=ProfileKind.OPENAI_COMPATIBLE,
            base_url="http://127.0.0.1:8080/v1",
            model=model,
            requires_key=False,
        )
    )
    _context, dialog = _dialog(make_window, run)
    dialog.resize(760, 520)
    run(laid_out())
    table = dialog.profile_table
    header = table.horizontalHeader()
    key = dialog.profiles.COLUMNS.index("Key")
    right_edge = header.sectionViewportPosition(key) + header.sectionSize(key)
    assert header.sectionSize(key) >= header.sectionSizeFromContents(key).width() - 2
    assert right_edge <= table.viewport().width()


def test_a_profile_chooses_what_the_tools_may_do(
    make_window, run, memory_keyring, isolated_dirs: Path
) -> None:
    _context, dialog = _dialog(make_window, run)
    dialog._on_add_clicked()
    assert dialog.permission_mode.currentData() == "supervised"  # the default
    dialog.name.setText("local")
    dialog.base_url.setText("http://127.0.0.1:8080/v1")
    dialog.model_name.setText("smol")
    dialog.save_profile()
    run(
        until(
            lambda: (
                dialog.busy.label.text() == "Saved profile local."
                and "local" in dialog.profiles.keys
            )
        )
    )
    assert ProfileStore().get("local").permission_mode is None  # the default is not written out
    dialog.permission_mode.setCurrentIndex(dialog.permission_mode.findData("plan"))
    dialog.save_profile()
    run(until(lambda: ProfileStore().get("local").permission_mode == "plan"))
    assert ProfileStore().get("local").permission_mode == "plan"
    assert '"permission_mode": "plan"' in ProfileStore().path.read_text()


def test_a_team_password_without_a_keyring_is_refused_once_and_never_left_on_screen(
    make_window, run, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    import keyring
    import keyring.backends.fail

    from rho_desk.qt.services.settings import PREFS_TEAM_DATABASE

    monkeypatch.setattr(keyring, "get_keyring", lambda: keyring.backends.fail.Keyring())
    context, dialog = _dialog(make_window, run)
    dialog.team_db.setText("host=db.example dbname=team user=maya password=hunter2-secret")
    dialog.apply()
    assert "hunter2" not in dialog.team_db.text()  # at once, before the keyring answers
    run(until(lambda: dialog.busy.label.text().startswith("The team database was not saved: ")))
    assert dialog.busy.label.text().startswith("The team database was not saved: ")
    assert "Settings applied" not in dialog.busy.label.text()
    assert (
        "hunter2" not in dialog.team_db.text() and context.settings.get(PREFS_TEAM_DATABASE) == ""
    )
    errors = [
        n.text
        for n in context.notifier.history
        if n.text.startswith("The team database was not saved")
    ]
    assert len(errors) == 1 and "~/.pgpass" in errors[0] and "hunter2" not in errors[0]


def test_every_form_label_with_a_mnemonic_has_a_buddy(make_window, run) -> None:
    """A label whose field is a layout gets no buddy from the form: its "&" shows as text, and
    its mnemonic goes nowhere (walkthrough S5: "Rho &data directory:")."""
    from PySide6.QtWidgets import QLabel

    _context, dialog = _dialog(make_window, run)
    labels = [
        label for label in dialog.findChildren(QLabel) if "&" in label.text().replace("&&", "")
    ]
    assert labels and all(label.buddy() is not None for label in labels), [
        label.text() for label in labels if label.buddy() is None
    ]
    data = next(label for label in labels if label.text() == "Rho &data directory:")
    assert data.buddy() is dialog.data_dir


def test_a_key_stored_for_a_keyless_profile_is_said_where_it_is(
    make_window, run, memory_keyring
) -> None:
    """The notice, the Key column and the line under the form agree: a key stored for the local
    server (which needs none) is sent with its requests, so it reads "keyring", not "not needed"
    beside "Stored the key of ollama-local in the keyring"."""
    _context, dialog = _dialog(make_window, run)
    assert dialog.selected_name() == "ollama-local"
    assert dialog.key_status.text() == "Key: not needed"
    dialog.api_key.setText(KEY)
    dialog.store_key()
    run(until(lambda: dialog.profiles.keys.get("ollama-local") == "keyring"))
    assert memory_keyring.entries[(SERVICE, "profile:ollama-local")] == KEY
    assert dialog.busy.label.text() == "Stored the key of ollama-local in the keyring."
    assert dialog.profiles.keys["ollama-local"] == "keyring"
    row = dialog.profiles.row_of("ollama-local")
    assert dialog.profiles.index(row, 3).data() == "keyring"
    assert dialog.key_status.text() == "Key: keyring"
    dialog.remove_key()
    run(until(lambda: dialog.profiles.keys.get("ollama-local") == "not needed"))
    assert dialog.profiles.keys["ollama-local"] == "not needed"
    assert dialog.key_status.text() == "Key: not needed"
