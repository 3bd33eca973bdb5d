"""Seed phrases by what they are: a wallet's mnemonic, wherever it stands and however it is written.

A BIP-39 mnemonic (12, 15, 18, 21 or 24 words of the BIP-39 English wordlist, ``bip39_english.txt``,
the list the BIP's repository publishes, SHA-256 ``2f5eed53…b24dbda``) is a wallet's master secret:
under ``MNEMONIC=``, in a title, in prose, in a JSON field, one word a line, numbered (``1. island
2. doctor …``) or comma-separated. It carries its own check: its last word holds the first bits of
the SHA-256 of the entropy the others give, so a run of wordlist words that passes is a mnemonic
(a run that happens to pass does so once in 16 for 12 words, once in 256 for 24). Electrum's seeds
use the same list with a check of their own: the HMAC-SHA-512 of the phrase under ``Seed version``
begins with the seed type's prefix (``01``, ``100``, ``101``, ``102``).

Read here, around the words that stand near a seed phrase (``_ANCHOR``: its name, a wallet's, a
backup, a restore; within 256 bytes before, 512 after):

* a run of consecutive wordlist words holding 12, 15, 18, 21 or 24 of them that pass BIP-39's or
  Electrum's check (the longest that does), at least half of its words distinct (``abandon``
  eleven times and ``about``, the BIP's all-zero test vector, is no wallet's);
* right after a word naming a seed (``MNEMONIC=``, ``recovery_phrase:``, ``restore … wallet from
  '…'``, within ``_NAMED_BEFORE`` bytes), a run of exactly 12 to 24 lower-case words, a multiple
  of three, a third of them or more on the wordlist: a phrase typed with a slip, or made up for a
  test, still is what the name says (no check asked).

A mnemonic with none of those words near it (``try this one: <24 words>``) is not read: a pass
over every run of twelve short lower-case words costs the scan of prose a tenth more.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from pathlib import Path
from typing import Final

from ._catalogue import Hit
from ._rules import Pass
from ._work import spend

__all__ = ["WORDLIST", "mnemonic", "seed_passes"]

WORDLIST: Final = tuple(Path(__file__).with_name("bip39_english.txt").read_bytes().split())
"""The BIP-39 English wordlist, in its order (a word's index is the 11 bits it stands for)."""
_INDEX: Final = {word: i for i, word in enumerate(WORDLIST)}
_COUNTS: Final = (24, 21, 18, 15, 12)
"""A mnemonic's lengths, longest first."""
_RUN_MAX: Final = 48
"""The longest run of wordlist words read for a mnemonic in it (a longer one is a list, not a
phrase with words around it)."""
_ELECTRUM: Final = (b"01", b"100", b"101", b"102")
"""The prefixes of an Electrum seed's check: standard, segwit, 2FA, 2FA segwit."""

_SEP: Final = (
    rb"(?:[ \t]{1,3}|[ \t]{0,2}(?:\\{0,3}[\"'])?[ \t]{0,2}(?:,|\\r\\n|\\n|\r?\n)[ \t]{0,2}"
    rb"(?:\\{0,3}[\"'])?[ \t]{0,2})(?:[0-9]{1,2}[.):][ \t]{1,2})?"
)
"""Between two words of a phrase: spaces, a comma, a line break (raw or JSON-escaped), the quotes
of a list's items, then an item's number (``2.``, ``3)``)."""
_RUN: Final = re.compile(
    rb"(?:(?<![A-Za-z0-9_\-\\])|(?<=\\[nrt]))[a-z]{3,8}(?:" + _SEP + rb"[a-z]{3,8}){11,}"
    rb"(?![A-Za-z0-9_])"
)
"""A run of twelve or more words of three to eight letters."""
_ANCHOR: Final = (
    rb"mnemonic|seed|recovery|phrase|wallet|backup|words|restore|electrum|metamask|ledger|trezor"
    rb"|bip-?39"
)
"""What stands near a seed phrase (in lower case): its name, a wallet's, what is done with it."""
_NAMES: Final = frozenset({b"mnemonic", b"seed", b"recovery", b"phrase", b"wallet"})
"""The anchors that name a phrase after them a seed's without its check."""
_BEFORE: Final = 256
_AFTER: Final = 512
"""Where a phrase is read around an anchor: 256 bytes before it, 512 after."""
_WORD: Final = re.compile(rb"\\[a-z]|([a-z]+)")
"""A word, or a JSON escape's letter (``\\n``) passed over."""
_NAMED_BEFORE: Final = 48


def _checked(indices: list[int]) -> bool:
    """The words' indices pass BIP-39's check: the last ``n / 3`` bits are the first bits of the
    SHA-256 of the entropy the others give."""
    n = len(indices)
    bits = 0
    for i in indices:
        bits = bits << 11 | i
    cs = n // 3
    entropy = (bits >> cs).to_bytes((n * 11 - cs) // 8, "big")
    digest = int.from_bytes(hashlib.sha256(entropy).digest(), "big")
    return digest >> (256 - cs) == bits & ((1 << cs) - 1)


def mnemonic(words: list[bytes]) -> bool:
    """``words`` are a BIP-39 mnemonic or an Electrum seed of the same wordlist: 12 to 24 of its
    words, a multiple of three, at least half distinct, that pass either check."""
    n = len(words)
    if n not in _COUNTS or len(set(words)) * 2 < n:
        return False
    indices = [_INDEX.get(w, -1) for w in words]
    if min(indices) < 0:
        return False
    if _checked(indices):
        return True
    digest = hmac.new(b"Seed version", b" ".join(words), hashlib.sha512).hexdigest().encode()
    return digest.startswith(_ELECTRUM)


def _seed(data: bytes, m: re.Match[bytes]) -> Hit | None:
    """The runs of words around an anchor: a mnemonic in a run of wordlist words, or after a seed's
    name a phrase whose words read as a seed's."""
    lo, hi = max(0, m.start() - _BEFORE), min(len(data), m.end() + _AFTER)
    spend(hi - lo)
    named = m.group().lower() in _NAMES
    for run in _RUN.finditer(data, lo, hi):
        found = _mnemonic(data, run.start(), run.end())
        if found is None and named and 0 <= run.start() - m.end() <= _NAMED_BEFORE:
            found = _named(data, run.start(), run.end())
        if found is not None:
            return Hit("seed-phrase", found[0], found[1], data[found[0] : found[1]])
    return None


def _spans(data: bytes, start: int, end: int) -> list[tuple[int, int]]:
    """The words of ``data[start:end]``, JSON escapes' letters passed over."""
    return [w.span(1) for w in _WORD.finditer(data, start, end) if w.group(1) is not None]


def _mnemonic(data: bytes, start: int, end: int) -> tuple[int, int] | None:
    """The span of the first mnemonic in a run of consecutive wordlist words of the region."""
    run: list[tuple[int, int]] = []
    for span in [*_spans(data, start, end), (-1, -1)]:
        if span[0] >= 0 and data[span[0] : span[1]] in _INDEX:
            run.append(span)
            continue
        if 12 <= len(run) <= _RUN_MAX:
            found = _longest(data, run)
            if found is not None:
                return found
        run = []
    return None


def _longest(data: bytes, run: list[tuple[int, int]]) -> tuple[int, int] | None:
    """The span of the longest mnemonic among the words of ``run`` (consecutive wordlist words)."""
    text = [data[a:b] for a, b in run]
    for n in _COUNTS:
        for i in range(len(run) - n + 1):
            if mnemonic(text[i : i + n]):
                return run[i][0], run[i + n - 1][1]
    return None


def _named(data: bytes, start: int, end: int) -> tuple[int, int] | None:
    """The run after a word naming a seed, when its words read as a seed's: 12 to 24 of them, a
    multiple of three, a third or more on the wordlist, half or more distinct."""
    words = [data[a:b] for a, b in _spans(data, start, end)]
    n = len(words)
    if n not in _COUNTS or len(set(words)) * 2 < n:
        return None
    if sum(1 for w in words if w in _INDEX) * 3 < n:
        return None
    return start, end


def seed_passes() -> list[Pass]:
    """The pass of this module, in the form ``SecretScanner`` runs keyword passes: anchored on
    the words that stand near a seed phrase, each read once."""
    return [Pass(re.compile(_ANCHOR, re.IGNORECASE), _seed, anchor=re.compile(_ANCHOR), weight=0)]
