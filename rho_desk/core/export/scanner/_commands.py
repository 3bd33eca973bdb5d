"""Credentials on command lines: the flags and arguments that pass a password.

* any long flag named as a credential (``--password X``, ``--client-secret=X``, ``--passphrase
  X``) and Java's one-dash ``-storepass X``;
* the short password flags of the common clients (``mysql -pX``, ``redis-cli -a X``, ``sshpass
  -p X``, httpie ``-a user:pass``, ``docker login -p X``, ``sqlcmd -P X``, ``7z -pX``,
  ``ldapsearch -w X``, ``smbclient -U user%pass``...): the flag means it only for those commands;
* the arguments that are passwords by position (``htpasswd -b file user X``, ``rabbitmqctl
  add_user user X``, ``net user user X``, ``aws configure set aws_secret_access_key X``,
  PowerShell's ``ConvertTo-SecureString 'X'``), a value echoed into ``--password-stdin``, and
  SQL's ``IDENTIFIED BY 'X'``.

A path, a URL, a variable, a ``--no-`` switch or an already redacted value is not a password.
The values are read as the credential grammar reads them (``_grammar.value_span``).
"""

from __future__ import annotations

import re
from typing import Final

from ._catalogue import Hit
from ._grammar import line_before
from ._names import name_is_credential, name_words
from ._rules import Pass
from ._values import VALUE_MAX, quoted_password, value_span

__all__ = ["command_passes"]

_DIGITS: Final = frozenset(b"0123456789")

_MYSQL: Final = rb"mysql|mysqldump|mysqladmin|mysqlimport|mysqlcheck|mysqlshow|mariadb|mariadb-dump"
_LOGIN: Final = rb"(?:docker|podman|nerdctl|buildah|skopeo|oras|helm[ \t]+registry|az)[ \t]+login"
_MONGO: Final = rb"mongo|mongosh|mongodump|mongorestore|mongoexport|mongoimport|mongostat|mongotop"
_B: Final = rb"(?:\b|(?<=\\t)|(?<=u2192))"
"""Where a client's name starts: a word's start, or after a row's escaped tab or arrow."""
_SHORT_FLAGS: Final = {
    # (flag, glued to its value): the commands whose flag it is that takes a password
    (b"p", True): re.compile(_B + rb"(?:" + _MYSQL + rb"|sshpass|7z|7za|7zr|rar|unrar)\b"),
    (b"p", False): re.compile(_B + rb"(?:sshpass|" + _MONGO + rb")\b|" + _B + _LOGIN + rb"\b"),
    (b"P", False): re.compile(_B + rb"(?:sqlcmd|bcp|osql|zip|zipcloak|ssh-keygen)\b"),
    (b"N", False): re.compile(_B + rb"ssh-keygen\b"),
    (b"w", False): re.compile(
        _B + rb"ldap(?:search|add|modify|delete|passwd|whoami|compare|modrdn|exop)\b"
    ),
    (b"U", False): re.compile(_B + rb"(?:smbclient|rpcclient|smbcacls|smbget|net[ \t]+rpc)\b"),
}
_A_FLAG: Final = re.compile(_B + rb"(?:redis-cli|valkey-cli|keydb-cli|https?|xh|xhs)\b")


# a flag's name holding a credential word (``--client-secret``, ``-storepass``): confirmed by
# ``name_is_credential`` (one dash: the name must end in the word, as Java's tools spell them)
_FLAG_NAME: Final = (
    rb"(?:[A-Za-z][A-Za-z0-9\-]{0,40})?(?:pass|pwd|secret|token|key|auth|cred)[A-Za-z0-9\-]{0,40}"
)
_FLAG_NOT_VALUE: Final = frozenset(
    {"stdin", "file", "env", "prompt", "command", "cmd", "fd", "source"}
)
"""A flag whose last word says where the credential comes from takes that, not the credential."""
_KEYTOOL_PASS: Final = re.compile(rb"(?:src|dest|new)?(?:store|key)pass", re.IGNORECASE)
"""Java's keytool and jarsigner: ``-storepass``, ``-keypass``, ``-srcstorepass``..."""
_ONE_DASH_ENDS: Final = (b"pass", b"password", b"passphrase", b"passwd", b"secret", b"token")


