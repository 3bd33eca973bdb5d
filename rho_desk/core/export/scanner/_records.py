"""Records: a credential known by its place in a record of a file no other reader knows.

A password often stands with no name beside it, in a record whose layout says what each field
is. This module reads the layouts as data:

* **a scheme's marker** before a plaintext password (``SCHEMES``: Dovecot's passwd-file
  ``user:{PLAIN}X:1000:1000::/home/u``, ``{CLEARTEXT}X``, ``doveadm pw -s PLAIN``'s output); a
  hash's scheme (``{SHA512-CRYPT}``, ``{SSHA}``) marks no plaintext and is left alone;
* **a secret's type after a colon** (``SECRET_TYPES``): strongSwan's ``ipsec.secrets`` (``ana :
  EAP "X"``, ``: PSK "X"``, ``carol : XAUTH "X"``, ``: RSA key.pem "passphrase"``);
* **a Wi-Fi network's QR payload** (``WIFI:T:WPA;S:ssid;P:X;;``): its ``P:`` field, in any order;
* **the lines under a comment that names their file or their layout** (``record_values``, read by
  the structure reader on the comment's line): a file's path whose name says it holds
  credentials or accounts (``# /etc/davfs2/secrets``, ``# /etc/dovecot/users``, ``_printers``'
  ``names_credential`` and ``names_accounts``) makes each record's fields after its first that
  read as generated its secrets, and a quoted passphrase that ends a record; a layout of field
  names with a credential's among them (exim's ``# target.mail.server.example:login:password``,
  ppp's ``# client server secret IP addresses``) makes the field in that column the secret,
  whatever its shape.

Benign records stay as they are: ``/etc/passwd``'s ``x``, ``/etc/group``, ``fstab``, a crontab,
``host:port:db`` lines (no comment names a credential's column), a QR payload with no ``P:``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

from ._catalogue import Hit
from ._lines import Line
from ._printers import column_value, file_layout, names_accounts, names_credential, record_fields
from ._rules import Pass
from ._values import literal_value, value_span
from ._work import spend

__all__ = ["RECORD_HEADER", "record_line", "record_passes", "record_values"]

SCHEMES: Final = (b"PLAIN", b"CLEARTEXT", b"PLAINTEXT", b"PLAIN-TRUNC")
"""Password schemes whose password is the plaintext (Dovecot's; an encoding may follow: ``.b64``)."""
SECRET_TYPES: Final = (b"PSK", b"EAP", b"XAUTH", b"NTLM")
"""ipsec.secrets' secret types whose secret follows the type."""
KEY_TYPES: Final = (b"RSA", b"ECDSA", b"BLISS", b"PKCS8", b"P12")
"""ipsec.secrets' types of a key file, whose passphrase may follow the file's name."""

_SCHEME: Final = re.compile(
    rb"\{(?:" + b"|".join(SCHEMES) + rb")(?:\.(?:b64|base64|hex|B64|BASE64|HEX))?\}"
    rb"(?P<value>[^\s:\"'\\\x00\xff,;]{4,256})"
)
_TYPED: Final = re.compile(
    rb"[ \t]:[ \t]{1,4}(?:(?P<secret>" + b"|".join(SECRET_TYPES) + rb")|(?P<key>"
    rb"" + b"|".join(KEY_TYPES) + rb")[ \t]+[^\s\"'\\]{1,200})[ \t]+"
)
_WIFI: Final = re.compile(
    rb"WIFI:(?P<fields>(?:[A-Za-z0-9]{1,3}:(?:[^;\\\r\n\x00\xff]|\\.){0,256};){1,8})"
)
_WIFI_FIELD: Final = re.compile(
    rb"(?P<key>[A-Za-z0-9]{1,3}):(?P<value>(?:[^;\\\r\n\x00\xff]|\\.){0,256});"
)


def _scheme(data: bytes, m: re.Match[bytes]) -> Hit | None:
    """``{PLAIN}X``: the plaintext password after its scheme's marker."""
    value = m.group("value")
    if value.startswith(b"[secret") or not literal_value(value, quoted=True):
        return None
    return Hit("credential-assignment", m.start("value"), m.end("value"), value)


def _typed(data: bytes, m: re.Match[bytes]) -> Hit | None:
    """``selectors : EAP "X"``, ``: RSA key.pem "X"``: the secret after its type."""
    span = value_span(data, m.end())
    if span is None:
        return None
    start, end, quoted = span
    value = data[start:end]
    if value.startswith((b"[secret", b"%")) or not literal_value(value, quoted=True):
        return None  # %prompt: asked for; a value redacted already
    if not quoted and m.group("key") is not None:
        return None  # a key file's passphrase is quoted (a bare word is the next record's)
    return Hit("credential-assignment", start, end, value)


def _wifi(data: bytes, m: re.Match[bytes]) -> Hit | None:
    """``WIFI:T:WPA;S:ssid;P:X;;``: the network's password, the field ``P``."""
    for field in _WIFI_FIELD.finditer(data, m.start("fields"), m.end("fields")):
        if field.group("key") != b"P":
            continue
        start, end = field.span("value")
        if end - start >= 2 and data[start] == data[end - 1] == 0x22:
            start, end = start + 1, end - 1  # P:"X";
        value = data[start:end]
        if value.startswith(b"[secret") or not literal_value(value, quoted=True):
            return None
        return Hit("credential-assignment", start, end, value)
    return None


def record_passes() -> list[Pass]:
    """The passes of this module, in the form ``SecretScanner`` runs keyword passes."""
    return [Pass(_SCHEME, _scheme), Pass(_TYPED, _typed), Pass(_WIFI, _wifi)]


# --- the lines under a comment naming their file or their layout ----------------------------------

RECORD_HEADER: Final = (
    rb"#[ \t]*(?:[^\s:]+:)+(?:password|passwd|secret|pass)"
    rb"|#[ \t]*(?:[a-z]+(?:[ \t]|\\{1,7}t)+)+(?:secret|password|passwd)"
    rb"|#[ \t]*[~.]?/[^\s\"'\\]"
)
"""A ``#`` comment that can be a layout of fields with a credential's (``host:login:password``,
``client server secret``) or a file's path (``/etc/ppp/chap-secrets``): the structure trigger's
gate (caseless, unbounded: a superset; a tab JSON-escaped too), confirmed on the line by
``record_header``."""
_HEADER: Final = re.compile(rb"[ \t]*#[ \t]*(?P<body>.*?)[ \t]*\Z")
_PATH: Final = re.compile(rb"(?P<path>[~.]?/[^\s]{1,200})(?:[ \t]+\(.*\))?")
_COLON_FIELDS: Final = re.compile(rb"[^\s:]{1,120}(?::[^\s:]{1,120}){2,7}")
_SPACE_FIELDS: Final = re.compile(rb"(?:[A-Za-z]{2,12}[ \t]+){2,7}[A-Za-z]{2,12}")
COLUMNS: Final = frozenset(
    b"client server secret password passwd pass user username login host hostname port database"
    b" db ip addresses address mountpoint mount url target account machine domain realm identity"
    b" name uid gid home shell comment id".split()
)
"""Words a layout of space-separated fields is made of (a sentence in a comment is no layout)."""
_CREDENTIAL_COLUMNS: Final = frozenset(b"secret password passwd pass pwd".split())
_RECORDS_MAX: Final = 64
"""Most lines read under a header."""
_FIRST: Final = re.compile(rb"[\"']?[^\s:\"']*")
"""A record's first field (the user, host or identity it is for)."""
_QUOTED_LAST: Final = re.compile(rb"\"([^\"\r\n]{4,200})\"[ \t]*\Z")


def _layout(body: bytes) -> tuple[bytes, int] | None:
    """``(separator, column)`` of a layout comment's credential column, or None."""
    if _COLON_FIELDS.fullmatch(body) is not None:
        fields = [f.lower() for f in body.split(b":")]
        sep = b":"
    elif _SPACE_FIELDS.fullmatch(body) is not None:
        fields = [f.lower() for f in body.split()]
        if not all(f in COLUMNS for f in fields):
            return None
        sep = b" "
    else:
        return None
    column = next((k for k, f in enumerate(fields) if f in _CREDENTIAL_COLUMNS), None)
    return None if column is None or column == 0 else (sep, column)


def record_line(line: bytes) -> bool:
    """A line (its text: escapes decoded, wrapper peeled) that is a comment naming the file or the
    layout of the records under it (the structure trigger's test)."""
    head = _HEADER.fullmatch(line)
    return head is not None and record_header(head.group("body"))


def record_header(body: bytes) -> bool:
    """A comment's text that is a layout with a credential's column, or the path of a file of
    credentials or accounts."""
    if _layout(body) is not None:
        return True
    path = _PATH.fullmatch(body)
    if path is None:
        return False
    name = path.group("path").decode("utf-8", "replace")
    return names_credential(name) or names_accounts(name)


def _fields(text: bytes, sep: bytes) -> list[tuple[int, int]]:
    """The spans of a record's fields (in ``text``): split at ``sep`` (``b" "``: at spaces and
    tabs, a double-quoted field whole, its quotes out)."""
    if sep == b":":
        out, pos = [], 0
        for field in text.split(b":"):
            out.append((pos, pos + len(field)))
            pos += len(field) + 1
        return out
    return [
        (m.start(1), m.end(1)) if m.group(1) is not None else m.span()
        for m in re.finditer(rb"\"([^\"]*)\"|[^\s\"]+", text)
    ]


def record_values(t: bytes, lines: Sequence[Line], i: int) -> list[tuple[int, int]]:
    """The secrets of the records under line ``i``, a comment naming their file or layout."""
    head = _HEADER.fullmatch(t, lines[i].start, lines[i].end)
    if head is None or not record_header(head.group("body")):
        return []
    layout = _layout(head.group("body"))
    path = _PATH.fullmatch(head.group("body"))
    if layout is None and path is not None:
        layout = file_layout(path.group("path").decode("utf-8", "replace"))
    out: list[tuple[int, int]] = []
    for k in range(i + 1, min(len(lines), i + 1 + _RECORDS_MAX)):
        line = lines[k]
        text = t[line.start : line.end].strip()
        spend(line.end - line.start)
        if not text:
            break
        if text.startswith(b"#"):
            if record_line(text):
                break  # the next header: its records are its own
            continue
        lead = line.start + line.indent
        if layout is not None:
            sep, column = layout
            fields = _fields(t[lead : line.end].rstrip(), sep)
            if len(fields) > column:
                start, end = fields[column]
                value = t[lead + start : lead + end]
                if column_value(value):
                    out.append((lead + start, lead + end))
            continue
        row = t[lead : line.end].rstrip()
        lead_field = _FIRST.match(row)
        first = lead_field.end() if lead_field is not None else 0
        for field in record_fields(row.decode("utf-8", "replace")):
            raw = field.encode()
            at = row.find(raw, first)
            if at >= 0:
                out.append((lead + at, lead + at + len(raw)))
        quoted = _QUOTED_LAST.search(row)
        if (
            quoted is not None
            and quoted.start(1) > first
            and b" " in quoted.group(1)
            and literal_value(quoted.group(1), quoted=True)
        ):
            out.append((lead + quoted.start(1), lead + quoted.end(1)))  # "rocket pepper lava"
    return out
