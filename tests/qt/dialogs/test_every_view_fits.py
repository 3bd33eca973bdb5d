"""Every top-level window, dialog and dock state fits a 1024 x 700 screen, and each of its buttons
can be reached there: wholly inside its window, not cut off by a parent or scrolled out of view.

The walk: the main window on each of its tabs; the continue dock plain, with its missing-folder
banner (also offering a folder chosen before), with its replay-safety banner, with a shell
command's and a file write's approval card up; every dialog and window the main window opens:
Compact, Export, Edit Messages, Metadata, Strip Provider, Settings (each page), Deleted Sessions,
Usage (each table) and Restore Before This Turn. This walk owns the 1024 x 700 check
(``test_fits_the_screen.py`` keeps the 1280 x 800 and large-screen sizes). The screen is 1024 x 700
(``available_area``); a window opens at most 90% of it and must not grow past the screen when a
banner or a card appears, nor stay grown when it goes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QPoint, QRect
from PySide6.QtWidgets import QAbstractButton, QTabBar, QWidget

from rho_desk.core.tools.permissions import PermissionMode
from rho_desk.core.tools.trust import TrustStore
from rho_desk.qt.ui import screen

from ...providers.loopback import OPENAI_DONE, Loopback, Reply, openai_chunk
from ..conftest import idle, laid_out, until
from ..helpers import v3_session
from .conftest import demo_session, text_reply

SCREEN = QRect(0, 0, 1024, 700)
ROOM = (int(SCREEN.width() * screen.SCREEN_SHARE), int(SCREEN.height() * screen.SCREEN_SHARE))


@pytest.fixture(autouse=True)
def small_screen(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(screen, "available_area", lambda _widget: QRect(SCREEN))


def _in(widget: QWidget, window: QWidget) -> QRect:
    return QRect(widget.mapTo(window, QPoint(0, 0)), widget.size())


def unreachable(window: QWidget) -> list[str]:
    """The buttons shown in ``window`` that are not wholly in view: outside the window, cut off
    by a parent (a dock too short, a layout squeezed) or scrolled out of a scroll area's view."""
    found = []
    for button in window.findChildren(QAbstractButton):
        if (
            not button.isVisible()
            or button.window() is not window
            or isinstance(button.parentWidget(), QTabBar)
        ):
            continue  # a tab bar's own scroll arrows come and go with its width
        rect = _in(button, window)
        seen = rect.intersected(window.rect())
        parent = button.parentWidget()
        while parent is not None and parent is not window:
            seen = seen.intersected(_in(parent, window))
            parent = parent.parentWidget()
        if seen != rect:
            found.append(
                f"{button.text() or button.objectName() or type(button).__name__!r} at {rect}, in view {seen}"
            )
    return found


def check(window: QWidget, what: str) -> None:
    """``window`` fits the screen at its present size and at its minimum, every button in view."""
    least = window.minimumSizeHint()
    assert least.width() <= ROOM[0] and least.height() <= ROOM[1], (what, "minimum", least)
    assert window.width() <= ROOM[0] and window.height() <= ROOM[1], (what, "size", window.size())
    assert unreachable(window) == [], what


def tool_reply(call_id: str, name: str, arguments: dict[str, Any]) -> Reply:
    first = {
        "index": 0,
        "id": call_id,
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(arguments)},
    }
    return Reply(
        chunks=[
            openai_chunk({"role": "assistant", "content": None, "tool_calls": [first]}),
            openai_chunk({}, finish="tool_calls"),
            OPENAI_DONE,
        ]
    )


def _open(make_window, run, path: Path, mode: PermissionMode = PermissionMode.SUPERVISED):
    context = make_window(open_file=path)
    context.continue_dock.show_continue()
    run(
        until(lambda: context.continue_dock.panel.profile.count() > 0)
    )  # the panel has read the profiles
    panel = context.continue_dock.panel
    panel.mode_picker.setCurrentIndex(panel.mode_picker.findData(mode.value))
    return context, context.controller, panel


def test_the_main_window_opens_fitted_and_each_tab_fits(make_window, run, tmp_path: Path) -> None:
    context = make_window(open_file=v3_session(tmp_path / "home"))
    window = context.window
    run(laid_out())
    assert (
        window.width(),
        window.height(),
    ) == ROOM  # opened fitted to the screen, not at 1280 x 800
    for index in range(window.tabs.count()):
        window.tabs.setCurrentIndex(index)
        run(laid_out())
        check(window, window.tabs.tabText(index))


