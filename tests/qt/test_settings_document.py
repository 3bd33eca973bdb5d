"""Settings export and import: a JSON document of the preferences, checked field by field, no secret."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from rho_desk.core.errors import InputError
from rho_desk.providers.credentials import set_api_key
from rho_desk.providers.profiles import ProfileKind, ProfileStore, ProviderProfile
from rho_desk.qt.app import AppContext
from rho_desk.qt.services import settings as S
from rho_desk.qt.services.settings_document import export_settings, import_settings, read_settings

from .conftest import Run, until

SECRET = "sk-canary-settings-0123456789abcdef"


def _document(**settings: object) -> bytes:
    return json.dumps({"format": "rho-desk-settings", "version": 1, "settings": settings}).encode()


def test_an_export_imports_back_into_fresh_settings() -> None:
    source = S.Settings()
    source.set(S.PREFS_THEME, "dark")
    source.set(S.PREFS_LIVE_POLL_MS, 2500)
    source.set(S.PREFS_FOLLOW_LIVE, False)
    data = export_settings(source)
    target = S.Settings()
    target.set(S.PREFS_THEME, "light")
    target.set(S.PREFS_LIVE_POLL_MS, 1000)
    keys = import_settings(target, data, source="exported.json")
    assert target.get(S.PREFS_THEME) == "dark"
    assert target.get(S.PREFS_LIVE_POLL_MS) == 2500
    assert target.get(S.PREFS_FOLLOW_LIVE) is False
    assert "prefs/theme" in keys and all(k.startswith("prefs/") for k in keys)


def test_the_export_holds_preferences_only_and_no_secret() -> None:
    profile = ProviderProfile(
        name="canary",
        kind=ProfileKind.OPENAI_COMPATIBLE,
        base_url="https://api.example.com/v1",
        model="m",
    )
    ProfileStore().upsert(profile, make_default=True)
    set_api_key(profile, SECRET)
    settings = S.Settings()
    settings.set(S.PERSIST_RECENT_FILES, ["/home/someone/private.jsonl"])
    settings.set(S.PERSIST_WINDOW_GEOMETRY, b"geometry")
    data = export_settings(settings)
    document = json.loads(data)
    assert document["format"] == "rho-desk-settings" and document["version"] == 1
    assert document["settings"] and all(key.startswith("prefs/") for key in document["settings"])
    assert SECRET.encode() not in data and b"private.jsonl" not in data


@pytest.mark.parametrize(
    ("data", "path", "reason"),
    [
        (
            _document(**{"prefs/theme": "purple"}),
            '$.settings["prefs/theme"]',
            "'system', 'light' or 'dark'",
        ),
        (
            _document(**{"prefs/live/poll_ms": 5}),
            '$.settings["prefs/live/poll_ms"]',
            "greater than or equal to 200",
        ),
        (
            _document(**{"prefs/live/poll_ms": "500"}),
            '$.settings["prefs/live/poll_ms"]',
            "valid integer",
        ),
        (
            _document(**{"prefs/live/follow": "yes"}),
            '$.settings["prefs/live/follow"]',
            "valid boolean",
        ),
        (
            _document(**{"persist/recent_files": []}),
            '$.settings["persist/recent_files"]',
            "not a preference",
        ),
        (
            b'{"format": "something-else", "version": 1, "settings": {}}',
            "$.format",
            "rho-desk-settings",
        ),
        (
            b'{"format": "rho-desk-settings", "version": 9, "settings": {}}',
            "$.version",
            "newer rho-desk",
        ),
    ],
)
def test_an_invalid_document_names_the_file_the_field_and_the_reason(
    data: bytes, path: str, reason: str
) -> None:
    settings = S.Settings()
    settings.set(S.PREFS_THEME, "light")
    with pytest.raises(InputError) as caught:
        import_settings(settings, data, source="shared.json")
    error = caught.value
    assert error.source == "shared.json" and error.path == path and reason in error.reason
    assert "shared.json" in error.text() and path in error.text()
    assert settings.get(S.PREFS_THEME) == "light"


def test_nothing_is_applied_when_any_value_is_invalid() -> None:
    settings = S.Settings()
    with pytest.raises(InputError):
        import_settings(
            settings, _document(**{"prefs/theme": "dark", "prefs/live/poll_ms": 1}), source="x.json"
        )
    assert settings.get(S.PREFS_THEME) == "system"


def test_broken_json_is_located_by_line() -> None:
    with pytest.raises(InputError) as caught:
        read_settings(b'{"format": "rho-desk-settings",\n "version": 1,,\n}', source="broken.json")
    assert caught.value.line == 2 and caught.value.source == "broken.json"


def test_file_menu_exports_and_imports_settings(
    make_window: Callable[..., AppContext], run: Run, tmp_path: Path
) -> None:
    context = make_window(start=False, show=False)
    commands = context.window.commands
    assert context.actions.attached("file.export_settings") and context.actions.attached(
        "file.import_settings"
    )
    context.settings.set(S.PREFS_THEME, "dark")
    target = tmp_path / "mine.json"
    commands.export_settings(target)
    run(
        until(
            lambda: (
                target.exists()
                and json.loads(target.read_bytes())["settings"]["prefs/theme"] == "dark"
            )
        )
    )
    assert json.loads(target.read_bytes())["settings"]["prefs/theme"] == "dark"
    context.settings.set(S.PREFS_THEME, "light")
    commands.import_settings(target)
    run(until(lambda: context.theme.preference == "dark"))
    assert context.settings.get(S.PREFS_THEME) == "dark"
    assert context.theme.preference == "dark"
    notices = [n.text for n in context.notifier.history]
    assert any("Imported" in t for t in notices), notices
