"""The system keyring, the only module that talks to it: backend detection, the one wording of
key and credential errors, one adapter for every secret rho-desk keeps there, and rho-desk's own
keys.

Its three users (provider API keys in ``rho_desk.providers.credentials``, the team database
password in ``rho_desk.team.db``, rho-desk's own keys here) read, store and delete through
:func:`read_secret`, :func:`store_secret` and :func:`delete_secret`, so they share the same
refusals: a plaintext backend (keyrings.alt's ``PlaintextKeyring`` and friends) is not a secret
store, and nothing is written to it without an explicit opt-in (rho-desk's own keys and the team
database password never are).

A keyring that does not answer is no keyring. On a desktop with a D-Bus session but no Secret
Service (minimal window managers, WSL, remote sessions), keyring picks its SecretService backend
and then fails with ``InitError`` or waits forever. The first use in a process probes the
backend with one read, bounded by :data:`PROBE_TIMEOUT` seconds, and caches the answer: a
backend that fails or does not answer in time is reported as absent (``keyring_status()``), and
every operation then raises :class:`NoKeyringBackend` at once, so rho-desk falls back to its key
file and needs no keyring for anything it does not store there.

Keyring calls can still block after a good probe (a locked collection prompts): call them from a
worker thread in the GUI.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final, TypeVar

import keyring
import keyring.backend
import keyring.errors

from ..core.errors import CredentialsUnavailable
from ..core.secrets.keys import decode_key, encode_key

__all__ = [
    "OWN_KEYS_ADVICE",
    "SERVICE",
    "InsecureKeyring",
    "KeyringFailure",
    "KeyringKeySource",
    "KeyringStatus",
    "NoKeyringBackend",
    "backend_is_insecure",
    "credentials_error",
    "delete_secret",
    "insecure_keyring_error",
    "keyring_error",
    "keyring_status",
    "read_secret",
    "reset_keyring_probe",
    "store_secret",
]

SERVICE: Final = "rho-desk"
"""The keyring service of every rho-desk entry (profile API keys and rho-desk's own keys)."""

SECRET_SERVICE_ADVICE: Final = (
    "Install and unlock a Secret Service provider (GNOME Keyring or KWallet; on a headless "
    "machine run it under dbus-run-session)"
)
OWN_KEYS_ADVICE: Final = "Unlock the keyring and try again."


class NoKeyringBackend(CredentialsUnavailable):
    """No keyring backend exists on this system."""


class KeyringFailure(CredentialsUnavailable):
    """The keyring exists but the operation failed (locked, dismissed prompt, D-Bus error)."""


class InsecureKeyring(CredentialsUnavailable):
    """The only backend stores secrets in plain text; writing needs an explicit opt-in."""


PROBE_TIMEOUT: Final = 2.0
"""Seconds the first keyring read of a process may take before the keyring counts as absent."""
_PROBE_USER: Final = "rho-desk:probe"

_T = TypeVar("_T")


@dataclass(frozen=True, slots=True)
class KeyringStatus:
    """Which keyring backend is in use, for the settings dialog and ``rho-desk keys``."""

    backend: str
    available: bool
    secure: bool
    problem: str = ""
    """Why a backend that exists counts as absent (``did not answer within 2 s``, ``InitError``)."""


class _Timeout(Exception):
    pass


def _bounded(call: Callable[[], _T], timeout: float) -> _T:
    """``call()`` in a daemon thread; ``_Timeout`` when it has not returned within ``timeout``
    (the thread is left behind: a hung D-Bus call cannot be interrupted, and does not keep the
    process alive)."""
    box: list[tuple[bool, object]] = []

    def run() -> None:
        try:
            box.append((True, call()))
        except BaseException as exc:  # handed to the caller's thread
            box.append((False, exc))

    thread = threading.Thread(target=run, name="rho-desk keyring probe", daemon=True)
    thread.start()
    thread.join(timeout)
    if not box:
        raise _Timeout
    ok, value = box[0]
    if not ok:
        assert isinstance(value, BaseException)
        raise value
    return value  # type: ignore[return-value]


_probe_lock = threading.Lock()
_probed: dict[int, tuple[keyring.backend.KeyringBackend, KeyringStatus]] = {}
_backend_ready = False
_unchosen: KeyringStatus | None = None


def reset_keyring_probe() -> None:
    """Forget the cached probe (the settings dialog's "check again"; tests)."""
    global _backend_ready, _unchosen
    with _probe_lock:
        _probed.clear()
        _backend_ready = False
        _unchosen = None


def _label(backend: object) -> str:
    return f"{type(backend).__module__}.{type(backend).__name__}"


def _probe(backend: keyring.backend.KeyringBackend, timeout: float, budget: float) -> KeyringStatus:
    label = _label(backend)
    if type(backend).__module__.startswith("keyring.backends.fail"):
        return KeyringStatus(label, False, False)
    get = backend.get_password
    try:
        _bounded(lambda: get(SERVICE, _PROBE_USER), budget)
    except _Timeout:
        return KeyringStatus(label, False, False, f"it did not answer within {timeout:g} s")
    except Exception as exc:
        if _means_absent(exc):
            return KeyringStatus(label, False, False, f"it reported {type(exc).__name__}")
        # a keyring that exists but refused (locked): present, and its failures are reported
        # as such, so redaction never silently skips the keys it holds
    return KeyringStatus(label, True, not backend_is_insecure(backend))


def _means_absent(exc: BaseException) -> bool:
    """Whether a failed probe read means there is no keyring service at all: ``InitError`` (the
    Secret Service has no collection and cannot make one), no backend, or a D-Bus error from the
    secretstorage and jeepney layers (no service on the bus)."""
    if isinstance(exc, keyring.errors.InitError | keyring.errors.NoKeyringError):
        return True
    module = type(exc).__module__
    return (
        module.startswith(("secretstorage", "jeepney", "dbus"))
        and "Locked" not in type(exc).__name__
    )


def backend_is_insecure(backend: object) -> bool:
    """Whether ``backend`` keeps secrets in plain text (keyrings.alt's plaintext backends)."""
    # keyring's chainer writes to its highest-priority backend: judge that one
    chained = getattr(backend, "backends", None)
    if isinstance(chained, list) and chained:
        backend = chained[0]
    name = type(backend).__name__
    return type(backend).__module__.startswith("keyrings.alt") and (
        "Plaintext" in name or "Unencrypted" in name
    )


def keyring_status() -> KeyringStatus:
    """The active backend, whether one is usable (it answered the probe), and whether it
    actually protects secrets. At most :data:`PROBE_TIMEOUT` seconds, once per backend and
    process."""
    global _backend_ready, _unchosen
    with _probe_lock:
        started = time.monotonic()  # choosing and probing share one budget
        if _unchosen is not None:
            return _unchosen
        if _backend_ready:
            backend: keyring.backend.KeyringBackend = keyring.get_keyring()
        else:
            # choosing the backend already talks to D-Bus
            try:
                backend = _bounded(keyring.get_keyring, PROBE_TIMEOUT)
            except _Timeout:
                _unchosen = KeyringStatus(
                    "keyring", False, False, f"it did not answer within {PROBE_TIMEOUT:g} s"
                )
                return _unchosen
            _backend_ready = True
        cached = _probed.get(id(backend))
        if cached is not None and cached[0] is backend:
            return cached[1]
        status = _probe(
            backend, PROBE_TIMEOUT, max(0.1, PROBE_TIMEOUT - (time.monotonic() - started))
        )
        _probed[id(backend)] = (backend, status)
        return status


def _absent(action: str, what: str, no_keyring_advice: str) -> CredentialsUnavailable | None:
    """The error for an operation when no keyring answers (``None``: one does)."""
    status = keyring_status()
    if status.available:
        return None
    reason = "no system keyring is available"
    if status.problem:
        reason = f"the system keyring ({status.backend}) is not usable: {status.problem}"
    advice = f"{SECRET_SERVICE_ADVICE}{no_keyring_advice}."
    return credentials_error(action, what, reason, advice, kind=NoKeyringBackend)


def read_secret(user: str, *, what: str, no_keyring_advice: str = "") -> str | None:
    """The secret stored for ``user`` (service ``rho-desk``), or ``None``.

    Raises:
        NoKeyringBackend: no keyring, or it did not answer the probe.
        KeyringFailure: the keyring failed (locked, D-Bus error).
    """
    failure = _absent("read", what, no_keyring_advice)
    if failure is None:
        try:
            return keyring.get_password(SERVICE, user) or None
        except Exception as exc:  # backends raise D-Bus, OS and keyring errors alike
            failure = keyring_error("read", what, exc, no_keyring_advice=no_keyring_advice)
    raise failure


def store_secret(
    user: str, value: str, *, what: str, allow_insecure: bool = False, no_keyring_advice: str = ""
) -> None:
    """Store ``value`` for ``user`` (replacing any previous one).

    Args:
        allow_insecure: accept a plaintext backend (the caller told the user).

    Raises:
        NoKeyringBackend, KeyringFailure: the keyring cannot store it.
        InsecureKeyring: the backend is plaintext and ``allow_insecure`` is false.
    """
    failure = _absent("store", what, no_keyring_advice)
    if failure is None and not allow_insecure and not keyring_status().secure:
        failure = insecure_keyring_error("store", what)
    if failure is None:
        try:
            keyring.set_password(SERVICE, user, value)
            return
        except Exception as exc:
            failure = keyring_error("store", what, exc, no_keyring_advice=no_keyring_advice)
    raise failure


def delete_secret(user: str, *, what: str) -> bool:
    """Remove the secret of ``user``; ``False`` when none was stored.

    Raises:
        NoKeyringBackend, KeyringFailure: the keyring cannot delete it.
    """
    failure = _absent("delete", what, "")
    if failure is None:
        try:
            keyring.delete_password(SERVICE, user)
            return True
        except keyring.errors.PasswordDeleteError:
            return False
        except Exception as exc:
            failure = keyring_error("delete", what, exc)
    raise failure


def credentials_error(
    action: str,
    what: str,
    reason: str,
    advice: str = "",
    *,
    kind: type[CredentialsUnavailable] = CredentialsUnavailable,
) -> CredentialsUnavailable:
    """The one wording of key and credential errors: ``Cannot ACTION WHAT: REASON. ADVICE``."""
    text = f"Cannot {action} {what}: {reason}."
    return kind(f"{text} {advice}".rstrip())


def keyring_error(
    action: str, what: str, exc: BaseException, *, no_keyring_advice: str = ""
) -> CredentialsUnavailable:
    """A keyring exception as a :class:`CredentialsUnavailable` in the shared wording.

    Only the exception's type is reported: a backend's message may quote its internals.
    """
    if isinstance(exc, keyring.errors.NoKeyringError):
        advice = f"{SECRET_SERVICE_ADVICE}{no_keyring_advice}."
        return credentials_error(
            action, what, "no system keyring is available", advice, kind=NoKeyringBackend
        )
    return credentials_error(
        action,
        what,
        f"the keyring reported {type(exc).__name__}",
        OWN_KEYS_ADVICE,
        kind=KeyringFailure,
    )


def insecure_keyring_error(action: str, what: str) -> CredentialsUnavailable:
    return credentials_error(
        action,
        what,
        f"the only keyring backend ({keyring_status().backend}) stores secrets in plain text",
        kind=InsecureKeyring,
    )


def _describe_key(name: str) -> str:
    return f"rho-desk's key {name}"


class KeyringKeySource:
    """rho-desk's own keys in the system keyring (service ``rho-desk``, username = key name).

    Reading works on any backend (an entry an older rho-desk wrote to a plaintext keyring stays
    readable, so what it protects is not lost); creating a key needs a secure backend.
    """

    def usable(self) -> bool:
        """A backend exists (secure or not) for reading."""
        return keyring_status().available

    def writable(self) -> bool:
        """A secure backend exists: new keys may be stored here."""
        return keyring_status().secure

    def lookup(self, name: str) -> bytes | None:
        """The stored key, or ``None``.

        Raises:
            CredentialsUnavailable: the keyring failed, or the entry is not a key.
        """
        value = read_secret(name, what=_describe_key(name))
        return None if not value else decode_key(value, name, f"the keyring (service {SERVICE})")

    def store(self, name: str, key: bytes) -> None:
        """Store a new key (never over an existing entry: the caller looked first).

        Raises:
            InsecureKeyring: the backend keeps secrets in plain text.
            CredentialsUnavailable: the keyring failed.
        """
        store_secret(name, encode_key(key), what=_describe_key(name))

    def key(self, name: str, *, create: bool = True) -> bytes:
        import secrets

        from ..core.secrets.keys import KEY_BYTES

        found = self.lookup(name)
        if found is not None:
            return found
        if not create:
            raise credentials_error("read", _describe_key(name), f"it is not in {self.describe()}")
        key = secrets.token_bytes(KEY_BYTES)
        self.store(name, key)
        return key

    def describe(self) -> str:
        status = keyring_status()
        problem = f", not usable: {status.problem}" if status.problem else ""
        return f"the keyring ({status.backend}, service {SERVICE}{problem})"
