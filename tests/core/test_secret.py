"""SecretString never shows itself; the scrubber removes known and credential-looking secrets."""

from __future__ import annotations

import base64
import copy
import json
import pickle

import msgspec
import pytest

from rho_desk.core.secrets.scrub import REDACTED, Scrubber, SecretString, strip_query


def test_secret_string_never_shows_its_value() -> None:
    secret = SecretString("sk-very-secret-1234")
    assert repr(secret) == "SecretString([REDACTED])"
    assert str(secret) == f"{secret}" == f"{secret!s:>30}".strip() == REDACTED
    assert "sk-very" not in repr([secret, {"k": secret}])
    assert secret.expose_secret() == "sk-very-secret-1234"
    assert secret == SecretString("sk-very-secret-1234") and secret != SecretString("other")
    assert copy.deepcopy(secret) is secret
    with pytest.raises(TypeError):
        pickle.dumps(secret)
    with pytest.raises(TypeError):
        msgspec.json.encode(secret)
    with pytest.raises(TypeError):
        json.dumps(secret)
    assert not hasattr(secret, "__dict__")


def test_strip_query_removes_userinfo_query_and_fragment() -> None:
    assert (
        strip_query("https://u:p@host.example:8443/v1/x?sig=abc#frag")
        == "https://host.example:8443/v1/x"
    )
    assert strip_query("http://[::1]:11434/v1?key=1") == "http://[::1]:11434/v1"


def test_scrubber_removes_known_secrets_in_every_encoding() -> None:
    secret = "RHO_AUDIT_API_KEY_7f3a"
    scrub = Scrubber([SecretString(secret)])
    samples = [
        f"key {secret} rejected",
        f"key {secret.lower()} rejected",
        "q=RHO%5FAUDIT%5FAPI%5FKEY%5F7f3a",
        "b64 " + base64.b64encode(secret.encode()).decode(),
    ]
    for sample in samples:
        cleaned = scrub.known(sample)
        assert "7f3a" not in cleaned.lower(), sample
        assert REDACTED in cleaned


def test_scrubber_masks_credential_like_tokens_and_url_queries() -> None:
    scrub = Scrubber()
    text = (
        "Incorrect API key provided: sk-proj-abcdefghijklmnop1234. "
        "See https://platform.example.com/account?token=zzzsecret999 or "
        "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9 for /home/user/project/src/main.rs"
    )
    cleaned = scrub(text)
    assert "abcdefghijklmnop1234" not in cleaned
    assert "zzzsecret999" not in cleaned
    assert "eyJhbGciOiJIUzI1NiJ9" not in cleaned
    assert "Incorrect API key provided" in cleaned
    assert "https://platform.example.com/account" in cleaned
    assert "/home/user/project/src/main.rs" in cleaned  # paths stay readable
    assert repr(Scrubber(["sk-abcdef"])) == "Scrubber([REDACTED])"


def test_short_values_are_not_scrubbed() -> None:
    assert Scrubber(["ab"]).known("abc ab") == "abc ab"
