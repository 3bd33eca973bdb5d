"""The typed settings registry: types survive an INI round trip, secrets are refused, versions upgrade."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QSettings

from rho_desk.core.errors import BugError
from rho_desk.qt.services import settings as S


def test_values_round_trip_through_an_ini_file_with_their_types(isolated_dirs: Path) -> None:
    s = S.Settings()
    s.set(S.PREFS_THEME, "dark")
    s.set(S.PREFS_LIVE_POLL_MS, 1500)
    s.set(S.PREFS_FOLLOW_LIVE, False)
    s.set(S.PERSIST_WINDOW_GEOMETRY, b"\x00\x01geometry")
    s.set(S.PERSIST_RECENT_FILES, ["/only/one.jsonl"])
    s.sync()
    assert str(isolated_dirs / "settings") in s.file_name()
    fresh = S.Settings(QSettings())
    assert fresh.get(S.PREFS_THEME) == "dark"
    assert fresh.get(S.PREFS_LIVE_POLL_MS) == 1500
    assert fresh.get(S.PREFS_FOLLOW_LIVE) is False
    assert fresh.get(S.PERSIST_WINDOW_GEOMETRY) == b"\x00\x01geometry"
    # INI files hand back a one-element list as a bare string: still a list here
    assert fresh.get(S.PERSIST_RECENT_FILES) == ["/only/one.jsonl"]


def test_invalid_stored_values_read_as_the_default() -> None:
    raw = QSettings()
    raw.setValue("prefs/theme", "purple")
    raw.setValue("prefs/live/poll_ms", "often")
    raw.setValue("prefs/stats/context_window", "-5")
    s = S.Settings(raw)
    assert s.get(S.PREFS_THEME) == "system"
    assert s.get(S.PREFS_LIVE_POLL_MS) == 1000
    assert s.get(S.PREFS_CONTEXT_WINDOW) == 200_000


def test_setting_a_value_that_does_not_fit_is_a_bug() -> None:
    s = S.Settings()
    with pytest.raises(BugError):
        s.set(S.PREFS_THEME, "purple")
    with pytest.raises(BugError):
        s.set(S.PREFS_LIVE_POLL_MS, True)  # a bool is not an int here
    with pytest.raises(BugError):
        s.set(S.PREFS_LIVE_POLL_MS, 10)  # below the minimum


@pytest.mark.parametrize(
    "key", ["prefs/provider/api_key", "prefs/openai/token", "persist/secret", "prefs/password"]
)
def test_credential_like_keys_cannot_be_declared(key: str) -> None:
    with pytest.raises(BugError, match="keyring"):
        S.declare(key, str, "", "no")
    assert key not in S.REGISTRY


def test_keys_outside_the_groups_and_duplicates_are_refused() -> None:
    with pytest.raises(BugError):
        S.declare("theme", str, "x", "no group")
    with pytest.raises(BugError):
        S.declare("prefs/theme", str, "system", "twice")


def test_undeclared_settings_are_refused() -> None:
    rogue = S.Setting("prefs/rogue", str, "", "not in the registry")
    with pytest.raises(BugError):
        S.Settings().get(rogue)


def test_no_declared_setting_holds_a_secret() -> None:
    for key in S.REGISTRY:
        assert not S._SECRET_NAME.search(key), key


def test_upgrade_hooks_run_once_and_the_version_is_stored(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    monkeypatch.setattr(S, "SETTINGS_VERSION", 2)
    monkeypatch.setitem(S.UPGRADES, 2, lambda qs: calls.append(2))
    raw = QSettings()
    raw.setValue("settings_version", 1)
    s = S.Settings(raw)
    assert calls == [2] and s.stored_version == 2
    S.Settings(QSettings())
    assert calls == [2]


def test_a_newer_settings_file_is_read_but_never_downgraded() -> None:
    raw = QSettings()
    raw.setValue("settings_version", 99)
    s = S.Settings(raw)
    assert s.stored_version == 99


def test_recent_files_are_unique_newest_first_and_capped() -> None:
    s = S.Settings()
    for i in range(14):
        s.add_recent_file(f"/s/{i}.jsonl")
    s.add_recent_file("/s/5.jsonl")
    files = s.recent_files()
    assert (
        files[0] == "/s/5.jsonl"
        and len(files) == S.RECENT_FILES_MAX
        and len(set(files)) == len(files)
    )
    s.remove_recent_file("/s/5.jsonl")
    assert "/s/5.jsonl" not in s.recent_files()
