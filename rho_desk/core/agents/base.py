"""What every agent's reader produces: entries in a tree, what they used, what was left out.

A reader turns one agent's session log into an :class:`AgentLog`: the agent's own facts (id,
working directory, times, title, subagents) and its conversation as :class:`Entry` objects, each
holding Rho wire messages and linked to its parent by the agent's own ids, so that branches stay
branches. ``build.py`` turns that into the revision tree the Rho reader produces, so every view,
the export and ``import`` work on one model.

A log comes from another program, often from another machine: it is untrusted. Readers are
lenient about fields they do not know (each one is counted in the :class:`Loss` by its JSON
path, never silently ignored) and strict about structure: a line that is not JSON, a record
whose required member has the wrong type, a nesting deeper than :data:`MAX_DEPTH`, a line longer
than :data:`MAX_LINE_BYTES` or a file larger than :data:`MAX_FILE_BYTES` fails the read with an
:class:`AgentLogError` naming the file, the line and the reason, as the Rho reader's errors do.
"""

from __future__ import annotations

import datetime as dt
import functools
import operator
from collections import Counter
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Final, ParamSpec, TypeVar

import msgspec
from msgspec.structs import astuple

from ..stores.rho_files.errors import CorruptRecord
from ..stores.rho_files.reader import MAX_FILE_BYTES, RecoveryNote
from ..wire.codec import gc_paused
from ..wire.limits import MAX_DEPTH
from ..wire.model import Message, ModelIdentity, ModelUsage

__all__ = [
    "AGENTS",
    "AGENT_LABELS",
    "MAX_DEPTH",
    "MAX_FILE_BYTES",
    "MAX_LINE_BYTES",
    "NOTHING",
    "RHO",
    "AgentLog",
    "AgentLogError",
    "Compaction",
    "Entry",
    "Loss",
    "Request",
    "SubagentRef",
    "Uncounted",
    "Unused",
    "bulk",
    "iso_seconds",
    "known",
]

AGENTS: Final = ("claude-code", "codex", "gemini", "opencode", "pi")
"""The agents rho-desk reads besides Rho, by the names the command line and settings use."""

RHO: Final = "rho"
"""The name Rho's own sessions go by in a mixed listing."""

AGENT_LABELS: Final = {
    "claude-code": "Claude Code",
    "codex": "Codex",
    "gemini": "Gemini CLI",
    "opencode": "opencode",
    "pi": "Pi",
}
"""Each agent's name as people write it (badges, headers)."""

MAX_LINE_BYTES: Final = 256 * 1024**2
"""The longest record line read (a tool result with a large file is a few MB; this is far beyond)."""


class AgentLogError(CorruptRecord):
    """Another agent's log that cannot be read: the file, the line and the reason."""


def known(*names: str) -> frozenset[str]:
    """The members a reader takes from an object (every other member is counted as dropped)."""
    return frozenset(names)


NOTHING: Final = msgspec.Raw(b"null")
"""The value of a member a typed shape declares only to count it: absent, or ``null``."""


class Unused:
    """The members a typed shape of a record declares that the reader does not take, with
    their JSON paths at ``where`` (for :meth:`Loss.rest_typed`).

    A shape declares them so that the record still fits it, as :data:`NOTHING`-defaulted
    ``Raw`` (msgspec skips such a value without decoding it). ``inner`` adds the unused members
    of the shapes a record holds, each as ``(attribute path, shape, used, where)``: one count for
    the record and the objects in it (the attribute must hold such an object).
    """

    __slots__ = ("parts",)

    def __init__(
        self,
        shape: type[msgspec.Struct],
        used: frozenset[str],
        where: str,
        *inner: tuple[str, type[msgspec.Struct], frozenset[str], str],
    ) -> None:
        self.parts: tuple[
            tuple[Callable[[Any], Any] | None, Callable[[Any], Any], tuple[str, ...]], ...
        ] = ()
        """Per object (the record, then each inner one): how to fetch it from the record
        (``None``: the record itself), which of its members (in ``astuple`` order) are unused,
        and their paths."""
        parts = []
        for prefix, part, taken, at in (("", shape, used, where), *inner):
            names = part.__struct_encode_fields__
            positions = [i for i, name in enumerate(names) if name not in taken]
            if not positions:
                continue
            first, last = positions[0], positions[-1]
            # a slice when the unused members are together (as the shapes declare them, last)
            pick = (
                operator.itemgetter(slice(first, last + 1))
                if last - first + 1 == len(positions)
                else operator.itemgetter(*positions)
                if len(positions) > 1
                else operator.itemgetter(slice(first, first + 1))
            )
            fetch = operator.attrgetter(prefix) if prefix else None
            parts.append((fetch, pick, tuple(f"{at}.{names[i]}" for i in positions)))
        self.parts = tuple(parts)


