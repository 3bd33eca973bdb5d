"""Any command's arguments: a password said by its option's letters, its shape or a verb before it.

Every command is read so, whether ``_clients``' table knows its client or not.

``_argv`` splits a command line and reads each command by its client's entry; it also hands every
command (its words, and what it reads from standard input) to ``any_values``, which reads what
the words themselves say:

* **an option whose letters name a password** (``-pw X``, ``-pwd X``, ``/pass X``, ``--rootpw=X``,
  a misspelled ``--pasword=X``; of a dotted name its last segment: ``--server.password X``,
  ``-Dssl.keyStorePassword=X``): any value that is not a reference, a path or a switch;
* **a short option's random-looking value**, whatever its letters (``vsql -w X``, ``ccrypt -K
  X``, ``winrs -p:X``): not a Windows path or a number in hex (a long option's name says what
  its value is: ``--nonce X`` is public by design);
* **a user's option joined to its password** (``-U user%X``, ``/user:DOM\\\\u%X``,
  ``/login:DOM\\\\u,X``), or any option's value whose last ``:`` field is random (``-n user:X``,
  ``-y hmac-sha256:name:X``, ``--auth u:X``), a word ``user:X@host`` (``domain/user:X@host``);
  ``USER u USING X`` (db2's and SQL's ``CONNECT``);
* **a verb of authentication** (``VERB``: ``login``, ``authorize``, ``identify``, ``unlock``,
  ``/secure``, ``/oper``, ``tsig``, ``user``...) in the program's name or a subcommand: the
  random-looking arguments after it (``b2 account authorize ID X``, ``bw unlock X``, ``mega-login
  mail X``, ``/msg NickServ IDENTIFY X``), not a word that is an option's value;
* **a console variable set on the command line** (``+name value``, a game server's syntax;
  ``+set name value``): under a credential's name (``+rcon_password X``, ``+set g_password X``)
  a value that is no reference, under any name a token-shaped one (``+sv_setsteamaccount X``);
* **key shapes** anywhere among the arguments: a licence key's dashed groups (``XXXXX-XXXXX-…``,
  ``SC-XXXX-…``), a base32 seed after an option or on a line of one-time passwords (``oathtool -b
  X``), a UUID given to an option named as a key or token (``--setup-key <uuid>``);
* **standard input**: a random-looking literal echoed, printed or given as a here-string to a
  command whose words say authentication (``echo X | kinit``, ``printf X | adcli join
  --stdin-password``, ``vncpasswd -f <<< X``), and in text given there, a credential word and
  the value after it (``debconf-set-selections <<< "pkg q password X"``).

**Shape carries the weight** where the words alone do not (``_random``): eight characters or
more of three classes (upper, lower, digits, symbols), changing class at least every third
character as generated values do (``Administrator2``, ``web01.lumen.lan`` and camel case do
not); hex, UUIDs and dotted lower-case names are not random here (ids, digests, hosts).
"""

from __future__ import annotations

import itertools
import math
import operator
import re
from collections import Counter
from collections.abc import Sequence
from typing import Final, Protocol

from ._names import name_is_credential
from ._values import literal_value, secretish


class Word(Protocol):
    """A word of a command line as ``_argv.split`` gives it."""

    text: bytes
    op: bool
    quoted: bool
    lead: bool

    def span(self, i: int, j: int) -> tuple[int, int]: ...


__all__ = ["ANY_GATES", "ANY_LITERALS", "Word", "any_values", "random_word", "token_shaped"]

# --- what a word's shape says ---------------------------------------------------------------------

