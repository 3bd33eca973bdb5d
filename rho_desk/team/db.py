"""Connecting to the team database: DSNs without secrets, passwords from keyring, clean errors.

A DSN is anything libpq takes (``postgresql://...`` or ``key=value``); it passes through
untouched, so libpq's own ``.pgpass``, service files (``service=NAME``) and TLS settings
(``sslmode``, ``sslrootcert``...) work as libpq documents them. A DSN without a password may get
one from the keyring (service ``rho-desk``, user ``team-db:USER@HOST:PORT/DBNAME``), passed to
libpq as a parameter: it never goes into settings, logs, error text or ``repr``.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import AsyncIterator, Iterator
from typing import Any, Final

import psycopg
import psycopg.conninfo
from psycopg import errors as pg_errors

from ..core.errors import (
    AccessDenied,
    CredentialsUnavailable,
    DatabaseUnavailable,
    InputError,
    KnownError,
    StorageError,
)

__all__ = [
    "KEYRING_SERVICE",
    "PASSWORD_ADVICE",
    "connect",
    "database_errors",
    "keep_password_in_keyring",
    "keyring_password",
    "keyring_user",
    "refuse_password",
    "safe_dsn",
]

KEYRING_SERVICE: Final = "rho-desk"
"""The keyring service (``rho_desk.keys.SERVICE``: every secret goes through ``rho_desk.keys``)."""
_SECRET_KEYS: Final = frozenset({"password", "sslpassword"})
_URL_PASSWORD: Final = re.compile(r"(postgres(?:ql)?://[^:/@\s]*:)[^/\s]*@")


def _params(dsn: str) -> dict[str, str]:
    try:
        return {
            k: str(v) for k, v in psycopg.conninfo.conninfo_to_dict(dsn).items() if v is not None
        }
    except psycopg.ProgrammingError:
        raise InputError(f"not a PostgreSQL connection string: {safe_dsn(dsn)}") from None


def safe_dsn(dsn: str) -> str:
    """``dsn`` as it may be shown: every password removed (even from a DSN libpq cannot parse)."""
    try:
        params = psycopg.conninfo.conninfo_to_dict(dsn)
    except psycopg.ProgrammingError:
        text = _URL_PASSWORD.sub(r"\1***@", dsn)
        return re.sub(
            r"(password\s*=\s*)('(?:[^'\\]|\\.)*'|\S+)", r"\1***", text, flags=re.IGNORECASE
        )
    shown = {k: v for k, v in params.items() if k not in _SECRET_KEYS and v is not None}
    return psycopg.conninfo.make_conninfo(**{k: str(v) for k, v in shown.items()})


PASSWORD_ADVICE: Final = (
    "leave the password out and keep it in the keyring (the app's Settings store it there), in "
    "~/.pgpass (mode 0600: HOST:PORT:DATABASE:USER:PASSWORD) or in a service file (service=NAME, "
    "~/.pg_service.conf with the password in ~/.pgpass)"
)


def refuse_password(dsn: str, *, source: str = "--db") -> None:
    """Refuse a connection string that holds a password: on a command line every local user can
    read it (``ps``), and a shell keeps it in its history.

    Raises:
        InputError: ``dsn`` holds a password (the error never shows it).
    """
    params = _params(dsn)
    if params.get("password") or params.get("sslpassword"):
        raise InputError(
            f"the connection string holds a password, which other local users can read in the process "
            f"list: {PASSWORD_ADVICE}",
            source=f"{source} {safe_dsn(dsn)}",
        )


def keyring_user(dsn: str) -> str:
    """The keyring user name holding the password of ``dsn``'s account (``team-db:USER@HOST:PORT/DB``)."""
    p = _params(dsn)
    user = p.get("user", "")
    return f"team-db:{user}@{p.get('host', '')}:{p.get('port', '5432')}/{p.get('dbname', user)}"


def keyring_password(dsn: str) -> str | None:
    """The password stored in keyring for ``dsn``, if the DSN has none and keyring has one.

    A missing or failing keyring is not an error here: libpq may still find a password in
    ``.pgpass`` or a service file, or the server may not need one.
    """
    if "password" in _params(dsn):
        return None
    from ..keys import read_secret

    try:
        return read_secret(keyring_user(dsn), what="the team database password")
    except CredentialsUnavailable:  # no keyring, locked, D-Bus errors: libpq's own sources
        return None


def describe(exc: BaseException, dsn: str) -> KnownError:
    """The rho-desk error for a psycopg error (its text never holds a password)."""
    where = safe_dsn(dsn)
    if isinstance(exc, pg_errors.InsufficientPrivilege):
        return AccessDenied(f"the team database refused: {_first_line(exc)} ({where})")
    if isinstance(exc, pg_errors.InvalidPassword | pg_errors.InvalidAuthorizationSpecification):
        return CredentialsUnavailable(
            f"the team database did not accept the credentials ({where}): store the password in "
            "keyring or in libpq's .pgpass"
        )
    if isinstance(exc, psycopg.OperationalError):
        text = _first_line(exc)
        if "password authentication failed" in text or "no password supplied" in text:
            return CredentialsUnavailable(
                f"the team database did not accept the credentials ({where}): store the password "
                "in keyring or in libpq's .pgpass"
            )
        return DatabaseUnavailable(
            f"the team database is unreachable or dropped the connection ({where}): {text}"
        )
    return StorageError(f"the team database failed: {_first_line(exc)} ({where})")


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    line = text[0] if text else type(exc).__name__
    return _URL_PASSWORD.sub(r"\1***@", line)


@contextlib.contextmanager
def database_errors(dsn: str) -> Iterator[None]:
    """Turn psycopg errors raised inside into rho-desk errors (``describe``)."""
    try:
        yield
    except psycopg.Error as exc:
        raise describe(exc, dsn) from None


@contextlib.asynccontextmanager
async def connect(
    dsn: str, *, autocommit: bool = False
) -> AsyncIterator[psycopg.AsyncConnection[Any]]:
    """One connection to ``dsn`` (password from keyring when the DSN has none), closed after."""
    with database_errors(dsn):
        password = keyring_password(dsn)
        if password:
            conn = await psycopg.AsyncConnection.connect(
                dsn, autocommit=autocommit, password=password
            )
        else:
            conn = await psycopg.AsyncConnection.connect(dsn, autocommit=autocommit)
    try:
        with database_errors(dsn):
            yield conn
    finally:
        with contextlib.suppress(Exception):
            await conn.close()


def keep_password_in_keyring(dsn: str) -> str:
    """``dsn`` without its password, the password moved to the keyring (blocking: run in a thread).

    For connection strings a person types into the app: what is saved in settings never holds
    the password.

    Raises:
        CredentialsUnavailable: the DSN has a password and no keyring can hold it.
    """
    params = _params(dsn)
    password = params.get("password")
    if not password:
        return dsn
    stripped = safe_dsn(dsn)
    from ..keys import InsecureKeyring, store_secret

    try:
        # the same refusals as every keyring user: never into a plaintext backend
        store_secret(keyring_user(stripped), password, what="the team database password")
    except InsecureKeyring:
        raise CredentialsUnavailable(
            "no keyring can hold the team database password (the only backend stores secrets in plain "
            "text): put it in ~/.pgpass instead and leave it out of the connection string"
        ) from None
    except CredentialsUnavailable as exc:
        raise CredentialsUnavailable(
            f"{exc.text().rstrip('.')}. Or put it in ~/.pgpass instead and leave it out of the "
            "connection string"
        ) from None
    return stripped
