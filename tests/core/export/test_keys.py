"""The export's keys through the core interface: the fingerprint key, the signing key, public keys."""

from __future__ import annotations

import pytest

from rho_desk.core.errors import CredentialsUnavailable, InputError
from rho_desk.core.export import (
    fingerprint_key,
    key_id,
    parse_public_key,
    public_key_text,
    signing_key,
)
from rho_desk.core.secrets.keys import FINGERPRINT_KEY, SIGNING_KEY, decode_key, encode_key
from rho_desk.keys import MemoryKeySource


def test_keys_come_from_the_source_and_are_stable() -> None:
    source = MemoryKeySource()
    key = fingerprint_key(source)
    assert len(key) == 32 and fingerprint_key(source) == key == source.keys[FINGERPRINT_KEY]
    assert key_id(key) == key_id(fingerprint_key(source)) and key_id(key).startswith("kid:")
    assert key_id(key) != key_id(bytes(32))
    signer = signing_key(source)
    assert source.keys[SIGNING_KEY] != key  # two keys, never one reused for both jobs
    assert public_key_text(signer) == public_key_text(signing_key(source))


def test_public_keys_round_trip_and_bad_ones_are_input_errors() -> None:
    text = public_key_text(signing_key(MemoryKeySource()))
    assert text.startswith("ed25519:") and len(text) == len("ed25519:") + 44
    assert public_key_text(parse_public_key(text)) == text
    assert public_key_text(parse_public_key(text.removeprefix("ed25519:") + "\n")) == text
    for bad in ("", "ed25519:", "ed25519:AAAA", "ssh-ed25519 AAAAC3Nza"):
        with pytest.raises(InputError, match="not an Ed25519 public key"):
            parse_public_key(bad)


def test_stored_key_text_is_checked() -> None:
    key = bytes(range(32))
    assert decode_key(encode_key(key) + "\n", "n", "here") == key
    with pytest.raises(CredentialsUnavailable, match="The entry n in here is not a rho-desk key"):
        decode_key("c2hvcnQ=", "n", "here")
