"""The user guide stays true: its tables come from the code, and the keys it names are real.

``docs/user-guide.md`` holds three generated tables, each between ``<!-- generated:NAME -->`` and
``<!-- /generated:NAME -->``:

* ``shortcuts``: every action of :data:`rho_desk.qt.window.actions.SPECS` (menu, text, shortcuts);
* ``settings``: every ``prefs/`` option of the settings registry, with its default and meaning;
* ``classes``: the nine export content classes with their labels in the export dialog.

``python -m tests.test_user_guide --write`` regenerates them; without ``--write`` it prints them.
The tests fail when the guide and the code disagree. They also check that the table of keys
inside dialogs and panels (between ``<!-- checked:dialog-keys -->`` markers) names keys the
real widgets have (buttons and shortcuts read from the running app, key handlers pressed with
``QTest``), that every **Menu ▸ Action** the guide names exists, that every screenshot it embeds
exists and has alt text, and that its console examples use every subcommand
(``tests/test_docs.py`` runs them).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from markdown_it import MarkdownIt

# The GUI fixtures of tests/qt (a qasync loop, isolated settings and folders, the app factory).
from tests.qt.conftest import (  # noqa: F401 - fixtures used by name
    collect_garbage_here,
    demo_home,
    idle,
    isolated_dirs,
    make_window,
    qloop,
    run,
)

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
GUIDE = DOCS / "user-guide.md"

LOCAL_NOTE = " (in the session list)"
"""Appended to the keys of actions that work only while the session list has the focus."""
EMPTY = "(empty)"


# --- the generated tables --------------------------------------------------------------------


def _keys(keys: tuple[str, ...] | list[str]) -> str:
    return ", ".join(f"`{k}`" for k in keys)


def render_shortcuts() -> str:
    """The shortcut table: one row per action, in menu order."""
    from rho_desk.qt.window.actions import MENUS, SPECS

    titles = dict(MENUS)
    lines = ["| Menu | Action | Keys |", "| --- | --- | --- |"]
    for spec in SPECS:
        keys = _keys(spec.shortcuts) + (LOCAL_NOTE if spec.local else "")
        lines.append(
            f"| {titles[spec.menu].replace('&', '')} | {spec.text.replace('&', '')} | {keys} |"
        )
    return "\n".join(lines)


def _default(value: object) -> str:
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    if isinstance(value, list):
        return ", ".join(f"`{v}`" for v in value) or EMPTY
    if value == "":
        return EMPTY
    return f"`{value}`"


def render_settings() -> str:
    """The options a user chooses (``prefs/``), with their defaults and meaning."""
    from rho_desk.qt.services.settings import REGISTRY

    lines = ["| Key | Default | Meaning |", "| --- | --- | --- |"]
    for key, setting in REGISTRY.items():
        if key.startswith("prefs/"):
            lines.append(f"| `{key}` | {_default(setting.default)} | {setting.doc} |")
    return "\n".join(lines)


def render_classes() -> str:
    """The export content classes, in their canonical order, with the dialog's labels."""
    from rho_desk.core.export import ALL_CLASSES
    from rho_desk.qt.export.model import CLASS_LABELS

    lines = ["| Class | In the export dialog |", "| --- | --- |"]
    lines += [f"| `{c.value}` | {CLASS_LABELS[c]} |" for c in ALL_CLASSES]
    return "\n".join(lines)


RENDERERS: dict[str, Callable[[], str]] = {
    "shortcuts": render_shortcuts,
    "settings": render_settings,
    "classes": render_classes,
}


def _match(name: str, text: str, kind: str) -> re.Match[str]:
    # a block may be indented (a table inside a numbered step): both markers carry the indent
    pattern = rf"(?ms)^([ \t]*)<!-- {kind}:{name} -->\n\n(.*?)\n\n\1<!-- /{kind}:{name} -->"
    match = re.search(pattern, text)
    assert match is not None, f"docs/user-guide.md has no <!-- {kind}:{name} --> block"
    return match


def _block(name: str, text: str, kind: str = "generated") -> str:
    """The text between the markers, without their indentation."""
    match = _match(name, text, kind)
    indent = len(match.group(1))
    return "\n".join(line[indent:] for line in match.group(2).split("\n"))


