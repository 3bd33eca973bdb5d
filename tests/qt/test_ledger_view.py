"""The Usage window and the Statistics tab's ledger rows, in the real app over the demo library.

The demo ships a ledger (``scripts/demo_ledger.py``) whose sessions include the demo sessions;
the figures on screen are checked against the core's own aggregation, the chart click against
the sessions behind it, and double-clicking a session opens it in the main window.
"""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest
from PySide6.QtCharts import QStackedBarSeries

from rho_desk.core.usage.ledger import LedgerRequest, UsageLedger
from rho_desk.core.usage.payback import payback
from rho_desk.core.usage.report import UsageFilter, UsageGroup, UsageReport
from rho_desk.qt.usage.model import LedgerRequestsModel, PaybackModel, UsageGroupsModel, money

from .conftest import idle, until

WEBHOOK = "5f0c2a9e-8d1b-4c47-9a6e-2b7d3f1e0a11"
IDEMPOTENCY = "b2e47d10-3c6a-4f2e-8d95-7a1c0e4b9f22"


def test_usage_models_pass_the_tester(qtmodeltester, demo_home: Path) -> None:  # type: ignore[no-untyped-def]
    with UsageLedger(demo_home / "usage.sqlite3", cache_dir=False) as ledger:
        groups = UsageReport(ledger).groups("session")
        rows = ledger.session_requests(WEBHOOK)
        report = payback(ledger)
    for model, data in (
        (UsageGroupsModel(), groups),
        (LedgerRequestsModel(lambda: WEBHOOK), rows),
        (PaybackModel(), [c for s in report.sessions for c in s.compactions]),
    ):
        qtmodeltester.check(model)
        model.set_rows(data)  # type: ignore[attr-defined]
        assert model.rowCount() == len(data) > 0
        qtmodeltester.check(model)


def test_money_never_shows_unknown_as_zero() -> None:
    assert money(None) == "–" and money(0) == "$0.0000" and money(-1500) == "−$0.0015"
    assert money(12_345_678) == "$12.35"


def test_usage_window_shows_the_ledger_and_opens_a_session_behind_a_bar(
    make_window, run, demo_home: Path
) -> None:  # type: ignore[no-untyped-def]
    context = make_window(home=demo_home)
    window = context.window
    assert window.app_actions["library.usage"].isEnabled()
    window.app_actions.trigger("library.usage")
    view = window.usage_window.view
    run(until(lambda: view.data is not None and view.body.isVisible()))
    assert view.data is not None and view.body.isVisible()
    with UsageLedger(demo_home / "usage.sqlite3", cache_dir=False) as ledger:
        total = UsageReport(ledger).total(UsageFilter(local=True))
        webhook_days = {r.occurred_at_ms for r in ledger.session_requests(WEBHOOK, children=False)}
    assert view.data.total == UsageGroup(
        "total",
        *(
            getattr(total, f)
            for f in (
                "requests",
                "input_tokens",
                "output_tokens",
                "cache_read_tokens",
                "cache_write_tokens",
                "total_tokens",
                "cost_usd_micros",
                "requests_without_cost",
            )
        ),
    )
    assert f"{total.requests:,} requests" in view.summary.text()
    # the chart: one bar set per model, the bars add up to the total cost
    [series] = view.daily.chart().series()
    assert isinstance(series, QStackedBarSeries)
    drawn = sum(bar.at(i) for bar in series.barSets() for i in range(bar.count()))
    assert drawn == pytest.approx(total.cost_usd_micros / 1e6)
    # click the webhook session's day, on its model's bar: the sessions behind it
    import datetime as dt

    day = dt.datetime.fromtimestamp(min(webhook_days) / 1000).date().isoformat()
    index = view.daily.periods.index(day)
    bar = next(b for b in series.barSets() if b.label() == "gpt-5")
    series.clicked.emit(index, bar)
    run(until(lambda: view.sessions_caption.text() == f"Sessions behind {day} · gpt-5"))
    assert view.sessions_caption.text() == f"Sessions behind {day} · gpt-5"
    keys = [g.key for g in view.sessions_model.rows]
    from rho_desk.core.usage.overview import narrow, sessions_behind

    behind = narrow(
        UsageFilter(since=dt.date.fromisoformat(day), until=dt.date.fromisoformat(day), local=True),
        "model",
        "gpt-5",
    )
    assert keys == [
        g.key for g in sessions_behind(demo_home / "usage.sqlite3", behind, cache_dir=False)
    ]
    assert WEBHOOK in keys
    row = keys.index(WEBHOOK)
    assert "Flaky refund webhook test" in view.sessions_model.data(
        view.sessions_model.index(row, 0)
    )
    view.sessions.setFocus()
    view.sessions.setCurrentIndex(view.sessions_model.index(row, 0))
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    QTest.keyClick(
        view.sessions, Qt.Key.Key_Return
    )  # Enter opens it (a double click activates alike)
    run(until(lambda: context.document.path is not None and WEBHOOK in str(context.document.path)))
    assert context.document.path is not None and WEBHOOK in str(context.document.path)
    # a filter narrows everything
    view.model_filter.setCurrentIndex(view.model_filter.findData("claude-sonnet-4-5"))
    run(
        until(
            lambda: (
                view.data is not None
                and {s for (_x, s) in view.data.days.cells} == {"claude-sonnet-4-5"}
            )
        )
    )
    assert {s for (_x, s) in view.data.days.cells} == {"claude-sonnet-4-5"}
    # payback, computed when its tab is opened
    with SignalWaiter(view.sig_payback_shown, run):
        view.detail_tabs.setCurrentIndex(1)
    assert (
        "compactions cost" in view.payback_caption.text()
        or "No compactions" in view.payback_caption.text()
    )


