"""Prose: a secret said in words, in English or another language a user writes in.

The name grammar (``_grammar``) reads ``NAME = value`` and ``password is X``; in a chat message, a
commit message or a note the credential noun and its value stand apart:

* a **credential noun** (``password``, ``passphrase``, ``PIN``, ``creds``, ``login``, a ``key``;
  ``Passwort``, ``Kennwort``, ``mot de passe``, ``contraseña``, ``senha``, ``wachtwoord``,
  ``lösenord``, ``hasło``, ``пароль``, ``密码``, ``パスワード``, ``비밀번호``...),
* up to six words of prose (``for the backup key``, ``für den Server``, ``(staging)``),
* a **link**: a verb (``is``, ``was``, ``lautet``, ``ist``, ``est``, ``es``, ``é``, ``är``,
  ``是``, ``は``) or a sign (``:``, ``=``, ``→``, ``->``),
* then the value, read by its form (after a question, ``what's the root pw on db2?``, the next
  line's reply, when the reply is the value alone): a quoted string (spaces and all: a passphrase of words), a
  token that reads as a credential (``secretish``), after ``is``/``was`` two to six plain
  words ending the sentence (``the wifi password … is purple elephant dancing,``), the part after ``user:`` or ``user /``
  (``login with jo:X``, ``creds: admin / X``), a run of groups (``l3r4 cnpt wmnq 2cc3 …``), the
  digits of a PIN, the words of a seed phrase, or the codes listed on the lines after
  ``recovery codes:``.

``pw X`` and ``pwd X`` need no link when the value reads as a credential. A tool's console
output says it otherwise: ``New value: X`` under a line naming the credential in words
(``Password for the [elastic] user successfully reset.``), read by its own pass.
"""

from __future__ import annotations

import re
from typing import Final

from ._catalogue import Hit
from ._rules import Pass
from ._values import secretish
from ._work import spend

__all__ = ["LABEL_GATE", "PROSE_GATE", "prose_passes"]