_SHAPES_KEPT: Final = 4096
_ROWS_KEPT: Final = 128


class Loss(msgspec.Struct):
    """What the reading left out, by JSON path, and what it had to make up, by kind.

    ``dropped`` counts the members of the source that do not travel into the Rho model (a field
    rho-desk does not know, or one a Rho session has no place for), keyed by where they were:
    ``<record kind>:$.member.member``. ``made`` counts what the reading added to keep the
    history well formed (a result for a call that never got one), keyed by a short phrase.
    """

    _dropped: Counter[str] = msgspec.field(default_factory=Counter)
    made: Counter[str] = msgspec.field(default_factory=Counter)
    _seen: dict[tuple[str, tuple[str, ...]], tuple[tuple[str, str], ...]] = msgspec.field(
        default_factory=dict
    )
    """Per place and member names met there: which of them are dropped, each with its path
    (records of one kind come in a few shapes, each with its members in the same order)."""
    _typed: dict[Unused, list[Any]] = msgspec.field(default_factory=dict)
    """Typed records not yet counted in ``dropped``, by shape (at most ``_ROWS_KEPT`` each: a
    ``Raw`` value holds on to its line)."""

    @property
    def dropped(self) -> Counter[str]:
        """The dropped members by JSON path, with their counts."""
        for members, rows in self._typed.items():
            if rows:
                self._count(members, rows)
        return self._dropped

    def _count(self, members: Unused, rows: list[Any]) -> None:
        """Count the unused members the records ``rows`` hold, member by member, all in C (each
        object's members as a tuple, the unused ones sliced out, then column by column): a
        member holds nothing when it is the default itself (absent) or equal to it (written
        as null)."""
        dropped = self._dropped
        for fetch, pick, paths in members.parts:
            objects = rows if fetch is None else map(fetch, rows)
            columns = zip(*map(pick, map(astuple, objects)), strict=True)
            for path, column in zip(paths, columns, strict=True):
                held = len(column) - column.count(NOTHING)
                if held:
                    dropped[path] += held
        rows.clear()

    def drop(self, path: str, count: int = 1) -> None:
        self._dropped[path] += count

    def rest(self, obj: Mapping[str, Any], used: frozenset[str], where: str) -> None:
        """Count every member of ``obj`` that is not in ``used`` as dropped at ``where`` (a
        ``null`` member holds nothing to drop)."""
        shape = (where, tuple(obj))
        extra = self._seen.get(shape)
        if extra is None:
            extra = tuple((name, f"{where}.{name}") for name in shape[1] if name not in used)
            if len(self._seen) >= _SHAPES_KEPT:  # a log of ever new shapes holds no more than this
                self._seen.clear()
            self._seen[shape] = extra
        if extra:
            dropped = self._dropped
            for name, path in extra:
                if obj[name] is not None:
                    dropped[path] += 1

    def rest_typed(self, obj: object, members: Unused) -> None:
        """:meth:`rest` for a record decoded into a typed shape: each of ``members`` that holds
        something (not :data:`NOTHING`) is counted as dropped at its path (a few hundred
        records at a time, column by column)."""
        rows = self._typed.get(members)
        if rows is None:
            rows = self._typed[members] = []
        rows.append(obj)
        if len(rows) >= _ROWS_KEPT:
            self._count(members, rows)

    def note(self, what: str, count: int = 1) -> None:
        self.made[what] += count

    def merge(self, other: Loss) -> None:
        self.dropped.update(other.dropped)
        self.made.update(other.made)

    def as_json(self) -> dict[str, Any]:
        return {
            "dropped": dict(sorted(self.dropped.items())),
            "made": dict(sorted(self.made.items())),
        }


class Uncounted(Loss):
    """The loss of a log read only for the snapshot of its active leaf (``AgentLog.leaf_only``),
    which says nothing of what was left out: nothing is counted (empty, whatever is told)."""

    def drop(self, path: str, count: int = 1) -> None:
        pass

    def rest(self, obj: Mapping[str, Any], used: frozenset[str], where: str) -> None:
        pass

    def rest_typed(self, obj: object, members: Unused) -> None:
        pass

    def note(self, what: str, count: int = 1) -> None:
        pass

    def merge(self, other: Loss) -> None:
        pass


class Request(msgspec.Struct):
    """One model request with the token counts the agent recorded for it (a struct: a log
    holds one per request, made in C)."""

    time_ms: int
    model: str
    provider: str
    usage: ModelUsage
    """Rho's usage fields: ``input_tokens`` is the uncached input (``None`` when the split is
    unknown), cache reads and writes apart."""
    outcome: str = "completed"
    purpose: str = "agent"


