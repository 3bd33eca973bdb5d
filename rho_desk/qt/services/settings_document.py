"""Settings export and import: the user's preferences as a JSON document people can keep or share.

File → Export Settings writes every ``prefs/`` option (what the user chose: theme, data
directory, browser, live updates, compaction defaults...) to a JSON file; File → Import Settings
reads one back. ``persist/`` options (window geometry, recent files) stay on the machine. The
document holds no secret: settings never do (``declare`` refuses names that look like
credentials; keys live in the keyring), so an export can be passed around.

The document is checked by pydantic models built from the settings registry: every key must be
a declared preference, every value must have its declared type, choices and minimum. A problem
is reported as an :class:`~rho_desk.core.errors.InputError` naming the file, the field and the
reason, and nothing is applied unless the whole document is valid::

    {"format": "rho-desk-settings", "version": 1,
     "settings": {"prefs/theme": "dark", "prefs/live/poll_ms": 500}}
"""

from __future__ import annotations

import json
from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model

from ...core.errors import InputError
from .settings import REGISTRY, Setting, Settings

__all__ = [
    "DOCUMENT_FORMAT",
    "DOCUMENT_VERSION",
    "SettingsDocument",
    "export_settings",
    "import_settings",
    "read_settings",
]

DOCUMENT_FORMAT: Final = "rho-desk-settings"
DOCUMENT_VERSION: Final = 1
_PREFS: Final = "prefs/"


class SettingsDocument(BaseModel):
    """The envelope of a settings file; ``settings`` is checked against the registry."""

    model_config = ConfigDict(extra="forbid", strict=True)

    format: Literal["rho-desk-settings"]
    version: int
    settings: dict[str, Any]


def _preferences() -> list[Setting[Any]]:
    return [s for key, s in sorted(REGISTRY.items()) if key.startswith(_PREFS)]


def _annotation(setting: Setting[Any]) -> Any:
    if setting.choices:
        return Literal[setting.choices]
    if setting.type is list:
        return list[str]
    return setting.type


def _values_model() -> type[BaseModel]:
    """A model with one optional field per preference (its key as the alias)."""
    fields: dict[str, Any] = {}
    for number, setting in enumerate(_preferences()):
        fields[f"f{number}"] = (
            _annotation(setting) | None,
            Field(None, alias=setting.key, ge=setting.minimum),
        )
    model: type[BaseModel] = create_model(
        "Preferences", __config__=ConfigDict(extra="forbid", strict=True), **fields
    )
    return model


def export_settings(settings: Settings) -> bytes:
    """Every preference's current value, as the JSON document (UTF-8, ends with a newline)."""
    values = {setting.key: settings.get(setting) for setting in _preferences()}
    document = SettingsDocument(format=DOCUMENT_FORMAT, version=DOCUMENT_VERSION, settings=values)
    return (json.dumps(document.model_dump(), indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def read_settings(data: bytes, *, source: str) -> list[tuple[Setting[Any], Any]]:
    """The preferences a settings document sets, checked against the registry (nothing applied).

    Raises:
        InputError: not JSON, not a settings document, written by a newer rho-desk, or a key or
            value that is not a valid preference (names the file, the field and the reason).
    """
    try:
        raw = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise InputError("not UTF-8 text", source=source) from None
    except json.JSONDecodeError as exc:
        raise InputError(f"not valid JSON ({exc.msg})", source=source, line=exc.lineno) from None
    try:
        document = SettingsDocument.model_validate(raw)
    except ValidationError as exc:
        raise _located(exc, source, "$") from None
    if document.version > DOCUMENT_VERSION:
        raise InputError(
            f"written by a newer rho-desk (version {document.version}; this one reads "
            f"{DOCUMENT_VERSION})",
            source=source,
            path="$.version",
        )
    try:
        checked = _values_model().model_validate(document.settings)
    except ValidationError as exc:
        raise _located(exc, source, "$.settings") from None
    by_key = {s.key: s for s in _preferences()}
    values = checked.model_dump(by_alias=True, exclude_unset=True)
    return [(by_key[key], value) for key, value in values.items()]


def import_settings(settings: Settings, data: bytes, *, source: str) -> list[str]:
    """Apply a settings document (all of it, or nothing if any part is invalid).

    Returns:
        The keys that were set.

    Raises:
        InputError: see :func:`read_settings`.
    """
    values = read_settings(data, source=source)
    for setting, value in values:
        settings.set(setting, value)
    return [setting.key for setting, _value in values]


def _located(exc: ValidationError, source: str, root: str) -> InputError:
    first = exc.errors(include_url=False)[0]
    path = root + "".join(
        f"[{part}]"
        if isinstance(part, int)
        else f".{part}"
        if part.isidentifier()
        else f"[{json.dumps(part)}]"
        for part in first["loc"]
    )
    reason = (
        "not a preference rho-desk knows"
        if first["type"] == "extra_forbidden"
        else str(first["msg"])
    )
    return InputError(reason, source=source, path=path)
