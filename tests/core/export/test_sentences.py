"""The sentence pass (``scanner/_sentences``): a word shaped as a credential on the line of a
credential noun of any language, and the noun table's derived stems and spellings."""

from __future__ import annotations

import pytest

from rho_desk.core.export.scanner import SecretScanner
from rho_desk.core.export.scanner._nouns import _stem, cues
from rho_desk.core.export.scanner._sentences import shaped


@pytest.mark.parametrize(
    "value",
    [
        b"Qx7#rT2m!Kpz",  # symbols inside letters and digits
        b"lowq7#zz9!mm",  # one case, two symbols
        b"Autumn2031!",  # both cases and digits, a symbol ending it
        b"Vq3mZk8TpL2wXr7NbY4c",  # random-looking letters and digits
        b"amber-violet-harbor-42",  # words joined by dashes and a number
    ],
)
def test_a_credential_shape(value: bytes) -> None:
    assert shaped(value)


@pytest.mark.parametrize(
    "value",
    [
        b"v3.11.2-beta.4",
        b"OPS-20417",
        b"Issue#8812",
        b"PKCS#12/PKCS#8",
        b"9c1e2f3a4b5c6d7e8f90a1b2c3d4e5f6a7b8c9d0",
        b"6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f",
        b"docs/auth/TokenStore3.md",
        b"X25519PrivateKey",
        b"sessionCacheV2Store",
        b"ops+alerts9@example.org",
        b"#team-2031",
        b"$SECRET_V2",
        b"[a-zA-Z0-9]+",
        b"q=1&page=2",
        b"map[key]*2+x1",
    ],
)
def test_a_look_alike_shape(value: bytes) -> None:
    assert not shaped(value)


def test_stems_take_the_ending_and_every_spelling() -> None:
    assert _stem("jelszó") == "jelsz"
    assert _stem("парола") == "парол"
    assert _stem("パスワード") == "パスワード"  # no letter case: kept whole
    nouns, whole, _ = cues()
    assert "Парол".encode() in nouns and "ПАРОЛ".encode() in nouns
    assert b"pin" in whole


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("A szerver jelszava most Qx7#rT2m!Kpz lett.", "Qx7#rT2m!Kpz"),
        ("Паролата на рутера вече е Qx7#rT2m!Kpz", "Qx7#rT2m!Kpz"),
        ("私のAPIトークンはVq3mZk8TpL2wXr7NbY4cでした", "Vq3mZk8TpL2wXr7NbY4c"),
        ("try Qx7#rT2m!Kpz as the password", "Qx7#rT2m!Kpz"),
    ],
)
def test_a_shaped_word_beside_a_noun_is_redacted(text: str, secret: str) -> None:
    data = text.encode()
    hits = SecretScanner().scan(data)
    assert any(data[h.start : h.end].decode() == secret for h in hits), hits


@pytest.mark.parametrize(
    "text",
    [
        "The password reset fix shipped in v3.11.2-beta.4, see OPS-20417.",
        "Az új jelszó szabály a docs/auth/TokenStore3.md fájlban van.",
        "Токен живёт 900 секунд, затем нужен новый.",
        "Keep X25519PrivateKey objects out of the token cache.",
    ],
)
def test_a_look_alike_beside_a_noun_is_kept(text: str) -> None:
    assert SecretScanner().scan(text.encode()) == []


def test_a_noun_at_a_buffer_start_is_read_from_its_first_byte() -> None:
    """A credential noun on the first line of a buffer (no line break before it) is read whole, as
    on any later line."""
    line = b'keychain.set("Sw1ft#Keych4in", forKey: "token")'
    for text in (line, b"import KeychainAccess\n" + line):
        hits = SecretScanner().scan(text)
        assert [text[h.start : h.end] for h in hits] == [b"Sw1ft#Keych4in"], text
