"""Seed phrases by what they are (``_seeds``, rule ``seed-phrase``): the BIP-39 wordlist as
shipped, its check, and what is and is not read as a wallet's mnemonic."""

from __future__ import annotations

import hashlib
import json
import random

import pytest

from rho_desk.core.export import SecretScanner
from rho_desk.core.export.scanner._seeds import WORDLIST, mnemonic

# BIP-39's published test vectors (entropy, mnemonic), from the BIP's reference implementation
VECTORS = [
    ("7f" * 16, "legal winner thank year wave sausage worth useful legal winner thank yellow"),
    ("80" * 16, "letter advice cage absurd amount doctor acoustic avoid letter advice cage above"),
    ("ff" * 16, "zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo wrong"),
]


def _seeds(text: str) -> list[str]:
    data = json.dumps({"text": text}).encode()
    return [
        data[h.start : h.end].decode()
        for h in SecretScanner([]).scan(data)
        if h.rule == "seed-phrase"
    ]


def test_the_wordlist_is_the_published_one() -> None:
    raw = b"\n".join(WORDLIST) + b"\n"
    digest = hashlib.sha256(raw).hexdigest()
    assert digest == "2f5eed53a4727b4bf8880d8f3f199efc90e58503646d9ff8eff3a2ed3b24dbda"
    assert len(WORDLIST) == 2048 and WORDLIST[0] == b"abandon" and WORDLIST[-1] == b"zoo"


def _from_entropy(entropy: bytes) -> list[bytes]:
    bits = int.from_bytes(entropy, "big")
    cs = len(entropy) * 8 // 32
    bits = bits << cs | hashlib.sha256(entropy).digest()[0] >> (8 - cs)
    n = (len(entropy) * 8 + cs) // 11
    return [WORDLIST[bits >> (11 * (n - 1 - i)) & 2047] for i in range(n)]


@pytest.mark.parametrize(("entropy", "phrase"), VECTORS)
def test_the_published_vectors_pass_the_check(entropy: str, phrase: str) -> None:
    assert b" ".join(_from_entropy(bytes.fromhex(entropy))) == phrase.encode()
    # "zoo" eleven times is no wallet's: fewer than half its words are distinct
    assert mnemonic(phrase.encode().split()) == (len(set(phrase.split())) * 2 >= 12)


def test_random_wordlist_words_pass_about_once_in_sixteen() -> None:
    rng = random.Random(39)
    passed = sum(mnemonic([rng.choice(WORDLIST) for _ in range(12)]) for _ in range(4000))
    assert 4000 / 16 * 0.7 < passed < 4000 / 16 * 1.5  # BIP-39's 1/16, Electrum's 1/256 + 3/4096


@pytest.mark.parametrize("sep", [" ", ", ", "\n", "\n{n}. ", " {n}) "])
def test_a_mnemonic_is_read_however_its_words_are_separated(sep: str) -> None:
    rng = random.Random(len(sep))
    words = _from_entropy(bytes(rng.randrange(256) for _ in range(16)))
    text = "".join(sep.format(n=i + 1) + w.decode() for i, w in enumerate(words))
    found = _seeds(f"my backup:{text}\nthanks")
    assert found and words[0].decode() in found[0] and words[-1].decode() in found[0]


def test_a_mnemonic_inside_a_longer_run_of_wordlist_words() -> None:
    words = [w.decode() for w in _from_entropy(bytes(range(32)))]
    assert len(words) == 24
    found = _seeds("phrase " + " ".join(words) + " and more")
    assert found == [" ".join(words)]


@pytest.mark.parametrize(
    "text",
    [
        "trim head trim head slice trim slice trim tail trim tail slice",
        "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about",
        "seed the tables with users then run every migration again before you open pull",
        "about people now state also into can when window what other first which made",
    ],
)
def test_words_that_are_no_seed_are_left(text: str) -> None:
    assert _seeds(text) == []


def test_a_phrase_under_a_seed_name_needs_no_check() -> None:
    phrase = "amber lantern velvet harbor orchid pebble meadow cobalt saddle timber falcon gravel"
    assert _seeds(f'recovery_phrase: "{phrase}"') == [phrase]
    assert _seeds(f'title: "{phrase}"') == []  # no name saying seed
    assert _seeds(f'recovery_phrase: "{phrase} lake"') == []  # 13 words: no mnemonic's length
