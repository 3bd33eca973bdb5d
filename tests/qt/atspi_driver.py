"""Drives the real app through every view and dialog for the AT-SPI tree test (on Xvfb).

    atspi_driver.py WORKDIR HOME SESSION_FILE

Builds the app the way ``rho-desk`` does (settings, cache and trash under WORKDIR), opens
SESSION_FILE, then for each state (the main window on each tab, each dialog, each settings page)
waits until the app is idle, announces the state in ``WORKDIR/state.json`` and waits for the
reader (``atspi_dump.py``) to answer with ``WORKDIR/dumped-N``.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path

import qasync
from PySide6.QtWidgets import QDialog, QTabWidget, QWidget

from rho_desk.qt.app import (
    AppContext,
    StartPlan,
    build_context,
    create_application,
    install_asyncgen_hooks,
)
from rho_desk.qt.services.settings import use_settings_dir

DIALOGS = ["settings", "compact", "export", "edit", "metadata", "strip"]
HANDSHAKE_S = 120.0


class Driver:
    def __init__(self, work: Path) -> None:
        self.work = work
        self.n = 0

    async def announce(self, context: AppContext, name: str) -> None:
        for _ in range(4):
            await context.bridge.wait_idle()
            await asyncio.sleep(0.05)
        await asyncio.sleep(0.3)  # let Qt send its accessibility updates
        self.n += 1
        tmp = self.work / "state.json.tmp"
        tmp.write_text(json.dumps({"n": self.n, "name": name}))
        os.replace(tmp, self.work / "state.json")
        if name == "done":
            return
        loop = asyncio.get_running_loop()
        end = loop.time() + HANDSHAKE_S
        while not (self.work / f"dumped-{self.n}").exists():
            if loop.time() > end:
                raise SystemExit(f"the AT-SPI reader did not answer state {name!r}")
            await asyncio.sleep(0.05)


async def drive(work: Path, home: Path, session: Path) -> int:
    driver = Driver(work)
    context = build_context(StartPlan(home, session, False), install_hooks=False)
    window = context.window
    window.resize(1280, 860)
    await context.astart()
    context.continue_dock.show_continue()
    window.conversation.open_find()
    for index in range(window.tabs.count()):
        window.tabs.setCurrentIndex(index)
        await driver.announce(context, f"main: {window.tabs.tabText(index)}")
    window.tabs.setCurrentIndex(0)
    scopes = window.findChild(QTabWidget, "BrowserScopes")
    for index in range(1, scopes.count() if scopes is not None else 0):
        scopes.setCurrentIndex(index)
        await driver.announce(context, f"browser: {scopes.tabText(index)}")
    if scopes is not None:
        scopes.setCurrentIndex(0)
    window.conversation.list.setFocus()
    window.conversation.next_message()  # J
    await driver.announce(context, "main: Conversation, next message")
    for kind in DIALOGS:
        dialog = context.session_commands.show_dialog(kind)
        tabs = dialog.findChildren(QTabWidget)
        if tabs:
            for index in range(tabs[0].count()):
                tabs[0].setCurrentIndex(index)
                await driver.announce(context, f"{kind}: {tabs[0].tabText(index).replace('&', '')}")
        else:
            await driver.announce(context, kind)
        dialog.close()
    for action in ("help.shortcuts", "help.about"):
        before = set(map(id, window.findChildren(QDialog)))
        context.actions.trigger(action)
        await driver.announce(context, action)
        opened: list[Callable[[], object]] = [
            w.close
            for w in window.findChildren(QWidget)
            if isinstance(w, QDialog) and id(w) not in before
        ]
        for close in opened:
            close()
    await driver.announce(context, "done")
    await context.ashutdown()
    window.finish_close()
    return 0


def main() -> int:
    work, home, session = (Path(a) for a in sys.argv[1:4])
    use_settings_dir(work / "settings")
    app = create_application()
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    restore = install_asyncgen_hooks(loop)
    try:
        return int(loop.run_until_complete(drive(work, home, session)))
    finally:
        loop.close()
        restore()


if __name__ == "__main__":
    sys.exit(main())