def _flag(data: bytes, m: re.Match[bytes]) -> Hit | None:
    """The value of a flag named as a credential: ``--password X``, ``--client-secret=X``,
    ``-storepass X`` (any command)."""
    if m.start() > 0 and data[m.start() - 1] not in b" \t":
        return None
    name = m.group("long")
    text = name.decode("ascii", "replace")
    words = name_words(text)
    if not words or words[-1] in _FLAG_NOT_VALUE:
        return None
    if words[0] == "no" or not (
        name_is_credential(text) or _KEYTOOL_PASS.fullmatch(name) is not None
    ):
        return None  # --no-auth is a switch
    if not data.startswith(b"--", m.start()) and not name.lower().endswith(_ONE_DASH_ENDS):
        return None  # -key X, -auth X: too many tools mean something else by one dash
    span = value_span(data, m.end())
    if span is None:
        return None
    start, end, quoted = span
    value = data[start:end]
    if len(value) < 3 or value.startswith((b"$", b"%", b"-", b"<", b"[")):
        return None
    if not quoted and value.isupper() and _DIGITS.isdisjoint(value):
        return None  # --password PASSWORD in a usage text
    if value.startswith((b"/", b"~/", b"./", b"../")) or b"://" in value:
        return None  # --ssh-key ~/.ssh/id_ed25519: where the credential is, not the credential
    return Hit("credential-assignment", start, end, value)


# --- passwords by position, SQL, and a value piped into --password-stdin -----------------------

_COMMAND: Final = re.compile(
    rb"\b(?P<cmd>htpasswd|rabbitmqctl|net[ \t]+user|convertto-securestring|configure[ \t]+set)[ \t]",
    re.IGNORECASE,
)
_SQL: Final = re.compile(
    rb"\bidentified[ \t]+by[ \t]+(?:\\{0,7}['\"]|[A-Za-z0-9_#$!@%^*+\-])", re.IGNORECASE
)
_SQL_NOT_VALUE: Final = frozenset(
    {b"values", b"password", b"externally", b"globally", b"random", b"plugin"}
)
"""Words after ``IDENTIFIED BY`` that are SQL, not a password (``IDENTIFIED BY PASSWORD '*…'``
gives a hash; ``IDENTIFIED BY RANDOM PASSWORD`` asks for one)."""
_STDIN: Final = re.compile(rb"\b(?:echo|printf)[ \t]+(?:-[neE]{1,3}[ \t]+)?")
_COMMAND_END: Final = re.compile(rb"[;|&]")
_STDIN_FLAG: Final = re.compile(rb"[ \t]*\|[^|\n]{0,160}--password-stdin(?![A-Za-z0-9_\-])")


def _arguments(data: bytes, pos: int, count: int) -> list[tuple[int, int, bool]]:
    """Up to ``count`` arguments of the command line from ``pos`` (quoted or not), each as
    ``value_span`` gives it; fewer when the line ends or a value has no end."""
    out: list[tuple[int, int, bool]] = []
    limit = min(len(data), pos + VALUE_MAX)
    while len(out) < count:
        while pos < limit and data[pos] in b" \t":
            pos += 1
        if pos >= limit or data[pos] in b"\n|;&" or data.startswith(b"\\n", pos):
            break
        span = value_span(data, pos)
        if span is None or (span[1] == pos and not span[2]):
            break
        if not span[2]:
            ends = _COMMAND_END.search(data, span[0], span[1])
            if ends is not None:  # "alice;": the command ends with this argument
                if ends.start() > span[0]:
                    out.append((span[0], ends.start(), False))
                break
        out.append(span)
        pos = span[1] + (1 if span[2] else 0)
    return out


def _command_value(data: bytes, start: int, end: int) -> Hit | None:
    """An argument taken for a password unless it reads as something else: a variable, a flag, a
    path, an already redacted value, or a word of lower-case letters (prose: "net user alice then
    ...": a password of letters only is a documented limit)."""
    value = data[start:end]
    if len(value) < 3 or value.startswith((b"$", b"%", b"-", b"<", b"[", b"/", b"*")):
        return None
    if value.isalpha() and value.islower():
        return None
    return Hit("credential-assignment", start, end, value)


def _command(data: bytes, m: re.Match[bytes]) -> Hit | None:
    """The argument that is a password by its position: ``htpasswd -b[c] FILE USER PASS`` (``-nb
    USER PASS``), ``rabbitmqctl add_user|change_password USER PASS``, ``net user USER PASS``,
    ``aws configure set NAME VALUE`` under a credential name, ``ConvertTo-SecureString 'PASS'``."""
    cmd = m.group("cmd").lower()
    args = _arguments(data, m.end(), 8)
    texts = [data[a:b] for a, b, _ in args]
    if cmd == b"htpasswd":
        flags = b"".join(t[1:] for t in texts if t.startswith(b"-"))
        rest = [a for a, t in zip(args, texts, strict=True) if not t.startswith(b"-")]
        if b"b" not in flags:
            return None
        index = 1 if b"n" in flags else 2
        return _command_value(data, *rest[index][:2]) if len(rest) > index else None
    if cmd == b"rabbitmqctl":
        if len(texts) >= 3 and texts[0] in (b"add_user", b"change_password"):
            return _command_value(data, *args[2][:2])
        return None
    if cmd.startswith(b"net"):
        return _command_value(data, *args[1][:2]) if len(args) >= 2 else None
    if cmd.startswith(b"configure"):
        if len(texts) >= 2 and name_is_credential(texts[0].decode("ascii", "replace")):
            return _command_value(data, *args[1][:2])
        return None
    # ConvertTo-SecureString 'PASS' -AsPlainText
    if args and args[0][2] and b"-asplaintext" in data[args[0][1] : args[0][1] + 64].lower():
        return _command_value(data, *args[0][:2])
    return None


