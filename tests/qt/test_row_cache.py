"""The conversation's row cache: a reopened big session shows exactly what a first open shows,
and a cache file that is damaged, foreign or stale is never read as rows."""

from __future__ import annotations

import os
import shutil
import tempfile
import zlib
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rho_desk.core.stores.rho_files.views import MARKER_PREFIX
from rho_desk.core.wire import AbortedAssistant, Message, ModelUsage
from rho_desk.qt.conversation import row_cache
from rho_desk.qt.conversation.message_list import RowMetrics, layout_rows
from rho_desk.qt.conversation.model import ConversationRows, build_rows
from rho_desk.qt.conversation.row_cache import RowsKey, load_rows, store_rows

from .conftest import emitted, until
from .helpers import append_turn, turn, v3_session

METRICS = RowMetrics(line=17, char=7.0)
FACTS = (
    "kinds",
    "chars",
    "newlines",
    "extra",
    "images",
    "resume_cut",
    "call_rows",
    "call_first",
    "call_ids",
    "call_names",
    "call_result",
    "result_rows",
    "result_calls",
    "timestamps",
)
KEY = RowsKey(
    "/home/u/.rho/sessions/w/s/session.jsonl", 2049, 77, 123_456, 1_767_000_000, "n1", "display"
)


def _history(turns: int) -> tuple[Message, ...]:
    """Prompts, tool calls and results, answers, a compaction marker, an interrupted turn, and
    an unanswered call at the end (the resume cut)."""
    out: list[Message] = [Message.system_text("You are a coding agent.")]
    for i in range(turns):
        out.extend(turn(i, f"prompt {i}\n" * (i % 5)))
        if i % 97 == 5:
            out.append(Message.assistant_text(f"{MARKER_PREFIX}\n12 → 3 messages"))
        if i % 113 == 7:
            aborted = AbortedAssistant(
                content=(), reasoning="", tool_calls=(), usage=ModelUsage(context_window=1000)
            )
            out.append(Message.aborted(aborted))
    out.extend(turn(turns)[:2])  # a call whose result never came
    return tuple(out)


class _Big(tuple):  # type: ignore[type-arg]
    def __repr__(self) -> str:  # hypothesis prints its arguments
        return f"<history of {len(self[0])} messages and its rows>"


@pytest.fixture
def big() -> tuple[tuple[Message, ...], ConversationRows]:
    history = _history(1_300)  # above MIN_ROWS
    rows = build_rows(history)
    rows.layout = (900, *layout_rows(rows, 900, METRICS, set()))
    assert len(rows) >= row_cache.MIN_ROWS and rows.resume_cut < len(rows)
    return _Big((history, rows))  # type: ignore[return-value]


def _good(rows: ConversationRows) -> bytes:
    store_rows(KEY, rows, METRICS, folder=Path(_good_folder.name))
    return next(Path(_good_folder.name).glob("*.rows")).read_bytes()


_good_folder = tempfile.TemporaryDirectory(prefix="rows-")


def _same(a: ConversationRows, b: ConversationRows, metrics: RowMetrics = METRICS) -> None:
    """The same facts, and the same heights at ``a``'s width (``b`` laid out there if need be)."""
    for name in FACTS:
        assert getattr(a, name) == getattr(b, name), name
    assert list(a.messages) == list(b.messages)
    assert a.layout is not None and b.layout is not None
    width = a.layout[0]
    expected = b.layout[1:] if b.layout[0] == width else layout_rows(b, width, metrics, set())
    assert a.layout[1:] == expected


def test_kept_rows_are_the_built_rows(tmp_path: Path, big: Any) -> None:
    history, rows = big
    assert store_rows(KEY, rows, METRICS, folder=tmp_path / "rows")
    kept = load_rows(KEY, history, 900, METRICS, folder=tmp_path / "rows")
    assert kept is not None
    _same(kept, rows)
    # one string object per tool name, as in a build over a read session
    assert len({id(name) for name in kept.call_names}) == len(set(kept.call_names)) == 1
    # another width: the kept facts laid out again
    other = load_rows(KEY, history, 640, METRICS, folder=tmp_path / "rows")
    assert other is not None and other.layout is not None
    assert other.layout[1:] == layout_rows(rows, 640, METRICS, set())
    (entry,) = (tmp_path / "rows").iterdir()
    assert entry.stat().st_mode & 0o777 == 0o600


