"""Shared test setup: offscreen Qt, an in-memory keyring, paths to the upstream fixtures."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

# Before any QApplication exists (environment.md §1).
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("QT_API", "pyside6")

FIXTURES = Path(__file__).parent / "fixtures"
RHO_FIXTURES = FIXTURES / "rho"


@pytest.fixture
def rho_fixtures() -> Path:
    """The upstream Rho fixtures, copied byte for byte (see tests/fixtures/rho/README.md)."""
    return RHO_FIXTURES


class MemoryKeyring:
    """An in-memory keyring backend, so no test ever touches a real secret store."""

    priority = 1

    def __init__(self) -> None:
        self.entries: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.entries.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.entries[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        import keyring.errors

        try:
            del self.entries[(service, username)]
        except KeyError:
            raise keyring.errors.PasswordDeleteError(username) from None

    def get_credential(self, service: str, username: str | None) -> None:
        return None


@pytest.fixture(autouse=True)
def _logging_restored() -> Iterator[None]:
    """Tests that run ``rho_desk.cli.main`` in this process configure logging: undo it after."""
    import logging

    names = ("rho_desk", *(f"rho_desk.{a}" for a in ("core", "providers", "team", "keys", "qt", "cli")),
             "httpx", "httpcore")  # fmt: skip
    saved = {n: (logging.getLogger(n).level, list(logging.getLogger(n).handlers)) for n in names}
    yield
    for name, (level, handlers) in saved.items():
        logger = logging.getLogger(name)
        logger.setLevel(level)
        logger.handlers[:] = handlers


@pytest.fixture(autouse=True)
def memory_keyring(monkeypatch: pytest.MonkeyPatch) -> MemoryKeyring:
    """Every test gets a fresh in-memory keyring (real backends are opt-in integration tests)."""
    import keyring
    import keyring.backend

    backend_cls = type("TestMemoryKeyring", (MemoryKeyring, keyring.backend.KeyringBackend), {})
    backend = backend_cls()
    previous = keyring.get_keyring()
    keyring.set_keyring(backend)
    try:
        yield backend
    finally:
        keyring.set_keyring(previous)
