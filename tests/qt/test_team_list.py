"""The Team list and the trash are item models that pass QAbstractItemModelTester while they are
filled, refreshed and cleared: the Team list as its panel fills it (a listing, a search, the
database setting removed), without a database."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from PySide6.QtCore import QObject, Qt, Signal

from rho_desk.core.stores.trash import TrashItem
from rho_desk.qt.browser.team import TeamBrowserView, TeamDelegate
from rho_desk.qt.browser.team_model import TeamEntry, TeamListModel, TeamRow
from rho_desk.qt.recovery.trash_model import TrashModel
from rho_desk.qt.services.bridge import EngineBridge
from rho_desk.qt.services.document import SessionDocument
from rho_desk.qt.services.messages import Notifier
from rho_desk.qt.services.team import TeamState
from rho_desk.qt.ui.roles import Role
from rho_desk.qt.ui.theme import LIGHT

from .conftest import until


def _published(n: int, *, snippet: str = "") -> SimpleNamespace:
    """A row as the team library lists or finds it."""
    return SimpleNamespace(
        team="qa",
        session_id=f"sid-{n}",
        title=f"Session {n}",
        latest_revision=n,
        versions=n,
        published_by="maya",
        published_at=datetime(2026, 1, n, 9, 30, tzinfo=UTC),
        snippet=snippet,
    )


class FakeTeam(QObject):
    """What the Team panel uses of the team service, without a database."""

    sig_state_changed = Signal(str, str)
    sig_reconfigured = Signal()

    def __init__(self) -> None:
        super().__init__()
        self.state, self.message = TeamState.CONNECTED, ""
        self.configured = True
        self.listing: list[SimpleNamespace] = []
        self.found: list[SimpleNamespace] = []

    async def alist(self) -> list[SimpleNamespace]:
        return self.listing

    async def asearch(self, text: str) -> list[SimpleNamespace]:
        return self.found


@pytest.fixture
def panel(qapp: Any, run: Any) -> Iterator[tuple[TeamBrowserView, FakeTeam, EngineBridge]]:
    bridge = EngineBridge(Notifier())
    document = SessionDocument(bridge, poll_ms=0)
    team = FakeTeam()
    view = TeamBrowserView(team, bridge, document, LIGHT)  # type: ignore[arg-type]
    yield view, team, bridge
    run(bridge.aclose())
    view.deleteLater()


def test_the_team_list_is_a_model_that_passes_the_tester_as_the_panel_fills_it(
    panel, qtmodeltester, run
) -> None:  # type: ignore[no-untyped-def]
    view, team, _bridge = panel
    model = view.model
    assert view.list.model() is model and isinstance(view.list.itemDelegate(), TeamDelegate)
    qtmodeltester.check(model)  # stays attached: every change below is checked as it happens
    resets: list[int] = []
    model.modelReset.connect(lambda: resets.append(model.rowCount()))

    team.listing = [_published(2), _published(1)]
    view.reload_listing()
    run(until(lambda: model.rowCount() == 2 and "2 sessions published" in view.footer.text()))
    assert model.rowCount() == 2 and "2 sessions published" in view.footer.text()
    card = model.index(0).data(Role.ROW)
    assert (
        isinstance(card, TeamRow)
        and card.title == "Session 2"
        and card.badges == ("r2", "2 versions")
    )
    assert model.index(0).data() == "Session 2\nqa · r2 · 2026-01-02 09:30\npublished by maya"
    assert model.index(0).data(Qt.ItemDataRole.AccessibleTextRole) == model.index(0).data()
    assert model.index(1).data(Qt.ItemDataRole.ToolTipRole) == "qa / sid-1\nSession 1"

    # refreshed: a search, its match highlighted on the card and unmarked in the text
    team.found = [_published(1, snippet="the «delta» fix")]
    view.search.setText("delta")
    view.reload_listing()
    run(until(lambda: model.rowCount() == 1))
    assert model.rowCount() == 1 and "«" not in model.index(0).data()
    card = model.index(0).data(Role.ROW)
    assert [card.text[a:b] for a, b in card.highlights] == ["delta"]

    opened: list[tuple[str, str]] = []

    async def aopen(team_name: str, session_id: str) -> None:
        opened.append((team_name, session_id))

    view._aopen = aopen  # type: ignore[method-assign]
    view.list.activated.emit(model.index(0))
    view.open_row(0)
    view.open_row(5)  # past the end: nothing
    run(until(lambda: len(opened) == 2))
    assert opened == [("qa", "sid-1"), ("qa", "sid-1")]

    # cleared: the database setting removed
    team.configured = False
    team.sig_state_changed.emit(TeamState.UNCONFIGURED, "")
    assert model.rowCount() == 0 and "No team database" in view.footer.text()
    assert resets == [2, 1, 0]


def test_the_team_list_model_through_fill_refresh_and_clear(qtmodeltester) -> None:  # type: ignore[no-untyped-def]
    def entry(n: int) -> TeamEntry:
        card = TeamRow(f"Session {n}", "1 h", "qa", "text", (), (f"r{n}",))
        return TeamEntry("qa", f"sid-{n}", card, f"Session {n}\nqa", f"qa / sid-{n}")

    model = TeamListModel()
    qtmodeltester.check(model)
    model.set_entries([entry(n) for n in range(5)])
    assert model.rowCount() == 5 and model.entry(4) is not None and model.entry(5) is None
    model.set_entries([entry(7)])
    assert model.index(0).data() == "Session 7\nqa" and model.index(0).data(Role.ROW).badges == (
        "r7",
    )
    assert model.index(0).data(Role.SUMMARY) is None  # a role it does not serve
    model.clear()
    assert model.rowCount() == 0 and model.entry(0) is None


def test_the_trash_model_through_fill_refresh_and_clear(qtmodeltester) -> None:  # type: ignore[no-untyped-def]
    def item(n: int) -> TrashItem:
        return TrashItem(
            path=Path(f"/trash/e{n}"),
            session_id=f"id-{n}",
            workspace_key="w",
            cwd="/work/a",
            original=Path(f"/rho/u{n}"),
            transcript=Path(f"/rho/u{n}/session.jsonl"),
            title=f"T{n}",
            deleted_at=1_790_000_000 + n,
            runs=(),
        )

    model = TrashModel()
    qtmodeltester.check(model)
    model.set_rows([item(n) for n in range(4)])
    assert model.rowCount() == 4 and model.columnCount() == 5
    model.set_rows([item(9)])
    assert model.index(0, 1).data() == "T9" and model.row_at(0) is not None
    model.set_rows([])
    assert model.rowCount() == 0 and model.row_at(0) is None


def test_the_app_reads_the_team_database_from_the_environment(
    make_window, monkeypatch, tmp_path
) -> None:  # type: ignore[no-untyped-def]
    """N19: the app ignored RHO_DESK_TEAM_DB, the command line's default; Settings still win."""
    from rho_desk.qt.services.settings import PREFS_TEAM_DATABASE

    monkeypatch.setenv("RHO_DESK_TEAM_DB", "host=127.0.0.1 port=1 dbname=team user=alice")
    context = make_window(home=tmp_path)
    team = context.services.team
    assert team.configured and team.dsn == "host=127.0.0.1 port=1 dbname=team user=alice"
    context.settings.set(PREFS_TEAM_DATABASE, "host=db.example dbname=other")
    assert team.dsn == "host=db.example dbname=other"
    monkeypatch.delenv("RHO_DESK_TEAM_DB")
    context.settings.set(PREFS_TEAM_DATABASE, "")
    assert not team.configured
