"""A session unit on disk as the library's discovery names it: what the library and the trash share."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

__all__ = ["UnitRef"]


@dataclass(frozen=True, slots=True)
class UnitRef:
    """One session unit on disk, as discovery names it (storage.md §2.2)."""

    workspace_key: str
    """The workspace folder the unit sits in."""
    session_id: str | None
    """From the unit name (after the last ``_``), if it has one."""
    transcript: Path
    unit_path: Path
    """The unit folder, or the flat ``.jsonl`` file."""
    lease_path: Path | None = None
    """``<workspace>/.<id>.active.lock`` if discovery already knows it; adapters may instead
    work it out in :meth:`SessionFiles.exclusive_lease` (the real one does, lazily)."""

    @property
    def is_folder(self) -> bool:
        return self.unit_path != self.transcript

    @property
    def name(self) -> str:
        return self.unit_path.name if self.is_folder else self.transcript.stem