def write_guide() -> None:
    """Replace every generated block of the guide with what the code says now."""
    text = GUIDE.read_text(encoding="utf-8")
    for name, render in RENDERERS.items():
        match = _match(name, text, "generated")
        indent = match.group(1)
        body = "\n".join(indent + line for line in render().split("\n"))
        text = text[: match.start(2)] + body + text[match.end(2) :]
    GUIDE.write_text(text, encoding="utf-8")


def table_rows(markdown: str) -> list[list[str]]:
    """The body rows of the first table in ``markdown``, each cell as its source text."""
    tokens = MarkdownIt("commonmark").enable("table").parse(markdown)
    rows: list[list[str]] = []
    in_body = False
    for token in tokens:
        if token.type == "tbody_open":
            in_body = True
        elif token.type == "tbody_close":
            break
        elif in_body and token.type == "tr_open":
            rows.append([])
        elif in_body and token.type == "inline":
            rows[-1].append(token.content)
    return rows


def _guide() -> str:
    return GUIDE.read_text(encoding="utf-8")


@pytest.mark.parametrize("name", sorted(RENDERERS))
def test_generated_tables_are_current(name: str) -> None:
    """Each generated table is exactly what the code gives (run ``--write`` after a change)."""
    assert _block(name, _guide()) == RENDERERS[name](), (
        f"the {name} table of docs/user-guide.md is out of date: "
        "run `.venv/bin/python -m tests.test_user_guide --write`"
    )


def test_shortcut_table_matches_the_real_actions(qapp: Any) -> None:
    """The guide's table, read back, gives every action's real ``QAction`` shortcuts."""
    from PySide6.QtGui import QKeySequence
    from PySide6.QtWidgets import QWidget

    from rho_desk.qt.window.actions import MENUS, SPECS, Actions

    window = QWidget()
    try:
        actions = Actions(window)
        titles = dict(MENUS)
        real = {
            (titles[s.menu].replace("&", ""), s.text.replace("&", "")): (
                [
                    k.toString(QKeySequence.SequenceFormat.PortableText)
                    for k in actions[s.id].shortcuts()
                ],
                s.local,
            )
            for s in SPECS
        }
    finally:
        window.deleteLater()
    rows = table_rows(_block("shortcuts", _guide()))
    documented = {
        (menu, action): (re.findall(r"`([^`]+)`", keys), keys.endswith(LOCAL_NOTE))
        for menu, action, keys in rows
    }
    assert len(rows) == len(documented) == len(SPECS)
    assert documented == real
    # no two actions of the window share a key (the guide would then be ambiguous)
    every = [key for keys, _local in real.values() for key in keys]
    assert len(every) == len(set(every))


def test_settings_table_names_every_user_option() -> None:
    from rho_desk.qt.services.settings import REGISTRY

    rows = table_rows(_block("settings", _guide()))
    keys = [row[0].strip("`") for row in rows]
    assert keys == [k for k in REGISTRY if k.startswith("prefs/")]
    assert not any(re.search(r"(?i)key|secret|token|password", k) for k in keys)


# --- menu references, screenshots, command examples --------------------------------------------

_MENU_REF = re.compile(r"\*\*(File|Edit|View|Library|Revision|Session|Help) ▸ ([^*]+?)\*\*")


def test_menu_references_exist() -> None:
    """Every **Menu ▸ Action** in the guide is a real menu entry (text as the menu shows it)."""
    from rho_desk.qt.window.actions import MENUS, SPECS

    titles = dict(MENUS)
    entries = {(titles[s.menu].replace("&", ""), s.text.replace("&", "")) for s in SPECS}
    entries.add(("File", "Open Recent"))  # the submenu built next to Open (actions.build_menus)
    cited = _MENU_REF.findall(_guide())
    assert cited, "the guide names no menu entry"
    unknown = sorted(set(cited) - entries)
    assert not unknown, f"the guide names menu entries that do not exist: {unknown}"


_IMAGE = re.compile(r"!\[([^\]]*)\]\(([^)\s]+)\)")
JOBS = ("## 1. ", "## 2. ", "## 3. ", "## 4. ")