_HEX: Final = re.compile(rb"[0-9a-fA-F]+|[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}")
_UUID: Final = re.compile(rb"[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}")
_NAME_LIKE: Final = re.compile(rb"[a-z][a-z0-9]*(?:[-_.][a-z0-9]+)+")
_DIGEST_LABEL: Final = re.compile(
    rb"(?:h1|sha[0-9]{1,3}|sha3-[0-9]{3}|md5|blake[0-9a-z]{0,3})[:\-]", re.I
)
_LOWER: Final = frozenset(b"abcdefghijklmnopqrstuvwxyz")
_UPPER: Final = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZ")
_DIGIT: Final = frozenset(b"0123456789")
_NOT_START: Final = (b"$", b"%", b"<", b"[", b"{{", b"`", b"-", b"*", b"~/", b"./", b"../", b"/")
_PATH_WORD: Final = re.compile(rb"(?:^|/)[A-Za-z]{4,}(?:/|$)|^/?[a-z][a-z0-9_.\-]*/")
"""A path's component (``/Users/``, ``/run/``, ``s3.eu-central-1.amazonaws.com/``): a word of four
letters between slashes, or a lower-case name before a slash; base64 rarely holds either."""
_NAME_SYMBOLS: Final = b"._-/:@"
_NOT_IN: Final = frozenset(b" \t\r\n\"'[](){}<>,;")
"""Bytes of prose and code (a subscript, a call, a list), not of a generated value."""
_ALNUM: Final = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"


_CLASSES: Final = bytes(
    0 if b in _LOWER else 1 if b in _UPPER else 2 if b in _DIGIT else 3 for b in range(256)
)
"""Per byte, its class: a lower-case letter (0), an upper-case one (1), a digit (2), else 3."""


def random_word(value: bytes) -> bool:
    """A word that reads as generated: 8 to 200 characters of three classes or more, changing
    class at least every third character, near the entropy of random text; not hex, a UUID, a
    dotted lower-case name, a path or a URL."""
    n = len(value)
    if not 8 <= n <= 200 or b"://" in value or value.startswith(_NOT_START[:-1]):
        return False
    if _HEX.fullmatch(value) is not None or _NAME_LIKE.fullmatch(value) is not None:
        return False
    if _DIGEST_LABEL.match(value) is not None:
        return False  # go.sum's ``h1:…``, ``sha256:…``, ``sha512-…``: a digest, labelled
    if not _NOT_IN.isdisjoint(value) or _PATH_WORD.search(value) is not None:
        return False
    if b"=" in value.rstrip(b"="):
        return False
    classes = value.translate(_CLASSES)
    kinds = set(classes)
    if len(kinds) < 3 or (
        not {0, 1} <= kinds and not value.translate(None, _NAME_SYMBOLS).translate(None, _ALNUM)
    ):
        return False  # one case of letters, digits and only a name's symbols: a host, a file
    changes = sum(map(operator.ne, classes, classes[1:]))
    if changes * 3 < n - 1:
        return False
    entropy = -sum([c / n * math.log2(c / n) for c in Counter(value).values()])
    return entropy >= min(3.6, math.log2(n) - 0.7)


def token_shaped(value: bytes) -> bool:
    """A word shaped as an API token: ``random_word``, or 16 to 128 letters and digits, both
    among them, near the entropy of random text (``0m6wnr36…``, 32 hex digits)."""
    if random_word(value):
        return True
    n = len(value)
    if not 16 <= n <= 128 or not value.isalnum() or value.isdigit() or value.isalpha():
        return False
    entropy = -sum([c / n * math.log2(c / n) for c in Counter(value).values()])
    return entropy >= 3.5


_BASE32: Final = re.compile(rb"[A-Z2-7]{16,128}={0,6}")


def _base32_seed(value: bytes) -> bool:
    """A base32 one-time-password seed: upper-case letters and two digits or more of ``2-7``."""
    if _BASE32.fullmatch(value) is None:
        return False
    digits = sum(1 for b in value if b in _DIGIT)
    return digits >= 2 and len(set(value)) >= 10


_LICENCE: Final = re.compile(rb"(?:[A-Z0-9]{2,8}-)?[A-Z0-9]{4,6}(?:-[A-Z0-9]{4,6}){3,7}")


