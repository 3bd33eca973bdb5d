"""Checking session files: what ``rho-desk check`` and the app's health view report.

A check is a function from a :class:`CheckTarget` (one transcript or snapshot document, read
once) to :class:`Finding` values. The built-in checks report load failures (corrupt lines,
unsupported versions, illegal records) and tolerated torn tails; others (the index's "drift"
between rows and files, say) plug in with :func:`register_check` and receive the same target,
including the already computed summary.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ...errors import InputError, KnownError
from ...text.jsonable import json_fields
from ...wire.codec import decode_snapshot
from ..summary import SessionSummary
from .duplicates import line_problem
from .errors import NoSessionState
from .layout import (
    SESSION_FILE,
    discover_units,
    iter_workspaces,
    no_sessions_text,
    sessions_root,
    unit_for_path,
)
from .reader import NEWER, SessionFile, read_session
from .summary import summary_of

__all__ = [
    "CheckTarget",
    "Finding",
    "Severity",
    "check_paths",
    "expand_paths",
    "register_check",
    "registered_checks",
]


class Severity(enum.Enum):
    ERROR = "error"  # the file does not load (Rho would refuse it too)
    WARNING = "warning"  # the file loads, but something was tolerated or is out of step
    NOTICE = "notice"  # nothing is wrong; worth knowing (a newer Rho's record, read-only here)


@dataclass(frozen=True, slots=True)
class Finding:
    """One problem found in one file."""

    path: str
    code: str
    """Stable identifier: ``load-error``, ``unsupported-version``, ``torn-tail``, ``unreadable``, ..."""
    severity: Severity
    message: str
    line: int | None = None

    @property
    def problem(self) -> bool:
        """Whether the finding is a problem (``check`` exits 1), not just a notice."""
        return self.severity is not Severity.NOTICE

    def text(self) -> str:
        where = self.path if self.line is None else f"{self.path}:{self.line}"
        return f"{where}: {self.severity.value}: {self.message} [{self.code}]"

    def to_json(self) -> dict[str, object]:
        return json_fields(self)


@dataclass(slots=True)
class CheckTarget:
    """One file under check, read once and shared by every check."""

    path: Path
    kind: str
    """``transcript`` or ``snapshot``."""
    session: SessionFile | None = None
    """The transcript as read (``None`` when it failed to load or is a snapshot document)."""
    summary: SessionSummary | None = None
    error: KnownError | None = None
    """Why the file did not load, if it did not."""
    findings: list[Finding] = field(default_factory=list)


Check = Callable[[CheckTarget], Iterable[Finding]]
_CHECKS: list[tuple[str, Check]] = []


def register_check(name: str, check: Check) -> None:
    """Add a check run on every target after the built-in ones (e.g. the index's drift check)."""
    _CHECKS[:] = [(n, c) for n, c in _CHECKS if n != name]
    _CHECKS.append((name, check))


def registered_checks() -> list[str]:
    return [name for name, _ in _CHECKS]


def _load_findings(target: CheckTarget) -> Iterator[Finding]:
    error = target.error
    if error is not None:
        line = getattr(error, "line", None)
        code = {
            "UnsupportedSessionVersion": "unsupported-version",
            "SessionIdMismatch": "id-mismatch",
            "NoSessionState": "no-header",
        }.get(type(error).__name__, "load-error" if isinstance(error, InputError) else "unreadable")
        message = error.reason if isinstance(error, InputError) else error.text()
        if isinstance(error, InputError) and error.path not in (None, "$"):
            message = f"{message} (at {error.path})"
        yield Finding(str(target.path), code, Severity.ERROR, message, line)
    if target.session is not None:
        for note in target.session.notes:
            severity = Severity.NOTICE if note.kind == NEWER else Severity.WARNING
            yield Finding(str(target.path), note.kind, severity, note.reason, note.line)


register_check("load", _load_findings)


def _duplicate_key_findings(target: CheckTarget) -> Iterator[Finding]:
    """``duplicate-key``: a line repeating a struct field, which Rho's reader refuses (errors)."""
    if target.kind != "transcript":
        return
    try:
        with open(unit_for_path(target.path).transcript, "rb") as handle:
            for number, raw in enumerate(handle, start=1):
                problem = line_problem(raw)
                if problem is not None:
                    code, reason = problem
                    yield Finding(
                        str(target.path),
                        code,
                        Severity.ERROR,
                        f"{reason}: Rho's reader refuses the file",
                        number,
                    )
    except OSError:
        return  # the load check reports unreadable files


register_check("duplicate-keys", _duplicate_key_findings)


def expand_paths(path: Path) -> list[Path]:
    """The files a user-given path stands for.

    A file is itself; a session folder is its ``session.jsonl``; a workspace folder is its units;
    a Rho home (a folder with ``sessions/``) is every unit of every workspace.

    Raises:
        InputError: the path does not exist, or is a folder holding no sessions.
    """
    if path.is_file():
        return [path]
    if not path.is_dir():
        raise InputError("no such file or folder", source=str(path))
    if (path / SESSION_FILE).is_file():
        return [path / SESSION_FILE]
    if sessions_root(path).is_dir():
        found = [u.transcript for ws in iter_workspaces(path) for u in discover_units(ws)]
        if not found:
            raise InputError(no_sessions_text(path))
        return found
    units = discover_units(path)
    if units:
        return [u.transcript for u in units]
    if path.name == "sessions":
        return [
            u.transcript
            for ws in sorted(p for p in path.iterdir() if p.is_dir())
            for u in discover_units(ws)
        ]
    raise InputError(no_sessions_text(path))


def _target(path: Path) -> CheckTarget:
    if path.suffix == ".json":
        target = CheckTarget(path, "snapshot")
        try:
            decode_snapshot(path.read_bytes(), source=str(path))
        except KnownError as exc:
            target.error = exc
        except OSError as exc:
            target.error = InputError(f"cannot read: {exc.strerror or exc}", source=str(path))
        return target
    target = CheckTarget(path, "transcript")
    try:
        target.session = read_session(unit_for_path(path).transcript)
        if target.session.header is None:
            raise NoSessionState("the file is empty: it has no session header", source=str(path))
        target.summary = summary_of(target.session)
    except KnownError as exc:
        target.error = exc
    return target


def check_paths(paths: Iterable[Path]) -> list[CheckTarget]:
    """Run every registered check on every file the paths stand for (see :func:`expand_paths`)."""
    targets = []
    for given in paths:
        for path in expand_paths(given):
            target = _target(path)
            for _, check in list(_CHECKS):
                target.findings.extend(check(target))
            targets.append(target)
    return targets