def test_a_small_history_keeps_nothing(tmp_path: Path) -> None:
    history = _history(10)
    assert not store_rows(KEY, build_rows(history), METRICS, folder=tmp_path / "rows")
    assert not (tmp_path / "rows").exists()


@pytest.mark.parametrize(
    "change",
    [
        {"path": "/elsewhere/session.jsonl"},
        {"device": 2050},
        {"inode": 78},
        {"size": 123_457},
        {"mtime_ns": 1_767_000_001},
        {"node": "n2"},
        {"mode": "model"},
    ],
)
def test_an_entry_is_for_its_key_only(tmp_path: Path, big: Any, change: dict[str, Any]) -> None:
    history, rows = big
    store_rows(KEY, rows, METRICS, folder=tmp_path / "rows")
    other = msgspec.structs.replace(KEY, **change)
    folder = tmp_path / "rows"
    if other.path != KEY.path:  # the entry copied to where the other path's entry would be
        shutil.copy(_entry_file(folder), row_cache._file_for(other.path, folder))
    assert load_rows(other, history, 900, METRICS, folder=folder) is None
    assert load_rows(KEY, history, 900, METRICS, folder=folder) is not None


def test_a_history_of_another_length_is_not_read(tmp_path: Path, big: Any) -> None:
    history, rows = big
    store_rows(KEY, rows, METRICS, folder=tmp_path / "rows")
    assert load_rows(KEY, history[:-1], 900, METRICS, folder=tmp_path / "rows") is None
    assert load_rows(KEY, history + history[-1:], 900, METRICS, folder=tmp_path / "rows") is None


def _entry_file(folder: Path) -> Path:
    (path,) = folder.glob("*.rows")
    return path


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.binary(max_size=4096), head=st.booleans())
def test_random_bytes_are_no_rows(tmp_path: Path, big: Any, data: bytes, head: bool) -> None:
    history, rows = big
    store_rows(KEY, rows, METRICS, folder=tmp_path / "rows")
    path = _entry_file(tmp_path / "rows")
    if head:  # past the format's first line, so the checksum and the decoder meet them too
        data = path.read_bytes()[: len(b"rho-desk rows 1\n")] + data
    path.write_bytes(data)
    assert load_rows(KEY, history, 900, METRICS, folder=tmp_path / "rows") is None


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    spots=st.lists(st.tuples(st.integers(0, 10**9), st.integers(0, 255)), min_size=1, max_size=4),
    cut=st.integers(0, 10**9),
)
def test_damaged_entries_are_no_rows(
    tmp_path: Path, big: Any, spots: list[tuple[int, int]], cut: int
) -> None:
    history, rows = big
    store_rows(KEY, rows, METRICS, folder=tmp_path / "rows")
    path = _entry_file(tmp_path / "rows")
    data = bytearray(path.read_bytes())
    for at, value in spots:
        data[at % len(data)] ^= value or 1
    if cut % 3 == 0:
        del data[cut % len(data) :]
    path.write_bytes(bytes(data))
    kept = load_rows(KEY, history, 900, METRICS, folder=tmp_path / "rows")
    if kept is not None:  # the changes undid each other
        assert bytes(data) == _good(rows)
        _same(kept, rows)


def _rewrite(path: Path, edit: Any) -> None:
    """Change the entry's fields and write it back with a correct checksum (as a bug or another
    program of this user's might): the facts themselves must then be checked."""
    data = path.read_bytes()
    head = len(b"rho-desk rows 1\n") + 4
    entry = msgspec.msgpack.decode(data[head:], type=row_cache._Entry)
    entry = edit(entry)
    body = msgspec.msgpack.encode(entry)
    path.write_bytes(data[: head - 4] + zlib.crc32(body).to_bytes(4, "big") + body)


def _ints(values: list[int]) -> bytes:
    from array import array

    return array("l", values).tobytes()


