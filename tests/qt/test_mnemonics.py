"""No two controls a person can reach at once share an Alt+letter mnemonic.

Qt runs the first of two clashing mnemonics (or cycles through them), so Alt+K may store a key
when the user meant the Kind field. The scope is what is visible together: a dialog's buttons,
its tab bar and the current tab page's controls. Every dialog of the app, every tab page.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import pytest
from PySide6.QtWidgets import QAbstractButton, QGroupBox, QLabel, QTabBar, QWidget

from .conftest import idle, until
from .helpers import dialog_pages, v4_session


def mnemonic(text: str) -> str | None:
    """The letter after a single ``&`` (``&&`` is a literal ampersand)."""
    i = 0
    while i < len(text) - 1:
        if text[i] == "&":
            if text[i + 1] != "&":
                return text[i + 1].lower()
            i += 1
        i += 1
    return None


def clashes(scope: QWidget) -> dict[str, list[str]]:
    """Mnemonics used more than once among the visible controls of ``scope``."""
    seen: dict[str, list[str]] = defaultdict(list)
    for widget in [scope, *scope.findChildren(QWidget)]:
        if not widget.isVisible():
            continue
        texts: list[str] = []
        if isinstance(widget, QAbstractButton) or (
            isinstance(widget, QLabel) and widget.buddy() is not None
        ):
            texts.append(widget.text())
        elif isinstance(widget, QGroupBox) and widget.isCheckable():
            texts.append(widget.title())
        elif isinstance(widget, QTabBar):
            texts += [widget.tabText(i) for i in range(widget.count())]
        for text in texts:
            letter = mnemonic(text)
            if letter is not None:
                seen[letter].append(text.replace("&", ""))
    return {letter: names for letter, names in seen.items() if len(names) > 1}


def test_the_checker_sees_a_clash(qtbot) -> None:
    from PySide6.QtWidgets import QFormLayout, QLineEdit, QPushButton

    box = QWidget()
    qtbot.addWidget(box)
    form = QFormLayout(box)
    form.addRow("&Kind:", QLineEdit())
    form.addRow("", QPushButton("Store &Key"))
    form.addRow("Fish && &chips:", QLineEdit())
    box.show()
    assert clashes(box) == {"k": ["Kind:", "Store Key"]}
    assert mnemonic("Fish && &chips") == "c" and mnemonic("a && b") is None


DIALOGS = ["settings", "compact", "export", "edit", "metadata", "strip"]


@pytest.mark.parametrize("kind", DIALOGS)
def test_no_dialog_has_clashing_mnemonics(make_window, run, tmp_path: Path, kind: str) -> None:
    context = make_window(open_file=v4_session(tmp_path / "home"))
    dialog = context.session_commands.show_dialog(kind)
    run(idle(context.bridge))  # the dialog's opening work (what is checked: no clashing mnemonic)
    found = {}
    for page in dialog_pages(dialog, lambda: run(idle(context.bridge)), kind):
        if clash := clashes(dialog):
            found[page] = clash
    dialog.close()
    assert found == {}


def test_the_main_window_and_its_menus(make_window, run, tmp_path: Path) -> None:
    from PySide6.QtWidgets import QMenu, QMenuBar

    context = make_window(open_file=v4_session(tmp_path / "home"))
    context.continue_dock.show_continue()
    run(
        until(lambda: context.continue_dock.panel.profile.count() > 0)
    )  # the panel has read the profiles
    window = context.window
    # the menu bar's titles share the window's Alt+letters with every visible control
    found = clashes(window)
    bar_letters: dict[str, list[str]] = defaultdict(list)
    for action in window.findChild(QMenuBar).actions():
        if (letter := mnemonic(action.text())) is not None:
            bar_letters[letter].append(action.text().replace("&", ""))
    for letter, names in bar_letters.items():
        others = list(found.get(letter, []))
        if len(names) + len(others) > 1:
            found[letter] = names + others
    # inside each menu, its own entries
    for menu in window.findChildren(QMenu):
        letters: dict[str, list[str]] = defaultdict(list)
        for action in menu.actions():
            if action.isVisible() and (letter := mnemonic(action.text())) is not None:
                letters[letter].append(action.text().replace("&", ""))
        found |= {f"{menu.title()}:{k}": v for k, v in letters.items() if len(v) > 1}
    assert found == {}


def test_the_changes_tab_and_the_menus(make_window, run, tmp_path: Path) -> None:
    """N7: "Re&store Before This Turn…" shared Alt+S with the Session menu, which won."""
    from PySide6.QtWidgets import QMenuBar

    from rho_desk.qt.window.main_window import TAB_CHANGES

    context = make_window(open_file=v4_session(tmp_path / "home"))
    window = context.window
    window.show_tab(TAB_CHANGES)
    run(until(lambda: window.changes.restore_button.isVisible()))
    assert window.changes.restore_button.isVisible()
    found = clashes(window)
    for action in window.findChild(QMenuBar).actions():
        if (letter := mnemonic(action.text())) is not None and letter in {
            mnemonic(b.text())
            for b in (
                window.changes.restore_button,
                window.changes.turn_button,
                window.changes.undo_button,
            )
        }:
            found[letter] = [*found.get(letter, []), action.text().replace("&", "")]
    assert found == {}


def test_the_trust_question_says_who_named_the_folder(qtbot, tmp_path: Path) -> None:
    """N16: after Choose Folder…, the question said the session file named the chosen folder."""
    from rho_desk.core.tools.trust import WorkspaceUntrusted
    from rho_desk.qt.continue_.trust import WorkspaceTrustBox

    problem = WorkspaceUntrusted(tmp_path, session="/s/session.jsonl")
    named = WorkspaceTrustBox(problem)
    chosen = WorkspaceTrustBox(problem, chosen=True)
    qtbot.addWidget(named)
    qtbot.addWidget(chosen)
    assert (
        "The session file /s/session.jsonl names this folder as its workspace"
        in named.informativeText()
    )
    assert chosen.informativeText().startswith(
        "You chose this folder for the tools of /s/session.jsonl."
    )
    assert "names this folder" not in chosen.informativeText()
