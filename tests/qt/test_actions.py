"""Every action has a unique shortcut; handlers attach; conditions enable them; the app wires every one."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable

from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QMainWindow, QMenuBar
from pytestqt.qtbot import QtBot

from rho_desk.qt.app import AppContext
from rho_desk.qt.window.actions import MENUS, SPECS, Actions


def test_every_action_has_a_shortcut_and_no_two_collide() -> None:
    seen: dict[str, list[str]] = defaultdict(list)
    for spec in SPECS:
        assert spec.shortcuts, f"{spec.id} has no shortcut"
        for keys in spec.shortcuts:
            normal = QKeySequence(keys).toString()
            assert normal, f"{spec.id}: {keys!r} is not a key sequence"
            seen[normal].append(spec.id)
    assert {k: v for k, v in seen.items() if len(v) > 1} == {}


def test_ids_are_unique_and_menus_known() -> None:
    ids = [s.id for s in SPECS]
    assert len(ids) == len(set(ids))
    assert {s.menu for s in SPECS} <= {key for key, _ in MENUS}


def test_the_built_app_wires_a_handler_to_every_action(
    make_window: Callable[..., AppContext],
) -> None:
    context = make_window(start=False, show=False)
    assert [i for i in context.actions.ids() if not context.actions.attached(i)] == []


def test_actions_enable_only_with_a_handler_and_their_conditions(qtbot: QtBot) -> None:
    window = QMainWindow()
    qtbot.addWidget(window)
    actions = Actions(window)
    menus = actions.build_menus(QMenuBar(window))
    assert set(menus) == {key for key, _ in MENUS} and actions.recent_menu is not None
    fired: list[str] = []
    assert not actions["revision.fork"].isEnabled()
    actions.attach("revision.fork", lambda: fired.append("fork"))
    assert not actions["revision.fork"].isEnabled()  # needs an open, writable document
    actions.set_state(document=True, writable=True)
    assert actions["revision.fork"].isEnabled()
    actions["revision.fork"].trigger()
    assert fired == ["fork"]
    actions.set_state(writable=False)
    actions.trigger("revision.fork")
    assert fired == ["fork"]


def test_an_extra_condition_survives_generic_state_updates(qtbot: QtBot) -> None:
    # Undo with nothing to undo stays disabled, however often the document flags change.
    window = QMainWindow()
    qtbot.addWidget(window)
    actions = Actions(window)
    steps: list[str] = []
    actions.attach("edit.undo", lambda: None, enabled_when=lambda: bool(steps))
    actions.set_state(document=True, writable=True)
    assert not actions["edit.undo"].isEnabled()
    steps.append("compaction")
    actions.refresh("edit.undo")
    assert actions["edit.undo"].isEnabled()
    steps.clear()
    actions.set_state(document=True)
    assert not actions["edit.undo"].isEnabled()


def test_unattached_dialog_actions_stay_visible_but_disabled(qtbot: QtBot) -> None:
    window = QMainWindow()
    qtbot.addWidget(window)
    actions = Actions(window)
    actions.set_state(document=True, writable=True, tree=True, library=True, selection=True)
    compact = actions["session.compact"]
    assert compact.isVisible() and not compact.isEnabled()
    assert "Ctrl+Shift+K" in compact.toolTip()