class Compaction(msgspec.Struct):
    """A new complete model history that replaces what came before (the agent compacted).

    The history after it is ``head`` followed, when ``keep_from`` names an entry on the path,
    by the messages of that entry and of every later entry up to the compaction (what the agent
    kept verbatim).
    """

    head: list[Message]
    keep_from: str | None = None
    tokens_before: int | None = None
    trigger: str | None = None


class Entry(msgspec.Struct):
    """One step of the agent's log: what it adds to the model history, linked to its parent (a
    struct: a log holds tens of thousands, made in C)."""

    id: str
    parent: str | None
    time: int
    """Unix seconds (0: unknown)."""
    messages: list[Message]
    """Wire messages this step appends (a user prompt; an assistant reply; tool results)."""
    compaction: Compaction | None = None
    turn: bool = False
    """A user prompt: the step starts a turn (a revision of its own)."""
    hidden: bool = False
    """Context the agent gives the model but never shows (Codex's environment context, Claude
    Code's meta messages): in the model history, not in the display history."""
    requests: list[Request] | None = None
    model: ModelIdentity | None = None
    """The model behind the step's assistant reply, if it has one."""
    line: int = 0
    """Where the step is in the source (1-based line or row), for messages."""


class SubagentRef(msgspec.Struct, frozen=True):
    """A child session a step delegated to (its own log, listed and opened on its own)."""

    session_id: str
    path: Path
    title: str | None = None
    call_id: str | None = None
    """The tool call that started it, when the log says so."""


class AgentLog(msgspec.Struct):
    """One agent session as read: its facts and its steps (see the module docstring)."""

    agent: str
    path: Path
    """What the log was read from (for opencode: ``<database>#<session id>``)."""
    session_id: str
    cwd: str
    created: int
    """Unix seconds."""
    entries: dict[str, Entry] = msgspec.field(default_factory=dict)
    """By id, in the order the log holds them."""
    leaf: str | None = None
    """The entry the agent would continue from (default: the last one)."""
    title: str | None = None
    parent_session: str | None = None
    """For a subagent's own log: the session that started it."""
    subagents: list[SubagentRef] = msgspec.field(default_factory=list)
    loss: Loss = msgspec.field(default_factory=Loss)
    notes: list[RecoveryNote] = msgspec.field(default_factory=list)
    size: int = 0
    """Bytes read (the file's size)."""
    lines: int = 0
    version: str | None = None
    """The agent's version that wrote the log, when it says."""
    leaf_only: bool = False
    """Only the snapshot of the active leaf will be taken (``open_snapshot``): what the leaf's
    history cannot hold (the output of tool calls before a compaction; Claude Code's replies
    too) is let go as the reading passes it (:meth:`compacted`), and what the reading leaves
    out is not counted (``loss`` is :class:`Uncounted`: a snapshot does not report it)."""
    released: Entry | None = None
    """The last compaction before which :meth:`compacted` let go of messages (``None``: none)."""
    _compacted: str | None = None
    """The step of the last compaction :meth:`compacted` was told of."""

    def __post_init__(self) -> None:
        if self.leaf_only and type(self.loss) is Loss:
            self.loss = Uncounted()

    def add(self, entry: Entry) -> Entry:
        """Add ``entry`` (a repeated id replaces the earlier step in place, as the agents do)."""
        self.entries[entry.id] = entry
        return entry

    def compacted(self, entry: Entry) -> bool:
        """``entry``, the step just read, is a compaction (a reader says so as it reads one).

        Read ``leaf_only``, the tool results read since the compaction before it keep only
        their call and outcome (their output, most of a long log, becomes empty) when ``entry``
        records how many tokens it replaced: the revision tree counts the history a compaction
        removed by its messages and by that figure, not by their text (``build``), and a
        snapshot after the compaction starts from its summary. Their memory is reused as the
        reading goes on. Whether the leaf's history is after all of them is known only at the
        end (:meth:`keeps_leaf`).

        Returns:
            Whether the messages before ``entry`` were let go of (a reader that holds replies
            of its own lets them go too).
        """
        since, self._compacted = self._compacted, entry.id
        compaction = entry.compaction
        if (
            not self.leaf_only
            or compaction is None
            or not compaction.tokens_before
            or compaction.keep_from is not None
        ):
            return False
        steps = reversed(self.entries.values())
        if next(steps, None) is not entry:
            return False  # it replaced an earlier step in place: what came before is not plain
        for step in steps:
            if step.id == since:
                break
            messages = step.messages
            for i, message in enumerate(messages):
                result = message.tool_result
                if result is not None and result.content:
                    messages[i] = Message.result(result.id, result.ok, "")
        self.released = entry
        return True

    def keeps_leaf(self) -> bool:
        """Whether the active leaf's history holds nothing :meth:`compacted` let go of: nothing
        was, or the steps form one line (each the child of the step before it, as ``build``
        reads a line) that ends at the leaf and still holds the last compaction that let go,
        after which the leaf's history starts anew."""
        released = self.released
        if released is None:
            return True
        entries = self.entries
        if entries.get(released.id) is not released:
            return False
        up: str | None = None
        for entry in entries.values():
            if entry.parent != up:
                return False
            up = entry.id
        leaf = self.leaf
        return leaf is None or leaf not in entries or leaf == up

    @property
    def requests(self) -> list[Request]:
        """Every recorded model request, in log order (abandoned branches included: they ran)."""
        return [r for e in self.entries.values() if e.requests for r in e.requests]

    def check_parents(self) -> None:
        """Every parent comes before its child in the log (so the steps form a tree, never a
        loop); a step whose parent is missing or comes later hangs from the step before it
        (and is counted)."""
        seen: set[str] = set()
        previous: str | None = None
        for entry in self.entries.values():
            if entry.parent is not None and entry.parent not in seen:
                self.loss.note("steps whose parent is missing, attached to the step before them")
                entry.parent = previous
            seen.add(entry.id)
            previous = entry.id


