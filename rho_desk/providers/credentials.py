"""API keys of provider profiles: kept in the system keyring, read off the GUI thread.

One keyring entry per profile: service ``rho-desk``, username ``profile:<profile name>`` (the
prefix keeps profile keys apart from rho-desk's own entries, such as ``export-fingerprint-key``
and ``durable-store:<name>``, whatever a profile is called). Keys never
touch settings, snapshots or logs; in memory they live in ``SecretString``. Reading an
environment variable instead is an explicit, visible opt-in of the profile (``api_key_env``),
and the source of a resolved key is reported (``ResolvedKey.source``) so the UI can show it.

Keyring calls can block for a long time (a locked collection prompts; a D-Bus service may hang),
so the GUI uses the ``a``-prefixed async twins, which run them in a worker thread. Without any
keyring backend the calls raise ``NoKeyringBackend``, a ``CredentialsUnavailable`` whose text
tells the user what to do. A plaintext backend (keyrings.alt) is refused for writing unless the
caller allows it explicitly: it is not a secret store (environment.md §3). The backend checks and
the wording of these errors come from ``rho_desk.keys``, shared with rho-desk's own keys.

``profile_secrets(profiles)`` returns every credential rho-desk holds for those profiles, for the
exporter to redact (``export_secrets.stored_secrets`` hands it the profile store's profiles). The
keyring cannot list entries, so the names come from the profiles plus a small index file of
usernames (no secrets) kept beside them. A profile is anything with a name, ``requires_key`` and
``api_key_env`` (:class:`KeyedProfile`), so this module sits below the profile store.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Protocol

from ..core.errors import CredentialsUnavailable, MissingApiKey
from ..core.secrets.scrub import SecretString
from ..core.system.dirs import config_dir
from ..keys import (
    SERVICE,
    InsecureKeyring,
    KeyringFailure,
    KeyringStatus,
    NoKeyringBackend,
    delete_secret,
    keyring_status,
    read_secret,
    store_secret,
)

__all__ = [
    "PROFILE_USER_PREFIX",
    "SERVICE",
    "InsecureKeyring",
    "KeyedProfile",
    "KeyringFailure",
    "KeyringStatus",
    "MissingApiKey",
    "NoKeyringBackend",
    "ResolvedKey",
    "adelete_api_key",
    "aget_api_key",
    "aresolve_api_key",
    "aset_api_key",
    "delete_api_key",
    "get_api_key",
    "keyring_status",
    "keyring_user",
    "profile_secrets",
    "resolve_api_key",
    "set_api_key",
]

log = logging.getLogger("rho_desk.providers.credentials")

INDEX_FILE: Final = "credential-index.json"


class KeyedProfile(Protocol):
    """What the credential functions read of a provider profile."""

    @property
    def name(self) -> str: ...
    @property
    def requires_key(self) -> bool: ...
    @property
    def api_key_env(self) -> str | None: ...


_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")

_ENV_ADVICE: Final = (
    ", or set the profile's API key environment variable option to read the key from the "
    "environment instead"
)


@dataclass(frozen=True, slots=True)
class ResolvedKey:
    """A key and where it came from (shown to the user: opting into the environment is visible)."""

    secret: SecretString
    source: str
    """``keyring`` or ``environment variable NAME``."""


def _profile_name(profile: KeyedProfile | str) -> str:
    name = profile if isinstance(profile, str) else profile.name
    if not name:
        raise ValueError("a profile name must not be empty")
    return name


PROFILE_USER_PREFIX: Final = "profile:"


def keyring_user(profile: KeyedProfile | str) -> str:
    """The keyring username holding ``profile``'s API key (service ``rho-desk``)."""
    return PROFILE_USER_PREFIX + _profile_name(profile)


def _what(profile: str) -> str:
    return f"the API key of profile '{profile}'"


# --- the username index (no secrets) ----------------------------------------------------------


def _index_path() -> Path:
    return config_dir() / INDEX_FILE


