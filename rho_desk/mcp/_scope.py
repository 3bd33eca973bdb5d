"""What one server may see (cheap to import: the command line builds it before the SDK loads)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["Scope"]


@dataclass(frozen=True, slots=True)
class Scope:
    """What the server may see: some workspaces of one Rho home, or all of it."""

    home: Path
    workspaces: tuple[str, ...] | None
    """Working directories (absolute), or ``None`` for the whole library (``--all``)."""

    def describe(self) -> dict[str, Any]:
        return {"home": str(self.home), "workspaces": "all" if self.workspaces is None else list(self.workspaces)}
