"""What a screen reader gets: the app's AT-SPI tree, read over D-Bus from another process.

The real app runs on Xvfb (``QT_QPA_PLATFORM=xcb``) with ``QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1``
inside ``dbus-run-session``; the session bus starts the AT-SPI bus and registry on demand, as on
a desktop. ``atspi_driver.py`` walks the app through the main window's tabs and every dialog;
``atspi_dump.py`` (Debian's Python with PyGObject and the Atspi typelib, what Orca itself uses)
reads the tree at each step. Every control on screen must have a name, and the conversation's
message list must say which message is current.

The tools come from ``scripts/bootstrap.sh`` (the test profile installs ``xvfb``,
``at-spi2-core``, ``gir1.2-atspi-2.0`` and ``python3-gi``). Missing tools fail the test with
what to install: a skipped check would let the tree rot unseen.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from .helpers import v4_session

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
SYSTEM_PYTHON = "/usr/bin/python3"
NAMED_ROLES = {
    "push button",
    "toggle button",
    "check box",
    "radio button",
    "combo box",
    "text",
    "password text",
    "entry",
    "spin button",
    "slider",
    "list",
    "list box",
    "table",
    "tree",
    "tree table",
    "page tab",
}
"""Roles of the controls a person operates: each needs a name."""
INSTALL = "apt-get install -y --no-install-recommends xvfb at-spi2-core gir1.2-atspi-2.0 python3-gi dbus-daemon"


def _missing_tools() -> list[str]:
    missing = [tool for tool in ("Xvfb", "dbus-run-session") if shutil.which(tool) is None]
    if not Path("/usr/share/dbus-1/services/org.a11y.Bus.service").exists():
        missing.append("at-spi2-core")
    probe = subprocess.run(
        [
            SYSTEM_PYTHON,
            "-c",
            "import gi; gi.require_version('Atspi', '2.0'); from gi.repository import Atspi",
        ],
        capture_output=True,
        check=False,
    )
    if probe.returncode != 0:
        missing.append(f"{SYSTEM_PYTHON} with gi and Atspi 2.0")
    return missing


def _walk(
    node: dict[str, Any], path: tuple[str, ...] = ()
) -> list[tuple[tuple[str, ...], dict[str, Any]]]:
    here = (*path, f"{node['role']}:{node['name']}")
    out = [(here, node)]
    for child in node["children"]:
        out += _walk(child, here)
    return out


def _unnamed(tree: dict[str, Any]) -> list[str]:
    found = []
    for path, node in _walk(tree):
        showing = node["role"] in NAMED_ROLES and "showing" in node["states"]
        if showing and not any(c.isalnum() for c in node["name"]):
            found.append(" > ".join(path[-4:]))
    return found


def _outline(tree: dict[str, Any]) -> str:
    """The tree as a screen reader would list it: role, name, description (showing nodes)."""
    lines = []

    def visit(node: dict[str, Any], depth: int) -> None:
        if depth and "showing" not in node["states"]:
            return
        text = f"{'  ' * depth}{node['role']}: {node['name']}"
        if node["description"]:
            text += f" — {node['description']}"
        if node["child_count"] > len(node["children"]):
            text += f" ({node['child_count']} children)"
        lines.append(text)
        for child in node["children"]:
            if node["role"] not in ("table cell", "list item", "menu item", "menu"):
                visit(child, depth + 1)

    visit(tree, 0)
    return "\n".join(lines)


@pytest.mark.slow
def test_every_view_and_dialog_over_atspi(tmp_path: Path) -> None:
    missing = _missing_tools()
    assert not missing, (
        f"the AT-SPI test needs {', '.join(missing)} ({INSTALL}; ./run-tests does it as root)"
    )
    work = tmp_path / "work"
    for name in ("settings", "cache", "trash", "config", "home", "run"):
        (work / name).mkdir(parents=True)
    os.chmod(work / "run", 0o700)
    home = tmp_path / "rho"
    session = v4_session(home)
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(work / "home"),
        "XDG_RUNTIME_DIR": str(work / "run"),
        "XDG_CACHE_HOME": str(work / "cache"),
        "XDG_CONFIG_HOME": str(work / "config"),
        "XDG_DATA_HOME": str(work / "data"),
        "RHO_DESK_CACHE_DIR": str(work / "cache"),
        "RHO_DESK_TRASH_DIR": str(work / "trash"),
        "RHO_DESK_CONFIG_DIR": str(work / "config"),
        "PYTHONPATH": str(ROOT),
        "QT_QPA_PLATFORM": "xcb",
        "QT_API": "pyside6",
        "QT_LINUX_ACCESSIBILITY_ALWAYS_ON": "1",
        "W": str(work),
    }
    script = f"""
        Xvfb -displayfd 3 -screen 0 1280x900x24 -nolisten tcp 3>"$W/display" 2>"$W/xvfb.log" &
        xvfb=$!
        for _ in $(seq 200); do [ -s "$W/display" ] && break; sleep 0.05; done
        export DISPLAY=":$(cat "$W/display")"
        {SYSTEM_PYTHON} {HERE / "atspi_dump.py"} "$W" rho-desk >"$W/dump.log" 2>&1 &
        reader=$!
        {sys.executable} {HERE / "atspi_driver.py"} "$W" {home} {session} >"$W/app.log" 2>&1
        app=$?
        wait $reader
        read=$?
        kill $xvfb
        echo "app=$app reader=$read"
        [ $app -eq 0 ] && [ $read -eq 0 ]
    """
    result = subprocess.run(
        ["dbus-run-session", "--", "bash", "-c", script],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    logs = "\n".join(f"--- {p.name}\n{p.read_text()[-3000:]}" for p in sorted(work.glob("*.log")))
    assert result.returncode == 0, f"{result.stdout}\n{result.stderr[-2000:]}\n{logs}"

    dumps = [
        json.loads(p.read_text())
        for p in sorted(work.glob("tree-*.json"), key=lambda p: int(p.stem[5:]))
    ]
    states = [d["state"] for d in dumps]
    assert states[:4] == [
        "main: Conversation",
        "main: Revisions",
        "main: Statistics",
        "main: Changes",
    ]
    dumps = [d for d in dumps if not d["state"].startswith("browser: ")] + [
        d for d in dumps if d["state"].startswith("browser: ")
    ]  # the other library scopes (Team) are checked for names like the rest, after these
    assert dumps[4]["state"] == "main: Conversation, next message"
    kinds = {s.split(":")[0] for s in states}
    assert {
        "settings",
        "compact",
        "export",
        "edit",
        "metadata",
        "strip",
        "help.shortcuts",
        "help.about",
    } <= kinds
    assert (
        sum(s.startswith("settings: ") for s in states) == 5
    )  # Providers, Compaction, General, Folders, Other Agents
    report = "\n\n".join(f"=== {d['state']}\n{_outline(d['tree'])}" for d in dumps)
    (tmp_path / "atspi-tree.txt").write_text(report)
    if out := os.environ.get("RHO_DESK_ATSPI_REPORT"):
        Path(out).write_text(report)

    found = {d["state"]: missing for d in dumps if (missing := _unnamed(d["tree"]))}
    assert not found, "controls a screen reader cannot name:\n" + "\n".join(
        f"  {state}: {where}" for state, wheres in found.items() for where in wheres
    )
    shown = [node for _path, node in _walk(dumps[0]["tree"]) if "showing" in node["states"]]
    # the message list (a custom view) is a list of its messages, and says which one is current
    messages = [n for n in shown if n["name"] == "Messages" and n["description"]]
    assert [(n["role"], n["description"][:13]) for n in messages] == [("list", "Message 1 of ")], (
        messages
    )
    items = messages[0]["children"]
    assert len(items) == messages[0]["child_count"] > 2 and {n["role"] for n in items} == {
        "list item"
    }
    assert items[0]["name"].startswith("You, ") and items[0]["name"].endswith(": prompt 0"), items[
        0
    ]
    assert "selected" in items[0]["states"] and "selected" not in items[1]["states"]
    after = [
        n for _path, n in _walk(dumps[4]["tree"]) if n["name"] == "Messages" and n["description"]
    ]
    assert [n["description"][:13] for n in after] == ["Message 2 of "], after
    assert (
        "selected" in after[0]["children"][1]["states"]
    )  # (focus needs an active window: no WM here)
    names = {n["name"] for n in shown}
    assert {"Sessions", "Search all sessions", "Find in this conversation", "Next prompt"} <= names
    statistics = [
        node["name"] for _path, node in _walk(dumps[2]["tree"]) if "showing" in node["states"]
    ]
    assert any(name.startswith("Context of this revision: ") for name in statistics), statistics
    assert any(name.startswith("compactions: ") for name in statistics), statistics