def _read_index() -> list[str]:
    try:
        data = json.loads(_index_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    names = data.get("usernames") if isinstance(data, dict) else None
    return [n for n in names if isinstance(n, str) and n] if isinstance(names, list) else []


def _write_index(names: list[str]) -> None:
    from ..core.errors import StorageError
    from ..core.system.fsio import atomic_write

    try:
        atomic_write(
            _index_path(), json.dumps({"usernames": sorted(set(names))}, indent=2).encode()
        )
    except StorageError as exc:
        # The index only widens what stored_secrets() finds; losing it must not lose the key.
        log.warning("could not update the credential index: %s", type(exc).__name__)


# --- sync API ---------------------------------------------------------------------------------


def get_api_key(profile: KeyedProfile | str) -> SecretString | None:
    """The key stored in keyring for ``profile``, or ``None``.

    Raises:
        NoKeyringBackend: there is no keyring backend.
        KeyringFailure: the keyring failed (locked, D-Bus error...).
    """
    name = _profile_name(profile)
    value = read_secret(keyring_user(name), what=_what(name), no_keyring_advice=_ENV_ADVICE)
    return SecretString(value) if value else None


def set_api_key(
    profile: KeyedProfile | str, key: str | SecretString, *, allow_insecure: bool = False
) -> None:
    """Store ``key`` for ``profile`` (replacing any previous one).

    Args:
        allow_insecure: accept a plaintext backend (keyrings.alt); the caller told the user.

    Raises:
        NoKeyringBackend, KeyringFailure: the keyring cannot store it.
        InsecureKeyring: the backend is plaintext and ``allow_insecure`` is false.
    """
    name = _profile_name(profile)
    value = key.expose_secret() if isinstance(key, SecretString) else key
    if not value or value != value.strip():
        raise ValueError("an API key must be non-empty, without surrounding whitespace")
    store_secret(
        keyring_user(name),
        value,
        what=_what(name),
        allow_insecure=allow_insecure,
        no_keyring_advice=_ENV_ADVICE,
    )
    index = _read_index()
    if name not in index:
        _write_index([*index, name])


def delete_api_key(profile: KeyedProfile | str) -> bool:
    """Remove the stored key of ``profile``. Returns False when none was stored."""
    name = _profile_name(profile)
    removed = delete_secret(keyring_user(name), what=_what(name))
    index = _read_index()
    if name in index:
        _write_index([n for n in index if n != name])
    return removed


def resolve_api_key(
    profile: KeyedProfile, *, environ: dict[str, str] | None = None
) -> ResolvedKey | None:
    """The key to use for ``profile``: keyring first, then its opted-in environment variable.

    Returns ``None`` only for profiles that need no key (a local Ollama server).

    Raises:
        MissingApiKey: the profile needs a key and none was found.
        NoKeyringBackend: no keyring and no environment opt-in to fall back on.
        KeyringFailure: the keyring failed and there is no environment opt-in.
    """
    env = os.environ if environ is None else environ
    unavailable: CredentialsUnavailable | None = None
    stored: SecretString | None = None
    # A keyless profile (local Ollama) consults the keyring only if a key was ever stored for
    # it: a locked keyring must not prompt, or fail, for a server that needs nothing.
    if profile.requires_key or profile.name in _read_index():
        try:
            stored = get_api_key(profile)
        except CredentialsUnavailable as exc:
            unavailable = exc
    if stored is not None:
        return ResolvedKey(stored, "keyring")
    var = profile.api_key_env
    if var:
        value = env.get(var, "").strip()
        if value:
            return ResolvedKey(SecretString(value), f"environment variable {var}")
    if unavailable is not None and profile.requires_key:
        raise unavailable
    if profile.requires_key:
        where = f" or in the environment variable {var}" if var else ""
        raise MissingApiKey(
            f"No API key is stored for profile '{profile.name}' in the keyring{where}. Add one in the provider settings."
        )
    return None


def profile_secrets(profiles: Iterable[KeyedProfile]) -> list[str]:
    """Every credential rho-desk holds for ``profiles`` and the index, for redaction.

    Covers the keyring entries of every profile that needs a key and every indexed username,
    plus the values of opted-in environment variables (rho-desk would send those too). Without
    a keyring backend (or one that does not answer: ``keyring_status``) the keyring part is
    empty. Blocking: keyring may wait on D-Bus or an unlock prompt.

    Raises:
        KeyringFailure: the keyring exists but cannot be read (locked): redaction would be
            incomplete, so the caller must not proceed silently.
    """
    # a profile that needs no key (a local Ollama server) is asked for only if a key was ever
    # stored for it (the index says so): it must not need, or wait on, a keyring
    names = set(_read_index())
    env_vars: set[str] = set()
    for profile in profiles:
        if profile.requires_key:
            names.add(profile.name)
        if profile.api_key_env:
            env_vars.add(profile.api_key_env)
    secrets: list[str] = []
    for name in sorted(names):
        try:
            value = get_api_key(name)
        except NoKeyringBackend:
            break
        if value is not None:
            secrets.append(value.expose_secret())
    for var in sorted(env_vars):
        from_env = os.environ.get(var, "").strip()
        if from_env and _ENV_NAME.match(var):
            secrets.append(from_env)
    return list(dict.fromkeys(secrets))


# --- async twins (the GUI thread never blocks on keyring) -------------------------------------


async def aget_api_key(profile: KeyedProfile | str) -> SecretString | None:
    return await asyncio.to_thread(get_api_key, profile)


async def aset_api_key(
    profile: KeyedProfile | str, key: str | SecretString, *, allow_insecure: bool = False
) -> None:
    await asyncio.to_thread(set_api_key, profile, key, allow_insecure=allow_insecure)


async def adelete_api_key(profile: KeyedProfile | str) -> bool:
    return await asyncio.to_thread(delete_api_key, profile)


async def aresolve_api_key(profile: KeyedProfile) -> ResolvedKey | None:
    return await asyncio.to_thread(resolve_api_key, profile)
