"""The child process of ``gui.launch_to_scroll_100k`` and ``gui.rss_*``: the real ``rho-desk open``.

``python _launch_probe.py MODE [PATH]`` runs ``rho_desk.cli.main(["open", PATH])`` (the same code
path as the ``rho-desk`` command: argument parsing, the import of the app, the ``QApplication``, the
window, the library, the document; the app's module is watched as the command line imports it)
and watches it from the outside, through public signals only:

* ``scroll``: as soon as the conversation list has painted the opened session's rows *and* its
  scroll bar has a range (the conversation can scroll), print ``{"shown": <time.time()>,
  "cpu": <process CPU seconds>}``. The parent measures from just before it started the process.
  Those rows may be a preview (``ConversationView.sig_preview_shown``: every row's place from
  the row cache, the first screen's messages, while the file is still read); then, once the
  whole history is painted, print ``{"full": <time.time()>, "full_cpu": <process CPU
  seconds>}``. Then exit at once (the library is opened only after the first paint of the whole
  history: it is never indexed here).
* ``rss``: once the session is shown and the app is idle (no task running, a full GC done), print
  ``{"rss": <VmRSS bytes>}``. Without ``PATH`` the app starts on an empty Rho home and the figure
  is the app with nothing open (the baseline).
* ``rss-edit``: as ``rss``, then a compaction through the Compact dialog (local digest) and an
  Undo (Ctrl+Z's action), then the figure again: ``{"rss": ..., "rss_after": ...}``.

The parent sets the screen (an Xvfb display, else ``QT_QPA_PLATFORM=offscreen``: ``benchkit.gui_environment``)
and private settings, cache and config folders.
"""

from __future__ import annotations

import asyncio
import gc
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any


def _rss() -> int:
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def _emit(**values: Any) -> None:
    sys.stdout.write(json.dumps(values) + "\n")
    sys.stdout.flush()


async def _settle(context: Any) -> None:
    for _ in range(3):
        await context.bridge.wait_idle()
        await asyncio.sleep(0.2)
    gc.collect()


_tasks: list[asyncio.Future[None]] = []  # keeps the measuring task alive


def main() -> None:
    mode = sys.argv[1]
    path = Path(sys.argv[2]) if len(sys.argv) > 2 else None

    def watched_build_context(plan: Any, **kwargs: Any) -> Any:
        context = build(plan, **kwargs)
        view = context.window.conversation
        bar = view.list.verticalScrollBar()

        painted = False

        def shown(rows: int, preview: bool = False) -> None:
            nonlocal painted
            if rows < 2 or bar.maximum() <= 0:
                return  # not the big session yet, or not scrollable yet
            if mode == "scroll":
                if not painted:
                    painted = True
                    _emit(shown=time.time(), cpu=time.process_time())
                if preview:
                    return  # and wait for the whole history
                _emit(full=time.time(), full_cpu=time.process_time())
                os._exit(0)
            if not preview:
                _tasks.append(asyncio.ensure_future(measure(context)))

        view.sig_rows_shown.connect(shown)
        view.sig_preview_shown.connect(lambda rows: shown(rows, preview=True))
        if path is None:
            started = context.astart

            async def astart(**options: Any) -> None:
                await started(**options)
                _tasks.append(asyncio.ensure_future(measure(context)))

            context.astart = astart
        return context

    async def measure(context: Any) -> None:
        await _settle(context)
        values = {"rss": _rss()}
        if mode == "rss-edit":
            await _compact_and_undo(context)
            await _settle(context)
            values["rss_after"] = _rss()
        _emit(**values)
        os._exit(0)

    def watch(qt_app: Any) -> None:
        nonlocal build
        build = qt_app.build_context
        qt_app.build_context = watched_build_context

    build: Any = None
    _when_imported("rho_desk.qt.app", watch)  # by the command line, as rho-desk imports it
    from rho_desk.cli import main as cli_main

    sys.exit(cli_main(["open", str(path if path is not None else os.environ["RHO_HOME"])]))


def _when_imported(name: str, then: Callable[[ModuleType], None]) -> None:
    """Call ``then(module)`` once module ``name`` has been imported (by whoever imports it first;
    at once if it already is)."""
    if name in sys.modules:
        then(sys.modules[name])
        return

    class Finder(importlib.abc.MetaPathFinder):
        def find_spec(
            self, fullname: str, path: Any, target: Any = None
        ) -> importlib.machinery.ModuleSpec | None:
            if fullname != name:
                return None
            sys.meta_path.remove(self)
            spec = importlib.util.find_spec(fullname)
            assert spec is not None and spec.loader is not None
            loader = spec.loader

            class Loader(importlib.abc.Loader):
                def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
                    return loader.create_module(spec)

                def exec_module(self, module: ModuleType) -> None:
                    loader.exec_module(module)
                    then(module)

            spec.loader = Loader()
            return spec

    sys.meta_path.insert(0, Finder())


async def _compact_and_undo(context: Any) -> None:
    """Compact the open session with the local digest (keep 40 messages), then undo it."""
    actions = context.actions
    actions["session.compact"].trigger()
    dialog = context.session_commands.dialogs["compact"]
    dialog.keep_tokens.setValue(0)
    dialog.keep_messages.setValue(40)
    await _settle(context)
    dialog.compactor.setCurrentIndex(0)
    dialog.compact_button.click()
    await _settle(context)
    dialog.close()
    actions["edit.undo"].trigger()
    await _settle(context)


if __name__ == "__main__":
    main()