def test_the_continue_dock_with_its_missing_folder_banner_fits(
    make_window, run, tmp_path: Path, loopback: Loopback, loopback_profile
) -> None:
    """S3: the banner's wrapped text raised the window's minimum height to 705 and the window grew
    to 745 px on a 700 px screen, and stayed so after the banner went."""
    path = v3_session(tmp_path / "home", cwd=str(tmp_path / "gone"))
    context, _controller, panel = _open(make_window, run, path)
    window = context.window
    run(laid_out())
    check(window, "continue dock")
    window.conversation.open_find()  # as after a search hit opened: the find bar under the conversation
    run(laid_out())
    check(window, "continue dock and the find bar")
    panel.composer.setPlainText("hello")
    panel.send()
    run(until(lambda: panel.workspace_banner.isVisible()))
    run(laid_out())
    check(window, "missing-folder banner")
    panel.workspace_keep.click()
    run(laid_out())
    check(window, "after the banner")
    # with a folder chosen for this workspace before: one more button, a longer text
    from rho_desk.qt.services.settings import remember_tool_folder

    chosen = tmp_path / "a-checkout-with-a-rather-long-folder-name-chosen-before"
    chosen.mkdir()
    remember_tool_folder(context.settings, str(tmp_path / "gone"), str(chosen))
    panel.send()
    run(until(lambda: panel.workspace_banner.isVisible()))
    run(laid_out())
    assert panel.use_remembered.isVisible()
    check(window, "missing-folder banner offering the folder chosen before")
    panel.workspace_keep.click()
    run(laid_out())
    check(window, "after that banner")


def test_the_offer_of_a_folder_chosen_before_fits_under_the_demo_banner_and_the_find_bar(
    make_window, run, demo_home: Path, loopback: Loopback, loopback_profile
) -> None:
    """The banner offering a folder chosen before for this workspace (four buttons beside a long
    text), in the demo library (its banner above) with the find bar open: the window stayed
    9 px past the screen and the banner's text was cut."""
    from rho_desk.qt.services.settings import remember_tool_folder

    path = demo_session(demo_home, "b2e47d10")  # recorded in /home/maya/src/payments-api
    context = make_window(home=demo_home, open_file=path, demo=True)
    context.continue_dock.show_continue()
    run(idle(context.bridge))
    panel = context.continue_dock.panel
    panel.mode_picker.setCurrentIndex(panel.mode_picker.findData(PermissionMode.SUPERVISED.value))
    window = context.window
    assert window.banner.isVisible()  # the demo library's banner, above everything
    window.conversation.open_find()
    chosen = demo_home.parent / "checkouts" / "payments-api"
    chosen.mkdir(parents=True)
    remember_tool_folder(context.settings, "/home/maya/src/payments-api", str(chosen))
    panel.composer.setPlainText("Next step?")
    panel.send()
    run(until(lambda: panel.workspace_banner.isVisible()))
    run(laid_out())
    assert panel.use_remembered.isVisible()
    check(window, "the offer of a folder chosen before, demo banner and find bar")
    text = panel.workspace_banner.text
    assert text.height() >= text.heightForWidth(text.width()), "the banner's text is cut"


def test_the_continue_dock_with_its_replay_safety_banner_fits(
    make_window, run, demo_home: Path, loopback: Loopback, loopback_profile
) -> None:
    path = demo_session(demo_home, "c81f3e02")  # native blocks from OpenAI and Anthropic
    context, controller, panel = _open(make_window, run, path, PermissionMode.OFF)
    window = context.window
    panel.composer.setPlainText("Continue with another model")
    panel.send()
    run(until(lambda: panel.handoff.isVisible() and not controller.busy))
    run(laid_out())
    check(window, "replay-safety banner")
    panel.keep_prompt.click()
    run(laid_out())
    check(window, "after the banner")


