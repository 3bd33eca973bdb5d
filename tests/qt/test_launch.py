"""``rho-desk open FILE`` as a real process: the conversation is painted before anything loads the
provider stack or the team library's (httpx, keyring, pydantic, psycopg: more than a third of the
start-up), or the session engine, the tools and the checkpoint journal, which wait until they are
used."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from .helpers import v3_session

# Runs ``rho-desk open PATH`` (the CLI entry point) and reports, through public signals only, what
# was imported when the rows were first painted, and once the app is idle.
_WATCH = r"""
import asyncio, gc, json, os, sys
from rho_desk.qt import app as qt_app

build = qt_app.build_context
seen = {}
HEAVY = ("httpx", "keyring", "psycopg", "pydantic", "rho_desk.providers", "rho_desk.core.session.run",
         "rho_desk.core.tools.setup", "rho_desk.core.changes.journal")
HIDDEN_TABS = ("rho_desk.qt.revisions.timeline", "rho_desk.qt.usage.statistics", "rho_desk.qt.changes.view",
               "rho_desk.core.changes.build")
AFTER_PAINT = ("rho_desk.qt.continue_.composer", "rho_desk.qt.continue_.approval", "rho_desk.core.stores.library",
               "rho_desk.core.agents.library")

def report(context):
    seen["heavy_when_idle"] = sorted(m for m in HEAVY if m in sys.modules)
    seen["gc_when_idle"] = gc.isenabled()
    print(json.dumps(seen), flush=True)
    os._exit(0)

def watched(plan, **kwargs):
    context = build(plan, **kwargs)

    def shown(rows):
        if "rows" not in seen:
            seen["rows"] = rows
            seen["heavy_at_paint"] = sorted(m for m in HEAVY if m in sys.modules)
            seen["hidden_tabs_at_paint"] = sorted(m for m in HIDDEN_TABS if m in sys.modules)
            seen["after_paint_at_paint"] = sorted(m for m in AFTER_PAINT if m in sys.modules)
            seen["gc_at_paint"] = gc.isenabled()

    context.window.conversation.sig_rows_shown.connect(shown)

    async def later():
        for _ in range(3):
            await asyncio.sleep(0.3)
            await context.bridge.wait_idle()
        report(context)

    context.watch_task = asyncio.ensure_future(later())
    return context

qt_app.build_context = watched
from rho_desk.cli import main
sys.exit(main(["open", sys.argv[1]]))
"""


def _launch(path: Path, tmp_path: Path) -> dict[str, object]:
    env = {
        **os.environ,
        "QT_QPA_PLATFORM": "offscreen",
        "RHO_HOME": str(tmp_path / "empty-home"),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "RHO_DESK_CACHE_DIR": str(tmp_path / "cache"),
        "RHO_DESK_CONFIG_DIR": str(tmp_path / "rho-config"),
    }
    done = subprocess.run(
        [sys.executable, "-c", _WATCH, str(path)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    lines = [ln for ln in done.stdout.splitlines() if ln.startswith("{")]
    assert lines, done.stderr[-3000:]
    return json.loads(lines[-1])  # type: ignore[no-any-return]


def test_the_conversation_is_painted_without_the_provider_stack(tmp_path: Path) -> None:
    seen = _launch(v3_session(tmp_path / "home"), tmp_path)
    assert isinstance(seen["rows"], int) and seen["rows"] > 0
    # nothing at start-up needs the providers, the team database or the engine: they load when a
    # conversation is continued, the continue panel or the settings dialog opens, or the team
    # library is used
    assert seen["heavy_at_paint"] == [] and seen["heavy_when_idle"] == []


def test_the_hidden_tabs_are_made_when_first_shown_not_before_the_first_paint(
    tmp_path: Path,
) -> None:
    # Revisions, Statistics and Changes are not on screen at start-up: their views (and modules)
    # are made when their tab is first shown
    seen = _launch(v3_session(tmp_path / "home"), tmp_path)
    assert isinstance(seen["rows"], int) and seen["rows"] > 0
    assert seen["hidden_tabs_at_paint"] == []


def test_the_continue_panel_and_the_library_load_after_the_first_paint(tmp_path: Path) -> None:
    # The continue panel (composer, approval cards) is built when the dock is first shown, and the
    # session library's modules load when the library opens, which waits for the first paint
    seen = _launch(v3_session(tmp_path / "home"), tmp_path)
    assert isinstance(seen["rows"], int) and seen["rows"] > 0
    assert seen["after_paint_at_paint"] == []


def test_the_cyclic_gc_rests_until_the_first_paint_and_is_back_after(tmp_path: Path) -> None:
    # start-up's ~100 collections found almost nothing; paused until the rows are painted, then on
    seen = _launch(v3_session(tmp_path / "home"), tmp_path)
    assert isinstance(seen["rows"], int) and seen["rows"] > 0
    assert seen["gc_at_paint"] is False
    assert seen["gc_when_idle"] is True
