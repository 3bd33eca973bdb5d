"""The composition root: what opens at start, the window factory, shutdown, drag and drop."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDropEvent

from rho_desk.core.errors import InputError
from rho_desk.qt.app import StartPlan, plan_start

from .conftest import until
from .helpers import v3_session


def test_plan_prefers_the_command_line_then_settings_then_rho_home_then_demo(
    tmp_path: Path, rho_fixtures: Path
) -> None:
    home = tmp_path / "rho"
    (home / "sessions").mkdir(parents=True)
    assert plan_start(None, env={"HOME": str(tmp_path / "nobody")}) == StartPlan(None, None, True)
    assert plan_start(None, env={"RHO_HOME": str(home)}) == StartPlan(home, None, False)
    assert plan_start(None, str(home), env={}) == StartPlan(home, None, False)
    session = v3_session(home)
    assert plan_start(session, env={}) == StartPlan(home, session, False)
    assert plan_start(session.parent, env={}) == StartPlan(home, session.parent, False)
    loose = rho_fixtures / "session-v2.jsonl"
    assert plan_start(loose, env={"HOME": str(tmp_path / "nobody")}) == StartPlan(
        None, loose.absolute(), False
    )
    with pytest.raises(InputError, match="no such file"):
        plan_start(tmp_path / "missing.jsonl", env={})


def test_the_window_opens_a_file_and_shuts_down_cleanly(make_window, rho_fixtures: Path) -> None:
    context = make_window(open_file=rho_fixtures / "session-v1.jsonl")
    window = context.window
    assert window.isVisible()
    assert context.document.is_open
    assert window.header.title.text().startswith("Session 11111111")
    assert "format v1" in window.header.facts.text()
    assert window.app_actions["revision.fork"].isEnabled()
    assert not window.app_actions["revision.make_active"].isEnabled()  # a v1 line has no tree


def test_closing_cancels_running_work_first(make_window, run, rho_fixtures: Path, qtbot) -> None:
    import asyncio

    context = make_window(open_file=rho_fixtures / "session-v3.jsonl")
    cancelled: list[bool] = []

    async def long_job() -> None:
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            cancelled.append(True)
            raise

    context.bridge.run(long_job())
    closed: list[bool] = []
    context.window.sig_closed.connect(lambda: closed.append(True))
    context.window.close()
    assert context.window.isVisible()  # not yet: the app shuts its tasks down first

    async def wait_closed() -> None:
        while not closed:
            await asyncio.sleep(0.01)

    run(wait_closed())
    assert cancelled == [True] and not context.window.isVisible() and context.bridge.closed


def test_dropping_a_session_file_opens_it(make_window, run, rho_fixtures: Path) -> None:
    context = make_window()
    data = QMimeData()
    data.setUrls([QUrl.fromLocalFile(str(rho_fixtures / "session-v2.jsonl"))])
    event = QDropEvent(
        QPointF(10, 10),
        Qt.DropAction.CopyAction,
        data,
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
    )
    context.window.dropEvent(event)
    run(
        until(
            lambda: (
                context.document.path == rho_fixtures / "session-v2.jsonl"
                and str(rho_fixtures / "session-v2.jsonl") in context.settings.recent_files()
            )
        )
    )
    assert context.document.path == rho_fixtures / "session-v2.jsonl"
    assert str(rho_fixtures / "session-v2.jsonl") in context.settings.recent_files()


def test_a_file_named_on_the_command_line_joins_open_recent(make_window, tmp_path: Path) -> None:
    from .helpers import v3_session

    path = v3_session(tmp_path / "home")
    context = make_window(open_file=path)
    assert context.document.path == path
    assert context.settings.recent_files()[0] == str(path.resolve())
    menu = context.window.app_actions.recent_menu
    assert any(a.toolTip() == str(path.resolve()) for a in menu.actions())
