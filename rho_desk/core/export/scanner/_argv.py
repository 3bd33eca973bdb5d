"""Command lines read as argv: each split into words as a shell splits it, read by its client.

The password a known client takes by an option or a position is found in its words.

A line holding a client's name (``CLIENTS``) or an option that reads a password from standard
input (``STDIN_OPTIONS``) is split as a shell would (``split``: quotes, backslashes, a
backslash-newline continued onto the next line, ``#`` comments, and the operators ``|``, ``;``,
``&``, ``&&``, ``||``, ``<``, ``<<``, ``<<<``, ``>``, a backtick or ``$(``). Each command of it is
read by its client's entry, which is data (``_clients``):

* **options** (``Option``): ``mysql -pX`` (glued only: ``mysql -p db`` asks), ``sshpass -p X``
  and ``-pX``, ``curl -u user:X`` and ``-uuser:X`` (the part after the ``:``), ``lftp -u
  user,X`` (after the ``,``), ``smbclient -U user%X`` (after the ``%``), ``openssl -k X`` and
  ``-pass pass:X`` (after ``pass:``; ``env:``, ``file:`` and ``stdin`` name where it is),
  ``xfreerdp /p:X``; the n-th word after the option (``steamcmd +login user X``, ``mkstore
  -createCredential db user X``), and the words after it up to an option (steamcmd's guard code,
  ``dscl . -passwd /Users/u OLD NEW``); an option of some subcommands only (``docker login -p X``,
  ``security add-generic-password -w X``);
* **positions** (``Position``): the n-th argument after the client's subcommand words, when the
  argument before it says what it is (``poetry config http-basic.R user X``, ``sqlplus
  user/X@db``, ``htpasswd -b file user X``, ``net use \\\\srv\\share X``, ``wandb login X``);
* **a setting named by one option and given by another** (``Client.named``: ``reg add … /v
  DefaultPassword /d X``, ``Set-ItemProperty -Name SmtpPassword -Value X``), under a credential's
  name;
* **a credential-named word and its value** for the clients that take settings as words
  (``nmcli … wifi-sec.psk X``, ``mysqladmin password X``, ``npm config set _authToken X``);
* **standard input**: a value echoed, printed, given as a here-string (``<<<``) or the first line
  of a heredoc, into a command holding one of ``STDIN_OPTIONS`` (``--password-stdin``,
  ``--password-file=-``, ``-passin stdin``...) or a client that reads its password there
  (``chpasswd``: ``user:X``);
* **substitutions**: ``<(echo X)``, ``<(printf '%s' X)`` and ``$(echo X)`` are the word ``X``
  they give, the value of the option before it (``wg set wg0 private-key <(echo X)``), for any
  command when the option names a credential or its file (``--password-file <(echo X)``).

Every command, whether its client is in the table or not, is also read by what its words say
(``_args.any_values``: an option whose letters name a password, a user joined to its password, a
verb of authentication and the random words after it, a key's shape, a literal fed to a command
that authenticates), and a glued ``-pX`` beside ``-u`` of a command not in the table.

A value is taken unless it is a reference (``$X``, ``%X%``), a placeholder, a path, a URL or
already redacted (``literal_value``). Where the client's name is not where a command starts
(after ``sudo``, ``env``, ``NAME=value``, a prompt or a backtick), the line may be prose ("use
sshpass -p because…"): there a value must also read as a credential (``secretish``).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from ._args import ANY_GATES, any_values, random_word, token_shaped
from ._clients import (
    CLIENTS,
    STDIN_GIVEN,
    STDIN_OPTIONS,
    STDIN_PROGRAMS,
    STDIN_SUBCOMMANDS,
    STDIN_SWITCHES,
    Client,
    Option,
    Position,
)
from ._lines import Line
from ._names import name_is_credential, name_words, public_name
from ._values import key_id, literal_value, secretish
from ._work import spend

__all__ = [
    "CLIENTS",
    "COMMAND_GATE",
    "COMMAND_GATES",
    "COMMAND_NAMES",
    "LED_NAMES",
    "STDIN_OPTIONS",
    "STDIN_PROGRAMS",
    "Client",
    "Option",
    "Position",
    "command_values",
    "split",
]


# fmt: off
_PREFIXES: Final = frozenset({b"sudo", b"doas", b"env", b"time", b"nohup", b"exec", b"command", b"builtin", b"nice", b"$", b"#", b">", b"%", b"PS>", b"!"})

_HEX_BYTE: Final = re.compile(r"[0-9a-fA-F]{2}")
COMMAND_NAMES: Final = b"|".join(
    re.escape(n.encode()) for n in sorted(CLIENTS, key=len, reverse=True) if not _HEX_BYTE.fullmatch(n)
)
"""The clients' names, as one alternation; a name that is a hex byte (``ab``) is not one of them:
as a word, it is in every hex dump (``AB``)."""
LED_NAMES: Final = (
    rb"\b(?:" + b"|".join(n.encode() for n in sorted(CLIENTS) if _HEX_BYTE.fullmatch(n)) + rb")(?:\.exe)?[ \t]+-[A-Za-z]"
)
"""The clients whose name is a hex byte, each as the word before an option (``ab -C …``)."""
_NAME_BEFORE: Final = rb"(?:\b|u2192|\\[nrt])"
_NAME_AFTER: Final = rb"(?:\.exe)?(?:[ \t\"'`;|&)]|\\[tn\"])"
_USER_FLAG: Final = rb"-(?:u|-user|-username)"
_PAIRED_FLAGS: Final = (
    rb"[ \t]" + _USER_FLAG + rb"[ \t=]+[^\s\-][^\s]{0,63}(?:[ \t]+[^\s]{1,64}){0,3}[ \t]+-p[^\s\-=]?"
    rb"|[ \t]-p[ \t]+[^\s\-][^\s]{0,63}(?:[ \t]+[^\s]{1,64}){0,3}[ \t]+" + _USER_FLAG + rb"[ \t=]"
)
"""A user flag and a password flag a few words apart (``-u root -p X``, ``-U admin -P X``,
``-p X -u deploy``; caseless): any command holding them is read for the password
(``_paired_values``)."""
_SUBSTITUTION: Final = rb"[ \t][\-a-z0-9_]{1,40}[ \t]+[<$]\([ \t]*(?:echo|printf)[ \t]"
"""An argument after a word given by a substitution printing a literal (``private-key <(echo
X)``, ``--password-file <(printf '%s' X)``)."""
COMMAND_GATE: Final = (
    rb"(?:" + _NAME_BEFORE + rb"(?:" + COMMAND_NAMES + rb")" + _NAME_AFTER
    + rb"|\b(?:" + STDIN_PROGRAMS + rb")\b|" + STDIN_OPTIONS.pattern + rb"|" + _PAIRED_FLAGS
    + rb"|" + _SUBSTITUTION + rb"|" + LED_NAMES + rb"|" + rb"|".join(ANY_GATES) + rb")"
)
"""What marks a line worth splitting: a client's name as a word (after a row's ``→``, escaped or
not), an option reading a password from standard input, a user flag beside a password flag, a
substitution printing a literal (all caseless)."""
# fmt: on
COMMAND_GATES: Final = (
    *(
        _NAME_BEFORE + re.escape(name.encode()) + _NAME_AFTER
        for name in sorted(CLIENTS)
        if not _HEX_BYTE.fullmatch(name)
    ),
    rb"\b(?:" + STDIN_PROGRAMS + rb")\b",
    STDIN_OPTIONS.pattern,
    _PAIRED_FLAGS,
    _SUBSTITUTION,
    LED_NAMES,
    *ANY_GATES,
)
"""``COMMAND_GATE``'s alternatives, one expression a client: what they match together is what it
matches, and hyperscan finds a list of names as literals, where one alternation of 125 names is an
automaton reading every byte (on 20 MB of a session's export 0.5-0.8 against 3.7-4.2 ms a MB)."""


# --- splitting a line as a shell would ------------------------------------------------------------


@dataclass(slots=True)
class Word:
    text: bytes
    """The word as the shell gives it (quotes removed, escapes resolved)."""
    at: list[int]
    """Where each byte of ``text`` is in the line's text."""
    op: bool = False
    quoted: bool = False
    lead: bool = False
    """The word opens with a quote (``'-p'``, ``"X"``); ``/p:'X'`` and ``--password="X"`` do not."""
    substituted: bool = False
    """The word is what a substitution printing a literal gives (``<(echo X)``: ``X``)."""

    def span(self, i: int, j: int) -> tuple[int, int]:
        return self.at[i], self.at[j - 1] + 1


_PLAIN: Final = re.compile(rb"[^\s'\"\\|;&<>`()$#\[]+")
"""Bytes that are word bytes wherever they stand."""
_OPS: Final = (b"<<<", b"&&", b"||", b"<<", b"$(", b"|", b";", b"&", b"<", b">", b"`", b"(", b")")
_WORDS_MAX: Final = 256
"""Most words read of one logical line (a longer one is read up to there)."""


def split(t: bytes, start: int, ends: list[tuple[int, int]]) -> list[Word]:
    """The words and operators of the command line that starts at ``start`` in ``t``: ``ends``
    lists ``(end, next)`` for each line from the first (where it ends, where the line after it
    starts its content), so a line continued with a backslash goes on past its wrapper."""
    out: list[Word] = []
    k = 0
    end = ends[0][0]
    i = start
    cur: Word | None = None

    def close() -> None:
        nonlocal cur
        if cur is not None and cur.text:
            out.append(cur)
        cur = None

    while i < end and len(out) < _WORDS_MAX:
        plain = _PLAIN.match(t, i, end)
        if plain is not None:  # the bytes no shell treats specially, at once
            if cur is None:
                cur = Word(b"", [])
            cur.text += plain.group()
            cur.at.extend(range(i, plain.end()))
            i = plain.end()
            continue
        c = t[i]
        if c == 0x5C and i + 1 >= end and k + 1 < len(ends):  # a backslash ending the line
            close()
            k += 1
            i, end = ends[k - 1][1], ends[k][0]
            continue
        if c in b" \t\r":
            close()
            i += 1
            continue
        if c == 0x23 and cur is None:  # a comment
            break
        if cur is None and t.startswith(b"[secret", i):  # a redacted value is one word
            close_at = t.find(b"]", i, end)
            stop = end if close_at < 0 else close_at + 1
            out.append(Word(t[i:stop], list(range(i, stop))))
            i = stop
            continue
        op = next((o for o in _OPS if t.startswith(o, i)), None)
        if op is not None and not (op == b"<" and t.startswith(b"<<", i)):
            close()
            out.append(Word(op, [i], op=True))
            i += len(op)
            continue
        if cur is None:
            cur = Word(b"", [])
        if c == 0x27 or c == 0x22:  # a quoted part
            cur.lead = cur.lead or not (cur.text or cur.quoted)
            close_at = t.find(bytes([c]), i + 1, end)
            if c == 0x22:
                while close_at > 0 and t[close_at - 1] == 0x5C:
                    close_at = t.find(b'"', close_at + 1, end)
            stop = end if close_at < 0 else close_at
            j = i + 1
            if c == 0x27 or t.find(b"\\", j, stop) < 0:
                cur.text += t[j:stop]
                cur.at.extend(range(j, stop))
                j = stop
            while j < stop:
                if c == 0x22 and t[j] == 0x5C and j + 1 < stop and t[j + 1] in b'"\\$`':
                    j += 1
                cur.text += t[j : j + 1]
                cur.at.append(j)
                j += 1
            cur.quoted = True
            i = stop + 1
            continue
        if c == 0x5C and i + 1 < end:
            i += 1
        cur.text += t[i : i + 1]
        cur.at.append(i)
        i += 1
    close()
    spend(i - start)
    return out


# --- reading the commands ---------------------------------------------------------------------------


_KEY_AS_USER: Final = frozenset(
    {b"", b"x", b"token", b"api_token", b"apikey", b"api_key", b"x-oauth-basic", b"key"}
)
"""What an API gives as the password when its key is the user (``-u <key>:``, Graylog's
``<token>:token``, Toggl's ``<token>:api_token``, Freshdesk's ``<key>:X``)."""
_NAMES_OF_A_PASSWORD: Final = frozenset({b"pass", b"pwd", b"passwd", b"passphrase", b"pw", b"test"})
"""What a usage text writes where the password goes (``--user user:pass``)."""
_REFERENCE_START: Final = (b"$", b"%", b"<", b"[", b"{{", b"`", b"-", b"*")


_COOKIE_PAIR: Final = re.compile(rb"[ \t]*([!#$%&'*+.^_`|~0-9A-Za-z\-]{1,128})=([^;]*)")
_SESSION_WORD: Final = re.compile(rb"sess|sid|auth|login|remember|token", re.IGNORECASE)
"""A cookie's name saying it holds a session (``JSESSIONID``, ``PHPSESSID``, ``connect.sid``,
``sessionid``, ``laravel_session``, ``remember_token``)."""


_COOKIE_MIN: Final = 6
"""The shortest cookie value taken (``JSESSIONID=X`` in prose is a placeholder)."""


def _cookie_values(word: Word, i: int, j: int) -> list[tuple[int, int]]:
    """The values a cookie string (``NAME=X; NAME2=Y``, given as curl's ``-b``) holds that are
    secrets: under a name saying session or credential, or reading as a credential. A word
    without ``=`` is a cookie file."""
    out: list[tuple[int, int]] = []
    text = word.text[i:j]
    if b"=" not in text:
        return out
    pos = 0
    while pos <= len(text):
        m = _COOKIE_PAIR.match(text, pos)
        if m is None:
            break
        name, value = m.group(1), m.group(2).rstrip()
        if (
            len(value) >= _COOKIE_MIN
            and literal_value(value, quoted=True)
            and (
                (
                    _SESSION_WORD.search(name) is not None
                    and not public_name(name_words(name.decode("latin-1")))
                )
                or name_is_credential(name.decode("latin-1"))
                or secretish(value, quoted=True)
            )
            and not value.startswith(_REFERENCE_START)
        ):
            out.append(word.span(i + m.start(2), i + m.start(2) + len(value)))
        pos = m.end() + 1
    return out


def _option_values(word: Word, i: int, j: int, part: str, *, loose: bool) -> list[tuple[int, int]]:
    """The passwords an option's value ``word.text[i:j]`` gives (``part`` as ``Option.part``;
    ``"cookie"``: a cookie string's secret values)."""
    if part == "cookie":
        return _cookie_values(word, i, j)
    hit = _value(word, i, j, part, loose=loose)
    return [] if hit is None else [hit]


def _value(word: Word, i: int, j: int, part: str, *, loose: bool) -> tuple[int, int] | None:
    """The span of the password in ``word.text[i:j]`` (its ``part``), if it reads as one."""
    text = word.text[i:j]
    if part in (":", ",", "%"):
        cut = text.find(part.encode())
        if cut > 0 and text[cut + 1 :].lower() in _KEY_AS_USER and token_shaped(text[:cut]):
            return word.span(i, i + cut)  # curl -u <token>:token, -u <key>: (the key is the user)
        if cut < 0 or text[:cut] == text[cut + 1 :]:
            return None  # no password given (curl asks), or the user's name again (test:test)
        i += cut + 1
    elif part == "pass:":
        if not text.lower().startswith(b"pass:"):
            if text.lower().startswith((b"env:", b"file:", b"fd:", b"stdin")):
                return None
        else:
            i += 5
    elif part == "send":
        while j > i and word.text[j - 2 : j] in (b"\\r", b"\\n"):
            j -= 2  # send "X\r": the keystroke of Return is no part of it
    elif part == "/":
        slash = text.find(b"/")
        if slash <= 0:
            return None
        at = text.rfind(b"@")
        i, j = i + slash + 1, (i + at if at > slash else j)
        if text[slash + 1 : slash + 2] in (b"", b" "):
            return None
    text = word.text[i:j]
    if (
        not text
        or text.startswith(_REFERENCE_START)
        or text.startswith(b"/")
        or text.lower() in _NAMES_OF_A_PASSWORD
    ):
        return None
    if not literal_value(text, quoted=word.quoted) and not (
        len(text) >= 4 and secretish(text, quoted=True)
    ):
        return None
    if loose and not secretish(text, quoted=True):
        return None
    return word.span(i, j)


_PROGRAM_CUT: Final = re.compile(rb"[/\\:>]|u2192|\xe2\x86\x92")
"""What comes before a program's name in its word: its directory, a row's wrapper (``12:``,
``12→``, an escaped ``→`` whose backslash the shell dropped)."""


def program(word: Word) -> bytes:
    """The program a command's first word names, lower-case: ``/usr/bin/mysql``, ``mysql.exe``
    and ``12:mysql`` name ``mysql``."""
    name = _PROGRAM_CUT.split(word.text)[-1].lower().rstrip(b"}]),;'\"")  # a JSON string's end
    return name[:-4] if name.endswith(b".exe") else name


def _command_of(words: list[Word], k: int) -> tuple[str, Client] | None:
    key = program(words[k]).decode("ascii", "replace")
    client = CLIENTS.get(key)
    return (key, client) if client is not None else None


def _at_command_start(words: list[Word], k: int, seg_start: int) -> bool:
    for n, w in enumerate(words[seg_start:k]):
        if n == 0 and w.text.isdigit():
            continue  # a row's number (``cat -n``) before the command
        if (
            w.text not in _PREFIXES
            and not (b"=" in w.text and not w.text.startswith((b"=", b"-")))
            and not w.text.startswith(b"-")
        ):
            return False
    return True


def _under(under: tuple[tuple[str, ...], ...], plain: list[str]) -> bool:
    """The arguments that are not options, ``plain``, start with one of the subcommands ``under``
    (or, for a subcommand of several words, with its last one: ``helm login``)."""
    return any(
        plain[: len(sub)] == list(sub) or (len(sub) > 1 and plain[:1] == [sub[-1]]) for sub in under
    )


def _given(args: list[Word], n: int, count: int, mark: str) -> bool:
    """The option ``args[n]`` is given its value, the ``count``-th word after it: no operator up
    to there and, for a value of several words, no option (a word led by ``mark``, the option's
    own ``-`` or ``+``) among them: ``+login anonymous +quit`` gives no password."""
    if n + count >= len(args):
        return False
    after = args[n + 1 : n + count + 1]
    if any(w.op for w in after):
        return False
    return count == 1 or not any(w.text.startswith(mark.encode()) and not w.lead for w in after)


def _read(
    words: list[Word], k: int, seg_end: int, key: str, client: Client, loose: bool
) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    args = words[k + 1 : seg_end]
    plain = [w.text.lower().decode("latin-1") for w in args if not w.text.startswith(b"-")]
    positional: list[Word] = []
    n = 0
    while n < len(args):
        w = args[n]
        text = w.text.decode("latin-1")
        if w.lead or not (
            text.startswith("-")
            or (text.startswith("/") and len(text) < 24 and ":" in text[:12])
            or text in client.options
            or (text.startswith("/") and text in client.takes)
        ):
            positional.append(w)
            n += 1
            continue
        found = False
        for opt, how in client.options.items():
            if how.under and not _under(how.under, plain):
                continue
            if opt.endswith(("=", ":")):
                if text.lower().startswith(opt.lower()) and len(text) > len(opt):
                    out += _option_values(w, len(opt), len(w.text), how.part, loose=loose)
                    found = True
                elif text.lower() == opt.lower() and how.separate and n + 1 < len(args):
                    nxt = args[n + 1]
                    out += _option_values(nxt, 0, len(nxt.text), how.part, loose=loose)
                    n += 1
                    found = True
            elif text == opt or (opt.startswith("-") and text.startswith(opt + "=")):
                if "=" in text:
                    out += _option_values(w, len(opt) + 1, len(w.text), how.part, loose=loose)
                elif how.separate and _given(args, n, how.words, opt[:1]):
                    nxt = args[n + how.words]
                    out += _option_values(nxt, 0, len(nxt.text), how.part, loose=loose)
                    n += how.words
                    for _ in range(how.then):  # a code or a new password after it
                        if not _given(args, n, 1, opt[:1]) or args[n + 1].text[:1] in b"-+":
                            break
                        n += 1
                        out += _option_values(args[n], 0, len(args[n].text), how.part, loose=loose)
                found = True
            elif (
                how.glued
                and opt[0] == "-"
                and opt[1:2] != "-"
                and text.startswith(opt)
                and len(text) > len(opt)
                and not text.startswith("--")
            ):
                out += _option_values(w, len(opt), len(w.text), how.part, loose=loose)
                found = True
            if found:
                break
        if not found and text in client.takes:
            n += 1  # its value
        n += 1
    for pos in client.positions:
        texts = [w.text.decode("latin-1") for w in positional]
        base = 0
        if pos.after:
            if [t.lower() for t in texts[: len(pos.after)]] != list(pos.after):
                continue
            base = len(pos.after)
        if pos.key:
            keyed = [i for i in range(base, len(texts)) if re.fullmatch(pos.key, texts[i])]
            flags = [
                w
                for w in args
                if w.text.decode("latin-1") == pos.key
                or (
                    pos.key.startswith("-")
                    and w.text.startswith(b"-")
                    and set(pos.key[1:]) <= set(w.text[1:].decode("latin-1"))
                )
            ]
            if pos.key.startswith("-"):
                if not flags:
                    continue
                at = base + pos.index
            elif keyed:
                at = keyed[0] + pos.index
            else:
                continue
        else:
            at = base + pos.index
        if at < len(positional):
            hit = _value(positional[at], 0, len(positional[at].text), pos.part, loose=loose)
            if hit is not None:
                out.append(hit)
    if client.named is not None:
        out += _named_value(args, client.named, loose=loose)
    if client.pairs:
        for a, b in itertools.pairwise(positional):
            at = next(i for i, w in enumerate(args) if w is a)
            if at + 1 >= len(args) or args[at + 1] is not b or (at and _names_one(args[at - 1])):
                continue  # what an option names (``--secret-id MyDbSecret2``), or apart from b
            name = a.text.rstrip(b"=:").decode("latin-1")
            if key_id(b.text.rstrip(b"\"'}"), a.text):
                continue  # user.signingkey 7D2C9A1F3E5B8046: a GPG key's id
            if name_is_credential(name) or name.lower() in ("psk", "auth", "password"):
                hit = _value(b, 0, len(b.text), "", loose=loose)
                if hit is not None:
                    out.append(hit)
    return out


def _named_value(args: list[Word], named: tuple[str, str], *, loose: bool) -> list[tuple[int, int]]:
    """The value a client's setting is given when the option before it names a credential
    (``reg add … /v DefaultPassword /t REG_SZ /d X``, ``-Name SmtpPassword -Value X``)."""
    found: dict[str, Word] = {}
    for w, nxt in itertools.pairwise(args):
        option = w.text.decode("latin-1").lower()
        if option in named and not w.lead and not nxt.op:
            found.setdefault(option, nxt)
    name, value = found.get(named[0]), found.get(named[1])
    if name is None or value is None or not name_is_credential(name.text.decode("latin-1")):
        return []
    hit = _value(value, 0, len(value.text), "", loose=loose)
    return [] if hit is None else [hit]


def _stdin_value(
    words: list[Word], seg_start: int, seg_end: int, t: bytes, heredoc: tuple[int, int] | None
) -> list[tuple[int, int, str]]:
    """What the command ``words[seg_start:seg_end]`` reads from standard input: ``<<< X``, or
    the previous command of its pipe's output (``echo X``, ``printf '%s' X``), or its heredoc's
    first line (``heredoc``: its span in ``t``)."""
    out: list[tuple[int, int, str]] = []
    for n in range(seg_start, seg_end - 1):
        if words[n].op and words[n].text == b"<<<":
            w = words[n + 1]
            out.append((*w.span(0, len(w.text)), "here"))
    if heredoc is not None:
        out.append((*heredoc, "here"))
    if seg_start >= 2 and words[seg_start - 1].op and words[seg_start - 1].text == b"|":
        # the command before the pipe, the last of a group (``(echo X; echo X) |``, ``{ …; }``)
        end = seg_start - 1
        group = end >= 2 and words[end - 1].text in (b")", b"}")
        if group:
            end -= 2 if words[end - 1].text == b"}" and words[end - 2].text == b";" else 1
        for _ in range(_GROUP_MAX):
            n = end - 1
            while n > 0 and not words[n - 1].op:
                n -= 1
            first = n
            while n < end - 1 and (words[n].text in _PREFIXES or words[n].text == b"{"):
                n += 1  # a prompt's ``$`` or ``sudo`` before ``echo``
            if n >= end:
                break
            for printed in _printed_lines(t, words, n, end):
                out.append((*printed.span(0, len(printed.text)), "pipe"))
            if not group or first < 2 or words[first - 1].text != b";":
                break
            end = first - 1  # the command before it in the group
    return out


_GROUP_MAX: Final = 4
"""Most commands of a group read before its pipe (``(echo X; echo X) | smbpasswd -s``)."""


def _printed(t: bytes, words: list[Word], n: int, end: int) -> Word | None:
    """What the command ``words[n:end]`` prints if it prints a literal (``echo X``, ``echo -n X
    Y``, ``printf '%s' X``, ``printf 'X\\n'``): its word, or its span in ``t`` as one."""
    head = program(words[n])
    args = [
        w
        for w in words[n + 1 : end]
        if not (w.text.startswith(b"-") and len(w.text) <= 3 and not w.quoted)
    ]
    if head == b"echo" and args:
        if len(args) == 1:
            return args[0]
        a, b = args[0].at[0], args[-1].at[-1] + 1
        return Word(t[a:b], list(range(a, b)), quoted=True)
    if head == b"printf" and args:
        fmt = args[0]
        if b"%s" in fmt.text and len(args) > 1:
            return args[1]
        if b"%" not in fmt.text:
            body = fmt.text.split(b"\\n")[0]
            if body:
                return Word(body, fmt.at[: len(body)], quoted=True)
    return None


def _printed_lines(t: bytes, words: list[Word], n: int, end: int) -> list[Word]:
    """What ``_printed`` gives, and for ``printf`` of a format with no conversion every line it
    prints (``printf 'X\\nX\\n'``: a password and its confirmation)."""
    printed = _printed(t, words, n, end)
    if printed is None:
        return []
    fmt = words[n + 1] if n + 1 < end else None
    if program(words[n]) != b"printf" or fmt is None or printed.at[:1] != fmt.at[:1]:
        return [printed]
    out, start = [], 0
    for line in fmt.text.split(b"\\n")[:_GROUP_MAX]:
        if line:
            out.append(Word(line, fmt.at[start : start + len(line)], quoted=True))
        start += len(line) + 2
    return out or [printed]


def _substituted(t: bytes, words: list[Word]) -> list[Word]:
    """``words`` with each substitution of a command printing a literal (``<(echo X)``,
    ``<(printf '%s' X)``, ``$(echo X)``) made the one word it gives: a file holding ``X`` is
    the value of the option before it (``wg set wg0 private-key <(echo X)``, ``--password-file
    <(echo X)``)."""
    out: list[Word] = []
    n = 0
    while n < len(words):
        w = words[n]
        opens = (
            2
            if w.op and w.text == b"<" and n + 1 < len(words) and words[n + 1].text == b"("
            else 1
            if w.op and w.text == b"$("
            else 0
        )
        if opens and words[n + opens - 1].op:
            end = next(
                (e for e in range(n + opens, len(words)) if words[e].op),
                len(words),
            )
            if end < len(words) and words[end].text == b")" and end > n + opens:
                printed = _printed(t, words, n + opens, end)
                if printed is not None:
                    out.append(
                        Word(printed.text, printed.at, quoted=True, lead=True, substituted=True)
                    )
                    n = end + 1
                    continue
        out.append(w)
        n += 1
    return out


_HEREDOC: Final = re.compile(rb"<<-?[ \t]*['\"]?([A-Za-z_][A-Za-z0-9_]{0,30})['\"]?")


_GATE: Final = re.compile(COMMAND_GATE, re.IGNORECASE)
_CONTINUED_MAX: Final = 16
"""Most lines one command is continued over (backslash-newline) and read."""


def command_values(t: bytes, lines: Sequence[Line], i: int) -> list[tuple[int, int]]:
    """The spans in ``t`` of the passwords the command line at line ``i`` of ``lines`` passes
    (later lines for a continuation or a heredoc)."""
    line = t[lines[i].start : lines[i].end]
    if _GATE.search(line) is None:
        return []
    last = min(len(lines), i + _CONTINUED_MAX)
    bounds = [
        (lines[n].end, lines[n + 1].start if n + 1 < last else lines[n].end) for n in range(i, last)
    ]
    out: list[tuple[int, int]] = []
    words = split(t, lines[i].start, bounds)
    out += _commands(t, line, lines, i, words)
    # a command line inside a quoted word (a JSON string, ``bash -c "…"``) is split from there,
    # and one inside that (``{"command": "bash -c \"…\""}``) from there
    todo = [words]
    for _ in range(_NESTED_MAX):
        if not todo:
            break
        w = next(
            (
                w
                for w in todo[-1]
                if w.quoted and b" " in w.text and _HINT.search(w.text) is not None
            ),
            None,
        )
        if w is None:
            todo.pop()
            continue
        todo[-1] = todo[-1][todo[-1].index(w) + 1 :]
        inner = split(t, w.at[0], bounds)
        out += _commands(t, line, lines, i, inner)
        todo.append(inner)
    return out


_NESTED_MAX: Final = 8
"""Most quoted words of one line split again as command lines."""
_HINT: Final = re.compile(
    rb"(?:\b|u2192|\\[nrt])(?:"
    + COMMAND_NAMES
    + rb")\b|"
    + LED_NAMES
    + rb"|"
    + STDIN_OPTIONS.pattern
    + rb"|"
    + rb"|".join(ANY_GATES),
    re.IGNORECASE,
)
"""Most commands read from inside quoted words of one line."""


def _commands(
    t: bytes, line: bytes, lines: Sequence[Line], i: int, words: list[Word]
) -> list[tuple[int, int]]:
    """The passwords the commands of ``words`` (split from line ``i``) pass."""
    words = _substituted(t, words)
    out = _substitution_values(words)
    seg_start = 1 if words[:1] and words[0].op and words[0].text == b">" else 0  # a prompt
    for seg_end in [
        *(
            n
            for n, w in enumerate(words)
            if w.op and w.text in (b"|", b";", b"&", b"&&", b"||", b"`", b"$(", b"(", b")")
        ),
        len(words),
    ]:
        seg = words[seg_start:seg_end]
        if seg:
            fed = [
                Word(
                    t[a:b], list(range(a, b)), quoted=kind == "here" or t[a - 1 : a] in (b"'", b'"')
                )
                for a, b, kind in _stdin_value(words, seg_start, seg_end, t, None)
            ]
            out += any_values(words, seg_start, seg_end, fed)
            for k in range(seg_start, seg_end):
                if words[k].op:
                    break
                found = _command_of(words, k)
                if found is None and _at_command_start(words, k, seg_start):
                    out += _paired_values(words, k, seg_end)
                if found is None:
                    if k + 1 < seg_end and not _reads_stdin(words, k, seg_end):
                        continue
                    found = (
                        words[k].text.decode("latin-1").lower(),
                        _ANY,
                    )  # any command reading a password from stdin
                key, client = found
                loose = not _at_command_start(words, k, seg_start)
                before = b" ".join(w.text for w in words[max(0, seg_start - 4) : seg_start])
                if key == "send" and not _PROMPT.search(
                    before if before or i == 0 else t[lines[i - 1].start : lines[i - 1].end]
                ):
                    break  # expect's send: a password only after the prompt for one (on its line or the one before)
                out += _read(words, k, _redirect_end(words, k, seg_end), key, client, loose)
                if client.script:
                    out += _script_values(t, line, lines, i)
                if (client.stdin is not None or _reads_stdin(words, k, seg_end)) and not (
                    key == "passwd" and not any(w.text == b"--stdin" for w in seg)
                ):
                    heredoc = _heredoc_line(t, line, lines, i)
                    for a, b, _ in _stdin_value(words, seg_start, seg_end, t, heredoc):
                        word = Word(t[a:b], list(range(a, b)))
                        hit = _value(word, 0, len(word.text), client.stdin or "", loose=False)
                        if hit is not None:
                            out.append(hit)
                break
        seg_start = seg_end + 1
    return out


_FILE_OF: Final = re.compile(rb"[-_]?file$", re.IGNORECASE)


def _substitution_values(words: list[Word]) -> list[tuple[int, int]]:
    """The literals substitutions give an option naming a credential or its file, in any command:
    ``--password-file <(echo X)``, ``--client-secret $(echo X)``, ``--key <(printf '%s' X)``."""
    out: list[tuple[int, int]] = []
    for before, w in itertools.pairwise(words):
        if not w.substituted or before.op or not before.text.startswith(b"-"):
            continue
        name = _FILE_OF.sub(b"", before.text.lstrip(b"-")).decode("latin-1")
        if name_is_credential(name) or name_words(name)[-1:] in (["key"], ["identity"]):
            hit = _value(w, 0, len(w.text), "", loose=False)
            if hit is not None:
                out.append(hit)
    return out


_PAIRED: Final[dict[bytes, bytes]] = {
    b"-u": b"-p",
    b"--user": b"-p",
    b"--username": b"-p",
    b"-U": b"-P",
}
"""A user flag and the password flag beside it, for a client not in ``CLIENTS``."""
_PORT_LIKE: Final = re.compile(rb"[0-9]{1,6}(?:[:\-][0-9]{1,6})*(?:/(?:tcp|udp))?")


def _paired_values(words: list[Word], k: int, seg_end: int) -> list[tuple[int, int]]:
    """The password of a command ``words[k:seg_end]`` not in ``CLIENTS`` that is given a user by
    ``-u``/``--user``/``--username`` (``-U``) and a value by ``-p`` (``-P``) beside it: ``surreal
    sql -u root -p X``, ``asadm -U admin -P X``. A port, a number or a path is no password
    (``docker run -u 1000 -p 8080:80``, ``memcached -u memcache -p 11211``, ``gunicorn -p
    /run/app.pid``)."""
    if any(_command_of(words, n) is not None for n in range(k + 1, seg_end)):
        return []  # a client of the table later on the line reads its own flags (``mysql -p db``)
    args = [w for w in words[k + 1 : seg_end] if not w.op]
    password_flags: set[bytes] = set()
    for n, w in enumerate(args[:-1]):
        flag = w.text.split(b"=", 1)[0]
        if flag in _PAIRED and not args[n + 1].text.startswith(b"-"):
            password_flags.add(_PAIRED[flag])
    out: list[tuple[int, int]] = []
    for w in args:
        glued = w.text[:2] in password_flags and len(w.text) > 2 and not w.quoted
        if glued and random_word(w.text[2:]):  # ``dump-db -u backup -pX``
            out.append(w.span(2, len(w.text)))
    for n, w in enumerate(args[:-1]):
        if w.text in password_flags and not w.quoted:
            value = args[n + 1]
            if (
                _PORT_LIKE.fullmatch(value.text) is not None
                or value.text.startswith(b"-")
                or _SETTING.fullmatch(value.text) is not None
            ):
                continue  # a port, an option, a setting (``psql -U app -P pager=off``)
            hit = _value(value, 0, len(value.text), "", loose=False)
            if hit is not None:
                out.append(hit)
    return out


_NAMING: Final = re.compile(
    rb"--?(?:[a-z0-9]+-)*(?:id|name|arn|path|file|ref|key-id)", re.IGNORECASE
)
"""An option naming which thing a command acts on (``--secret-id``, ``--name``, ``--key-id``):
the word after it is that thing's name, not a setting's."""


def _names_one(w: Word) -> bool:
    return not w.lead and _NAMING.fullmatch(w.text) is not None


_SETTING: Final = re.compile(rb"[a-z][a-z_]{2,31}=[A-Za-z0-9_.\-]{1,32}")
"""An option's ``name=value`` setting (psql's ``-P pager=off``, ``format=aligned``): no password."""
_ANY: Final = Client({})
_PROMPT: Final = re.compile(rb"assword|passphrase|\bPIN\b|[Ss]ecret", re.IGNORECASE)
"""An expect script's prompt for a password (``expect "assword:"``)."""
_SCRIPT_LINES: Final = 64
_SCRIPT_VALUES: Final = {b"user": 2, b"pass": 1, b"password": 1, b"quote": 0}
"""A client script's command and the index of its password (``user NAME X``, ``pass X``)."""


def _script_values(t: bytes, line: bytes, lines: Sequence[Line], i: int) -> list[tuple[int, int]]:
    """The passwords a heredoc opened on line ``i`` gives a client reading commands (``ftp -n host
    <<EOF`` / ``user deploy X``), up to its delimiter."""
    m = _HEREDOC.search(line)
    if m is None or line[m.start() : m.start() + 3] == b"<<<":
        return []
    out: list[tuple[int, int]] = []
    for n in range(i + 1, min(len(lines), i + 1 + _SCRIPT_LINES)):
        body = t[lines[n].start : lines[n].end]
        if body.strip() == m.group(1):
            break
        words = split(t, lines[n].start, [(lines[n].end, lines[n].end)])
        index = _SCRIPT_VALUES.get(words[0].text.lower()) if words else None
        if index and len(words) > index:
            hit = _value(words[index], 0, len(words[index].text), "", loose=False)
            if hit is not None:
                out.append(hit)
    return out


def _subcommand_reads(words: list[Word], k: int, seg_end: int) -> bool:
    """``words[k:seg_end]`` is a subcommand of ``STDIN_SUBCOMMANDS`` reading its secret from
    standard input."""
    entries = STDIN_SUBCOMMANDS.get(program(words[k]))
    if entries is None:
        return False
    rest = []
    for w in words[k + 1 : seg_end]:
        if w.op:
            break
        rest.append(w.text.rstrip(b"}])"))
    plain = [r for r in rest if not r.startswith(b"-")]
    for sub, markers in entries:
        if tuple(r.lower() for r in plain[: len(sub)]) != sub:
            continue
        if markers is None:
            return not any(r.split(b"=", 1)[0] in STDIN_GIVEN for r in rest)
        return any(r in markers for r in rest)
    return False


def _switched(words: list[Word], k: int, seg_end: int) -> bool:
    switches = STDIN_SWITCHES.get(program(words[k]))
    if switches is None:
        return False
    if not switches:
        return True
    for w in words[k + 1 : seg_end]:
        if w.op:
            break
        if w.text in switches:
            return True
        if (
            w.text.startswith(b"-")
            and not w.text.startswith(b"--")
            and any(len(s) == 2 and s[1:] in w.text[1:] for s in switches)
        ):
            return True
    return False


def _reads_stdin(words: list[Word], k: int, seg_end: int) -> bool:
    """The command ``words[k:seg_end]`` holds an option reading its password from standard input."""
    if _switched(words, k, seg_end) or _subcommand_reads(words, k, seg_end):
        return True
    texts = [
        w.text.rstrip(b"}])") for w in words[k + 1 : seg_end]
    ]  # a JSON string's end after the last
    return any(
        STDIN_OPTIONS.fullmatch(text) is not None
        or (n + 1 < len(texts) and STDIN_OPTIONS.fullmatch(text + b" " + texts[n + 1]) is not None)
        for n, text in enumerate(texts)
    )


def _redirect_end(words: list[Word], k: int, seg_end: int) -> int:
    for n in range(k + 1, seg_end):
        if words[n].op and words[n].text in (b"<", b">", b"<<", b"<<<"):
            return n
    return seg_end


def _heredoc_line(t: bytes, line: bytes, lines: Sequence[Line], i: int) -> tuple[int, int] | None:
    """The first line of the heredoc ``line`` opens (``<<EOF``, ``<<-'EOF'``), its span in ``t``."""
    m = _HEREDOC.search(line)
    if m is None or line[m.start() : m.start() + 3] == b"<<<" or i + 1 >= len(lines):
        return None
    start, end = lines[i + 1].start, lines[i + 1].end
    first = t[start:end]
    if first.strip() == m.group(1) or not first.strip():
        return None
    lead = len(first) - len(first.lstrip())
    return start + lead, start + len(first.rstrip())
