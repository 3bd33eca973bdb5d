"""Repairing a damaged Rho session transcript: keep every record that still chains, drop the rest.

A transcript fails to load as a whole when one line is bad (storage.md §6.1), although every
revision before that line is intact, and later records often still fit. :func:`plan_repair`
walks the file once with the reader's own rules: the header must be valid (otherwise the file is
not a session and there is nothing to repair); each later line is decoded and planned against
the tree built so far (``SessionTree.plan``), exactly as the reader would apply it at its new
place in the repaired file; a record that passes is kept byte for byte, one that does not is
dropped with its line number and the reason. A torn last line is dropped too.

:func:`repair_session` writes the result atomically to a new file (default beside the original,
named so that neither Rho nor rho-desk mistakes it for another session unit), or, with
``in_place``, replaces the original after keeping a backup, under the session's exclusive lease,
and brings Rho's index row up to date. The output is re-read strictly before it is written, so a
repair never produces a file that does not load.
"""

from __future__ import annotations

import io
import os
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path

import msgspec

from ...errors import InputError, KnownError, StorageError
from ...system.fsio import atomic_write, fsync_dir
from ...text.jsonable import json_fields
from ...wire.codec import translate_error
from .duplicates import line_problem
from .errors import NewerRecord, NotASessionFile, SessionFileError, read_failure
from .layout import unit_for_path
from .lease import SessionLease
from .reader import _DECODER, MAX_FILE_BYTES, _as_corrupt, _not_a_session, _start, parse_session
from .summary import record_written
from .tree import SessionTree

__all__ = [
    "DroppedLine",
    "RepairPlan",
    "RepairReport",
    "default_output",
    "plan_repair",
    "repair_session",
]


@dataclass(frozen=True, slots=True)
class DroppedLine:
    """One line the repair leaves out, and why."""

    line: int
    """1-based line number in the original file."""
    offset: int
    length: int
    reason: str
    kind: str
    """``corrupt`` (does not decode), ``duplicate-key`` (repeats a field: Rho refuses it), ``too-deep``
    (nested deeper than ``limits.MAX_DEPTH``),
    ``does-not-chain`` (decodes but does not fit the records kept before it), or ``torn`` (an
    unfinished last line)."""

    def to_json(self) -> dict[str, object]:
        return json_fields(self)


@dataclass(slots=True)
class RepairPlan:
    """What a repair keeps (the new file's bytes) and drops."""

    source: Path
    data: bytes
    kept_lines: int
    total_lines: int
    dropped: list[DroppedLine] = field(default_factory=list)
    first_bad: DroppedLine | None = None
    last_good_line: int = 1
    """The last line before the first bad one (the file's last good revision ends there)."""
    revision: int | None = None
    """The active revision of the repaired file."""
    messages: int = 0
    """Display messages on the repaired file's active path."""

    @property
    def needed(self) -> bool:
        return bool(self.dropped)


@dataclass(frozen=True, slots=True)
class RepairReport:
    """What :func:`repair_session` did."""

    plan: RepairPlan
    output: Path | None
    """The file written (``None`` when nothing needed repairing and nothing was written)."""
    backup: Path | None = None
    """With ``in_place``: where the original went."""

    @property
    def source(self) -> Path:
        return self.plan.source

    def text(self) -> str:
        plan = self.plan
        lines = []
        if not plan.needed:
            lines.append(
                f"{plan.source}: nothing to repair ({plan.total_lines} lines load cleanly)"
            )
        else:
            first = plan.first_bad
            assert first is not None
            lines.append(
                f"{plan.source}: first bad line {first.line}: {first.reason}; "
                f"the last good revision ends at line {plan.last_good_line}"
            )
            lines.append(
                f"kept {plan.kept_lines} of {plan.total_lines} lines, dropped {len(plan.dropped)}:"
            )
            for drop in plan.dropped:
                lines.append(f"  line {drop.line}: {drop.kind}: {drop.reason}")
        if self.output is not None:
            revision = "no revision" if plan.revision is None else f"revision {plan.revision}"
            lines.append(f"wrote {self.output} ({revision}, {plan.messages} messages)")
        if self.backup is not None:
            lines.append(f"the original is kept as {self.backup}")
        return "\n".join(lines)

    def to_json(self) -> dict[str, object]:
        plan = self.plan
        return {
            "source": str(plan.source),
            "output": None if self.output is None else str(self.output),
            "backup": None if self.backup is None else str(self.backup),
            "needed": plan.needed,
            "total_lines": plan.total_lines,
            "kept_lines": plan.kept_lines,
            "last_good_line": plan.last_good_line,
            "first_bad": None if plan.first_bad is None else plan.first_bad.to_json(),
            "dropped": [drop.to_json() for drop in plan.dropped],
            "revision": plan.revision,
            "messages": plan.messages,
        }


