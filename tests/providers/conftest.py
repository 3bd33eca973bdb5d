"""Fixtures for provider tests: a loopback model server and an event-collecting sink."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from .loopback import Loopback, serve


@pytest_asyncio.fixture
async def server() -> AsyncIterator[Loopback]:
    async for loopback in serve():
        yield loopback


class Sink:
    """Collects every ModelEvent; ``on_event`` may act on one (cancel mid-token, for instance)."""

    def __init__(self, on_event: Callable[[Any], None] | None = None) -> None:
        self.events: list[Any] = []
        self.on_event = on_event

    async def send(self, event: Any) -> None:
        self.events.append(event)
        if self.on_event is not None:
            self.on_event(event)

    def of(self, kind: type) -> list[Any]:
        return [e for e in self.events if isinstance(e, kind)]


@pytest.fixture
def sink() -> Sink:
    return Sink()


@pytest.fixture(autouse=True)
def config_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty rho-desk config dir, selected through RHO_DESK_CONFIG_DIR (for every provider
    test: none may touch the real user's settings)."""
    path = tmp_path / "config"
    monkeypatch.setenv("RHO_DESK_CONFIG_DIR", str(path))
    return path


@pytest.fixture(autouse=True)
def rho_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``$RHO_HOME`` for every provider test: a folder that does not exist, so a turn on a
    session outside a Rho home records its usage nowhere (never in the real user's ledger)."""
    path = tmp_path / "rho-home-of-this-test"
    monkeypatch.setenv("RHO_HOME", str(path))
    return path
