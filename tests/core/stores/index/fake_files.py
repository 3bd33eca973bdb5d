"""A test double of the session-file reader seam, over a toy transcript format.

Line 1: ``{"type": "session", "id": ..., "cwd": ..., "timestamp": "100"}``; then one JSON object
per line: ``{"user": text}``, ``{"assistant": text}``, ``{"provider": "p/a/m"}``,
``{"compactions": n}``. Anything that is not JSON fails the whole file (like Rho's reader).
Discovery and leases follow storage.md §2.2 and §8.7 for real (scandir names, flock).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
from collections.abc import Iterator
from pathlib import Path

from rho_desk.core.errors import InputError
from rho_desk.core.stores.index import stat_transcript
from rho_desk.core.stores.library import SessionInUse, UnitRef
from rho_desk.core.stores.summary import SessionSummary

from .helpers import fake_key


class FakeFiles:
    def __init__(self) -> None:
        self.summarized: list[Path] = []

    def workspace_key(self, cwd: str) -> str:
        return fake_key(cwd)

    def units(self, sessions_root: Path, workspace_key: str | None) -> list[UnitRef]:
        if workspace_key is not None:
            folders = [sessions_root / workspace_key]
        elif sessions_root.is_dir():
            folders = sorted(p for p in sessions_root.iterdir() if p.is_dir())
        else:
            folders = []
        units = []
        for folder in folders:
            if not folder.is_dir():
                continue
            for entry in sorted(folder.iterdir()):
                if entry.is_dir() and (entry / "session.jsonl").is_file():
                    units.append(self._unit(folder, entry / "session.jsonl", entry, entry.name))
                elif entry.is_file() and entry.suffix == ".jsonl" and "_" in entry.stem:
                    units.append(self._unit(folder, entry, entry, entry.stem))
        return units

    def _unit(self, folder: Path, transcript: Path, unit_path: Path, name: str) -> UnitRef:
        sid = name.rpartition("_")[2] if "_" in name else None
        lease = folder / f".{sid}.active.lock" if sid else None
        return UnitRef(folder.name, sid, transcript, unit_path, lease)

    def unit_for(self, transcript: Path) -> UnitRef:
        if transcript.name == "session.jsonl":
            return self._unit(
                transcript.parent.parent, transcript, transcript.parent, transcript.parent.name
            )
        return self._unit(transcript.parent, transcript, transcript, transcript.stem)

    def header_cwd(self, transcript: Path) -> str:
        with open(transcript, encoding="utf-8") as handle:
            first = handle.readline()
        try:
            return json.loads(first)["cwd"]
        except (ValueError, KeyError, TypeError):
            raise InputError("no session header", source=str(transcript), line=1) from None

    def summarize(self, transcript: Path) -> SessionSummary:
        self.summarized.append(transcript)
        stat = stat_transcript(transcript)
        assert stat is not None
        lines = transcript.read_text("utf-8").splitlines()
        records = []
        for number, line in enumerate(lines, 1):
            try:
                records.append(json.loads(line))
            except ValueError:
                raise InputError("not JSON", source=str(transcript), line=number) from None
        header = records[0]
        users = [r["user"] for r in records if "user" in r]
        texts = [
            r.get("user") or r.get("assistant")
            for r in records[1:]
            if "user" in r or "assistant" in r
        ]
        provider = next((r["provider"] for r in reversed(records) if "provider" in r), None)
        name = transcript.parent.name if transcript.name == "session.jsonl" else transcript.stem
        return SessionSummary(
            workspace_key=fake_key(header["cwd"]),
            cwd=header["cwd"],
            id=name.rpartition("_")[2] or header["id"],
            path=str(transcript),
            created_at=int(header.get("timestamp", 0)),
            updated_at=int(header.get("timestamp", 0)) + len(records),
            message_count=len(texts),
            first_user_message=users[0] if users else None,
            last_user_message=users[-1] if users else None,
            file_size=stat[0],
            file_mtime=stat[1],
            node_count=len(texts),
            branch_count=0,
            active_leaf_id=f"N{len(texts)}" if texts else None,
            effective_format_version=4,
            provider=provider,
            model=provider.rpartition("/")[2] if provider else None,
            compaction_count=sum(r.get("compactions", 0) for r in records),
            search_text="\n".join(texts),
        )

    @contextlib.contextmanager
    def exclusive_lease(self, unit: UnitRef) -> Iterator[None]:
        assert unit.lease_path is not None
        fd = os.open(unit.lease_path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise SessionInUse(f"refusing to delete active session {unit.session_id}") from None
            yield
        finally:
            os.close(fd)


def write_session(
    sessions_root: Path,
    cwd: str,
    session_id: str,
    *,
    messages=(),
    provider: str | None = "openai/responses/gpt-5",
    compactions: int = 0,
    created: int = 100,
    flat: bool = False,
    header_cwd: str | None = None,
) -> Path:
    """Write a toy transcript as ``sessions/<key>/<created>_<id>[/session.jsonl|.jsonl]``."""
    folder = sessions_root / fake_key(cwd)
    folder.mkdir(parents=True, exist_ok=True)
    if flat:
        transcript = folder / f"{created}_{session_id}.jsonl"
    else:
        (folder / f"{created}_{session_id}").mkdir(exist_ok=True)
        transcript = folder / f"{created}_{session_id}" / "session.jsonl"
    lines = [
        {"type": "session", "id": session_id, "cwd": header_cwd or cwd, "timestamp": str(created)}
    ]
    for role, text in messages:
        lines.append({role: text})
    if provider:
        lines.append({"provider": provider})
    if compactions:
        lines.append({"compactions": compactions})
    transcript.write_text("".join(json.dumps(line) + "\n" for line in lines), "utf-8")
    return transcript
