"""What one server may see (cheap to import: the command line builds it before the SDK loads)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["Scope"]


@dataclass(frozen=True, slots=True)
class Scope:
    """What the server may see: some workspaces of one Rho home and of other agents' data
    folders, or all of them."""

    home: Path
    workspaces: tuple[str, ...] | None
    """Working directories (absolute), or ``None`` for the whole library (``--all``)."""
    agents: tuple[tuple[str, Path], ...] = ()
    """Other agents whose sessions are served too (Claude Code, Codex...), each with its data
    folder; their sessions belong to the same workspaces as Rho's of the same folder."""
    rho: bool = True
    """Whether Rho's own sessions (of ``home``) are served."""

    def describe(self) -> dict[str, Any]:
        return {
            "home": str(self.home),
            "workspaces": "all" if self.workspaces is None else list(self.workspaces),
            "rho": self.rho,
            "agents": {name: str(folder) for name, folder in self.agents},
        }