def _licence(value: bytes) -> bool:
    """A licence or product key: dashed groups of upper-case letters and digits (``XXXXX-XXXXX-
    XXXXX-XXXXX-XXXXX``, ``SC-XXXX-…``), four letters and four digits or more."""
    if _LICENCE.fullmatch(value) is None or _UUID.fullmatch(value) is not None:
        return False
    letters = sum(1 for b in value if b in _UPPER)
    digits = sum(1 for b in value if b in _DIGIT)
    return letters >= 4 and digits >= 4


def _taken(value: bytes) -> bool:
    """A literal that may stand for a password: no reference, placeholder, path or switch."""
    return random_word(value) or (
        len(value) >= 4
        and not value.startswith(_NOT_START)
        and literal_value(value, quoted=True)
        and secretish(value, quoted=True)
    )


# --- what a word's letters say ----------------------------------------------------------------------

_OPTION: Final = re.compile(
    rb"(?:--?|/)([A-Za-z][A-Za-z0-9_\-]{0,40}(?:\.[A-Za-z][A-Za-z0-9_\-]{0,40}){0,6})(?:([=:])(.*))?",
    re.DOTALL,
)
"""An option: ``-p``, ``--db-pass``, ``/login:``, a dotted name (``--server.password``,
``-Djavax.net.ssl.keyStorePassword``), and its value glued by ``=`` or ``:``."""
_PASSWORD_ENDS: Final = (b"pw", b"pwd", b"passwd", b"password", b"passphrase", b"pass")
_NOT_THE_VALUE: Final = (b"file", b"command", b"cmd", b"env", b"fd", b"stdin", b"prompt", b"path")


def _near_password(name: bytes) -> bool:
    """``name`` is ``password`` with one letter dropped, doubled, swapped or changed (``pasword``,
    ``passowrd``, ``passwrod``): a misspelled option still gives the password."""
    target = b"password"
    if name == target or not 7 <= len(name) <= 9 or name[:1] != b"p":
        return False
    if len(name) == len(target):
        diff = [i for i in range(8) if name[i] != target[i]]
        return len(diff) == 1 or (
            len(diff) == 2
            and diff[1] == diff[0] + 1
            and name[diff[0]] == target[diff[1]]
            and name[diff[1]] == target[diff[0]]
        )
    short, long_ = (name, target) if len(name) < len(target) else (target, name)
    return any(long_[:i] + long_[i + 1 :] == short for i in range(len(long_)))


def _password_option(name: bytes) -> bool:
    """An option's name whose letters say password (``pw``, ``pwd``, ``pass``, ``rootpw``,
    ``newpassword``, ``pasword``), not where one is (``password-file``, ``pass-command``); of a
    dotted name, its last segment (``--server.password``, ``-Dssl.keyStorePassword``)."""
    lowered = name.lower().replace(b"_", b"-").rsplit(b".", 1)[-1]  # --server.password
    if lowered.endswith(_NOT_THE_VALUE) or lowered.startswith((b"no-", b"stdin", b"ask")):
        return False
    squeezed = lowered.replace(b"-", b"")
    return (
        squeezed in _PASSWORD_ENDS
        or _near_password(squeezed)
        or squeezed.endswith((b"pw", b"pwd", b"passwd", b"password", b"passphrase"))
    )


_USER_OPTIONS: Final = frozenset({b"u", b"user", b"username", b"login", b"auth"})
_DIGESTS: Final = frozenset(
    {b"sha1", b"sha224", b"sha256", b"sha384", b"sha512", b"md5", b"blake2b", b"blake3", b"h1"}
)
_KEY_OPTION: Final = re.compile(
    rb"(?:[a-z0-9]+-)*(?:setup-?key|auth-?key|licen[cs]e|licen[cs]e-?key|enroll(?:ment)?-?(?:key|token)"
    rb"|join-?token|activation(?:-?(?:key|code))?|product-?key|serial|pre-?auth-?key|ipk|inpkey)",
    re.IGNORECASE,
)
"""An option naming a key or a licence given to a client (``--setup-key``, ``/ProductKey:``,
``-serial``), whose value may be a UUID or a licence's groups."""
_USERINFO: Final = re.compile(
    rb"[A-Za-z0-9_.\-\\]{1,64}(?:/[A-Za-z0-9_.\-]{1,64})?:([^\s@/:]{6,128})@[A-Za-z0-9][A-Za-z0-9.\-]{0,253}"
)


