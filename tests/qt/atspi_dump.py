"""Reads the app's accessibility tree over AT-SPI, as a screen reader does (run with a Python that has
PyGObject and the Atspi typelib: Debian's ``/usr/bin/python3`` with ``python3-gi`` and
``gir1.2-atspi-2.0``).

    atspi_dump.py WORKDIR APP_NAME

Waits for the app driver (``atspi_driver.py``) to announce a state in ``WORKDIR/state.json``,
writes the tree of the application named APP_NAME to ``WORKDIR/tree-N.json`` (role, name,
description, states, children) and answers with ``WORKDIR/dumped-N``; stops at the state named
``done``.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

import gi

gi.require_version("Atspi", "2.0")
from gi.repository import Atspi  # noqa: E402

MAX_DEPTH = 40
MAX_CHILDREN = 80
"""Children read per node: enough for every control; a long list's rows past this are skipped."""
STATES = ("focusable", "editable", "showing", "checked", "selected", "focused")


def node(accessible: Any, depth: int = 0) -> dict[str, Any]:
    state_set = accessible.get_state_set()
    entry: dict[str, Any] = {
        "role": accessible.get_role_name(),
        "name": accessible.get_name() or "",
        "description": accessible.get_description() or "",
        "states": [s for s in STATES if state_set.contains(getattr(Atspi.StateType, s.upper()))],
        "child_count": accessible.get_child_count(),
        "children": [],
    }
    if depth < MAX_DEPTH:
        for index in range(min(entry["child_count"], MAX_CHILDREN)):
            child = accessible.get_child_at_index(index)
            if child is not None:
                entry["children"].append(node(child, depth + 1))
    return entry


def find_app(name: str, timeout: float = 60.0) -> Any:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        desktop = Atspi.get_desktop(0)
        for index in range(desktop.get_child_count()):
            app = desktop.get_child_at_index(index)
            if app is not None and app.get_name() == name:
                return app
        time.sleep(0.2)
    raise SystemExit(f"no application named {name!r} on the AT-SPI bus")


def main() -> int:
    work, name = Path(sys.argv[1]), sys.argv[2]
    state_file = work / "state.json"
    app = None
    seen = -1
    while True:
        if not state_file.exists():
            time.sleep(0.05)
            continue
        state = json.loads(state_file.read_text())
        if state["n"] == seen:
            time.sleep(0.05)
            continue
        seen = state["n"]
        if state["name"] == "done":
            return 0
        app = app or find_app(name)
        tree = node(app)
        (work / f"tree-{seen}.json").write_text(json.dumps({"state": state["name"], "tree": tree}))
        (work / f"dumped-{seen}").touch()


if __name__ == "__main__":
    sys.exit(main())
