"""Benchmarks of the action dialogs: compaction preview, the save after a commit, streaming.

* ``actions.compaction_preview_100k``: what the compaction dialog computes in its worker thread
  for a 100k-message revision (the stored state, the local preview, a token estimate per row).
  Baseline: ``LocalCompactor.preview`` alone on the same history, in the same run.
* ``actions.save_after_commit_10k``: a continued turn (a prompt and an answer) saved into a
  10k-message v3 transcript through the document's writer (serialised, lease held, the
  optimistic check, one append and ``fdatasync``), then announced to the views
  (``note_written``): the time before the panel may say "saved". Baseline: ``SessionWriter.save``
  of the same turn without the document.
* ``actions.stream_5k_deltas``: 5,000 streamed text deltas delivered to the continue panel (its
  coalescing timer flushes every 30 ms of loop time); the sample is the total wall time until the
  panel shows the whole text, per delta. Baseline: the same text inserted in one call.
"""

from __future__ import annotations

import asyncio
import atexit
import os
import random
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("QT_API", "pyside6")

from _sessions import PROVIDER, make_session, text

from rho_desk.benchkit import BenchResult, benchmark, measure, use_gui_screen
from rho_desk.core.revisions.edits import stored_state
from rho_desk.core.stores.rho_files import SessionWriter, read_session
from rho_desk.core.wire import (
    AssistantMessage,
    ContentBlock,
    Message,
)

_state: dict[str, Any] = {}


def _session(messages: int) -> Path:
    """A v3 transcript of about ``messages`` messages (``_sessions.make_session``), made once."""
    key = f"session_{messages}"
    if key not in _state:
        folder = Path(tempfile.mkdtemp(prefix="rho-bench-actions-"))
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        _state[key] = make_session(folder / "home", messages, seed=11)
    return _state[key]  # type: ignore[no-any-return]


