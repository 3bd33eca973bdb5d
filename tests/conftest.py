"""Shared test setup: offscreen Qt, an in-memory keyring, paths to the upstream fixtures."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

from rho_desk.team.cluster import ThrowawayCluster

# Before any QApplication exists (environment.md §1).
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("QT_API", "pyside6")

# Property tests draw the same examples on every run (``repeatable``), so that a run of the suite
# on one machine says what CI will see, and a failure can be run again as it was; set
# RHO_DESK_HYPOTHESIS=explore to draw new examples (and keep failing ones in .hypothesis/), as
# when a generator or a property changes.
settings.register_profile("repeatable", derandomize=True, print_blob=True)
settings.register_profile("explore", derandomize=False, print_blob=True)
settings.load_profile(os.environ.get("RHO_DESK_HYPOTHESIS", "repeatable"))

FIXTURES = Path(__file__).parent / "fixtures"
RHO_FIXTURES = FIXTURES / "rho"


BUSY_ENV = "RHO_DESK_BUSY"
"""``RHO_DESK_BUSY=1 ./run-tests tests/qt``: run the tests with every core kept busy by other
processes, as on a loaded CI machine; a timing assumption that holds only on an idle machine fails
there instead of now and then in CI."""


@pytest.fixture(scope="session", autouse=True)
def busy_machine() -> Iterator[int]:
    """With ``RHO_DESK_BUSY=1``, one CPU-bound process per core for the whole session."""
    if os.environ.get(BUSY_ENV) != "1":
        yield 0
        return
    burners = [
        subprocess.Popen([sys.executable, "-c", "while True: pass"])
        for _ in range(os.cpu_count() or 2)
    ]
    try:
        yield len(burners)
    finally:
        for burner in burners:
            burner.kill()
            burner.wait()


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

    names = (
        "rho_desk",
        *(f"rho_desk.{a}" for a in ("core", "providers", "team", "keys", "qt", "cli")),
        "httpx",
        "httpcore",
    )
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


# --- PostgreSQL (the team library and PostgresSessionStore) -----------------------------------


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[ThrowawayCluster]:
    """One throwaway PostgreSQL cluster for the whole session, stopped and deleted at the end.

    No skip: when the server cannot start, every test that needs it errors (CI must see it).
    """
    cluster = ThrowawayCluster()
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.destroy()


@pytest.fixture(scope="session")
def _pg_template(pg_cluster: ThrowawayCluster) -> str:
    """A database with the current team schema, copied for each test (``CREATE DATABASE ... TEMPLATE``)."""
    import asyncio
    import concurrent.futures

    import psycopg

    from rho_desk.team.library import TeamLibrary

    cluster = pg_cluster
    with psycopg.connect(cluster.socket_dsn, autocommit=True) as conn:
        conn.execute("CREATE DATABASE rho_template")
    dsn = cluster.dsn_for("postgres", cluster.password, "rho_template")
    # a thread of its own: async fixtures may ask for this one from inside a running loop
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, TeamLibrary.init(dsn)).result()
    return "rho_template"


@pytest.fixture
def pg_db(pg_cluster: ThrowawayCluster, _pg_template: str) -> str:
    """A fresh database with the current schema; its superuser DSN (TCP, with password)."""
    import secrets

    import psycopg

    cluster = pg_cluster
    name = f"t_{secrets.token_hex(6)}"
    with psycopg.connect(cluster.socket_dsn, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name} TEMPLATE {_pg_template}")
    return cluster.dsn_for("postgres", cluster.password, name)


@pytest.fixture
def pg_empty_db(pg_cluster: ThrowawayCluster) -> str:
    """A fresh database without the rho-desk schema; its superuser DSN."""
    import secrets

    import psycopg

    cluster = pg_cluster
    name = f"e_{secrets.token_hex(6)}"
    with psycopg.connect(cluster.socket_dsn, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    return cluster.dsn_for("postgres", cluster.password, name)