_ENGLISH: Final = (
    rb"passwords?|passphrase|passcode|passwd|pwd|pw|pin|creds|credentials|login|key|seed phrase|seed"
    rb"|mnemonic|recovery phrase"
)
_FOREIGN: Final = (
    rb"passwort|kennwort|mot de passe|contrase\xc3\xb1a|contrasena|senha|wachtwoord|l\xc3\xb6senord"
    rb"|has\xc5\x82o|heslo|jelsz\xc3\xb3|\xc5\x9fifre|salasana|adgangskode|passord|clave"
    rb"|\xd0\xbf\xd0\xb0\xd1\x80\xd0\xbe\xd0\xbb\xd1\x8c|\xd0\x9f\xd0\xb0\xd1\x80\xd0\xbe\xd0\xbb\xd1\x8c"
    rb"|\xe5\xaf\x86\xe7\xa0\x81|\xe5\xaf\x86\xe7\xa2\xbc|\xe5\x8f\xa3\xe4\xbb\xa4"
    rb"|\xe3\x83\x91\xe3\x82\xb9\xe3\x83\xaf\xe3\x83\xbc\xe3\x83\x89|\xeb\xb9\x84\xeb\xb0\x80\xeb\xb2\x88\xed\x98\xb8"
    + b"|"
    + "|".join(
        (
            # stems: the ending a language inflects (parola, parole, parolă, Parool; סיסמה, סיסמא)
            "parol",
            "parool",
            "contrasenya",
            "contrasinal",
            "palavra-passe",
            "lozinka",
            "geslo",
            "slaptažod",
            "lykilorð",
            "fjalëkalim",
            "kata laluan",
            "kata sandi",
            "mật khẩu",
            "nenosiri",
            "chiave",
            "κωδικ",
            "Κωδικ",
            "συνθηματικ",
            "סיסמ",
            "كلمة المرور",
            "كلمة السر",
            "رمز عبور",
            "گذرواژه",
            "پاس ورڈ",
            "पासवर्ड",
            "পাসওয়ার্ড",
            "รหัสผ่าน",
            "парол",
            "лозинк",
            "гасло",
            "գաղտնաբառ",
            "პაროლ",
            "暗証番号",
        )
    ).encode()
)
_NOUNS: Final = (
    _ENGLISH
    + rb"|recovery codes|backup codes|(?P<foreign>"
    + _FOREIGN
    + rb")(?:[a-z]{1,4}|[\x80-\xff]{2,60})??"
)
"""Credential nouns (lower case; Cyrillic in both cases, lower-casing bytes leaves it as is). A
noun of another language takes its inflection (``lösenordet``, ``şifresi``, ``passordet``, Thai's
words glued after it) as part of it."""
_WORD_LINKS: Final = rb"is|was|are|were|lautet|lauten|ist|war|est|\xc3\xa9tait|es|era|\xc3\xa8|\xc3\xa9|\xc3\xa4r|er|jest|je|to"
_CJK_LINKS: Final = rb"\xe6\x98\xaf|\xe4\xb8\xba|\xe7\x82\xba|\xe3\x81\xaf"  # 是 为 為 は
_SIGN_LINKS: Final = rb":|\xef\xbc\x9a|=|\xe2\x86\x92|->|=>"  # : ： = → -> =>
PROSE_GATE: Final = (
    rb"(?:(?:" + _ENGLISH + rb")[ \t,;(?]"
    rb"|key[ \t]*:[ \t]*[a-z2-7]{3,8} [a-z2-7]{3,8}"
    rb"|(?:seed phrase|seed|mnemonic|recovery phrase|pin|passcode)[ \t]*:"
    rb"|(?:recovery|backup) codes"
    rb"|(?:" + _FOREIGN + rb"))"
)
"""Where the pass can match: an English noun followed by prose (a sign right after it is an
assignment, the name grammar's), a key written in groups, a list of codes, or a noun of another
language."""
_PROSE: Final = re.compile(
    rb"(?P<noun>" + _NOUNS + rb")"
    rb"(?:(?P<gap>[,;]?(?:[ \t]+[^\s:=\"'?,;`*{}\[\]<>\xe2\xef]{1,24}){0,6}?)"
    rb"(?P<link>[ \t]+(?:" + _WORD_LINKS + rb")[ \t]+|[ \t]*(?:" + _SIGN_LINKS + rb")[ \t]*"
    rb"|[ \t]*\?[ \t]*(?=\n|\\n)"
    rb"|[ \t]*(?:" + _CJK_LINKS + rb")[ \t]*)|(?P<bare>[ \t]+|(?=\n|\\n|\x00|\xff|$)))",
    re.IGNORECASE,
)