_DRIVE: Final = re.compile(rb"[A-Za-z]:[\\/]")


def _joined(value: bytes, *, user: bool) -> int | None:
    """Where the password starts in an option's value: after ``%`` or ``,`` for a user's option
    (``user%X``, ``/login:DOM\\user,X``), after the last ``:`` when that field is random (``user:X``,
    ``alg:name:X``)."""
    if user:
        for mark in (b"%", b","):
            cut = value.find(mark)
            if 0 < cut < len(value) - 1:
                return cut + 1
    if b"://" in value or value.startswith((b"/", b"[")) or _DRIVE.match(value) is not None:
        return None  # a URL, a path (``C:\\Users\\me\\file.iso``: a drive, not a user)
    fields = value.split(b":")
    if not 2 <= len(fields) <= 3 or not fields[0] or fields[0].lower() in _DIGESTS:
        return None
    last = fields[-1]
    if random_word(last) and re.fullmatch(rb"[A-Za-z0-9_.@\\/\-]{1,64}", fields[0]):
        return len(value) - len(last)
    return None


# --- verbs ----------------------------------------------------------------------------------------

VERB: Final = re.compile(
    rb"(?:^|[-_./:])(?:[a-z0-9]*(?:passwd|login|crypt)[a-z0-9]*|logon|signin|auth(?!or)[a-z]*"
    rb"|authori[sz]e|identify|unlock|unseal|password|passphrase|secure|tsig|oper|kinit"
    rb"|credentials?|users?|adduser|useradd|ipk|inpkey|join)(?:$|[-_.:])",
    re.IGNORECASE,
)
"""A word of a command that says it authenticates or sets a credential, in the program's name or
a subcommand (``mega-login``, ``account authorize``, ``authenticate_user``, WeeChat's
``/secure``, IRC's ``IDENTIFY`` and ``/oper``, ``import-tsig-key``, ``realm join``)."""
_VERB_WORD: Final = re.compile(rb"[A-Za-z0-9_\-:]{2,64}")
"""A verb is a word of letters, digits and dashes (``golang.org/x/crypto`` and a URL's
``login.example.com`` name no verb)."""
_VERB_REACH: Final = 4
"""A verb counts among the first words of a command (its program, subcommands), and so does a
random word among the words after it (``b2 account authorize ID X``); further on, the words are
prose or data."""
_OTP: Final = re.compile(rb"otp|oath|2fa|mfa|totp|hotp", re.IGNORECASE)


def _words_of(word: Word) -> list[tuple[int, int]]:
    """The space-separated words of a word's text, as ``(start, end)`` in it."""
    return [m.span() for m in re.finditer(rb"[^ \t]+", word.text)]


