"""What :func:`~.model.build_rows` and :func:`~.message_list.layout_rows` computed for a big
session, kept in rho-desk's cache folder so that opening the same file again skips both.

One file per transcript path (``<cache>/rows/<hash of the path>.rows``; never beside Rho's
files: Rho's home gains nothing). An entry holds the per-row facts of one history (kinds, sizes,
extra lines, images, the tool pairing, the resume cut) and the row heights at one width, and is
valid only for the same path, device and inode, size, modification time (ns), revision, history
mode and row count as the tree the rows are built from, written by the same build code
(:data:`FINGERPRINT`).

Read defensively: a cache file that is damaged, foreign (not this user's, or writable by
others), of another format, or whose facts disagree with the messages anywhere it is checked is
ignored (the rows are built as on a first open) and never raises. What is checked: a checksum
(CRC-32: against damage; a file others could have written is not read at all) of the whole body, every table's size and range (no row or call number outside the history), and
the facts of a few windows of rows (first, last and spread ones) rebuilt from the messages and
compared. Written atomically (``fsio.atomic_write``), mode 0600, after the rows are shown.

An entry also keeps the messages of its first screen (:data:`HEAD_PIXELS` of rows, and the
results their tool calls link to), so that a big session opened again can be shown before its
file is read (:func:`load_preview`: the file's path, identity, size and modification time must
still be the entry's; the first rows' facts are rebuilt from the kept messages and compared).
What the preview shows is replaced by the rows built (or :func:`load_rows` checked) from the
whole history once it is read.
"""

from __future__ import annotations

import bisect
import contextlib
import hashlib
import itertools
import operator
import os
import stat
import sys
import time
import zlib
from array import array
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from types import CodeType
from typing import Final

import msgspec

from ... import __version__
from ...core.errors import StorageError
from ...core.stores.rho_files import SessionFile
from ...core.stores.rho_files.records import StoredDisplayMessage
from ...core.system.dirs import cache_dir
from ...core.system.fsio import atomic_write
from ...core.wire import Message
from .message_list import RowMetrics, estimate_heights, prefix_sums
from .model import ConversationRows, HeadMessages, RowKind, build_rows, split_entries

__all__ = [
    "MIN_ROWS",
    "RowsKey",
    "adopt_preview",
    "forget_rows",
    "has_kept_rows",
    "load_preview",
    "load_rows",
    "store_rows",
]

MIN_ROWS: Final = 5000
"""Histories shorter than this are built each time (in well under 10 ms): no file for them."""
KEEP_FILES: Final = 16
"""Entries kept in the folder; the least recently written go first."""
HEAD_PIXELS: Final = 4000
"""Rows kept whole for a preview: those that start within this many pixels of the top (more
than a 4K screen's height), at least :data:`HEAD_MIN` and at most :data:`HEAD_MAX`."""
HEAD_MIN: Final = 32
HEAD_MAX: Final = 400
_MAGIC: Final = b"rho-desk rows 2\n"
_CHECK: Final = 4
_WINDOW: Final = 48
"""Rows per checked window."""


def _fingerprint() -> str:
    """The build code's identity: an entry written by other code (another version, a changed
    ``build_rows`` or height estimate) or for another machine word is not read. The same in
    every process of one installation (no address or hash order in it)."""
    digest = hashlib.blake2b(digest_size=16)
    digest.update(f"{__version__} {sys.byteorder} {array('l').itemsize}".encode())

    def code(c: CodeType) -> None:
        digest.update(c.co_code)
        for const in c.co_consts:
            if isinstance(const, CodeType):
                code(const)  # a nested function or comprehension (its repr holds an address)
            elif isinstance(const, frozenset):
                digest.update(repr(sorted(map(repr, const))).encode())
            else:
                digest.update(repr(const).encode())

    for fn in (build_rows, estimate_heights):
        code(fn.__code__)
    return digest.hexdigest()


FINGERPRINT: Final = _fingerprint()