def _sql(data: bytes, m: re.Match[bytes]) -> Hit | None:
    """SQL's ``IDENTIFIED BY 'PASS'`` (quoted, escaped or not) or Oracle's ``IDENTIFIED BY PASS``."""
    pos = m.end() - 1
    while pos > m.start() and data[pos - 1] == 0x5C:
        pos -= 1
    span = value_span(data, pos)
    if span is None:
        return None
    start, end, quoted = span
    value = data[start:end]
    if not quoted:
        value = value.rstrip(b";,)")
        end = start + len(value)
        if (
            value.lower() in _SQL_NOT_VALUE
            or len(value) < 4
            or value.startswith((b"$", b":", b"["))
        ):
            return None
        return Hit("credential-assignment", start, end, value)
    if not quoted_password(value):
        return None
    return Hit("credential-assignment", start, end, value)


def _stdin(data: bytes, m: re.Match[bytes]) -> Hit | None:
    """``echo 'PASS' | docker login --password-stdin``: the value echoed into the flag."""
    args = _arguments(data, m.end(), 1)
    if not args:
        return None
    start, end, quoted = args[0]
    after = end + (1 if quoted else 0)
    if _STDIN_FLAG.match(data, after) is None:
        return None
    return _command_value(data, start, end)


def _flag_any(data: bytes, m: re.Match[bytes]) -> Hit | None:
    at = m.start()
    if m.group("short2") is not None:
        return _flag_short(data, at, m.end(), m.group("short2"), glued=False)
    if m.group("short") is not None:
        return _flag_short(data, at, m.end(), b"p", glued=True)
    hit = _flag(data, m)
    if hit is None and data[at + 1 : at + 2] == b"p":
        return _flag_short(
            data, at, at + 2, b"p", glued=True
        )  # mysql -pVALUE whose value reads as a name
    return hit


def _flag_short(data: bytes, at: int, value_at: int, flag: bytes, *, glued: bool) -> Hit | None:
    """A client's short flag at ``at`` that takes a password, its value at ``value_at``
    (``_SHORT_FLAGS``: the flag means it only for those commands: ``docker run -p 80:80`` is a
    port)."""
    if at > 0 and data[at - 1] not in b" \t":
        return None
    span = value_span(data, value_at)
    if span is None:
        return None
    start, end, _ = span
    value = data[start:end]
    if not value or value.startswith((b"$", b"%", b"-", b"<", b"[")) or value == b"*":
        return None
    line = line_before(data, at)
    if flag != b"a":
        clients = _SHORT_FLAGS[(flag, glued)]
        if clients.search(line) is None:
            return None
        if flag == b"U":
            cut = value.find(b"%")  # smbclient -U user%password
            if cut <= 0 or cut == len(value) - 1:
                return None
            start += cut + 1
            value = data[start:end]
            if value.startswith(b"["):
                return None  # already redacted
    else:
        if _A_FLAG.search(line) is None:
            return None
        colon = value.find(b":")
        if (
            b"redis" not in line
            and b"valkey" not in line
            and b"keydb" not in line
            and 0 < colon < len(value) - 1
        ):
            start += colon + 1  # httpie: user:password
            value = data[start:end]
            if value.startswith(b"["):
                return None  # already redacted
    return Hit("credential-assignment", start, end, value)


def command_passes() -> list[Pass]:
    """The passes of this module, in the form ``SecretScanner`` runs keyword passes."""
    return [
        Pass(
            re.compile(
                rb"-(?:-?(?P<long>" + _FLAG_NAME + rb")(?:=|[ \t]+)"
                rb"|(?P<short>p)(?P<glued>(?=[^\s\-=]))|(?P<short2>[paPNwU])[ \t]+)"
            ),
            _flag_any,
            # every handler wants a space, a tab or nothing before the dash: no word byte ("sk-proj")
            gate=(rb"\B-(?:-?" + _FLAG_NAME + rb"(?:=|[ \t])|p[^\s\-=]|[paPNwU][ \t])", 0, 0),
        ),
        Pass(_COMMAND, _command),
        Pass(_SQL, _sql),
        Pass(_STDIN, _stdin),
    ]