def _fed_values(fed: Sequence[Word], verb: bool) -> list[tuple[int, int]]:
    """What a command reads from standard input (``fed``: an echoed word, a here-string): the
    word itself when the command authenticates (``verb``) and it reads as random, or when it is
    printed twice, whatever the command (a password and its confirmation: ``(echo X; echo X) |
    pdbedit -t``); in text of several words, a credential word's next word (a debconf line's
    ``password X``)."""
    out: list[tuple[int, int]] = []
    texts = [w.text.strip() for w in fed]
    for n, w in enumerate(fed):
        text = texts[n]
        if random_word(text) and texts.count(text) > 1:
            start = w.text.find(text)  # printed twice: a password and its confirmation
            out.append(w.span(start, start + len(text)))
            continue
        if verb and (random_word(text) or (len(text) >= 8 and _taken(text) and w.quoted)):
            start = w.text.find(text)
            out.append(w.span(start, start + len(text)))
            continue
        parts = _words_of(w)
        for (a, b), (c, d) in itertools.pairwise(parts):
            name = w.text[a:b].rstrip(b":=").decode("latin-1")
            value = w.text[c:d]
            if name_is_credential(name.rsplit("/", 1)[-1]) and _taken(value):
                out.append(w.span(c, d))
        if len(parts) > 1 and _FED_VERB.fullmatch(w.text[parts[0][0] : parts[0][1]]) is not None:
            # a client's own command fed to it: zkCli's ``addauth digest u:X``, ``AUTH X``
            for c, d in parts[1 : 1 + _VERB_REACH]:
                found = _positional_value(w.text[c:d], near=True, verbs=True, otp=False)
                if found is not None:
                    out.append(w.span(c + found[0], c + found[1]))
    return out


_FED_VERB: Final = re.compile(rb"[a-z]{0,8}(?:auth|login|identify|unlock)", re.IGNORECASE)
"""The first word of a command a client reads from standard input that authenticates
(``addauth``, ``AUTH``, ``login``)."""


_NOT_GENERATED: Final = re.compile(
    rb"^(?:[A-Za-z]:)?\\\\|^[A-Za-z]:[\\/]|\\[A-Za-z][A-Za-z0-9_ .\-]{2,}\\|^0[xX][0-9A-Fa-f]+$"
    rb"|\.[a-z]{1,4}[0-9]?$|[A-Z][a-z]{2,}.*[A-Z][a-z]{2,}"
)
"""A Windows path (``C:\\Downloads\\setup.exe``, ``\\\\srv\\share``, ``src\\App\\``), a number in
hex (a GPG key's id ``0x4A3F…``), a file's name (``Report_Q3v2.pdf``, ``values-Prod2.yaml``) or
an identifier's words, two capitalised (``WebVm01Prod``, ``Dockerfile.Prod2``): no password,
whatever its shape."""


def _option_value(name: bytes, value: bytes, *, otp: bool) -> int | None:
    """Where the password starts in the value of the option ``name``, if it gives one."""
    lowered = name.lower()
    if _password_option(name) and _taken(value.removeprefix(b"pass:")):
        return 5 if value.startswith(b"pass:") else 0
    cut = _joined(value, user=lowered in _USER_OPTIONS)
    if cut is not None and _taken(value[cut:]):
        return cut
    if _licence(value) or ((otp or len(name) <= 2) and _base32_seed(value)):
        return 0
    if _KEY_OPTION.fullmatch(lowered) is not None and _UUID.fullmatch(value) is not None:
        return 0
    if len(name) <= 2 and random_word(value) and _NOT_GENERATED.search(value) is None:
        return 0  # a short option's letters say nothing: ``vsql -w X``, ``ccrypt -K X``, ``winrs -p:X``
    return None


def _positional_value(text: bytes, *, near: bool, verbs: bool, otp: bool) -> tuple[int, int] | None:
    """The span of the password in an argument that is no option's value: a record's last field
    after a verb (``users name:CL:X``), a key's shape, a random word near a verb, ``u:X@host``."""
    cut = _joined(text, user=False) if verbs and b":" in text else None
    if cut is not None:
        return cut, len(text)
    if _licence(text) or (otp and _base32_seed(text)) or (near and random_word(text)):
        return 0, len(text)
    u = _USERINFO.fullmatch(text)
    if u is not None and random_word(u.group(1)):
        return u.span(1)
    return None