_NAME_BYTE: Final = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
_GLUED: Final = _NAME_BYTE | frozenset(b"-./")
_PUBLIC_BEFORE: Final = re.compile(rb"(?<![A-Za-z])(?:public|pub)[ \t]+$", re.IGNORECASE)
"""A key said to be public (``minisign public key 99D3…``): no credential."""
_NAMES: Final = frozenset(
    {
        b"password",
        b"passwords",
        b"passphrase",
        b"passwd",
        b"pwd",
        b"pw",
        b"creds",
        b"credentials",
        b"key",
        b"login",
    }
)
"""Nouns the name grammar reads as names: ``password: X`` right after one is its."""
_MARKUP: Final = frozenset(b"*`<[({:#_~|")
"""A value's first byte that makes it markup or code, not a credential written in prose."""
_BARE_NOUNS: Final = frozenset({b"pw", b"pwd", b"passwd"})
"""Nouns whose value may follow after a space alone (``(pw X)``)."""
_WEAK_NOUNS: Final = frozenset({b"key", b"login", b"pin", b"creds", b"credentials"})
"""Nouns common in prose about other things: their value must follow a sign (``:``, ``→``) or a
verb, and read as a credential."""
_PHRASE_NOUNS: Final = frozenset({b"seed", b"seed phrase", b"mnemonic", b"recovery phrase"})
_CODE_NOUNS: Final = frozenset({b"recovery codes", b"backup codes"})
_BREAK: Final = re.compile(rb"\n|\\n|\x00|\xff")
_END: Final = re.compile(rb"[\s\"'`\\\x00\xff]")
_TRAIL: Final = b".,;:!?)]}"
_USER_PAIR: Final = re.compile(rb"[A-Za-z0-9._@\-]{1,40}:(?=.)")
_SLASH_NEXT: Final = re.compile(rb"[ \t]+/[ \t]+")
_GROUP: Final = re.compile(rb"[ \t]([A-Za-z0-9]{3,8})(?=[\s\"'\\,.;)]|$)")
_SEED_WORDS: Final = re.compile(rb"(?:[a-z]{3,12}[ \t]+){2,23}[a-z]{3,12}")
_CODE: Final = re.compile(
    rb"[ \t]*(?:(?:[-*]|\xe2\x80\xa2|[0-9]{1,2}[.)])[ \t]*)?([A-Za-z0-9]{3,10}(?:[- ][A-Za-z0-9]{3,10}){0,3})[ \t]*"
)
_DIGITS: Final = re.compile(rb"[0-9]{4,12}")
_PLAIN_WORDS: Final = re.compile(
    rb"[a-z]{3,12}(?:[ \t]+[a-z]{3,12}){1,5}(?=[ \t]*(?:[,.;!?\"]|\n|\\n|\x00|\xff|$))"
)
"""A passphrase of plain words after ``is``: two to six lower-case words, then the sentence's
punctuation or the line's end."""
_NOT_A_PASSPHRASE: Final = frozenset(
    b"the and for not but with from into onto off out our your their its his her this that these"
    b" those there here then than too very also just still now again yet only ever never always"
    b" all any some each every same other another both none one two three stored saved kept"
    b" written printed shown hidden set unset changed reset rotated updated expired required"
    b" optional needed missing empty blank wrong invalid incorrect weak strong short long case"
    b" sensitive encrypted hashed managed generated random unknown known secret private public"
    b" default temporary new old sent given taken used being been was were are has have had will"
    b" would should could can may might must shall did does done get got see below above after"
    b" before inside outside under over about like what which who where when how why somewhere"
    b" elsewhere there fine good bad great okay successfully correctly already".split()
)
"""Words that make ``password is …`` a sentence about the password, not the password."""
_SCAN_MAX: Final = 512


def _token_end(data: bytes, start: int) -> int:
    m = _END.search(data, start, start + _SCAN_MAX)
    return m.start() if m is not None else min(len(data), start + _SCAN_MAX)


_TYPOGRAPHIC: Final = (
    (b"\xe2\x80\x9c", (b"\xe2\x80\x9d",)),  # “…”
    (b"\xe2\x80\x9e", (b"\xe2\x80\x9c", b"\xe2\x80\x9d")),  # „…“ „…”
    (b"\xc2\xab", (b"\xc2\xbb",)),  # «…»
    (b"\xe3\x80\x8c", (b"\xe3\x80\x8d",)),  # 「…」
)
"""Quotes of prose in other languages (and typography's): the opener, its closers."""
_INNER_SPACE: Final = re.compile(rb"(?: |\xc2\xa0|\xe2\x80\xaf)?")
"""French puts a space (often a no-break one) inside its guillemets: « X »."""


def _typographic(data: bytes, start: int) -> tuple[int, int] | None:
    """The span of a string in typographic quotes opening at ``start``, spaces inside trimmed."""
    for opener, closers in _TYPOGRAPHIC:
        if data.startswith(opener, start):
            inner = _INNER_SPACE.match(data, start + len(opener))
            body = inner.end() if inner is not None else start + len(opener)
            ends = [c for c in (data.find(q, body, body + _SCAN_MAX) for q in closers) if c > body]
            if not ends or _BREAK.search(data, body, min(ends)) is not None:
                return None
            close = min(ends)
            while close > body and data[close - 1] == 0x20:
                close -= 1
            if data.endswith((b"\xc2\xa0", b"\xe2\x80\xaf"), body, close):
                close -= 2 if data[close - 2] == 0xC2 else 3
            return (body, close) if close > body else None
    return None


