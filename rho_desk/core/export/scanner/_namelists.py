"""Lists of names: a credential's name as one item of a list, the item after it the next name.

A list of quoted names (a SQL column list ``("User", "Password", "Created")``, a JSON schema's
``"required": ["username", "password", "email"]``, OIDC metadata's
``["client_secret_basic", "client_secret_post", "private_key_jwt"]``, a tuple of fields) holds a
credential's name as an item; the readers of ``name, value`` take the item after it as its value.
It is not one when the list is a list of names: three items or more, each a word of letters
(``_``, ``-`` between them, no digit), the hit an item after a credential-named one.

A ``(name, value)`` pair (two items), an item holding a digit or a symbol, or a list whose items
are not all names is still read as the readers read it; so is an item after the credential's
name that reads as a word rather than a field's name: letters only, over ten of them, no ``_``
or inner capital, or words joined by ``-`` (``("user", "admin", "password", "Zeppelinmarmot")``,
a Perl flat hash, a row of ``(user, kind, secret)``, Redis' ``CONFIG SET requirepass``), and one
written otherwise than the credential's name (``"password", "Marmalade"``). A word of ten
lower-case letters or fewer after ``"password"`` in a list of three is still taken for a name.
"""

from __future__ import annotations

import re
from typing import Final

from ._names import name_is_credential

__all__ = ["listed_name"]

_ITEM: Final = rb"\\{0,7}[\"'][A-Za-z][A-Za-z_\-]{0,63}\\{0,7}[\"']"
_LIST: Final = re.compile(
    rb"[\[({][ \t]*(?:" + _ITEM + rb"[ \t]*,[ \t]*){1,}" + _ITEM + rb"[ \t]*,?[ \t]*[\])}]"
)
_NAMES_NAME: Final = re.compile(
    rb"(?i:fields|columns|cols|required|names|keys|attrs|attributes|properties|permit|only|"
    rb"exclude|include|select|fieldnames|list_display|search_fields|readonly_fields|"
    rb"required_fields|sensitive_fields|filter_parameters)"
    rb"\\{0,3}[\"']?[ \t]*(?:[:=]|\+=|=>)?[ \t]*\(?[ \t]*\Z"
)
"""A list's name saying its items are names (a form's or a table's ``fields``, a schema's
``required``): a list of two names is one too (``fields = ("authCode", "state")``)."""
_WORD: Final = re.compile(rb"[A-Za-z][A-Za-z_\-]{0,63}")
_REACH: Final = 600
"""How far from a hit its list is looked for, each way (a list of a line)."""
_OPEN: Final = re.compile(rb"[\[({]")


def listed_name(data: bytes, start: int, end: int) -> bool:
    """The hit ``data[start:end]`` is an item of a list of names (module docstring) after a
    credential-named item."""
    if start == 0 or data[start - 1] not in b"\"'":
        return False
    before = data[max(0, start - 40) : start - 1].rstrip(b"\\").rstrip(b" \t")
    if before and before[-1] != 0x2C:
        return False  # an item after another has a comma before its quote (and blanks, escapes)
    lo, hi = max(0, start - _REACH), min(len(data), end + _REACH)
    opening = data.rfind(b"\n", lo, start) + 1 or lo  # a list on the hit's line (or JSON's)
    for m in _OPEN.finditer(data, opening, start):
        whole = _LIST.match(data, m.start(), hi)
        if whole is None or whole.end() <= start:
            continue
        items = [w for w in _WORD.finditer(data, whole.start(), whole.end())]
        if len(items) < 3 and _NAMES_NAME.search(data, max(0, m.start() - 40), m.start()) is None:
            return False  # two items: a (name, value) pair unless the list is named for names
        for k, item in enumerate(items):
            if item.start() == start:
                return (
                    k > 0
                    and name_is_credential(items[k - 1].group().decode("ascii"))
                    and _field_name(item.group())
                    and _case(item.group()) == _case(items[k - 1].group())
                )
        return False
    return False


_FIELD: Final = re.compile(rb"[A-Za-z]{1,10}|[A-Za-z]+(?:_[A-Za-z]+)+|[a-z]+(?:[A-Z][a-z]*)+")
"""A field's name: a word of ten letters or fewer, words joined by ``_``, camelCase (not words
joined by ``-``: a passphrase's form)."""


def _field_name(item: bytes) -> bool:
    """``item`` reads as a field's name, not as a password of letters (``Zeppelinmarmot``)."""
    return _FIELD.fullmatch(item) is not None


def _case(item: bytes) -> tuple[bool, bool]:
    """How a name is written: its first letter a capital, all of it capitals. Names of one list
    are written alike (``"User", "Password", "Created"``); ``"password", "Marmalade"`` is not."""
    return item[:1].isupper(), item.isupper()