_DIRECTIVE_CUT: Final = re.compile(rb"[/\\:>]")
_PRINTS: Final = re.compile(
    rb"[a-z_.\-]{0,24}(?:pass|pwd|password|passwd|cred|secret|token|auth)[a-z_.\-]*(?:cmd|command|eval)[=:]?",
    re.I,
)
"""A setting or option naming the command that prints a password (mbsync's ``PassCmd``, msmtp's
``passwordeval``, aerc's ``source-cred-cmd``, restic's ``--password-command``)."""
_PRINTER: Final = re.compile(rb"(echo|printf)[ \t]+(?:-[neE]{1,3}[ \t]+)?(?:%s(?:\\n)?[ \t]+)?")


def _printed_literal(w: Word) -> tuple[int, int] | None:
    """The literal the command in ``w`` prints (``echo X Y``, ``printf %s 'X'``), its span."""
    m = _PRINTER.match(w.text)
    if m is None:
        return None
    a, b = m.end(), len(w.text)
    while a < b and w.text[a] in b"'\"":
        a += 1
    while b > a and w.text[b - 1] in b"'\";":
        b -= 1
    return w.span(a, b) if _taken(w.text[a:b]) or b" " in w.text[a:b] else None


def _directive_value(args: Sequence[Word]) -> tuple[int, int] | None:
    """A directive named as a password (``bindpw X``, ``rootpw --plaintext X``, ``sshpw
    --username=u X``): its first argument that is no option and reads as a password (not a
    hash: ``{SSHA}…``, ``$6$…``)."""
    for w in args[1:]:
        if w.text.startswith(b"-") and not w.lead:
            continue
        if w.text.startswith((b"{", b"$")):
            return None
        return w.span(0, len(w.text)) if _taken(w.text) else None
    return None


_SET_VERBS: Final = frozenset({b"set", b"seta", b"sets", b"setu"})
"""A console's verbs that set a variable named by the next word (Quake's ``+set g_password X``)."""


def _console_values(args: Sequence[Word]) -> list[tuple[int, int]]:
    """The values of a console variable set on a command line (``+name value``, a game server's
    syntax: Source's ``+rcon_password X``, ``+sv_setsteamaccount X``; ``+set name value``): under a
    credential's name a value that is no reference or placeholder, under any name a value
    shaped as a token (a server's login token is named by what it does). ``+map de_dust2`` and
    ``+maxplayers 16`` set no credential."""
    out: list[tuple[int, int]] = []
    for n, w in enumerate(args[:-1]):
        if not w.text.startswith(b"+") or w.lead or len(w.text) < 3:
            continue
        name, at = w.text[1:], n + 1
        if name.lower() in _SET_VERBS:
            name, at = args[n + 1].text, n + 2
        if at >= len(args):
            continue
        value = args[at]
        if value.text.startswith((b"+", b"-")) and not value.lead:
            continue  # the next variable or option: none given
        if (name_is_credential(name.decode("latin-1")) and _taken(value.text)) or token_shaped(
            value.text
        ):
            out.append(value.span(0, len(value.text)))
    return out