P = ParamSpec("P")
R = TypeVar("R")


def bulk(function: Callable[P, R]) -> Callable[P, R]:
    """Run ``function`` with the cyclic GC paused: a reader makes a few hundred thousand small
    objects and no cycles, and the collector's passes over them would be most of the cost (as
    for the Rho reader, environment.md §0.5)."""

    @functools.wraps(function)
    def paused(*args: P.args, **kwargs: P.kwargs) -> R:
        with gc_paused():
            return function(*args, **kwargs)

    return paused


_EPOCH_DAY: Final = dt.date(1970, 1, 1).toordinal()


@functools.lru_cache(maxsize=64)
def _day(date: str) -> int | None:
    """Unix seconds at midnight UTC of ``YYYY-MM-DD`` (``None``: not a date)."""
    digits = date[:4] + date[5:7] + date[8:]
    if len(date) == 10 and date[4] == date[7] == "-" and digits.isdigit() and digits.isascii():
        # the common form, without strptime (whose first call sets up its locale and patterns)
        try:
            day = dt.date(int(digits[:4]), int(digits[4:6]), int(digits[6:]))
        except ValueError:
            return None
        return (day.toordinal() - _EPOCH_DAY) * 86_400
    try:
        return int(dt.datetime.strptime(date, "%Y-%m-%d").replace(tzinfo=dt.UTC).timestamp())
    except ValueError:
        return None


_SECONDS: dict[str, int] = {}
"""``YYYY-MM-DDTHH:MM:SS`` -> Unix seconds, for the UTC times of :func:`iso_seconds` (a log's
records come many to a second, each with a millisecond of its own: the second is the key)."""
_SECONDS_KEPT: Final = 4096
_MINUTES: dict[str, int] = {}
"""``YYYY-MM-DDTHH:MM`` -> Unix seconds, for a second not yet read."""


def iso_seconds(text: object) -> int:
    """Unix seconds of an ISO 8601 time (``Z`` or an offset; 0 when it is not one)."""
    # the agents' own form, UTC ("2026-03-01T10:00:01.123Z"): one look-up for a second already
    # read, without a datetime per record
    if type(text) is str and len(text) >= 20 and text[-1] in "Zz":
        key = text[:19]
        seconds = _SECONDS.get(key)
        if seconds is not None:
            return seconds
        if key[10] == "T" and key[13] == ":" and key[16] == ":":
            minute = _MINUTES.get(key[:16])
            if minute is None:
                day = _day(key[:10])
                clock = key[11:13] + key[14:16]
                if day is not None and clock.isdigit() and clock.isascii():
                    minute = day + int(clock[:2]) * 3600 + int(clock[2:]) * 60
                    if len(_MINUTES) >= _SECONDS_KEPT:
                        _MINUTES.clear()
                    _MINUTES[key[:16]] = minute
            second = key[17:19]
            if minute is not None and second.isdigit() and second.isascii():
                seconds = minute + int(second)
                if len(_SECONDS) >= _SECONDS_KEPT:
                    _SECONDS.clear()
                _SECONDS[key] = seconds
                return seconds
    if not isinstance(text, str) or not text:
        return 0
    try:
        value = dt.datetime.fromisoformat(
            text[:-1] + "+00:00" if text.endswith(("Z", "z")) else text
        )
    except ValueError:
        return 0
    if value.tzinfo is None:
        value = value.replace(tzinfo=dt.UTC)
    try:
        return max(int(value.timestamp()), 0)
    except (OverflowError, OSError, ValueError):
        return 0