@pytest.mark.parametrize("tool", ["bash", "write"])
def test_an_approval_card_shows_its_buttons(
    make_window, run, tmp_path: Path, loopback: Loopback, loopback_profile, tool: str
) -> None:
    """C3: at 1024 x 700 the card showed its question and the first command line; its buttons
    were scrolled out of view."""
    workspace = tmp_path / "project"
    workspace.mkdir()
    (workspace / "notes.txt").write_text("".join(f"line {n}\n" for n in range(1, 41)))
    TrustStore().trust(str(workspace))
    path = v3_session(tmp_path / "home", cwd=str(workspace))
    context, controller, panel = _open(make_window, run, path)
    window = context.window
    arguments = (
        {"command": "ls -la\necho done"}
        if tool == "bash"
        else {"path": "notes.txt", "content": "".join(f"row {n}\n" for n in range(1, 41))}
    )
    loopback.queue(tool_reply("call_1", tool, arguments), text_reply("unused"))
    panel.composer.setPlainText("go")
    panel.send()
    run(until(lambda: panel.approval_card is not None))
    run(laid_out())
    check(window, f"{tool} approval card")
    card = panel.approval_card
    assert card is not None
    assert (
        _in(card.body, window).intersected(_in(panel.cards_area.viewport(), window)).height()
        >= 2 * card.body.fontMetrics().lineSpacing()
    )
    controller.cancel()
    run(until(lambda: not controller.busy))
    run(laid_out())
    check(window, "after the card")


SESSION_DIALOGS = ("compact", "export", "edit", "metadata", "strip", "settings")


def test_every_dialog_and_window_fits_with_its_buttons_in_view(
    make_window, run, demo_home: Path
) -> None:
    """Each dialog and window the main window opens, on each of its pages, over the demo library
    (its ledger for Usage, a session with a checkpoint journal for Restore)."""
    from PySide6.QtWidgets import QTabWidget

    context = make_window(home=demo_home, open_file=demo_session(demo_home, "b2e47d10"))
    window = context.window
    for kind in SESSION_DIALOGS:
        dialog = context.session_commands.show_dialog(kind)
        run(
            idle(context.bridge)
        )  # each dialog's opening work (previews, profiles, trusted folders)
        run(laid_out())
        check(dialog, kind)
        for tabs in dialog.findChildren(QTabWidget):
            for index in range(tabs.count()):
                tabs.setCurrentIndex(index)
                run(laid_out())
                check(dialog, f"{kind}: {tabs.tabText(index)}")
        dialog.close()
    run(idle(context.bridge))

    context.actions.trigger("library.trash_view")
    trash = window.commands.dialog
    run(idle(context.bridge))  # the deleted sessions are listed
    check(trash, "Deleted Sessions")
    trash.close()

    window.app_actions.trigger("library.usage")
    usage = window.usage_window
    run(until(lambda: usage.view.data is not None))
    run(laid_out())
    check(usage, "Usage")
    for index in range(usage.view.detail_tabs.count()):
        usage.view.detail_tabs.setCurrentIndex(index)
        run(idle(context.bridge))  # the tab's table is filled
        run(laid_out())
        check(usage, f"Usage: {usage.view.detail_tabs.tabText(index)}")
    usage.close()

    changes = window.changes
    window.app_actions.trigger("view.changes")
    run(until(lambda: changes.changes is not None))
    changes.tree.setCurrentIndex(changes.model.index_of("migrations/0042_idempotency_keys.sql", 2))
    run(idle(context.bridge))  # the file's changes are read
    changes.request_restore()
    run(until(lambda: changes.restore_dialog is not None and changes.restore_dialog.isVisible()))
    dialog = changes.restore_dialog
    assert dialog is not None
    run(laid_out())
    check(dialog, "Restore Before This Turn")
    dialog.reject()


def test_a_window_saved_past_the_screen_opens_on_it_again(make_window, run, tmp_path: Path) -> None:
    """The window's geometry is kept between runs: one saved while it stood past a 700-pixel
    screen (or on a larger one) opened past it again (seen at 921 x 639 from y 80)."""
    path = v3_session(tmp_path / "home")
    first = make_window(open_file=path)
    first.window.resize(921, 639)
    first.window.move(102, 40)  # on the screen as saved: too tall for it all the same
    first.window._save_state()
    second = make_window(open_file=path)
    run(laid_out())
    assert SCREEN.contains(second.window.frameGeometry()), second.window.frameGeometry()
    check(second.window, "restored")  # at most 90% of the screen, as a new window opens