class SignalWaiter:
    """Wait (on the qasync loop) until ``signal`` fires once inside the block."""

    def __init__(self, signal, run) -> None:  # type: ignore[no-untyped-def]
        self.signal, self.run, self.fired = signal, run, asyncio.Event()

    def __enter__(self) -> None:
        self.signal.connect(lambda *_a: self.fired.set())

    def __exit__(self, *exc: object) -> None:
        self.run(asyncio.wait_for(self.fired.wait(), 20))


def test_statistics_tab_shows_the_sessions_ledger_rows_or_the_file_fallback(
    make_window, run, demo_home: Path
) -> None:  # type: ignore[no-untyped-def]
    from rho_desk.qt.window.main_window import TAB_STATISTICS

    context = make_window(home=demo_home)
    window = context.window
    path = next(
        p
        for p in (demo_home / "sessions").rglob("*.jsonl")
        if WEBHOOK in str(p) and "workspace-checkpoints" not in p.parts
    )
    window.show_tab(TAB_STATISTICS)
    stats = window.statistics

    def open_and_wait(
        session: Path,
    ) -> None:  # the ledger rows load after the statistics: wait on them
        try:
            with SignalWaiter(stats.sig_usage_shown, run):
                run(context.document.aopen(session))
        except TimeoutError:
            raise AssertionError(
                [(n.text, n.details) for n in context.bridge.notifier.history]
            ) from None

    open_and_wait(path)
    usage = stats.usage
    assert usage is not None and usage.from_ledger, [
        (n.text, n.details) for n in context.bridge.notifier.history
    ]
    rows: list[LedgerRequest] = stats.usage_model.rows
    assert {r.purpose for r in rows} >= {"agent", "compaction", "title"}
    assert any(r.outcome == "failed" for r in rows)  # the retried compaction
    assert (
        "Requests in Rho's usage ledger" in stats.usage_title.text()
        and stats.usage_table.isVisible()
    )
    # a session that started a subagent: the subagent's requests are listed too, and said to be
    idempotency = next(
        p
        for p in (demo_home / "sessions").rglob("*.jsonl")
        if IDEMPOTENCY in str(p) and "workspace-checkpoints" not in p.parts
    )
    open_and_wait(idempotency)
    sub = [n for n, r in enumerate(stats.usage_model.rows) if r.purpose == "subagent"]
    assert sub and all(stats.usage_model.rows[n].parent_session_id == IDEMPOTENCY for n in sub)
    assert "(subagent session" in stats.usage_model.data(stats.usage_model.index(sub[0], 1))
    assert "Includes 1 subagent session(s)." in stats.usage_note.text()
    # the same session with no ledger rows: the session file's own record, marked as such
    (demo_home / "usage.sqlite3").unlink()
    open_and_wait(path)
    assert stats.usage is not None and not stats.usage.from_ledger and stats.usage.file is not None
    assert stats.usage_title.text() == "Usage (from the session file)"
    assert "No requests of this session in Rho's usage ledger" in stats.usage_note.text()
    assert not stats.usage_table.isVisible()


