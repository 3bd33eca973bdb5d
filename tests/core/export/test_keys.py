"""The fingerprint key: created once in keyring, stable, never silently replaced."""

from __future__ import annotations

import base64

import keyring
import pytest

from rho_desk.core.errors import CredentialsUnavailable
from rho_desk.core.export import KEY_SERVICE, KEY_USERNAME, fingerprint_key, key_id, stored_key_text


def test_created_on_first_use_then_stable(memory_keyring) -> None:  # type: ignore[no-untyped-def]
    assert stored_key_text() is None
    key = fingerprint_key()
    assert len(key) == 32
    assert base64.b64decode(memory_keyring.entries[(KEY_SERVICE, KEY_USERNAME)]) == key
    assert fingerprint_key() == key
    assert key_id(key) == key_id(fingerprint_key()) and key_id(key).startswith("kid:")
    assert key_id(key) != key_id(bytes(32))


def test_a_foreign_value_is_not_replaced(memory_keyring) -> None:  # type: ignore[no-untyped-def]
    memory_keyring.entries[(KEY_SERVICE, KEY_USERNAME)] = "not a key"
    with pytest.raises(CredentialsUnavailable, match="not an export fingerprint key"):
        fingerprint_key()
    assert memory_keyring.entries[(KEY_SERVICE, KEY_USERNAME)] == "not a key"


def test_no_backend_is_credentials_unavailable() -> None:
    from keyring.backends.fail import Keyring as Fail

    previous = keyring.get_keyring()
    keyring.set_keyring(Fail())
    try:
        with pytest.raises(CredentialsUnavailable, match="no system keyring") as info:
            fingerprint_key()
        assert "Traceback" not in info.value.text()
    finally:
        keyring.set_keyring(previous)