@benchmark("actions.compaction_preview_100k")
def compaction_preview_100k(quick: bool) -> BenchResult:
    from rho_desk.core.compaction.local import LocalCompactor, RecentBudget
    from rho_desk.qt.compact.dialog import compute_preview

    tree = read_session(_session(100_000)).tree
    leaf = tree.active_leaf
    assert leaf is not None
    budget = RecentBudget()
    history = tree.history(leaf)
    repeat = 3 if quick else 7
    samples = measure(
        lambda: compute_preview(stored_state(tree, leaf).history, leaf, budget), repeat=repeat
    )
    base = measure(lambda: LocalCompactor(budget).preview(history), repeat=repeat)
    median, base_median = sorted(samples)[len(samples) // 2], sorted(base)[len(base) // 2]
    return BenchResult(
        "actions.compaction_preview_100k",
        "ms",
        samples,
        "< 3000 ms (off the GUI thread)",
        median < 3000,
        baseline=base_median,
        ratio=median / base_median,
        details={"messages": len(history)},
    )


@benchmark("actions.save_after_commit_10k")
def save_after_commit_10k(quick: bool) -> BenchResult:
    from rho_desk.qt.services.bridge import EngineBridge
    from rho_desk.qt.services.document import SessionDocument
    from rho_desk.qt.services.messages import Notifier

    app = _app()
    source = _session(10_000)
    folder = Path(tempfile.mkdtemp(prefix="rho-bench-save-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    path = folder / source.name
    shutil.copy2(source, path)
    rng = random.Random(5)
    repeat = 10 if quick else 40
    import qasync

    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    bridge = EngineBridge(Notifier())
    document = SessionDocument(bridge, poll_ms=0, follow_live=False)
    loop.run_until_complete(document.aopen(path))
    samples: list[float] = []

    async def save_one() -> None:
        tree = document.tree
        assert tree is not None
        state = tree.snapshot(trim=False, prompt_cache_key=None)
        turn = (
            Message.user_text(text(rng, 20)),
            Message.enriched(
                AssistantMessage(
                    content=(ContentBlock.of_text(text(rng, 40)),), provenance=PROVIDER
                )
            ),
        )
        new = state.replace(revision=state.revision + 1, history=state.history + turn)
        start = time.perf_counter()
        async with document.writing() as writer:
            node = await asyncio.to_thread(writer.save, new)
        document.note_written(node)
        samples.append((time.perf_counter() - start) * 1000)

    for _ in range(repeat + 1):
        loop.run_until_complete(save_one())
    samples = samples[1:]  # the first opens the writer (and its lease)
    loop.run_until_complete(document.aclose())
    loop.run_until_complete(bridge.aclose())
    loop.close()  # also ends its worker threads
    asyncio.set_event_loop(None)
    # baseline: the writer alone on a second copy
    other = folder / "baseline.jsonl"
    shutil.copy2(source, other)
    writer = SessionWriter(read_session(other, check_name=False), take_lease=False)
    base: list[float] = []
    try:
        for _ in range(repeat):
            state = writer.tree.snapshot(trim=False, prompt_cache_key=None)
            turn = (Message.user_text(text(rng, 20)), Message.assistant_text(text(rng, 40)))
            new = state.replace(revision=state.revision + 1, history=state.history + turn)
            start = time.perf_counter()
            writer.save(new)
            base.append((time.perf_counter() - start) * 1000)
    finally:
        writer.close()
    median, base_median = sorted(samples)[len(samples) // 2], sorted(base)[len(base) // 2]
    return BenchResult(
        "actions.save_after_commit_10k",
        "ms",
        samples,
        "< 50 ms median",
        median < 50,
        baseline=base_median,
        ratio=median / base_median if base_median else None,
    )


@benchmark("actions.stream_5k_deltas")
def stream_5k_deltas(quick: bool) -> BenchResult:
    from PySide6.QtCore import QCoreApplication
    from PySide6.QtGui import QTextCursor
    from PySide6.QtWidgets import QPlainTextEdit

    from rho_desk.qt.continue_.composer import ContinuePanel

    app = _app()
    count = 5000
    pieces = [f"word{i} " for i in range(count)]
    text = "".join(pieces)
    samples: list[float] = []
    base: list[float] = []
    for _ in range(3 if quick else 7):
        panel = ContinuePanel.__new__(
            ContinuePanel
        )  # the panel's drawing only: no controller, no host
        _bare_panel(panel)
        start = time.perf_counter()
        for i, piece in enumerate(pieces):
            panel._on_controller_text_delta(piece)
            if i % 50 == 49:  # the event loop runs between network reads
                QCoreApplication.processEvents()
        while panel._buffer:
            QCoreApplication.processEvents()
            time.sleep(0.001)
        samples.append((time.perf_counter() - start) * 1e6 / count)
        assert (
            panel.reply.toPlainText().endswith(text.rstrip())
            or text.strip() in panel.reply.toPlainText()
        )
        panel.deleteLater()
        plain = QPlainTextEdit()
        start = time.perf_counter()
        cursor = plain.textCursor()
        cursor.movePosition(QTextCursor.MoveOperation.End)
        cursor.insertText(text)
        base.append((time.perf_counter() - start) * 1e6 / count)
        plain.deleteLater()
    QCoreApplication.processEvents()
    del app
    median, base_median = sorted(samples)[len(samples) // 2], sorted(base)[len(base) // 2]
    return BenchResult(
        "actions.stream_5k_deltas",
        "µs/delta",
        samples,
        "< 100 µs per delta",
        median < 100,
        baseline=base_median,
        ratio=median / base_median if base_median else None,
    )


def _bare_panel(panel: Any) -> None:
    """Initialise a ContinuePanel with just its reply area and flush timer (no controller)."""
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QFrame, QLabel, QPlainTextEdit

    from rho_desk.qt.continue_ import composer

    QFrame.__init__(panel)
    panel._buffer = []
    panel._mode = ""
    panel.reply = QPlainTextEdit(panel)
    panel.reply.setReadOnly(True)
    panel.reply.resize(1200, 200)
    panel.status = QLabel("", panel)  # a delta reads it: "Retrying…" gives way to "Streaming…"
    panel._flush = QTimer(panel)
    panel._flush.setSingleShot(True)
    panel._flush.setInterval(composer.FLUSH_MS)
    panel._flush.timeout.connect(panel._on_flush_timeout)


def _app() -> Any:
    use_gui_screen()
    from PySide6.QtWidgets import QApplication

    return QApplication.instance() or QApplication([])