def _quoted(data: bytes, start: int) -> tuple[int, int] | None:
    """The span of a quoted string opening at ``start`` (plain or JSON-escaped quotes, or the
    typographic quotes of ``_TYPOGRAPHIC``)."""
    esc = 0
    while data.startswith(b"\\", start + esc):
        esc += 1
    q = data[start + esc : start + esc + 1]
    if esc == 0 and q in (b"\xe2", b"\xc2", b"\xe3"):
        return _typographic(data, start)
    if q not in (b'"', b"'"):
        return None
    body = start + esc + 1
    close = data.find(b"\\" * esc + q, body, body + _SCAN_MAX)
    if close <= body:
        return None
    if _BREAK.search(data, body, close) is not None:
        return None
    return body, close


def _codes(data: bytes, pos: int) -> Hit | None:
    """The codes listed on the lines after ``recovery codes:``, up to a blank line (16 at most)."""
    first = last = -1
    at = pos
    for _ in range(16):
        br = _BREAK.search(data, at, at + _SCAN_MAX)
        if br is None:
            break
        line_start = br.end()
        nxt = _BREAK.search(data, line_start, line_start + _SCAN_MAX)
        line_end = nxt.start() if nxt is not None else min(len(data), line_start + _SCAN_MAX)
        m = _CODE.fullmatch(data, line_start, line_end)
        if m is None or (
            not any(c in b"0123456789" for c in m.group(1)) and b"-" not in m.group(1)
        ):
            if first >= 0 or line_end > line_start:
                break
            at = line_end
            continue
        if first < 0:
            first = m.start(1)
        last = m.end(1)
        at = line_end
    if first < 0:
        return None
    return Hit("credential-assignment", first, last, data[first:last])


_SPEAKER: Final = re.compile(
    rb"(?:\\n|\n)[ \t]*(?:\[[^\]\n\\]{1,24}\][ \t]*)?(?:<[^>\n\\]{1,32}>|[A-Za-z][A-Za-z0-9_.\-]{0,31}:)?[ \t]*"
)
"""A reply's line start: a time (``[09:13]``), then a speaker (``<bob>``, ``bob:``, ``A:``)."""


def _answer(data: bytes, pos: int) -> Hit | None:
    """A question naming a credential, answered on the next line by the value alone."""
    m = _SPEAKER.match(data, pos)
    if m is None:
        return None
    start = m.end()
    end = _token_end(data, start)
    rest = _BREAK.search(data, end, end + _SCAN_MAX)
    line_end = rest.start() if rest is not None else min(len(data), end + _SCAN_MAX)
    if data[end:line_end].strip(b" \t\"'") or end <= start:
        return None  # the answer is more than the value: prose
    value = data[start:end]
    if value.startswith(b"[secret") or b"://" in value or not secretish(value, quoted=False):
        return None
    return Hit("credential-assignment", start, end, value)


_NEAR_WORDS: Final = 7