class RowsKey(msgspec.Struct, frozen=True, array_like=True, forbid_unknown_fields=True):
    """What an entry is valid for."""

    path: str
    device: int
    inode: int
    size: int
    mtime_ns: int
    node: str
    mode: str

    @classmethod
    def of(cls, file: SessionFile, node_id: str, mode: str) -> RowsKey | None:
        """The key of ``file`` as read (its ``end``), or ``None`` when the file's identity is
        not known (another agent's log, parsed bytes): such rows are not kept."""
        end = file.end
        if end.identity == (0, 0) or end.mtime_ns == 0 or end.size < 0:
            return None
        device, inode = end.identity
        return cls(_where(file.path), device, inode, end.size, end.mtime_ns, node_id, mode)


class _Entry(msgspec.Struct, array_like=True, forbid_unknown_fields=True):
    fingerprint: str
    key: RowsKey
    kinds: bytes
    chars: bytes
    newlines: bytes
    extra: bytes
    images: bytes
    resume_cut: int
    call_rows: bytes
    call_first: bytes
    call_ids: list[str]
    call_names: list[str]
    call_result: bytes
    result_rows: bytes
    result_calls: bytes
    width: int
    metrics: str
    heights: bytes
    head_rows: bytes
    """The rows whose messages are kept (increasing): a first screen's, then the results its
    tool calls link to."""
    head: list[Message]
    head_stamps: list[str] | None


def _where(path: Path | str) -> str:
    """A transcript's path as entries are keyed and named by it."""
    return str(Path(path).absolute())


def _file_for(path: str, folder: Path | None = None) -> Path:
    name = hashlib.blake2b(path.encode("utf-8", "surrogateescape"), digest_size=16).hexdigest()
    return (folder or cache_dir() / "rows") / f"{name}.rows"


def store_rows(
    key: RowsKey, rows: ConversationRows, metrics: RowMetrics, *, folder: Path | None = None
) -> bool:
    """Keep ``rows`` (and their layout, when it was estimated) for ``key`` (blocking). Whether it
    was written: a history under :data:`MIN_ROWS`, or a cache folder that cannot be written,
    keeps nothing (the cache is only a cache: never an error)."""
    if len(rows) < MIN_ROWS:
        return False
    width, heights = (rows.layout[0], rows.layout[1]) if rows.layout else (0, array("l"))
    entry = _Entry(
        FINGERPRINT,
        key,
        bytes(rows.kinds),
        rows.chars.tobytes(),
        rows.newlines.tobytes(),
        bytes(rows.extra),
        bytes(rows.images),
        rows.resume_cut,
        rows.call_rows.tobytes(),
        rows.call_first.tobytes(),
        rows.call_ids,
        rows.call_names,
        rows.call_result.tobytes(),
        rows.result_rows.tobytes(),
        rows.result_calls.tobytes(),
        width,
        repr(metrics),
        heights.tobytes(),
        *_head(rows),
    )
    body = msgspec.msgpack.encode(entry)
    target = _file_for(key.path, folder)
    try:
        atomic_write(target, _MAGIC + zlib.crc32(body).to_bytes(_CHECK, "big") + body)
        _prune(target.parent)
    # a full disk, a cache folder that cannot be written: the rows are built next time
    except (StorageError, OSError):
        return False
    return True


def _head(rows: ConversationRows) -> tuple[bytes, list[Message], list[str] | None]:
    """The rows a preview shows whole, their messages and save times (see :data:`HEAD_PIXELS`)."""
    count = HEAD_MIN
    if rows.layout is not None:
        count = max(HEAD_MIN, bisect.bisect_left(rows.layout[2], HEAD_PIXELS))
    count = min(count, HEAD_MAX, len(rows))
    kept = set(range(count))
    for row in range(count):
        kept.update(link.result_row for link in rows.links(row) if link.result_row is not None)
    head = sorted(kept)
    stamps = rows.timestamps
    return (
        array("l", head).tobytes(),
        [rows.messages[r] for r in head],
        None if stamps is None else [stamps[r] for r in head],
    )


def _prune(folder: Path) -> None:
    entries = []
    for path in folder.glob("*.rows"):
        with contextlib.suppress(OSError):
            entries.append((path.stat().st_mtime_ns, path))
    entries.sort(reverse=True)
    for _mtime, path in entries[KEEP_FILES:]:
        with contextlib.suppress(OSError):
            path.unlink()


