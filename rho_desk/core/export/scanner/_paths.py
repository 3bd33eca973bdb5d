"""Paths: a value that says where a credential is (its file), not what the credential is.

``credential_path`` is what ``_values.literal_value`` asks of a value under a credential's name;
``WORD_PATH`` (a path of lower-case words) is what ``_values.secretish`` passes over;
``among_options`` is what ``_benign`` asks of a hit holding ``,name=``: a path of words before a
list of options (fstab's and ``mount -o``'s ``credentials=/root/.smbcredentials,uid=1000``), or a
list of settings none of which names a credential (``--secret id=npmrc,src=/home/u/.npmrc``), is
where a credential is, or settings, whichever pass read it as a value; each setting is read by
its own name (``password=X,vers=3.0`` still is a password).
"""

from __future__ import annotations

import re
from typing import Final

__all__ = ["WORD_PATH", "among_options", "credential_path"]

_PATH_ID: Final = re.compile(rb"[A-Za-z0-9_.@\-]{1,64}:(?=[/~.])")
"""An id before a file's path (systemd's ``LoadCredential=db-password:/etc/…``)."""


WORD_PATH: Final = re.compile(
    rb"(?:[A-Za-z0-9_.@\-]{1,64}:)?(?:~|\.{1,2})?(?:/[a-z0-9_.\-]{1,64}){2,}/?"
)
"""A path of lower-case words (and an id before it): a file's name, unlike ``/Kq9/mZr7Tx``."""


def credential_path(value: bytes) -> bool:
    """``value`` is a file's path (``/run/secrets/db``, ``~/.pgpass``: two ``/`` or more, no
    space), or an id and a path of lower-case words (``db-password:/etc/orders/db-password``;
    not ``svc:/q8Kx9mR/2vT7Lw``, a password after a user): where a credential is, not the
    credential."""
    if b"/" not in value:
        return False
    if _PATH_ID.match(value) is not None:
        return WORD_PATH.fullmatch(value) is not None
    return (
        value.startswith((b"/", b"~/", b"./", b"../"))
        and b" " not in value
        and value.count(b"/") >= 2
    )


_OPTION: Final = re.compile(rb",[ \t]?[A-Za-z_][A-Za-z0-9_.\-]{0,31}=")
"""The next option of a list, after its comma: ``,uid=``, ``,src=``."""
_SETTING: Final = re.compile(rb"([A-Za-z_][A-Za-z0-9_.\-]{0,31})=[^,\s]{0,256}")
_NAMES_CREDENTIAL: Final = re.compile(rb"pass|pwd|secret|token|key|auth|cred", re.IGNORECASE)


def among_options(value: bytes) -> bool:
    """``value`` is a path of words followed by a list of options, or a list of settings whose
    names name no credential (module docstring)."""
    option = _OPTION.search(value)
    if option is None:
        return False
    if WORD_PATH.fullmatch(value, 0, option.start()) is not None:
        return True
    for setting in value.split(b","):
        m = _SETTING.fullmatch(setting.strip())
        if m is None or _NAMES_CREDENTIAL.search(m.group(1)) is not None:
            return False
    return True
