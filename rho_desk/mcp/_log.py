"""The served log: one line per answer ``rho-desk mcp`` gave, refused or failed.

``<rho-desk data folder>/mcp/served.jsonl`` (0600 in a 0700 folder), beside what rho-desk keeps
of its exports. Each line is a JSON object: ``time`` (UTC), ``tool``, ``session`` (the id asked
about, or ``null``), ``classes`` (the content classes a transcript was served with, or
``null``), ``redactions`` (count by rule), and ``refused`` or ``failed`` (the reason) when no
answer was sent. It records what left, never the content, the arguments or the query.
``rho-desk mcp --log`` prints it.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import os
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["LogEntry", "ServedLog", "default_log_path"]


def default_log_path() -> Path:
    from ..core.system.dirs import data_dir

    return data_dir() / "mcp" / "served.jsonl"


@dataclass(frozen=True, slots=True)
class LogEntry:
    time: str
    tool: str
    session: str | None
    classes: list[str] | None
    redactions: dict[str, int]
    refused: str | None = None
    failed: str | None = None

    @property
    def outcome(self) -> str:
        return "refused" if self.refused else "failed" if self.failed else "served"


class ServedLog:
    """Appends records to ``path`` (created 0600, its folder 0700); thread-safe."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()

    def record(
        self,
        tool: str,
        *,
        session: str | None,
        classes: list[str] | None,
        redactions: Mapping[str, int],
        refused: str | None = None,
        failed: str | None = None,
    ) -> None:
        entry = {
            "time": dt.datetime.now(dt.UTC)
            .isoformat(timespec="milliseconds")
            .replace("+00:00", "Z"),
            "tool": tool,
            "session": session,
            "classes": classes,
            "redactions": dict(sorted(redactions.items())),
        }
        if refused:
            entry["refused"] = refused
        if failed:
            entry["failed"] = failed
        line = (json.dumps(entry, ensure_ascii=True, separators=(",", ":")) + "\n").encode("ascii")
        with self._lock:
            self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            fd = os.open(
                self.path,
                os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC,
                0o600,
            )
            try:
                os.write(fd, line)
            finally:
                os.close(fd)

    def entries(self) -> tuple[list[LogEntry], list[str]]:
        """Every record, oldest first, and the lines that are not records (``file:line: reason``)."""
        out: list[LogEntry] = []
        problems: list[str] = []
        try:
            handle = open(self.path, "rb")  # noqa: SIM115
        except FileNotFoundError:
            return out, problems
        with handle:
            for number, raw in enumerate(handle, 1):
                entry = _entry(raw)
                if entry is None:
                    problems.append(f"{self.path}:{number}: not a served-log record")
                else:
                    out.append(entry)
        return out, problems


def _entry(raw: bytes) -> LogEntry | None:
    with contextlib.suppress(ValueError, RecursionError):
        data: Any = json.loads(raw)
        if (
            isinstance(data, dict)
            and isinstance(data.get("tool"), str)
            and isinstance(data.get("time"), str)
        ):
            redactions = data.get("redactions")
            classes = data.get("classes")
            return LogEntry(
                data["time"],
                data["tool"],
                _str(data.get("session")),
                [c for c in classes if isinstance(c, str)] if isinstance(classes, list) else None,
                {str(k): v for k, v in redactions.items() if isinstance(v, int)}
                if isinstance(redactions, dict)
                else {},
                _str(data.get("refused")),
                _str(data.get("failed")),
            )
    return None


def _str(value: object) -> str | None:
    return value if isinstance(value, str) else None