def load_rows(
    key: RowsKey,
    entries: Sequence[Message] | Sequence[StoredDisplayMessage],
    width: int,
    metrics: RowMetrics,
    *,
    folder: Path | None = None,
) -> ConversationRows | None:
    """The rows kept for ``key``, over ``entries`` (the history they were built from), with the
    layout at ``width`` (kept, or estimated again from the kept facts); ``None`` when there is
    no valid entry (see the module docstring: never raises for what the file holds)."""
    if len(entries) < MIN_ROWS:
        return None
    start = time.perf_counter()
    data = _read_own(_file_for(key.path, folder))
    if data is None:
        return None
    try:
        rows = _decode(data, key, entries, width, metrics)
    except (ValueError, TypeError, OverflowError, IndexError, RecursionError, msgspec.DecodeError):
        return None
    if rows is not None:
        rows.build_ms = (time.perf_counter() - start) * 1000
    return rows


def forget_rows(transcript: Path, *, folder: Path | None = None) -> None:
    """Drop the entry kept for ``transcript`` (blocking; never raises): a session moved to the
    trash leaves no copy of its first screen in the cache folder."""
    with contextlib.suppress(OSError):
        _file_for(_where(transcript), folder).unlink()


def _read_own(path: Path) -> bytes | None:
    """The file's bytes when it is a regular file of this user's that no one else can write."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        getuid = getattr(os, "getuid", None)
        if (
            not stat.S_ISREG(st.st_mode)
            or st.st_mode & 0o022
            or (getuid is not None and st.st_uid != getuid())
        ):
            return None
        with open(fd, "rb", closefd=False) as f:
            return f.read()
    except OSError:
        return None
    finally:
        os.close(fd)


def _ints(data: bytes) -> array[int]:
    values = array("l")
    values.frombytes(data)  # ValueError when not a whole number of items
    return values


def _decode(
    data: bytes,
    key: RowsKey,
    entries: Sequence[Message] | Sequence[StoredDisplayMessage],
    width: int,
    metrics: RowMetrics,
) -> ConversationRows | None:
    e = _entry(data)
    if e is None or e.key != key:
        return None
    messages, timestamps = split_entries(entries)
    rows = _rows_of(e, messages, timestamps)
    if rows is None:
        return None
    heights = _heights(e, rows, width, metrics)
    if heights is None or not _windows_agree(rows, heights, width, metrics):
        return None
    rows.layout = (width, heights, prefix_sums(heights))
    return rows


def _entry(data: bytes) -> _Entry | None:
    """The entry in ``data`` when its checksum and build code are right."""
    head = len(_MAGIC) + _CHECK
    if data[: len(_MAGIC)] != _MAGIC:
        return None
    body = memoryview(data)[head:]
    if zlib.crc32(body).to_bytes(_CHECK, "big") != data[len(_MAGIC) : head]:
        return None
    e = msgspec.msgpack.decode(body, type=_Entry)
    return e if e.fingerprint == FINGERPRINT else None


def _rows_of(
    e: _Entry, messages: Sequence[Message], timestamps: list[str] | None
) -> ConversationRows | None:
    """The kept rows over ``messages`` when every table has its size and range."""
    n = len(messages)
    kinds, extra, images = bytearray(e.kinds), bytearray(e.extra), bytearray(e.images)
    chars, newlines = _ints(e.chars), _ints(e.newlines)
    call_rows, call_first, call_result = (
        _ints(e.call_rows),
        _ints(e.call_first),
        _ints(e.call_result),
    )
    result_rows, result_calls = _ints(e.result_rows), _ints(e.result_calls)
    calls = len(e.call_ids)
    if not (
        len(kinds) == len(chars) == len(newlines) == len(extra) == len(images) == n
        and max(kinds) <= 5
        and min(chars) >= 0
        and min(newlines) >= 0
        and 0 <= e.resume_cut <= n
        and len(e.call_names) == calls == len(call_result)
        and len(call_first) == len(call_rows) + 1
        and call_first[0] == 0
        and call_first[-1] == calls
        and _increasing(call_first)
        and _rows_in(call_rows, n)
        and (not calls or (min(call_result) >= -1 and max(call_result) < n))
        and len(result_rows) == len(result_calls)
        and _rows_in(result_rows, n)
        and (not result_calls or (min(result_calls) >= 0 and max(result_calls) < calls))
    ):
        return None
    return ConversationRows(
        messages,
        timestamps,
        kinds,
        chars,
        newlines,
        extra,
        images,
        e.resume_cut,
        call_rows,
        call_first,
        e.call_ids,
        _shared(e.call_names),
        call_result,
        result_rows,
        result_calls,
    )


def _heights(
    e: _Entry, rows: ConversationRows, width: int, metrics: RowMetrics
) -> array[int] | None:
    """The kept heights when they were estimated for ``width`` and ``metrics``, else new ones."""
    heights = _ints(e.heights)
    if e.width == width and e.metrics == repr(metrics) and len(heights) == len(rows):
        return None if min(heights) < 0 else heights
    return estimate_heights(rows, width, metrics, set())


def has_kept_rows(path: Path, *, folder: Path | None = None) -> bool:
    """Whether the cache holds an entry for ``path`` (valid or not: :func:`load_preview` says)."""
    try:
        return _file_for(_where(path), folder).is_file()
    except (OSError, ValueError):
        return False


def load_preview(
    path: Path,
    mode: str,
    width: int | Callable[[int], int],
    metrics: RowMetrics,
    *,
    folder: Path | None = None,
) -> ConversationRows | None:
    """A preview of ``path`` before it is read (``ConversationRows.preview``): the rows kept for
    it, with the messages of its first screen, when the file is still as it was when they were
    kept (path, device, inode, size, modification time) and ``mode`` is theirs; else ``None``
    (``width``: the list's, or its width for a history of so many rows, ``width_for_rows``)
    (never raises for what the file holds). The revision is the one shown when they were kept:
    the history read from the file replaces the preview, whichever it is."""
    start = time.perf_counter()
    try:
        st = os.stat(path)
        where = _where(path)
    except (OSError, ValueError):
        return None
    data = _read_own(_file_for(where, folder))
    if data is None:
        return None
    try:
        e = _entry(data)
        k = e.key if e is not None else None
        if (
            e is None
            or k is None
            or (k.path, k.device, k.inode, k.size, k.mtime_ns, k.mode)
            != (where, st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, mode)
        ):
            return None
        rows = _preview_of(e, width if isinstance(width, int) else width(len(e.kinds)), metrics)
    except (ValueError, TypeError, OverflowError, IndexError, RecursionError, msgspec.DecodeError):
        return None
    if rows is not None:
        rows.build_ms = (time.perf_counter() - start) * 1000
    return rows


def adopt_preview(
    preview: ConversationRows,
    key: RowsKey,
    entries: Sequence[Message] | Sequence[StoredDisplayMessage],
    width: int,
    metrics: RowMetrics,
    *,
    folder: Path | None = None,
) -> ConversationRows | None:
    """The rows :func:`load_rows` would give for ``key`` over ``entries``, made from a preview
    read from that very entry (no second read of the cache file): its tables over the whole
    history, checked against the messages as :func:`load_rows` checks them (laid out again for
    another ``width``). ``None`` when the preview is of another entry or length, or disagrees
    with the messages. An entry whose heights were for another width is written again with
    these (blocking), so that the next open at this width reuses them."""
    start = time.perf_counter()
    messages = preview.messages
    layout = preview.layout  # once: a resize on the GUI thread may replace it
    if (
        not preview.preview
        or not isinstance(messages, HeadMessages)
        or messages.source != key
        or len(entries) != len(preview)
        or layout is None
    ):
        return None
    whole, timestamps = split_entries(entries)
    if (timestamps is None) != (preview.timestamps is None):
        return None
    rows = replace(
        preview, messages=whole, timestamps=timestamps, build_ms=0.0, layout=None, preview=False
    )
    if layout[0] != width:  # the window's width changed since (a scroll bar appeared)
        heights = estimate_heights(rows, width, metrics, set())
        layout = (width, heights, prefix_sums(heights))
    if not _windows_agree(rows, layout[1], width, metrics):
        return None
    rows.layout = layout
    if messages.kept_width != width:
        store_rows(key, rows, metrics, folder=folder)
    rows.build_ms = (time.perf_counter() - start) * 1000
    return rows


def _preview_of(e: _Entry, width: int, metrics: RowMetrics) -> ConversationRows | None:
    n = len(e.kinds)
    head_rows = _ints(e.head_rows)
    if (
        n < MIN_ROWS
        or not head_rows
        or head_rows[0] != 0
        or not _rows_in(head_rows, n)
        or len(e.head) != len(head_rows)
        or (e.head_stamps is not None and len(e.head_stamps) != len(head_rows))
    ):
        return None
    held = dict(zip(head_rows, e.head, strict=True))
    timestamps: list[str] | None = None
    if e.head_stamps is not None:
        timestamps = [""] * n
        for row, stamp in zip(head_rows, e.head_stamps, strict=True):
            timestamps[row] = stamp
    head = HeadMessages(n, held, e.key)
    head.kept_width = e.width
    rows = _rows_of(e, head, timestamps)
    if rows is None:
        return None
    heights = _heights(e, rows, width, metrics)
    # the first rows (all kept whole) agree with their messages
    prefix = next((i for i, row in enumerate(head_rows) if row != i), len(head_rows))
    if heights is None or not _windows_agree(rows, heights, width, metrics, {0}, prefix):
        return None
    for row in head_rows[prefix:]:  # the results the first screen's calls link to
        if rows.kinds[row] != RowKind.TOOL_RESULT or held[row].tool_result is None:
            return None
    rows.layout = (width, heights, prefix_sums(heights))
    rows.preview = True
    return rows


def _increasing(values: array[int]) -> bool:
    return all(map(operator.lt, values, itertools.islice(values, 1, None)))


def _shared(names: list[str]) -> list[str]:
    """``names`` with one string object per name (a session names a few tools tens of thousands
    of times; a build's list holds the messages' own, already shared, strings)."""
    first: dict[str, str] = {}
    return list(map(first.setdefault, names, names))


def _rows_in(rows: array[int], n: int) -> bool:
    """Strictly increasing row numbers of a history of ``n`` rows."""
    return not rows or (rows[0] >= 0 and rows[-1] < n and _increasing(rows))


def _windows_agree(
    rows: ConversationRows,
    heights: array[int],
    width: int,
    metrics: RowMetrics,
    starts: set[int] | None = None,
    window: int = _WINDOW,
) -> bool:
    """The kept facts of a few windows of rows equal those built again from their messages:
    each row's kind, sizes, extra lines, images and height, and the tool calls it makes
    (``starts``: where the windows start; default the first, last and spread ones)."""
    n = len(rows)
    if starts is None:
        starts = {0, max(0, n - window), *(n * k // 8 for k in range(1, 8))}
    for at in sorted(starts):
        end = min(n, at + window)
        fresh = build_rows(rows.messages[at:end])
        fresh_heights = estimate_heights(fresh, width, metrics, set())
        if (
            fresh.kinds != rows.kinds[at:end]
            or fresh.chars != rows.chars[at:end]
            or fresh.newlines != rows.newlines[at:end]
            or fresh.extra != rows.extra[at:end]
            or fresh.images != rows.images[at:end]
            or fresh_heights != heights[at:end]
        ):
            return False
        callers = bisect.bisect_left(rows.call_rows, end) - bisect.bisect_left(rows.call_rows, at)
        if callers != len(fresh.call_rows):
            return False
        for i, row in enumerate(fresh.call_rows):
            links = rows.links(row + at)
            first, last = fresh.call_first[i], fresh.call_first[i + 1]
            if [(link.call_id, link.name) for link in links] != list(
                zip(fresh.call_ids[first:last], fresh.call_names[first:last], strict=True)
            ):
                return False
    return True