@pytest.mark.parametrize(
    "edit",
    [
        pytest.param(lambda e: msgspec.structs.replace(e, kinds=b"\x09" + e.kinds[1:]), id="kind"),
        pytest.param(
            lambda e: msgspec.structs.replace(e, chars=_ints([5]) + e.chars[8:]), id="first-size"
        ),
        pytest.param(
            lambda e: msgspec.structs.replace(e, newlines=e.newlines[:-8] + _ints([40])),
            id="last-lines",
        ),
        pytest.param(
            lambda e: msgspec.structs.replace(e, call_rows=e.call_rows[:-8] + _ints([10**6])),
            id="call-row-out-of-range",
        ),
        pytest.param(
            lambda e: msgspec.structs.replace(e, call_result=_ints([10**7]) + e.call_result[8:]),
            id="result-row-out-of-range",
        ),
        pytest.param(
            lambda e: msgspec.structs.replace(e, call_ids=["x", *e.call_ids[1:]]), id="call-id"
        ),
        pytest.param(
            lambda e: msgspec.structs.replace(e, resume_cut=len(e.kinds) + 1), id="resume-cut"
        ),
        pytest.param(lambda e: msgspec.structs.replace(e, chars=e.chars[:-3]), id="torn-array"),
        pytest.param(
            lambda e: msgspec.structs.replace(e, heights=_ints([-1]) + e.heights[8:]), id="height"
        ),
        pytest.param(lambda e: msgspec.structs.replace(e, fingerprint="other"), id="other-code"),
    ],
)
def test_entries_whose_facts_disagree_are_no_rows(tmp_path: Path, big: Any, edit: Any) -> None:
    history, rows = big
    store_rows(KEY, rows, METRICS, folder=tmp_path / "rows")
    _rewrite(_entry_file(tmp_path / "rows"), edit)
    assert load_rows(KEY, history, 900, METRICS, folder=tmp_path / "rows") is None


def test_a_file_others_can_write_or_a_link_is_not_read(tmp_path: Path, big: Any) -> None:
    history, rows = big
    store_rows(KEY, rows, METRICS, folder=tmp_path / "rows")
    path = _entry_file(tmp_path / "rows")
    assert load_rows(KEY, history, 900, METRICS, folder=tmp_path / "rows") is not None
    path.chmod(0o620)
    assert load_rows(KEY, history, 900, METRICS, folder=tmp_path / "rows") is None
    path.chmod(0o600)
    real = path.rename(tmp_path / "elsewhere")
    path.symlink_to(real)
    assert load_rows(KEY, history, 900, METRICS, folder=tmp_path / "rows") is None


def test_the_folder_keeps_the_latest_entries(tmp_path: Path, big: Any) -> None:
    history, rows = big
    for i in range(row_cache.KEEP_FILES + 3):
        store_rows(
            RowsKey(f"/s/{i}.jsonl", 1, i, 10, 10, "n", "display"),
            rows,
            METRICS,
            folder=tmp_path / "rows",
        )
    assert len(list((tmp_path / "rows").glob("*.rows"))) == row_cache.KEEP_FILES
    newest = RowsKey(
        f"/s/{row_cache.KEEP_FILES + 2}.jsonl", 1, row_cache.KEEP_FILES + 2, 10, 10, "n", "display"
    )
    assert load_rows(newest, history, 900, METRICS, folder=tmp_path / "rows") is not None


# -- in the window ------------------------------------------------------------------------------


def _shown(view: Any) -> tuple[ConversationRows, list[Any]]:
    model = view.model
    return model.rows, [model.presentation(r) for r in range(model.rowCount())]