def test_screenshots_exist_and_have_alt_text() -> None:
    text = _guide()
    images = _IMAGE.findall(text)
    assert images
    for alt, target in images:
        assert not target.startswith(("/", "http")), f"{target}: use a relative link"
        assert (DOCS / target).is_file(), f"{target} does not exist"
        assert len(alt.split()) >= 3, f"{target}: the alt text must say what the picture shows"
    # each of the four jobs shows at least one screenshot
    sections = re.split(r"(?m)^(?=## )", text)
    for prefix in JOBS:
        section = next((s for s in sections if s.startswith(prefix)), None)
        assert section is not None, f"no section starting {prefix!r}"
        assert _IMAGE.search(section), f"{section.splitlines()[0]}: no screenshot"


def test_console_examples_use_every_subcommand() -> None:
    from rho_desk.cli import _parser
    from tests.test_docs import parse_console, read_blocks

    commands = [
        (
            [a for a in command.argv if a != "--demo"],
            block.runs,
        )  # `rho-desk --demo COMMAND`: COMMAND
        for block in read_blocks(GUIDE)
        if block.lang == "console"
        for command in parse_console(block)
    ]
    parser = _parser()
    subparsers = next(a for a in parser._actions if a.dest == "command")
    assert {argv[0] for argv, _ in commands} == set(subparsers.choices)  # type: ignore[attr-defined]
    ran = [argv for argv, runs in commands if runs]
    assert {argv[0] for argv in ran} == set(subparsers.choices) - {
        "open"
    }  # only the app does not run
    assert any(a[0] == "compact" and "--dry-run" in a for a in ran)
    assert any(a[0] == "compact" and "--dry-run" not in a for a in ran)
    assert any(a[0] == "export" and "--include" in a for a in ran)
    assert any(a[0] == "export" and "--exclude" in a for a in ran)
    assert any(a[0] == "bench" and "--quick" in a and "-k" in a for a in ran)


# --- keys inside dialogs and panels -----------------------------------------------------------


def _widget_keys(widget: Any) -> tuple[dict[str, set[str]], set[str]]:
    """``({button label: {its shortcuts}}, {QShortcut keys})`` of a widget and its children.

    A button's Alt+letter mnemonic (the underlined letter of its label) is not counted: the guide
    says once that underlined letters work with Alt.
    """
    from PySide6.QtGui import QKeySequence, QShortcut
    from PySide6.QtWidgets import QAbstractButton

    portable = QKeySequence.SequenceFormat.PortableText
    buttons: dict[str, set[str]] = {}
    for button in widget.findChildren(QAbstractButton):
        label = button.text().replace("&", "")
        key = button.shortcut().toString(portable)
        buttons.setdefault(label, set()).update(
            {key} if key and not key.startswith("Alt+") else set()
        )
    shortcuts = {s.key().toString(portable) for s in widget.findChildren(QShortcut)}
    return buttons, shortcuts


def _press(widget: Any, key: str) -> None:
    """Press ``key`` (``Ctrl+Enter``, ``Esc``, ``Enter``) on ``widget`` with QTest."""
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    names = {"Enter": Qt.Key.Key_Return, "Esc": Qt.Key.Key_Escape}
    *mods, name = key.split("+")
    modifiers = Qt.KeyboardModifier.NoModifier
    for mod in mods:
        modifiers |= {
            "Ctrl": Qt.KeyboardModifier.ControlModifier,
            "Shift": Qt.KeyboardModifier.ShiftModifier,
        }[mod]
    QTest.keyClick(widget, names[name], modifiers)