def plan_repair(path: Path | str) -> RepairPlan:
    """Work out the repaired content of the transcript at ``path`` (reads only).

    Raises:
        SessionFileError: line 1 is not a valid session header: not a Rho session file.
        InputError: no such file, or too large.
        StorageError: it cannot be read.
    """
    transcript = unit_for_path(Path(path)).transcript
    source = str(transcript)
    try:
        with open(transcript, "rb") as handle:
            if os.fstat(handle.fileno()).st_size > MAX_FILE_BYTES:
                raise InputError(
                    f"file is more than the {MAX_FILE_BYTES} bytes a session may have",
                    source=source,
                )
            raw_lines = handle.readlines()
    except OSError as exc:
        raise read_failure(exc, source) from None
    return _plan(transcript, raw_lines)


def _plan(transcript: Path, raw_lines: list[bytes]) -> RepairPlan:
    source = str(transcript)
    out = io.BytesIO()
    tree: SessionTree | None = None
    plan = RepairPlan(transcript, b"", 0, len(raw_lines))
    pos = 0
    for number, raw in enumerate(raw_lines, start=1):
        length = len(raw)
        start = pos
        pos += length
        if tree is None:
            if not raw.strip():
                continue  # blank lines before the header: Rho's discovery refuses those
            tree = _header_tree(raw, source, number)
            out.write(raw if raw.endswith(b"\n") else raw + b"\n")
            plan.kept_lines += 1
            plan.last_good_line = number
            continue
        if not raw.strip():
            continue  # blank lines are skipped by every reader; not worth keeping
        terminated = raw.endswith(b"\n")
        problem = line_problem(raw)
        if problem is not None:
            _drop(
                plan,
                DroppedLine(
                    number, start, length, f"{problem[1]}: Rho's reader refuses it", problem[0]
                ),
            )
            continue
        try:
            record = _DECODER.decode(raw)
        except (msgspec.MsgspecError, RecursionError, ValueError, TypeError) as exc:
            error = translate_error(exc, source=source, line=number)
            if terminated and isinstance(_as_corrupt(error), NewerRecord):
                # not damage: a newer Rho's record, kept as it is (every reader passes over it)
                out.write(raw)
                plan.kept_lines += 1
                if plan.first_bad is None:
                    plan.last_good_line = number
                continue
            kind = "torn" if not terminated and number == len(raw_lines) else "corrupt"
            _drop(plan, DroppedLine(number, start, length, _reason(error), kind))
            continue
        try:
            change = tree.plan(record, line=plan.kept_lines + 1, offset=out.tell())
        except SessionFileError as exc:
            _drop(plan, DroppedLine(number, start, length, _reason(exc), "does-not-chain"))
            continue
        change.commit()
        out.write(raw if terminated else raw + b"\n")
        plan.kept_lines += 1
        if plan.first_bad is None:
            plan.last_good_line = number
    if tree is None:
        raise NotASessionFile(f"{NotASessionFile.PREFIX}: the file is empty", source=source, line=1)
    plan.data = out.getvalue()
    # The reader itself has the last word: what we write must load strictly.
    repaired = parse_session(plan.data, source=source)
    leaf = repaired.tree.active_leaf
    plan.revision = leaf.revision if leaf is not None and leaf.has_snapshot else None
    plan.messages = len(repaired.tree.display(markers=False)) if leaf is not None else 0
    return plan


def _header_tree(raw: bytes, source: str, line: int) -> SessionTree:
    """The reader's own first-line rules: a valid header, or "not a Rho session file"."""
    try:
        record = _DECODER.decode(raw)
    except (msgspec.MsgspecError, RecursionError, ValueError, TypeError) as exc:
        raise _not_a_session(_as_corrupt(translate_error(exc, source=source, line=line))) from None
    return _start(record, source, line, None)


def _reason(error: InputError) -> str:
    reason = error.reason
    if error.path is not None and error.path != "$":
        reason += f" (at {error.path})"
    return reason