def any_values(
    words: Sequence[Word], start: int, end: int, fed: Sequence[Word]
) -> list[tuple[int, int]]:
    """The passwords the command ``words[start:end]`` passes as its words say (module docstring),
    whatever its client; ``fed``: what it reads from standard input."""
    out: list[tuple[int, int]] = []
    args: list[Word] = []
    for n in range(start, end):
        w = words[n]
        if w.op:
            if w.text in (b">", b"<") and args:
                break  # a redirection (not a prompt's ``>``): its file, then words of no command
            continue
        if not w.text.startswith(b"[secret"):
            args.append(w)
    if not args:
        return out
    verbs: list[int] = []  # the positions of the verbs among the words that are no option
    position = 0
    otp = any(_OTP.search(w.text) is not None for w in args[:4])
    head = _DIRECTIVE_CUT.split(args[0].text)[-1]
    if not args[0].lead and _password_option(head) and b"=" not in head:
        found = _directive_value(args)
        if found is not None:
            out.append(found)
    for n, w in enumerate(args[:-1]):
        name = (head if n == 0 else w.text).split(b"=", 1)[0].lstrip(b"-")
        if _PRINTS.fullmatch(name) is not None:
            nxt = args[n + 1] if args[n + 1].text != b"=" or n + 2 >= len(args) else args[n + 2]
            printed = _printed_literal(nxt)
            if printed is not None:
                out.append(printed)
    after_option = False
    for n, w in enumerate(args):
        text = w.text
        m = _OPTION.fullmatch(text) if text[:1] in b"-/" and not w.lead else None
        if m is None and w.lead and text[:1] in b"-/" and (b"=" in text or b":" in text):
            m = _OPTION.fullmatch(text)  # '--pasword=X' quoted by an error message, "/login:u,X"
        if m is not None and n > 0:
            name, glue, rest = m.group(1), m.group(2), m.group(3)
            value_word = w if glue else (args[n + 1] if n + 1 < len(args) else None)
            if (
                value_word is not None
                and not glue
                and value_word.text.startswith((b"-", b"/"))
                and not value_word.lead
            ):
                value_word = None
            vstart = m.start(3) if glue else 0
            value = rest if glue else (value_word.text if value_word is not None else b"")
            cut = _option_value(name, value, otp=otp) if value_word is not None and value else None
            if value_word is not None and cut is not None:
                out.append(value_word.span(vstart + cut, vstart + len(value)))
            after_option = not glue
            continue
        if w.text == b"=":
            position = 0  # ``connect_command = msg …``: the command is the assignment's value
            continue
        if after_option and not w.lead:
            after_option = False
            continue  # an option's value
        bare = w.text.rsplit(b"/", 1)[-1] if n == 0 else w.text.lstrip(b"/:")  # a program's name
        if position <= _VERB_REACH and _VERB_WORD.fullmatch(bare) and VERB.search(bare):
            verbs.append(position)
        if n > 0:
            near = any(0 < position - v <= _VERB_REACH for v in verbs)
            found = _positional_value(text, near=near, verbs=bool(verbs), otp=otp)
            if found is not None:
                out.append(w.span(*found))
        position += 1
        after_option = False
    out += _console_values(args)
    for n in range(2, len(args) - 1):  # SQL's and db2's ``CONNECT … USER u USING X``
        if args[n].text.lower() == b"using" and args[n - 2].text.lower() == b"user":
            value = args[n + 1]
            if _taken(value.text):
                out.append(value.span(0, len(value.text)))
    out += _fed_values(
        fed, bool(verbs) or any(_password_option(w.text.lstrip(b"-")) for w in args[1:])
    )
    return out


# --- the gate ---------------------------------------------------------------------------------------

_IN_LINE: Final = rb"(?:[^\n\\|]|\\[^nr])*"
"""Bytes up to the end of a line, raw or JSON-escaped (no ``\\n``), and of its command (no ``|``)."""

