"""The conversation model: one row per message of a revision's display or model history.

Built for 100k-message sessions. :func:`build_rows` (pure Python, run in a worker thread)
makes one pass over the history and keeps only compact per-row facts in flat arrays: the kind,
the text length and line count (for height estimates), extra lines (tool calls, reasoning
summary, provider blocks), images, and the pairing of tool calls with their results. The
:class:`ConversationModel` serves rows from those arrays and builds the presentation of a row
(:class:`ConversationRow`: title, badges, preview text, tool lines) only when a view asks for
it, for the few rows on screen, with a small cache.

Nothing is hidden: the model shows the untrimmed history and marks the rows a resume would
drop (an incomplete tool turn, storage.md §6.5) and opaque provider blocks with whether they
would replay to the current provider.
"""

from __future__ import annotations

import base64
import binascii
import bisect
import enum
import operator
import re
import time
from array import array
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final

import msgspec
from PySide6.QtCore import (
    QAbstractListModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
    Signal,
)
from PySide6.QtGui import QImage

from ...core.stores.rho_files.records import StoredDisplayMessage
from ...core.stores.rho_files.views import MARKER_PREFIX
from ...core.tools.hashline import edit_paths
from ...core.wire import Message, ModelIdentity
from ...core.wire.model import AbortedAssistant, AssistantMessage
from ..ui.labels import message_text
from ..ui.markdown import plain_text
from ..ui.roles import Role
from ..ui.text import message_time, plural

__all__ = [
    "ConversationModel",
    "ConversationRow",
    "ConversationRows",
    "HeadMessages",
    "RowKind",
    "ToolLink",
    "build_rows",
    "split_entries",
]

PREVIEW_CHARS: Final = 1600
"""Characters of a message's text a collapsed row can show."""
EXPANDED_CHARS: Final = 12000
"""Characters an expanded row shows (the detail pane shows everything)."""
MAX_TOOL_LINES: Final = 6
MAX_PARTIAL_LINES: Final = 4
_CACHE_ROWS: Final = 400
_CACHE_IMAGES: Final = 64


class RowKind(enum.IntEnum):
    """What a conversation row shows."""

    SYSTEM = 0  # the system prompt
    USER = 1
    ASSISTANT = 2  # Assistant or EnrichedAssistant
    ABORTED = 3  # AbortedAssistant: an interrupted turn with its partial output
    TOOL_RESULT = 4
    MARKER = 5  # Rho's "◆ Compacted context" display message


@dataclass(frozen=True, slots=True)
class ToolLink:
    """A tool call and the row of its result (``None`` while unanswered)."""

    call_row: int
    index: int
    """Position among the calling message's tool calls."""
    call_id: str
    name: str
    result_row: int | None


