"""Regenerate the screenshots in ``docs/screenshots/``: the real app, offscreen, on the demo library.

    QT_QPA_PLATFORM=offscreen .venv/bin/python scripts/screenshots.py [--out DIR] [--only NAME...]

Settings, caches and the demo copy live in a temporary folder; nothing of the user's is read or
written. Each shot drives the app the way a user would (open a session, select a message, switch
tabs, search, find) through the same objects the menus use, waits until the app is idle, then
grabs the window at 1280 x 800.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("QT_API", "pyside6")

WEBHOOK = "5f0c2a9e-8d1b-4c47-9a6e-2b7d3f1e0a11"
IDEMPOTENCY = "b2e47d10-3c6a-4f2e-8d95-7a1c0e4b9f22"
RUST = "c81f3e02-7a44-4d19-b6e0-5e2f9a8c1d44"
NOTEBOOK = "4a7e2c19-d05b-4f63-9e8a-1b3c5d7f9a66"


def session_path(home: Path, session_id: str) -> Path:
    for path in (home / "sessions").rglob("*.jsonl"):
        if session_id in str(path):
            return path
    raise SystemExit(f"demo session {session_id} not found")


async def idle(context: object, pause: float = 0.15) -> None:
    bridge = context.bridge  # type: ignore[attr-defined]
    for _ in range(4):
        await bridge.wait_idle()
        await asyncio.sleep(0.03)
    await asyncio.sleep(pause)


def row_where(view: object, predicate: Callable[[object], bool]) -> int:
    model = view.model  # type: ignore[attr-defined]
    for row in range(model.rowCount()):
        if predicate(model.message(row)):
            return row
    raise SystemExit("no matching message in the demo session")


async def main(out: Path, only: set[str]) -> int:
    from rho_desk.qt.app import StartPlan, build_context, create_application
    from rho_desk.qt.document import HistoryMode
    from rho_desk.qt.main_window import TAB_CONVERSATION, TAB_REVISIONS, TAB_STATISTICS
    from rho_desk.qt.settings import use_settings_dir

    scratch = Path(tempfile.mkdtemp(prefix="rho-shots-"))
    use_settings_dir(scratch / "settings")
    os.environ["RHO_DESK_CACHE_DIR"] = str(scratch / "cache")
    os.environ["RHO_DESK_TRASH_DIR"] = str(scratch / "trash")
    os.environ["RHO_DESK_CONFIG_DIR"] = str(scratch / "config")
    create_application()
    context = build_context(StartPlan(None, None, True), install_hooks=False)
    window = context.window
    window.resize(1280, 800)
    await context.astart()  # makes the private demo copy under the scratch cache folder
    await idle(context)
    home = context.library.home
    document, conversation = context.document, window.conversation
    out.mkdir(parents=True, exist_ok=True)
    shots: list[str] = []

    async def shot(name: str) -> None:
        await idle(context)
        window.grab().save(str(out / f"{name}.png"))
        shots.append(name)

    async def open_session(session_id: str) -> None:
        await document.aopen(session_path(home, session_id))
        await idle(context)

    steps: dict[str, Callable[[], Awaitable[None]]] = {}

    async def browser() -> None:
        window.show_tab(TAB_CONVERSATION)
        await open_session(WEBHOOK)
        window.browser.search.setText("tolerance")
        window.browser.reload_listing()
        await shot("browser-search")
        window.browser.search.setText("")
        window.browser.reload_listing()

    async def tool_calls() -> None:
        await open_session(WEBHOOK)
        window.show_tab(TAB_CONVERSATION)
        conversation.select_row(row_where(conversation, lambda m: len(list(m.tool_calls())) == 2))
        await shot("conversation-tool-calls")

    async def image() -> None:
        await open_session(NOTEBOOK)
        document.select(document.tree.path()[0])
        await idle(context)
        conversation.select_row(0)
        await shot("conversation-image")

    async def aborted() -> None:
        await open_session(IDEMPOTENCY)
        conversation.select_row(row_where(conversation, lambda m: m.aborted_assistant is not None))
        await shot("conversation-aborted-turn")

    async def provider() -> None:
        await open_session(RUST)
        conversation.select_row(row_where(conversation, lambda m: bool(m.provider_context()) and bool(m.text())))
        conversation.detail._collapsed = {"call0": True, "result0": True, "call1": True, "result1": True}
        conversation.detail.refresh()
        await shot("conversation-provider-blocks")

    async def model_history() -> None:
        await open_session(NOTEBOOK)
        document.set_mode(HistoryMode.MODEL)
        await idle(context)
        conversation.select_row(1)
        await shot("conversation-model-history")
        document.set_mode(HistoryMode.DISPLAY)

    async def find() -> None:
        await open_session(WEBHOOK)
        window.show_tab(TAB_CONVERSATION)
        conversation.open_find()
        conversation.find_bar.field.setText("tolerance")
        conversation.find_bar.search_now()
        await idle(context)
        conversation.find_next()
        await shot("find-in-session")
        conversation.find_bar.close_bar()

    async def timeline() -> None:
        await open_session(WEBHOOK)
        window.show_tab(TAB_REVISIONS)
        tree = document.tree
        first_branch = tree.path()[0].children[0]
        document.select(first_branch)  # the abandoned branch
        await idle(context)
        await shot("revisions-branch")

    async def diff() -> None:
        await open_session(WEBHOOK)
        window.show_tab(TAB_REVISIONS)
        tree = document.tree
        root = tree.path()[0]
        document.select(root.children[0])
        await idle(context)
        window.revisions.mark_diff_base()
        document.select(root.children[-1])
        await idle(context)
        window.revisions.diff_table.selectRow(2)
        await shot("revisions-diff")
        window.revisions.model.set_diff_base(None)

    async def statistics() -> None:
        await open_session(NOTEBOOK)
        window.show_tab(TAB_STATISTICS)
        await shot("statistics")

    async def dark() -> None:
        context.theme.set_preference("dark")
        await open_session(WEBHOOK)
        window.show_tab(TAB_CONVERSATION)
        conversation.select_row(row_where(conversation, lambda m: "Found it" in m.text()))
        await shot("dark-conversation")
        window.show_tab(TAB_STATISTICS)
        await shot("dark-statistics")
        context.theme.set_preference("light")
        window.show_tab(TAB_CONVERSATION)

    steps.update(browser=browser, tool_calls=tool_calls, image=image, aborted=aborted, provider=provider,
                 model_history=model_history, find=find, timeline=timeline, diff=diff, statistics=statistics,
                 dark=dark)  # fmt: skip
    for name, step in steps.items():
        if not only or name in only:
            await step()
    await context.ashutdown()
    window.finish_close()
    import shutil

    shutil.rmtree(scratch, ignore_errors=True)
    for name in shots:
        print(out / f"{name}.png")
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots")
    parser.add_argument("--only", nargs="*", default=[])
    args = parser.parse_args()
    import qasync

    from rho_desk.qt.app import create_application

    app = create_application()
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    try:
        status = loop.run_until_complete(main(args.out, set(args.only)))
    finally:
        loop.close()
    sys.exit(status)