def test_a_home_without_a_ledger_says_so(make_window, run, demo_home: Path) -> None:  # type: ignore[no-untyped-def]
    (demo_home / "usage.sqlite3").unlink()
    context = make_window(home=demo_home)
    view = context.window.show_usage()
    run(until(lambda: view.empty.isVisible()))
    assert view.empty.isVisible() and not view.body.isVisible()
    shutil.copyfile(
        Path(__file__).resolve().parents[1] / "fixtures" / "rho" / "usage-v1.sqlite3",
        demo_home / "usage.sqlite3",
    )
    view.reload_button.click()
    run(until(lambda: view.data is not None and view.data.total.requests == 1))
    assert view.data is not None and view.data.total.requests == 1


def test_usage_fits_a_1024_pixel_screen_and_works_from_the_keyboard(
    make_window, run, demo_home: Path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    """The second walkthrough's N1, N4, N9, N10, N12, N14: the window fits 1024 x 700 with every
    control reachable; Tab reaches the charts, the arrows pick a bar (read out), Enter lists the
    sessions behind it, Enter in the table opens one; Esc and Ctrl+W close the window; the
    filters are named by visible labels; the bars have room under the axis top; "All time"
    shows no dates."""
    from PySide6.QtCore import QRect, Qt
    from PySide6.QtGui import QKeySequence
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QLabel, QPushButton

    from rho_desk.qt.ui import screen

    monkeypatch.setattr(screen, "available_area", lambda _widget: QRect(0, 0, 1024, 700))
    context = make_window(home=demo_home)
    context.window.app_actions.trigger("library.usage")
    window = context.window.usage_window
    view = window.view
    run(until(lambda: view.data is not None))
    least = window.minimumSizeHint()
    assert least.width() <= 921 and least.height() <= 630, least
    assert window.width() <= 921 and window.height() <= 630
    for button in window.findChildren(QPushButton):  # every button inside the window
        if button.isVisible():
            corner = button.mapTo(window, button.rect().bottomRight())
            assert 0 <= corner.x() <= window.width() and 0 <= corner.y() <= window.height(), (
                button.text()
            )
    labels = {w.buddy(): w.text() for w in view.findChildren(QLabel) if w.buddy() is not None}
    for combo, name in (
        (view.period, "Period:"),
        (view.workspace, "Workspace:"),
        (view.model_filter, "Model:"),
        (view.purpose, "Purpose:"),
        (view.stack, "Stack:"),
        (view.measure, "Measure:"),
    ):
        assert labels.get(combo) == name
    assert (
        not view.since.isVisible() and not view.until.isVisible()
    )  # "All time": no dates beside it
    view.period.setCurrentIndex(view.period.findData(-1))
    assert view.since.isVisible() and view.until.isVisible()
    view.period.setCurrentIndex(0)
    run(idle(context.bridge))  # the period's figures are read again
    # bars under the axis top
    [axis_y] = [a for a in view.daily.chart().axes() if a.orientation() == Qt.Orientation.Vertical]
    assert axis_y.max() > max(view.daily.totals)
    # the keyboard: a chart, a bar, its sessions, one of them opened
    view.daily.setFocus()
    QTest.keyClick(view.daily, Qt.Key.Key_End)
    last = view.daily.periods[-1]
    assert view.daily.accessibleDescription().startswith(f"Selected: {last}, $")
    assert view.daily.accessibleName() == "Cost per day"
    QTest.keyClick(view.daily, Qt.Key.Key_Left)
    picked = view.daily.periods[-2]
    with SignalWaiter(view.sig_sessions_shown, run):
        QTest.keyClick(view.daily, Qt.Key.Key_Return)
    assert view.sessions_caption.text() == f"Sessions behind {picked}"
    view.by_workspace.setFocus()
    QTest.keyClick(view.by_workspace, Qt.Key.Key_Down)  # the top bar: the largest workspace
    assert view.by_workspace.current == len(view.by_workspace.keys) - 1
    assert "Selected: " in view.by_workspace.accessibleDescription()
    with SignalWaiter(view.sig_sessions_shown, run):
        QTest.keyClick(view.by_workspace, Qt.Key.Key_Space)
    assert view.sessions_caption.text().startswith("Sessions behind /")
    # Esc closes the window, and so does Ctrl+W
    assert window.isVisible()
    QTest.keyClick(window, Qt.Key.Key_Escape)
    assert not window.isVisible()
    context.window.app_actions.trigger("library.usage")
    run(until(window.isVisible))
    assert window.isVisible()
    QTest.keySequence(window, QKeySequence(QKeySequence.StandardKey.Close))
    assert not window.isVisible()


def test_an_empty_ledger_says_so_instead_of_blank_charts(make_window, run, demo_home: Path) -> None:  # type: ignore[no-untyped-def]
    """N11: a ledger with its table and no rows showed "0 requests" over two empty frames."""
    import sqlite3

    db = sqlite3.connect(demo_home / "usage.sqlite3")
    with db:
        db.execute("DELETE FROM usage_events")
    db.close()
    context = make_window(home=demo_home)
    view = context.window.show_usage()
    run(until(lambda: view.data is not None))
    assert view.data is not None and view.data.total.requests == 0
    assert view.empty.isVisible() and not view.body.isVisible()
    assert (
        view.empty.title.text() == "No requests"
        and "holds no requests yet" in view.empty.hint.text()
    )


def test_the_main_window_opens_fitted_to_a_small_screen(
    make_window, monkeypatch, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    """N8: it opened at a fixed 1280 x 800 on a 1024 x 700 screen."""
    from PySide6.QtCore import QRect

    from rho_desk.qt.ui import screen

    monkeypatch.setattr(screen, "available_area", lambda _widget: QRect(0, 0, 1024, 700))
    context = make_window(home=tmp_path)
    assert context.window.width() <= 1024 and context.window.height() <= 700, context.window.size()


def test_a_session_outside_the_library_is_named_by_its_folder_and_time(
    make_window, run, demo_home: Path
) -> None:  # type: ignore[no-untyped-def]
    """The ledger's most expensive session is not in the demo library: it is named by the folder
    and the time of its last request, as the ledger recorded them, not by an 8-hex id alone."""
    import datetime as dt

    outside = "699aa559-3eed-4ee7-b8e2-f8fcc1a6fc5a"
    with UsageLedger(demo_home / "usage.sqlite3", cache_dir=False) as ledger:
        last = max(ledger.session_requests(outside, children=False), key=lambda r: r.occurred_at_ms)
    when = dt.datetime.fromtimestamp(last.occurred_at_ms / 1000).strftime("%Y-%m-%d %H:%M")
    context = make_window(home=demo_home)
    context.window.app_actions.trigger("library.usage")
    view = context.window.usage_window.view
    run(until(lambda: view.data is not None and len(view.sessions_model.rows) > 0))
    keys = [g.key for g in view.sessions_model.rows]
    assert outside in keys and WEBHOOK in keys
    label = view.sessions_model.index(keys.index(outside), 0).data()
    assert label == f"churn-analysis · {when} · not in this library (699aa559)"
    assert "Flaky refund webhook test" in view.sessions_model.index(keys.index(WEBHOOK), 0).data()
    # the sessions behind a workspace's bar, and the payback table, name it alike
    view.by_workspace.sig_bar_clicked.emit("/home/maya/notebooks/churn-analysis")
    run(until(view.show_top.isVisible))  # the sessions behind the bar, not the top ones
    behind = [g.key for g in view.sessions_model.rows]
    assert outside in behind
    assert view.sessions_model.index(behind.index(outside), 0).data() == label