@dataclass(slots=True)
class ConversationRows:
    """Compact per-row facts of one history (built off the GUI thread by :func:`build_rows`)."""

    messages: Sequence[Message]
    timestamps: list[str] | None
    """Display entries' save times (Unix seconds as strings); ``None`` for model history."""
    kinds: bytearray
    chars: array[int]
    """Length of each row's text."""
    newlines: array[int]
    extra: bytearray
    """Extra lines under the text: tool calls, partial calls, reasoning, provider blocks."""
    images: bytearray
    resume_cut: int
    """Rows from here on are not part of what Rho resumes (an incomplete tool turn)."""
    call_rows: array[int] = field(default_factory=lambda: array("l"))
    """The rows that make tool calls, in order."""
    call_first: array[int] = field(default_factory=lambda: array("l", [0]))
    """Per calling row (same place in ``call_rows``), the number of its first call; then the
    number of calls in all: a row's calls are ``call_first[i]`` to ``call_first[i + 1]``."""
    call_ids: list[str] = field(default_factory=list)
    """Every tool call's id, by call number (the message's own strings)."""
    call_names: list[str] = field(default_factory=list)
    call_result: array[int] = field(default_factory=lambda: array("l"))
    """Every call's result row, by call number; -1 while unanswered."""
    result_rows: array[int] = field(default_factory=lambda: array("l"))
    """The tool-result rows that answer an earlier call, in order."""
    result_calls: array[int] = field(default_factory=lambda: array("l"))
    """The call each of ``result_rows`` answers (its number)."""
    build_ms: float = 0.0
    layout: tuple[int, array[int], array[int]] | None = None
    """``(width, heights, prefix sums)`` estimated in the worker that built the rows, so the view
    need not spend ~0.1 s per 100k rows on the GUI thread (see ``message_list.RowLayout``)."""
    preview: bool = False
    """A preview of a big session while its file is still being read: every row's facts (from
    the row cache), but only the first screen's messages (``messages`` is a
    :class:`HeadMessages`); the other rows show as loading until the whole history replaces it."""

    def __len__(self) -> int:
        return len(self.kinds)

    def links(self, row: int) -> list[ToolLink]:
        """The tool calls made by ``row``, each with the row of its result."""
        at = bisect.bisect_left(self.call_rows, row)
        if at == len(self.call_rows) or self.call_rows[at] != row:
            return []
        first = self.call_first[at]
        return [self._link(row, k - first, k) for k in range(first, self.call_first[at + 1])]

    def link_of_result(self, row: int) -> ToolLink | None:
        """The call a tool-result row answers (``None`` when no earlier call has its id)."""
        at = bisect.bisect_left(self.result_rows, row)
        if at == len(self.result_rows) or self.result_rows[at] != row:
            return None
        k = self.result_calls[at]
        caller = bisect.bisect_right(self.call_first, k) - 1
        return self._link(self.call_rows[caller], k - self.call_first[caller], k)

    def _link(self, row: int, index: int, k: int) -> ToolLink:
        result = self.call_result[k]
        return ToolLink(
            row, index, self.call_ids[k], self.call_names[k], None if result < 0 else result
        )

    def extends(self, other: ConversationRows) -> bool:
        """Whether this history starts with all of ``other``'s messages (a live append)."""
        n = len(other.messages)
        if len(self.messages) < n:
            return False
        if n == 0:
            return True
        mine, theirs = self.messages, other.messages
        # the last one and a few spot checks: histories of one file share message objects
        return all(mine[i] is theirs[i] or mine[i] == theirs[i] for i in {0, n // 2, n - 1})


LOADING_TEXT: Final = "Loading… (the rest of the session is still being read)"
_LOADING: Final = Message(system=LOADING_TEXT)


class HeadMessages(Sequence[Message]):
    """A preview's messages: ``n`` rows of which only ``held`` (row -> message) are decoded; any
    other row reads as a stand-in saying it is still loading (see ``ConversationRows.preview``)."""

    def __init__(self, n: int, held: dict[int, Message], source: object = None) -> None:
        self._n = n
        self.held = held
        self.source = source
        """What the preview was read from (the row cache's key of its entry)."""
        self.kept_width = -1
        """The width the entry's heights were estimated for."""

    def __len__(self) -> int:
        return self._n

    def __getitem__(self, row: Any) -> Any:
        if isinstance(row, slice):
            return [self[i] for i in range(*row.indices(self._n))]
        if not -self._n <= row < self._n:
            raise IndexError(row)
        return self.held.get(row % self._n, _LOADING)

    def has(self, row: int) -> bool:
        return row in self.held


_message_of: Final = operator.attrgetter("message")
_timestamp_of: Final = operator.attrgetter("timestamp")


def split_entries(
    entries: Sequence[Message] | Sequence[StoredDisplayMessage],
) -> tuple[Sequence[Message], list[str] | None]:
    """A history's messages, and its save times when it is display history (else ``None``)."""
    if entries and isinstance(entries[0], StoredDisplayMessage):
        return (
            list(map(_message_of, entries)),
            list(map(_timestamp_of, entries)),
        )
    return entries, None  # type: ignore[return-value]


def build_rows(entries: Sequence[Message] | Sequence[StoredDisplayMessage]) -> ConversationRows:
    """One pass over a history: kinds, sizes, tool pairing (blocking; fine in a worker thread).

    Written for speed (100k messages in about 0.1 s with the GC paused): plain ints instead
    of enum members, small lists instead of objects, locals for every lookup.
    """
    start = time.perf_counter()
    messages, timestamps = split_entries(entries)
    n = len(messages)
    kinds = bytearray(n)
    chars = array("l", bytes(8 * n))
    newlines = array("l", bytes(8 * n))
    extra = bytearray(n)
    images = bytearray(n)
    call_rows: array[int] = array("l")
    call_first: array[int] = array("l")
    call_ids: list[str] = []
    call_names: list[str] = []
    call_result: array[int] = array("l")
    result_rows: array[int] = array("l")
    result_calls: array[int] = array("l")
    pending: dict[str, int] = {}
    USER, ASSISTANT, ABORTED, MARKER = 1, 2, 3, 5
    marker = MARKER_PREFIX
    pop = pending.pop
    # the resume cut (storage.md §6.5, core's ``check_tool_turns``) in the same pass: a completed
    # assistant row with calls must be followed by results answering them in order
    cut = -1
    turn = -1  # the row whose calls are being answered (-1: none)
    want = 0  # number of the call the next row must answer
    turn_end = 0  # one past the number of that row's last call
    for row, m in enumerate(messages):
        blocks = m.user
        result = None if blocks is not None else m.tool_result
        if turn >= 0:
            if result is not None and result.id == call_ids[want]:
                want += 1
                if want == turn_end:
                    turn = -1
            else:
                cut, turn = turn, -1
        if blocks is not None:
            kind = USER
            detail: AssistantMessage | AbortedAssistant | None = None
        else:
            if result is not None:
                kinds[row] = 4
                content = result.content
                chars[row] = len(content)
                newlines[row] = content.count("\n")
                hit = pop(result.id, None)
                if hit is not None:
                    result_rows.append(row)
                    result_calls.append(hit)
                    call_result[hit] = row
                continue
            detail = m.enriched_assistant
            if detail is not None:
                kind = ASSISTANT
                blocks = detail.content
            else:
                blocks = m.assistant
                if blocks is not None:
                    first = blocks[0].text if len(blocks) == 1 else None
                    kind = MARKER if first is not None and first.startswith(marker) else ASSISTANT
                elif m.system is not None:
                    kinds[row] = 0
                    chars[row] = len(m.system)
                    newlines[row] = m.system.count("\n")
                    continue
                else:
                    aborted = m.aborted_assistant
                    assert aborted is not None, "a message is one of its variants"
                    detail = aborted
                    kind = ABORTED
                    blocks = aborted.content
        kinds[row] = kind
        if kind == MARKER:
            body = (blocks[0].text or "")[len(marker) :].strip()  # the row shows the details only
            chars[row] = len(body)
            newlines[row] = body.count("\n")
            continue
        size = lines = pics = 0
        first_call = -1
        for block in blocks:
            text = block.text
            if text is not None:
                size += len(text) + 2
                lines += text.count("\n") + 1
            elif block.image is not None:
                pics += 1
            else:
                call = block.tool_call
                assert call is not None, "a content block is one of its variants"
                number = len(call_ids)
                if first_call < 0:
                    first_call = number
                    call_rows.append(row)
                    call_first.append(number)
                pending[call.id] = number
                call_ids.append(call.id)
                call_names.append(call.name)
                call_result.append(-1)
        if size:
            chars[row] = size - 2
            newlines[row] = lines - 1
        if pics:
            images[row] = pics if pics < 255 else 255
        more = 0
        if first_call >= 0:
            ncalls = len(call_ids) - first_call
            more = ncalls if ncalls <= MAX_TOOL_LINES else MAX_TOOL_LINES + 1
            if cut < 0 and kind == ASSISTANT:
                turn, want, turn_end = row, first_call, first_call + ncalls
        if detail is not None:
            if detail.reasoning_summary:
                more += 1
            if detail.provider_context:
                more += 1
            if isinstance(detail, AbortedAssistant):
                partial = len(detail.tool_calls)
                more += (partial if partial < MAX_PARTIAL_LINES else MAX_PARTIAL_LINES) + 1
        if more:
            extra[row] = more if more < 255 else 255
    call_first.append(len(call_ids))
    if turn >= 0:
        cut = turn  # its results have not all arrived
    elif cut < 0:
        cut = n
    return ConversationRows(
        messages,
        timestamps,
        kinds,
        chars,
        newlines,
        extra,
        images,
        cut,
        call_rows,
        call_first,
        call_ids,
        call_names,
        call_result,
        result_rows,
        result_calls,
        (time.perf_counter() - start) * 1000,
    )


@dataclass(slots=True)
class ConversationRow:
    """How one row looks: what a delegate paints (built on demand, cached)."""

    row: int
    kind: RowKind
    title: str
    subtitle: str
    text: str
    """The text shown in the list (a preview unless expanded)."""
    clipped: bool
    """``text`` is shorter than the message's text."""
    badges: list[tuple[str, str]]
    """``(label, tone)``; tone is ``accent``, ``warning``, ``danger``, ``success`` or ``muted``."""
    lines: list[tuple[str, str, str]]
    """Extra lines ``(icon, text, tone)``: tool calls and results, reasoning, provider blocks."""
    images: int
    dropped: bool
    """Not part of what Rho would resume (after an incomplete tool turn)."""


_TITLES: Final = {
    RowKind.SYSTEM: "System prompt",
    RowKind.USER: "You",
    RowKind.ASSISTANT: "Assistant",
    RowKind.ABORTED: "Aborted turn",
    RowKind.TOOL_RESULT: "Result",
    RowKind.MARKER: "Compacted context",
}
"""A row's title (a read tool result's also names its tool)."""


def _when(stamp: str | None) -> str:
    return message_time(stamp, "%b %d, %H:%M")


def _short_json(value: Any, limit: int = 90) -> str:
    if isinstance(value, dict):
        for key in ("command", "path", "file_path", "pattern", "query", "url", "code"):
            if isinstance(value.get(key), str):
                text = value[key]
                break
        else:
            # Rho's edit: the files its hashline document names, not the document
            named = edit_paths(value["input"]) if isinstance(value.get("input"), str) else []
            text = (
                ", ".join(named) if named else msgspec.json.encode(value).decode("utf-8", "replace")
            )
    else:
        text = msgspec.json.encode(value).decode("utf-8", "replace")
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _first_line(text: str, limit: int = 110) -> str:
    line = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    return line if len(line) <= limit else line[: limit - 1] + "…"


_MD_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_MD_EMPHASIS = re.compile(r"(\*\*|__|~~|`+)")
_MD_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+", re.MULTILINE)
_MD_RULE = re.compile(r"^[ \t]*\|?[ \t]*:?-{3,}.*(?:\n|$)", re.MULTILINE)
_MD_FENCE = re.compile(r"^\s*```.*$", re.MULTILINE)


def plain_preview(text: str) -> str:
    """Markdown as readable plain text for a list preview (the detail pane renders it properly)."""
    text = _MD_FENCE.sub("", text)
    text = _MD_RULE.sub("", text)
    text = _MD_HEADING.sub("", text)
    text = _MD_LINK.sub(r"\1", text)
    text = _MD_EMPHASIS.sub("", text)
    lines = []
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("|") and stripped.endswith("|"):
            line = "  ".join(cell.strip() for cell in stripped.strip("|").split("|"))
        lines.append(line)
    out = "\n".join(lines)
    return re.sub(r"\n{3,}", "\n\n", out).strip()


def _preview(text: str, limit: int, *, markdown: bool = False) -> tuple[str, bool]:
    clipped = len(text) > limit
    shown = text[:limit] if clipped else text
    if markdown:
        shown = plain_preview(shown)
    return shown, clipped


class ConversationModel(QAbstractListModel):
    """Rows of one history; presentation built lazily.

    Signals:
        sig_rows_resized(int, int): rows ``first..last`` changed height (expanded/collapsed).
    """

    sig_rows_resized = Signal(int, int)
    """Rows ``first..last`` (inclusive) need new heights."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._rows: ConversationRows = build_rows(())
        self._cache: OrderedDict[int, ConversationRow] = OrderedDict()
        self._images: OrderedDict[tuple[int, int], QImage | None] = OrderedDict()
        self.expanded: set[int] = set()
        self.target: ModelIdentity | None = None
        """The provider new turns would go to: provider blocks say whether they replay to it."""
        self._matches: dict[int, int] = {}

    # -- contents -----------------------------------------------------------------------------

    @property
    def rows(self) -> ConversationRows:
        return self._rows

    def set_rows(self, rows: ConversationRows, *, target: ModelIdentity | None = None) -> None:
        """Show ``rows`` (a reset; or an append when they extend what is shown)."""
        old = self._rows
        self.target = target
        if len(old) and len(rows) > len(old) and rows.extends(old):
            first = len(old)
            # Old rows whose look may change: an unanswered call gains its result, rows after
            # an incomplete tool turn become part of what a resume keeps.
            stale = min(old.resume_cut, first - 1)
            self.beginInsertRows(QModelIndex(), first, len(rows) - 1)
            self._rows = rows
            self._forget_from(stale)
            self.endInsertRows()
            self.dataChanged.emit(self.index(stale), self.index(first - 1))
            return
        self.beginResetModel()
        self._rows = rows
        self._cache.clear()
        self._images.clear()
        self.expanded.clear()
        self._matches = {}
        self.endResetModel()

    def clear(self) -> None:
        self.set_rows(build_rows(()))

    def _forget_from(self, row: int) -> None:
        for key in [k for k in self._cache if k >= row]:
            del self._cache[key]

    def message(self, row: int) -> Message:
        return self._rows.messages[row]

    def accessible_text(self, row: int) -> str:
        """What a screen reader says for a row: who, when, the first line ("You, Nov 23, 02:14: Fix the test")."""
        p = self.presentation(row)
        first = next((line.strip() for line in p.text.splitlines() if line.strip()), "")
        first = plain_text(first[:300])[0][:200] if first else ""
        if not first and p.lines:
            first = p.lines[0][1]  # a tool call without text: its call line
        when = _when(self.timestamp(row))
        head = f"{p.title}, {when}" if when else p.title
        return f"{head}: {first}" if first else head

    def timestamp(self, row: int) -> str | None:
        stamps = self._rows.timestamps
        return stamps[row] if stamps is not None else None

    def text(self, row: int) -> str:
        return message_text(self._rows.messages[row])

    # -- expansion and find ---------------------------------------------------------------------

    def set_expanded(self, row: int, on: bool) -> None:
        if not 0 <= row < len(self._rows) or (row in self.expanded) == on or self._rows.preview:
            return
        if on:
            self.expanded.add(row)
        else:
            self.expanded.discard(row)
        self._cache.pop(row, None)
        index = self.index(row)
        self.dataChanged.emit(index, index)
        self.sig_rows_resized.emit(row, row)

    def toggle_expanded(self, row: int) -> None:
        self.set_expanded(row, row not in self.expanded)

    def set_matches(self, rows: Sequence[int], current: int | None) -> None:
        """Mark find matches (rows) and the current one; repaints only what changed."""
        new = {r: 1 for r in rows}
        if current is not None:
            new[current] = 2
        old = self._matches
        self._matches = new
        touched = {r for r in old.keys() | new.keys() if old.get(r) != new.get(r)}
        for r in touched:
            if r < len(self._rows):
                i = self.index(r)
                self.dataChanged.emit(i, i, [Role.MATCH])

    # -- Qt model API -------------------------------------------------------------------------------

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._rows)

    def data(
        self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if not index.isValid() or index.parent().isValid():
            return None
        row = index.row()
        if not 0 <= row < len(self._rows):
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return self.presentation(row).text
        if role == Role.ROW:
            return self.presentation(row)
        if role == Role.KIND:
            return int(self._rows.kinds[row])
        if role == Role.MESSAGE:
            return self._rows.messages[row]
        if role == Role.TEXT:
            return self.text(row)
        if role == Role.EXPANDED:
            return row in self.expanded
        if role == Role.MATCH:
            return self._matches.get(row, 0)
        if role == Qt.ItemDataRole.ToolTipRole:
            if row >= self._rows.resume_cut:
                return "Not resumed: Rho cuts the history before an incomplete tool turn"
            return None
        if role == Qt.ItemDataRole.AccessibleTextRole:
            return self.accessible_text(row)
        return None

    def flags(self, index: QModelIndex | QPersistentModelIndex) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable

    # -- presentation ----------------------------------------------------------------------------

    def presentation(self, row: int) -> ConversationRow:
        """The :class:`ConversationRow` for ``row`` (cached for the rows on screen)."""
        hit = self._cache.get(row)
        if hit is not None:
            self._cache.move_to_end(row)
            return hit
        made = self._present(row)
        self._cache[row] = made
        if len(self._cache) > _CACHE_ROWS:
            self._cache.popitem(last=False)
        return made

    def _present(self, row: int) -> ConversationRow:
        rows = self._rows
        m = rows.messages[row]
        kind = RowKind(rows.kinds[row])
        title = _TITLES[kind]
        if rows.preview and not rows.messages.has(row):  # type: ignore[attr-defined]
            return ConversationRow(row, kind, title, "", LOADING_TEXT, False, [], [], 0, False)
        expanded = row in self.expanded
        limit = EXPANDED_CHARS if expanded else PREVIEW_CHARS
        when = _when(self.timestamp(row))
        badges: list[tuple[str, str]] = []
        lines: list[tuple[str, str, str]] = []
        text = ""
        clipped = False
        if kind is RowKind.SYSTEM:
            text, clipped = _preview(m.system or "", limit if expanded else 600)
            badges.append((f"{rows.chars[row]:,} chars", "muted"))
        elif kind is RowKind.USER:
            text, clipped = _preview(message_text(m), limit, markdown=True)
        elif kind is RowKind.MARKER:
            body = message_text(m)
            text = (
                body[len(MARKER_PREFIX) :].strip()
                or "The model history was replaced by a shorter one."
            )
        elif kind is RowKind.TOOL_RESULT:
            result = m.tool_result
            assert result is not None
            link = rows.link_of_result(row)
            name = link.name if link is not None else "unknown tool"
            title = f"Result · {name}"
            count = rows.newlines[row] + 1 if result.content else 0
            badges.append(("ok", "success") if result.ok else ("error", "danger"))
            badges.append((plural(count, "line"), "muted"))
            if link is None:
                badges.append(("no matching call", "warning"))
            text, clipped = _preview(result.content, limit if expanded else 400)
            if not expanded:
                lines_shown = [ln for ln in result.content.splitlines() if ln.strip()][:2]
                first = "\n".join(lines_shown)
                clipped = clipped or len(lines_shown) < count
                text = first[:400]
        else:
            detail = m.enriched_assistant or m.aborted_assistant
            provenance = detail.provenance if detail is not None else None
            if kind is RowKind.ABORTED:
                badges.append(("interrupted", "danger"))
            if provenance is not None:
                badges.append((provenance.model, "muted"))
            text, clipped = _preview(message_text(m), limit, markdown=True)
            links = rows.links(row)
            for link in links[:MAX_TOOL_LINES]:
                call = _call_at(m, link.index)
                args = _short_json(call.arguments) if call is not None else ""
                if link.result_row is None:
                    status, tone = "no result", "warning"
                else:
                    res = rows.messages[link.result_row].tool_result
                    status, tone = (
                        ("ok", "success") if res is not None and res.ok else ("error", "danger")
                    )
                lines.append(("tool", f"{link.name}  {args}", f"{tone}:{status}"))
            ncalls = len(links)
            if ncalls > MAX_TOOL_LINES:
                lines.append(("tool", f"… and {ncalls - MAX_TOOL_LINES} more tool calls", "muted:"))
            if kind is RowKind.ABORTED:
                aborted = m.aborted_assistant
                assert aborted is not None
                partial = aborted.tool_calls
                done = {c.id for c in m.tool_calls()}
                lines.append(
                    (
                        "aborted",
                        f"{len(partial)} streamed tool call{'s' * (len(partial) != 1)} when it stopped",
                        "danger:",
                    )
                )
                for pc in partial[:MAX_PARTIAL_LINES]:
                    state = "complete" if pc.id in done else "partial"
                    args = pc.arguments if len(pc.arguments) <= 80 else pc.arguments[:79] + "…"
                    lines.append(
                        (
                            "tool",
                            f"{pc.name or '(no name yet)'}  {args}",
                            f"{'muted' if state == 'complete' else 'warning'}:{state}",
                        )
                    )
            if detail is not None and detail.reasoning_summary:
                lines.append(
                    (
                        "reasoning",
                        "Reasoning summary: " + _first_line(detail.reasoning_summary),
                        "muted:",
                    )
                )
            if detail is not None and detail.provider_context:
                lines.append(
                    ("provider", _provider_line(detail.provider_context, self.target), "muted:")
                )
        if rows.images[row]:
            n = rows.images[row]
            badges.append((f"{n} image{'s' * (n > 1)}", "accent"))
        dropped = row >= rows.resume_cut
        if dropped:
            badges.append(("not resumed", "warning"))
        subtitle = when
        return ConversationRow(
            row, kind, title, subtitle, text, clipped, badges, lines, rows.images[row], dropped
        )

    # -- images --------------------------------------------------------------------------------

    def image(self, row: int, number: int) -> QImage | None:
        """The ``number``-th image of ``row``'s message, decoded (cached; ``None`` if invalid)."""
        key = (row, number)
        if key in self._images:
            self._images.move_to_end(key)
            return self._images[key]
        blocks = [b.image for b in self._rows.messages[row].content if b.image is not None]
        result: QImage | None = None
        if number < len(blocks):
            result = decode_image(blocks[number].data)
        self._images[key] = result
        if len(self._images) > _CACHE_IMAGES:
            self._images.popitem(last=False)
        return result


def decode_image(data: str) -> QImage | None:
    """A session image's base64 as a ``QImage`` (``None`` when it does not decode)."""
    try:
        raw = base64.b64decode(data, validate=False)
    except (binascii.Error, ValueError):
        return None
    image = QImage()
    if not image.loadFromData(raw):
        return None
    return image


def _call_at(message: Message, index: int) -> Any:
    calls = [b.tool_call for b in message.content if b.tool_call is not None]
    return calls[index] if index < len(calls) else None


def _provider_line(blocks: Sequence[Any], target: ModelIdentity | None) -> str:
    opaque = [b for b in blocks if not b.is_portable_fallback]
    fallback = len(blocks) - len(opaque)
    size = sum(len(msgspec.json.encode(b.data)) for b in opaque)
    identities = sorted({str(b.identity) for b in opaque})
    parts = []
    if opaque:
        parts.append(
            f"{len(opaque)} provider block{'s' * (len(opaque) != 1)} ({size:,} bytes) from {', '.join(identities)}"
        )
        if target is not None:
            replay = sum(1 for b in opaque if b.is_replayable_to(target))
            parts.append(
                f"replays to {target}: {'yes' if replay == len(opaque) else 'no' if replay == 0 else f'{replay} of {len(opaque)}'}"
            )
    if fallback:
        parts.append("portable fallback text")
    return " · ".join(parts) if parts else "provider context"