def _near(data: bytes, pos: int) -> Hit | None:
    """After a noun of another language and no link word this module knows (``Parola … este X``,
    ``kata laluan pelayan X``, ``סיסמה לשרת היא X``): the first of the next words on the line that
    reads as a credential, quoted or not, in ASCII (a word of the language is not a value)."""
    at = pos
    for _ in range(_NEAR_WORDS):
        while at < len(data) and data[at] in b" \t":
            at += 1
        if at >= len(data) or _BREAK.match(data, at) is not None:
            break
        quoted = _quoted(data, at)
        if quoted is not None:
            a, b = quoted
            if secretish(data[a:b], quoted=True) and not data.startswith(b"[secret", a):
                spend(b - pos)
                return Hit("credential-assignment", a, b, data[a:b])
            at = b + 1
            continue
        end = _token_end(data, at)
        if end <= at:
            break
        e = end
        while e > at and data[e - 1] in _TRAIL:
            e -= 1
        value = data[at:e]
        if (
            value
            and value[0] not in _MARKUP
            and not value.startswith(b"[secret")
            and b"/" not in value  # a path or a URL
            and max(value) < 0x80  # a word of the sentence (måste, caractères), not a value
            and secretish(value, quoted=False)
        ):
            spend(e - pos)
            return Hit("credential-assignment", at, e, value)
        at = end
    spend(at - pos)
    return None


def _prose(data: bytes, m: re.Match[bytes]) -> Hit | None:
    if m.start() > 0 and data[m.start() - 1] in _GLUED:
        return None  # compass, bypass, openai-api-key: a name's last word
    noun = m.group("noun").lower()
    if noun == b"key" and _PUBLIC_BEFORE.search(data, max(0, m.start() - 16), m.start()):
        return None
    if m.end("noun") < len(data) and data[m.end("noun")] in _NAME_BYTE:
        return None
    link = (m.group("link") or b"").strip()
    gap = m.group("gap") or b""
    if link == b":" and data[m.start("link") - 1 : m.start("link")].isdigit():
        return None  # a time or a ratio (``am 2026-12-07T06:36:39Z``), not a sign after words
    spend(m.end() - m.start())
    if noun in _CODE_NOUNS:
        return _codes(data, m.end() if link else m.end("noun")) if link or gap == b"" else None
    if not link and m.group("foreign") is not None:
        return _near(data, m.end())
    if not link and (noun not in _BARE_NOUNS or gap):
        return None
    if noun in _WEAK_NOUNS and not link:
        return None
    # ``password = X``, ``key: X``: assignments are the name grammar's (a run of groups is read)
    assign = not gap and link in (b"=", b"=>", b":", b"\xef\xbc\x9a") and noun in _NAMES
    if link == b"?":
        return _answer(data, m.end())
    if gap and link in (b"=", b"=>"):
        return None  # ``key, name="…"``: words then ``=`` is code, not prose
    start = m.end()
    if data.startswith(b"[secret", start):
        return None
    quoted = _quoted(data, start)
    if quoted is not None:
        if assign:
            return None
        a, b = quoted
        value = data[a:b]
        spaced = (
            b" " in value and noun not in _WEAK_NOUNS | _PHRASE_NOUNS and not value.endswith(b":")
        )
        if (
            len(value) >= 6
            and not value.startswith(b"[secret")
            and (spaced or secretish(value, quoted=True))
        ):
            return Hit("credential-assignment", a, b, value)
        return None
    if link.lower() in (b"is", b"was") and noun not in _WEAK_NOUNS | _PHRASE_NOUNS:
        words = _PLAIN_WORDS.match(data, start)
        if words is not None and _NOT_A_PASSPHRASE.isdisjoint(words.group().lower().split()):
            return Hit("credential-assignment", start, words.end(), words.group())
    if noun in _PHRASE_NOUNS:
        seed = _SEED_WORDS.match(data, start)
        if seed is not None and seed.group().count(b" ") >= 11:
            return Hit("credential-assignment", start, seed.end(), seed.group())
    end = _token_end(data, start)
    while end > start and data[end - 1] in _TRAIL:
        end -= 1
    if end <= start:
        return None
    value = data[start:end]
    # a run of short groups: a TOTP seed or a key written in fours
    groups = [m2 for m2 in _GROUP.finditer(data, end, end + _SCAN_MAX)]
    run_end = end
    count = 1
    for g in groups:
        if g.start() != run_end or len(g.group(1)) != len(value):
            break
        run_end = g.end(1)
        count += 1
    if count >= 4 and 3 <= len(value) <= 8:
        return Hit("credential-assignment", start, run_end, data[start:run_end])
    if assign:
        return None
    parts = value.split(b"-")
    if (
        noun not in _WEAK_NOUNS
        and len(parts) >= 4
        and len({len(p) for p in parts}) == 1
        and 3 <= len(parts[0]) <= 8
        and all(p.isalnum() for p in parts)
    ):
        return Hit("credential-assignment", start, end, value)  # xxxx-xxxx-xxxx-xxxx
    # a user and the password: ``admin / X``, ``jo:X``
    slash = _SLASH_NEXT.match(data, end)
    if slash is not None and len(value) <= 40:
        a = slash.end()
        b = _token_end(data, a)
        while b > a and data[b - 1] in _TRAIL:
            b -= 1
        if b > a and (secretish(data[a:b], quoted=True) or b - a >= 8):
            return Hit("credential-assignment", a, b, data[a:b])
    pair = _USER_PAIR.match(value)
    if pair is not None and noun in (b"login", b"creds", b"credentials") and b"//" not in value:
        a = start + pair.end()
        if secretish(data[a:end], quoted=True):
            return Hit("credential-assignment", a, end, data[a:end])
    if noun in (b"pin", b"passcode") and _DIGITS.fullmatch(value) is not None:
        return Hit("credential-assignment", start, end, value)
    if value.startswith((b"[secret", b"/", b"~/", b"www.")) or b"://" in value or b"@" in value:
        return None  # redacted, a path, a URL or an address
    if value[0] in _MARKUP:
        return None  # **bold**, `code`, <placeholder>, :Type
    if noun in _WEAK_NOUNS and gap and len(value) < 16:
        return None  # "key or a key store: PKCS#12", "key the payload is AES-256-GCM"
    if secretish(value, quoted=False) or (
        len(value) >= 8 and any(c >= 0x80 for c in value) and any(c in b"0123456789" for c in value)
    ):
        return Hit("credential-assignment", start, end, value)
    return None