ANY_GATES: Final = (
    # an option named by its letters: -pw X, /pass X, --rootpw=X, --pasword=X
    rb"(?:^|[\s'\"=])(?:--?|/)(?:[a-z][a-z0-9_\-]{0,30}\.){0,4}(?:[a-z]{0,12}(?:pw|pwd|passwd|password|passphrase)|pass|p[a-z]{0,2}s[a-z]{2,5}d)(?:[\s=:'\"]|$)",
    # a user's option joined to its password: -U user%X, /login:DOM\u,X
    rb"(?:^|[\s'\"])(?:-u|--user|--username|/user:?|/login:?)[ \t=]*(?:\\{0,7}['\"])?[^\s%,'\"]{1,64}[%,][^\s'\"%,]",
    # a short option's value shaped as generated (a letter beside a digit): vsql -w X, winrs -p:X
    rb"[ \t]-[a-z][a-z0-9]?[ \t=:]+(?:\\{0,7}['\"])?[^\s'\"\\]{0,40}(?:[a-z][0-9]|[0-9][a-z])",
    # a user and the password after ``using`` (db2's and Informix's CONNECT … USER u USING X)
    rb"user[ \t]+(?:\\{0,7}['\"])?[^\s'\"\\]{1,64}(?:\\{0,7}['\"])?[ \t]+using[ \t]",
    # an option's value whose last field may be random: -n user:X, -y alg:name:X; user:X@host
    rb"[ \t]-{1,2}[a-z][a-z0-9\-]*[ \t=]+(?:\\{0,7}['\"])?(?:[^\s:'\"]+:){1,2}[^\s:'\"/]{8}",
    rb"[\s'\"][a-z0-9_.\-\\]+(?:/[a-z0-9_.\-]+)?:[^\s@/:'\"]{6}[^\s@/:'\"]*@[a-z0-9]",
    # a verb of authentication, then a word with a digit
    rb"(?:login|logon|signin|auth|identify|unlock|unseal|passwd|secure|tsig|oper|kinit|credential|ipk|join|crypt)[a-z_\-]*(?:\\{0,7}['\"])?[ \t]+"
    + _IN_LINE
    + rb"[0-9]",
    # a user's record after ``user``/``users`` (3proxy's ``users name:CL:X``); ``user`` alone is
    # no verb of the gate: code's ``user_count = … 117`` filled a session's trigger lines
    rb"users?[ \t]+(?:\\{0,7}['\"])?[a-z0-9_.\-]+:[^\s]",
    # key shapes among the arguments: a licence's groups, a base32 seed after an option or an OTP word
    rb"[\s'\"=:](?:[a-z0-9]{2,8}-)?[a-z0-9]{4,6}(?:-[a-z0-9]{4,6}){3}",
    rb"[ \t]-{1,2}[a-z][a-z0-9\-]*[ \t=]+(?:\\{0,7}['\"])?[a-z2-7]{16}",
    rb"(?:otp|oath|2fa|mfa)[^\n]*[ \t](?:\\{0,7}['\"])?[a-z2-7]{16}",
    rb"-(?:[a-z]+-)*(?:key|token|licen[cs]e|serial)[ \t=]+(?:\\{0,7}['\"])?[0-9a-f]{8}-",
    # a directive named as a password, first on its line (bindpw X); a setting naming the
    # command that prints one
    rb"(?:^|[\n\r+]|\\[nrt]|[0-9]:)[a-z]{0,12}(?:pw|pwd|passwd|password|passphrase)[ \t]+"
    + _IN_LINE
    + rb"[0-9]",
    rb"(?:cmd|command|eval)(?:\\{0,7}['\"])?[ \t=:]+(?:\\{0,7}['\"])?(?:echo|printf)[ \t]",
    # standard input: a literal echoed or printed into a command, a here-string
    rb"(?:echo|printf)[ \t]" + _IN_LINE + rb"\|",
    rb"<<<",
    # a console variable set on a command line: +rcon_password X, +set g_password X, a token
    rb"[ \t]\+(?:set[asu]?[ \t]+)?[a-z0-9_]{0,30}(?:pass|pw|secret|token|key|auth)[a-z0-9_]{0,30}[ \t]+[^\s+\-]",
    rb"[ \t]\+[a-z][a-z0-9_]{1,40}[ \t]+(?:\\{0,7}['\"])?[0-9a-z]{16}",
)
"""What marks a line ``any_values`` may find something on (caseless, lower case): ``_argv`` adds
these to its gate. A quote around a value may be JSON-escaped (``--key \\"X\\"`` in an export)."""
ANY_LITERALS: Final = (
    rb"[ \t]-|/user|-u|user|@|login|logon|signin|auth|identify|unlock|unseal|secure|tsig|oper|kinit"
    rb"|cred|ipk|join|crypt|otp|oath|2fa|mfa|licen|serial|echo|printf|<<<|[a-z0-9]{4}-[a-z0-9]{4}|[ \t]\+"
)
"""A short piece of each of ``ANY_GATES`` (lower case): without the gate, ``_structure`` tries the
lines holding one."""