def _drop(plan: RepairPlan, drop: DroppedLine) -> None:
    plan.dropped.append(drop)
    if plan.first_bad is None:
        plan.first_bad = drop


def default_output(path: Path | str) -> Path:
    """Where a repaired copy goes by default: beside the transcript, under a name that carries
    no session id, so Rho's discovery never takes it for a second unit of the same session.

    ``…/<created>_<id>/session.jsonl`` → ``…/<created>_<id>/session.repaired.jsonl``;
    ``…/<created>_<id>.jsonl`` → ``…/<created>-<id>.repaired.jsonl``. An existing file is never
    overwritten: ``-2``, ``-3``… are added.
    """
    transcript = unit_for_path(Path(path)).transcript
    stem = transcript.name.removesuffix(".jsonl").replace("_", "-")
    candidate = transcript.with_name(f"{stem}.repaired.jsonl")
    counter = 1
    while candidate.exists():
        counter += 1
        candidate = transcript.with_name(f"{stem}.repaired-{counter}.jsonl")
    return candidate


def repair_session(
    path: Path | str, output: Path | str | None = None, *, in_place: bool = False
) -> RepairReport:
    """Write the repaired transcript of ``path`` (see :func:`plan_repair`).

    Args:
        output: the new file (default :func:`default_output`); it must not exist.
        in_place: replace the original instead (under its exclusive lease when it sits in a Rho
            home); the original is kept as ``<name>.<UTC time>.bak`` beside it and Rho's index
            row is updated as after any write. A symbolic link is followed: its target is
            repaired (and backed up beside it), the link stays.

    Nothing is written when the file loads cleanly already (the report says so).

    Raises:
        SessionFileError: not a Rho session file.
        InputError: ``output`` exists, or is the source itself without ``in_place``.
        SessionInUse/LeaseUnavailable: ``in_place`` while Rho or rho-desk has the session open.
        StorageError: the write failed (the original is untouched).
    """
    transcript = unit_for_path(Path(path)).transcript
    plan = plan_repair(transcript)
    if not plan.needed:
        return RepairReport(plan, None)
    if in_place:
        if output is not None:
            raise InputError(
                "give either an output file or in-place, not both", source=str(transcript)
            )
        return _repair_in_place(transcript, plan)
    target = default_output(transcript) if output is None else Path(output)
    if target.exists():
        if target.resolve() == transcript.resolve():
            raise InputError(
                "the output is the damaged file itself; use in-place to replace it",
                source=str(target),
            )
        raise InputError("the output file exists already; choose another", source=str(target))
    atomic_write(target, plan.data)
    return RepairReport(plan, target)


def _repair_in_place(transcript: Path, plan: RepairPlan) -> RepairReport:
    unit = unit_for_path(transcript)
    header = parse_session(plan.data, source=str(transcript)).tree.header
    session_id = unit.session_id or (header.id if header is not None else None)
    in_home = unit.workspace.parent.name == "sessions" and session_id is not None
    lease = SessionLease.exclusive(unit.lease(session_id)) if in_home else None
    # A session file that is a symbolic link is repaired where it really is: the backup and the
    # new content go beside the link's target, and the link stays a link (replacing the link
    # with a copy would leave the real file damaged and the two diverging).
    real = Path(os.path.realpath(transcript))
    try:
        stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
        backup = real.with_name(f"{real.name}.{stamp}.bak")
        counter = 1
        while backup.exists():
            counter += 1
            backup = real.with_name(f"{real.name}.{stamp}-{counter}.bak")
        try:
            shutil.copy2(real, backup)
            with open(backup, "rb+") as handle:
                os.fsync(handle.fileno())
            os.chmod(backup, 0o600)
            fsync_dir(backup.parent)
        except OSError as exc:
            raise StorageError(
                f"{backup}: cannot keep a backup: {exc.strerror or exc}; nothing changed"
            ) from exc
        atomic_write(real, plan.data)
        try:
            repaired = parse_session(plan.data, source=str(transcript), name_id=unit.session_id)
            st = os.stat(transcript)
            repaired.unit = unit
            record_written(repaired.tree, unit, transcript, st.st_size, st.st_mtime_ns)
        except (KnownError, OSError):
            pass  # the index catches up at the next listing, as after any failed index write
    finally:
        if lease is not None:
            lease.release()
    return RepairReport(plan, real, backup)