LABEL_GATE: Final = rb"(?:new|generated|current)[ \t]+value[ \t]*:"
"""Where the labelled-value pass can match (caseless)."""
_LABEL: Final = re.compile(LABEL_GATE + rb"[ \t]*", re.IGNORECASE)
_NAMED_ABOVE: Final = re.compile(
    rb"pass(?:word|phrase|wd)|secret|token|api[ _\-]?key|credential", re.IGNORECASE
)
_LINES_ABOVE: Final = 3


def _labelled(data: bytes, m: re.Match[bytes]) -> Hit | None:
    """A tool's console output: ``New value: X`` (``Generated value:``, ``Current value:``), the
    value alone on its line, reading as a credential, and a credential named in words on one of
    the ``_LINES_ABOVE`` lines above (``Password for the [elastic] user successfully reset.``)."""
    start = m.end()
    end = _token_end(data, start)
    rest = _BREAK.search(data, end, end + _SCAN_MAX)
    line_end = rest.start() if rest is not None else min(len(data), end + _SCAN_MAX)
    value = data[start:end]
    if end <= start or data[end:line_end].strip(b" \t\"'") or not secretish(value, quoted=False):
        return None
    lo = max(0, m.start() - _SCAN_MAX)
    spend(m.start() - lo)
    breaks = [b.start() for b in _BREAK.finditer(data, lo, m.start())]
    top = breaks[-_LINES_ABOVE - 1] if len(breaks) > _LINES_ABOVE else lo
    if _NAMED_ABOVE.search(data, top, m.start()) is None:
        return None
    return Hit("credential-assignment", start, end, value)


def prose_passes() -> list[Pass]:
    """The passes of this module, in the form ``SecretScanner`` runs keyword passes."""
    return [
        Pass(
            _PROSE,
            _prose,
            anchor=re.compile(PROSE_GATE),
            gate=(PROSE_GATE, 0, 0),
        ),
        Pass(_LABEL, _labelled, anchor=_LABEL, gate=(LABEL_GATE, 0, 0)),
    ]
