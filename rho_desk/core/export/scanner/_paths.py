"""Paths: a value that says where a credential is (its file), not what the credential is.

``credential_path`` is what ``_values.literal_value`` asks of a value under a credential's name;
``WORD_PATH`` (a path of lower-case words) is what ``_values.secretish`` passes over.
"""

from __future__ import annotations

import re
from typing import Final

__all__ = ["WORD_PATH", "credential_path"]

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