@pytest.mark.timeout(120)
def test_dialog_keys_are_the_widgets_keys(make_window: Any, run: Any, demo_home: Path) -> None:  # noqa: F811
    """Each row of the dialog-keys table names a key its widget really has.

    A row whose effect is a **Button** needs that button, reached by that key (its shortcut, or a
    shortcut of the dialog); any other row needs a shortcut of the widget or one of the key
    handlers pressed below.
    """
    import asyncio

    from PySide6.QtGui import QColor, QImage

    from rho_desk.qt.conversation.message_detail import ImageViewer

    path = next((demo_home / "sessions").rglob("*_5f0c2a9e-*/session.jsonl"))
    context = make_window(home=demo_home, open_file=path)
    host = context.session_commands
    context.continue_dock.show_continue()
    window = context.window
    window.conversation.open_find()
    image = QImage(8, 8, QImage.Format.Format_RGB32)
    image.fill(QColor("white"))
    viewer = ImageViewer(image, "image")
    widgets: dict[str, Any] = {
        "Compaction dialog": host.show_dialog("compact"),
        "Export dialog": host.show_dialog("export"),
        "Edit Messages dialog": host.show_dialog("edit"),
        "Title and Metadata dialog": host.show_dialog("metadata"),
        "Strip Provider Blocks dialog": host.show_dialog("strip"),
        "Settings dialog": host.show_dialog("settings"),
        "Continue panel": context.continue_dock.panel,
        "Find bar": window.conversation.find_bar,
        "Image viewer": viewer,
    }
    run(
        idle(context.bridge)
    )  # the dialogs' opening work (what is checked: the keys the guide names)

    # The key handlers (keyPressEvent), pressed for real.
    panel, bar, compaction = (
        context.continue_dock.panel,
        window.conversation.find_bar,
        widgets["Compaction dialog"],
    )
    seen: list[str] = []
    panel.composer.sig_send_requested.connect(lambda: seen.append("send"))
    panel.composer.sig_cancel_requested.connect(lambda: seen.append("cancel"))
    bar.sig_next.connect(lambda: seen.append("next"))

    def composer_sends() -> bool:
        _press(panel.composer, "Ctrl+Enter")
        return seen[-1:] == ["send"]

    def composer_cancels() -> bool:
        _press(panel.composer, "Esc")
        return seen[-1:] == ["cancel"]

    def find_next() -> bool:
        _press(bar.field, "Enter")
        return seen[-1:] == ["next"]

    def find_closes() -> bool:
        bar.open_bar()
        _press(bar.field, "Esc")
        return not bar.isVisible()

    def compaction_cancels_then_closes() -> bool:
        compaction._task = asyncio.get_event_loop().create_future()  # a compaction "running"
        _press(compaction, "Esc")
        cancelled = compaction._task.cancelled() and compaction.isVisible()
        compaction._task = None
        _press(compaction, "Esc")  # nothing runs: Esc closes the dialog
        return cancelled and not compaction.isVisible()

    handlers: dict[tuple[str, str], Callable[[], bool]] = {
        ("Continue panel", "Ctrl+Enter"): composer_sends,
        ("Continue panel", "Esc"): composer_cancels,
        ("Find bar", "Enter"): find_next,
        ("Find bar", "Esc"): find_closes,
        ("Compaction dialog", "Esc"): compaction_cancels_then_closes,
    }
    try:
        _check_dialog_keys(widgets, handlers)
    finally:
        viewer.close()
        for dialog in list(host.dialogs.values()):
            dialog.close()
        run(idle(context.bridge))


def _check_dialog_keys(
    widgets: dict[str, Any], handlers: dict[tuple[str, str], Callable[[], bool]]
) -> None:
    collected = {where: _widget_keys(widget) for where, widget in widgets.items()}
    rows = table_rows(_block("dialog-keys", _guide(), kind="checked"))
    assert rows
    checked: set[tuple[str, str]] = set()
    for where, keys_cell, effect in rows:
        assert where in widgets, f"the guide's dialog-keys table names an unknown place: {where}"
        buttons, shortcuts = collected[where]
        keys = re.findall(r"`([^`]+)`", keys_cell)
        assert keys, f"{where}: no key in {keys_cell!r}"
        button = re.fullmatch(r"\*\*(.+?)\*\*.*", effect)
        for key in keys:
            if button is not None:
                label = button.group(1)
                assert label in buttons, (
                    f"{where}: no button {label!r} (buttons: {sorted(buttons)})"
                )
                assert key in buttons[label] | shortcuts, f"{where}: {key} does not press {label!r}"
            elif (where, key) in handlers:
                assert handlers[(where, key)](), (
                    f"{where}: pressing {key} does not do what the guide says"
                )
            else:
                assert key in shortcuts, (
                    f"{where}: {key} is not one of its keys ({sorted(shortcuts)})"
                )
            checked.add((where, key))
    # every button shortcut of these widgets is in the table
    missing = {
        (where, key)
        for where, (buttons, _s) in collected.items()
        for keys in buttons.values()
        for key in keys
    } - checked
    assert not missing, f"keys the guide's dialog-keys table leaves out: {sorted(missing)}"


if __name__ == "__main__":
    if "--write" in sys.argv[1:]:
        write_guide()
        print(f"updated {GUIDE.relative_to(ROOT)}")
    else:
        for name, render in RENDERERS.items():
            print(f"<!-- generated:{name} -->\n\n{render()}\n\n<!-- /generated:{name} -->\n")