def test_a_reopen_shows_what_a_first_open_shows(
    make_window: Any, run: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(row_cache, "MIN_ROWS", 20)
    home = tmp_path / "home"
    path = v3_session(home, 30)
    other = v3_session(home, 2, session_id="00000000-0000-4000-8000-000000000001")
    kept_in = Path(os.environ["RHO_DESK_CACHE_DIR"]) / "rows"
    context = make_window(home=home, open_file=path)
    document, view = context.document, context.window.conversation

    def reopen(target: Path) -> None:
        run(emitted(view.sig_rows_shown, lambda: document.open(target)))

    run(until(lambda: list(kept_in.glob("*.rows"))))
    first, first_rows = _shown(view)
    assert not view.rows_kept and len(first) > 100
    reopen(other)
    reopen(path)
    assert view.rows_kept
    again, again_rows = _shown(view)
    assert again is not first
    _same(again, first, view.list.metrics)
    assert again_rows == first_rows

    # the file changed between opens: built again, as a first open of the new file builds it
    reopen(other)
    append_turn(path)
    reopen(path)
    assert not view.rows_kept
    changed, changed_rows = _shown(view)
    assert len(changed) == len(first) + 4
    fresh = build_rows(document.entries())
    fresh.layout = (
        changed.layout[0],
        *layout_rows(fresh, changed.layout[0], view.list.metrics, set()),
    )  # type: ignore[index]
    _same(changed, fresh, view.list.metrics)
    # and kept again for the file as it is now
    run(
        until(
            lambda: (
                load_rows(
                    RowsKey.of(document.file, document.selected.id, "display"),
                    document.entries(),
                    changed.layout[0],
                    view.list.metrics,
                )
                is not None
            )
        )
    )  # type: ignore[arg-type, index, union-attr]
    reopen(other)
    reopen(path)
    assert view.rows_kept
    _same(view.model.rows, changed, view.list.metrics)
    assert _shown(view)[1] == changed_rows


def test_every_process_reads_what_another_wrote() -> None:
    """The build code's fingerprint is the same in another process (with another hash seed)."""
    import subprocess
    import sys

    script = "from rho_desk.qt.conversation.row_cache import FINGERPRINT; print(FINGERPRINT)"
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == row_cache.FINGERPRINT


def test_a_cache_folder_that_cannot_be_written_keeps_nothing(tmp_path: Path, big: Any) -> None:
    """The cache is only a cache: a folder that cannot be made or written is no error."""
    (tmp_path / "file").write_bytes(b"")
    assert not store_rows(KEY, big[1], METRICS, folder=tmp_path / "file" / "rows")


def test_a_preview_then_the_whole_session(
    make_window: Any, run: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A big session opened with nothing open shows its kept rows and first screen before the
    file is read (actions waiting for it); the whole history then replaces the preview in
    place (same selected row, same scroll position), and the window shows what a normal open
    shows."""
    import threading

    from rho_desk.qt.conversation.model import LOADING_TEXT
    from rho_desk.qt.services import document as document_module

    monkeypatch.setattr(row_cache, "MIN_ROWS", 20)
    monkeypatch.setattr(row_cache, "HEAD_MIN", 8)
    monkeypatch.setattr(row_cache, "HEAD_PIXELS", 300)
    home = tmp_path / "home"
    path = v3_session(home, 120)
    kept_in = Path(os.environ["RHO_DESK_CACHE_DIR"]) / "rows"
    context = make_window(home=home, open_file=path)
    document, view, actions = context.document, context.window.conversation, context.actions
    run(until(lambda: list(kept_in.glob("*.rows"))))
    first, first_rows = _shown(view)
    assert not first.preview and len(first) > 400
    run(document.aclose())
    assert view.model.rowCount() == 0

    # the file is read only when the test says so: the preview can be looked at meanwhile
    release = threading.Event()
    real_load = document_module.load_path

    def held_load(target: Path) -> Any:
        assert release.wait(20)
        return real_load(target)

    monkeypatch.setattr(document_module, "load_path", held_load)
    previewed = run(emitted(view.sig_preview_shown, lambda: document.open(path)))
    assert previewed == (len(first),)
    rows = view.model.rows
    assert rows.preview and not document.is_open
    head = sorted(rows.messages.held)  # type: ignore[attr-defined]
    assert 8 <= len(head) < len(first) // 4
    shown = [view.model.presentation(r) for r in range(len(rows))]
    for r in range(len(rows)):
        if (
            r in head
        ):  # the first screen, and the results its calls link to, as a normal open shows them
            assert shown[r] == first_rows[r], r
        else:
            assert shown[r].text == LOADING_TEXT and shown[r].kind == first_rows[r].kind
    assert rows.layout is not None and first.layout is not None
    assert rows.layout[1] == first.layout[1]  # every row already has its place
    # laid out for the list as it is with its scroll bar: no second layout once the bar shows
    assert rows.layout[0] == view.list.viewport().width()
    assert view.current_row() == 0
    assert not actions["session.compact"].isEnabled()  # waits for the file
    assert not view.bar.model_button.isEnabled() and not view.bar.next_button.isEnabled()
    assert context.window.header.title.text() == f"Opening {path.name}…"
    view.select_row(3)
    bar = view.list.verticalScrollBar()
    bar.setValue(bar.maximum() // 3)
    scrolled = bar.value()
    assert scrolled > 0

    run(emitted(view.sig_rows_shown, release.set))
    whole, whole_rows = _shown(view)
    assert not whole.preview and document.is_open
    assert view.rows_kept and whole.kinds is rows.kinds  # the preview's tables, not read again
    assert whole.layout is rows.layout  # nor laid out again
    _same(whole, first, view.list.metrics)
    assert whole_rows == first_rows
    assert view.current_row() == 3 and bar.value() == scrolled
    run(until(lambda: actions["session.compact"].isEnabled()))
    assert view.bar.model_button.isEnabled() and not view.bar.next_button.isEnabled()
    assert not context.window.header.title.text().startswith("Opening")


def test_no_preview_for_a_changed_file_or_another_mode(
    tmp_path: Path, big: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A preview is read only for the file as it was kept (identity, size, time) and its mode."""
    rows = big[1]
    path = tmp_path / "session.jsonl"
    path.write_bytes(b"x" * 100)
    st_ = path.stat()
    key = RowsKey(
        str(path.absolute()), st_.st_dev, st_.st_ino, 100, st_.st_mtime_ns, "n", "display"
    )
    folder = tmp_path / "rows"
    rows.layout = (900, *layout_rows(rows, 900, METRICS, set()))
    assert store_rows(key, rows, METRICS, folder=folder)
    preview = row_cache.load_preview(path, "display", 900, METRICS, folder=folder)
    assert preview is not None and preview.preview and len(preview) == len(rows)
    # once the file is read: the preview's tables over the whole history, checked as load_rows checks
    history = big[0]
    adopted = row_cache.adopt_preview(preview, key, history, 900, METRICS, folder=folder)
    assert adopted is not None and not adopted.preview
    _same(adopted, rows)
    assert (
        row_cache.adopt_preview(
            preview, msgspec.structs.replace(key, node="other"), history, 900, METRICS
        )
        is None
    )
    wider = row_cache.adopt_preview(preview, key, history, 1100, METRICS, folder=folder)
    assert wider is not None and wider.layout is not None and wider.layout[0] == 1100
    _same(wider, rows)  # laid out for the other width as the rows would be
    # and kept at that width for the next open
    again = row_cache.load_preview(path, "display", 1100, METRICS, folder=folder)
    assert again is not None and again.messages.kept_width == 1100  # type: ignore[attr-defined]
    n = len(history)
    changed = list(history)
    changed[n // 2] = Message.user_text("a message the kept rows do not describe" * 40)
    assert row_cache.adopt_preview(preview, key, changed, 900, METRICS, folder=folder) is None
    assert row_cache.load_preview(path, "model", 900, METRICS, folder=folder) is None
    os.utime(path, ns=(st_.st_atime_ns, st_.st_mtime_ns + 1))
    assert row_cache.load_preview(path, "display", 900, METRICS, folder=folder) is None


def test_a_preview_of_a_file_that_cannot_be_read_gives_way_to_the_reason(
    make_window: Any, run: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The file turned out unreadable while its preview was shown: the preview goes, the reason
    shows, nothing is left disabled."""
    import threading

    from rho_desk.qt.services import document as document_module

    monkeypatch.setattr(row_cache, "MIN_ROWS", 20)
    home = tmp_path / "home"
    path = v3_session(home, 40)
    kept_in = Path(os.environ["RHO_DESK_CACHE_DIR"]) / "rows"
    context = make_window(home=home, open_file=path)
    document, view = context.document, context.window.conversation
    run(until(lambda: list(kept_in.glob("*.rows"))))
    run(document.aclose())
    release = threading.Event()
    real_load = document_module.load_path

    def held_load(target: Path) -> Any:
        assert release.wait(20)
        return real_load(target)

    monkeypatch.setattr(document_module, "load_path", held_load)
    run(emitted(view.sig_preview_shown, lambda: document.open(path)))
    assert view.model.rows.preview
    path.write_bytes(b"not a session\n")  # as another program might leave it

    def fail() -> None:
        release.set()

    run(emitted(document.sig_load_failed, fail))
    assert view.model.rowCount() == 0 and not view.model.rows.preview
    assert view.stack.currentWidget() is view.failed
    assert view.bar.model_button.isEnabled()
    assert context.window.header.title.text() == "No session open"
