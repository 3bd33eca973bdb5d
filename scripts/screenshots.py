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
BIG = "9d3b6f20-1e5a-4c8b-a7d2-3f6e0b9c4a55"  # a big session made for the preview shot


def session_path(home: Path, session_id: str) -> Path:
    for path in (home / "sessions").rglob("*.jsonl"):
        if session_id in str(path) and "workspace-checkpoints" not in path.parts:
            return path
    raise SystemExit(f"demo session {session_id} not found")


async def idle(context: object, pause: float = 0.15) -> None:
    bridge = context.bridge  # type: ignore[attr-defined]
    for _ in range(4):
        await bridge.wait_idle()
        await asyncio.sleep(0.03)
    await asyncio.sleep(pause)


async def until(predicate: Callable[[], bool], timeout: float = 10.0) -> None:
    """Wait until ``predicate`` holds (at most ``timeout`` s), then let the window paint."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate() and loop.time() < deadline:
        await asyncio.sleep(0.02)
    await asyncio.sleep(0.2)


def row_where(view: object, predicate: Callable[[object], bool]) -> int:
    model = view.model  # type: ignore[attr-defined]
    for row in range(model.rowCount()):
        if predicate(model.message(row)):
            return row
    raise SystemExit("no matching message in the demo session")


async def main(out: Path, only: set[str]) -> int:
    from rho_desk.qt.app import StartPlan, build_context, create_application
    from rho_desk.qt.services.document import HistoryMode
    from rho_desk.qt.services.settings import use_settings_dir
    from rho_desk.qt.window.main_window import TAB_CONVERSATION, TAB_REVISIONS, TAB_STATISTICS

    scratch = Path(tempfile.mkdtemp(prefix="rho-shots-"))
    use_memory_keyring()  # the export and settings shots must never touch the user's keyring
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
        # a hit opened from the keyboard lands on the message that matched, the term highlighted
        await context.document.aclose()
        await idle(context)
        window.browser.search.setText('"one second"')
        window.browser.reload_listing()
        await idle(context)
        browser_view = window.browser
        browser_view.select_path(session_path(home, WEBHOOK))
        browser_view.open_highlighted()
        await idle(context, 0.4)
        await shot("search-hit-opened")
        conversation.find_bar.close_bar()
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
        conversation.select_row(
            row_where(conversation, lambda m: bool(m.provider_context()) and bool(m.text()))
        )
        conversation.detail._collapsed = {
            "call0": True,
            "result0": True,
            "call1": True,
            "result1": True,
        }
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

    async def changes() -> None:
        from rho_desk.qt.window.main_window import TAB_CHANGES

        await open_session(RUST)
        window.app_actions.trigger("view.changes")
        await idle(context, 0.3)
        view = window.changes
        view.tree.setCurrentIndex(view.model.index_of("Cargo.toml", 2))
        await idle(context, 0.3)
        await shot("changes")
        await open_session(IDEMPOTENCY)
        window.show_tab(TAB_CHANGES)
        await idle(context, 0.3)
        view.tree.setCurrentIndex(view.model.index_of("app/routers/payments.py", 4))
        await idle(context, 0.3)
        await shot("changes-unsaved-turn")
        view.search.setText("payments")
        await idle(context, 0.6)
        await shot("changes-library-search")
        view.search.setText("")
        await idle(context)
        window.show_tab(TAB_CONVERSATION)

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

    async def usage() -> None:
        """The Usage window over the demo ledger; a bar clicked; compaction payback; a session's ledger rows."""
        view = window.show_usage()
        usage_window = window.usage_window
        assert usage_window is not None
        usage_window.resize(1280, 800)
        await idle(context, 0.3)
        usage_window.grab().save(str(out / "usage.png"))
        import datetime as dt

        from rho_desk.core.usage.ledger import UsageLedger

        with UsageLedger(
            home / "usage.sqlite3", cache_dir=False
        ) as ledger:  # the webhook session's day
            first = ledger.session_requests(WEBHOOK, children=False)[0]
        day = dt.datetime.fromtimestamp(first.occurred_at_ms / 1000).date().isoformat()
        view._on_daily_bar_clicked(day, first.model)
        await idle(context, 0.3)
        usage_window.grab().save(str(out / "usage-bar-sessions.png"))
        view.detail_tabs.setCurrentIndex(1)
        await idle(context, 0.3)
        usage_window.grab().save(str(out / "usage-payback.png"))
        shots.extend(["usage", "usage-bar-sessions", "usage-payback"])
        usage_window.close()
        await open_session(WEBHOOK)
        window.show_tab(TAB_STATISTICS)
        await idle(context, 0.2)
        stats = window.statistics
        stats.scroll_area.verticalScrollBar().setValue(
            stats.scroll_area.verticalScrollBar().maximum()
        )
        await shot("statistics-ledger")

    async def preview() -> None:
        """A big session opened with nothing else open: its kept first screen before the file is
        read (the file's read held back, so that the moment can be looked at)."""
        import threading

        from rho_desk.qt.services import document as document_module

        sys.path.insert(0, str(ROOT / "benchmarks"))
        from _sessions import make_session

        big = await asyncio.to_thread(make_session, scratch / "big-home", 6000, sid=BIG)
        window.show_tab(TAB_CONVERSATION)
        await document.aclose()
        await document.aopen(big)  # a normal open keeps the big session's rows in the cache
        cache = scratch / "cache" / "rows"
        await until(lambda: any(cache.glob("*.rows")))
        await document.aclose()
        await idle(context)
        release = threading.Event()
        real_load = document_module.load_path

        def held_load(target: Path) -> object:
            release.wait(60)
            return real_load(target)

        document_module.load_path = held_load  # type: ignore[assignment]
        try:
            previews: list[int] = []
            conversation.sig_preview_shown.connect(previews.append)
            document.open(big)
            await until(lambda: bool(previews), 30)  # the bridge is busy reading: no idle() here
            conversation.select_row(2)
            await until(lambda: False, 0.3)
            window.grab().save(str(out / "conversation-preview.png"))
            bar = conversation.list.verticalScrollBar()
            bar.setValue(bar.maximum() // 2)  # past the kept first screen: rows still loading
            await until(lambda: False, 0.3)
            window.grab().save(str(out / "conversation-preview-loading.png"))
            shots.extend(["conversation-preview", "conversation-preview-loading"])
        finally:
            release.set()
            document_module.load_path = real_load
        await idle(context)
        await document.aclose()
        await idle(context)

    steps.update(
        browser=browser,
        tool_calls=tool_calls,
        image=image,
        aborted=aborted,
        provider=provider,
        model_history=model_history,
        find=find,
        timeline=timeline,
        diff=diff,
        statistics=statistics,
        changes=changes,
        dark=dark,
        usage=usage,
        preview=preview,
    )
    steps.update(action_steps(context, open_session, idle, out, shots))

    async def team() -> None:
        """The Team scope on a throwaway PostgreSQL cluster holding the demo sessions, published."""
        from rho_desk.core.export import ContentClass, Selection, export_keys, read_export_source
        from rho_desk.keys import default_key_source
        from rho_desk.qt.services.settings import PREFS_TEAM_DATABASE
        from rho_desk.team.cluster import ThrowawayCluster
        from rho_desk.team.db import keep_password_in_keyring
        from rho_desk.team.library import TeamLibrary

        cluster = ThrowawayCluster()
        await asyncio.to_thread(cluster.start)
        try:
            await TeamLibrary.init(cluster.dsn)
            selection = Selection.excluding(
                frozenset({ContentClass.PROVIDER_CONTEXT, ContentClass.METADATA})
            )
            keys = await asyncio.to_thread(export_keys, default_key_source())
            async with await TeamLibrary.open(cluster.dsn) as lib:
                await lib.create_team("platform")
                for session_id in (WEBHOOK, IDEMPOTENCY, RUST, NOTEBOOK):
                    path = session_path(home, session_id)
                    source = await asyncio.to_thread(
                        read_export_source, path, None, None
                    )  # as shown
                    await lib.publish("platform", source, selection, keys=keys, known_secrets=[])
            context.settings.set(PREFS_TEAM_DATABASE, keep_password_in_keyring(cluster.dsn))
            view = window.team_browser
            window.scopes.setCurrentWidget(view)
            await idle(context)
            view.search.setText("tolerance")
            view.reload_listing()
            await idle(context)
            view.open_row(0)
            await idle(context, 0.4)
            window.show_tab(TAB_CONVERSATION)
            await shot("team-scope-receipt")
            view.search.setText("")
            view.reload_listing()
            await idle(context)
            await shot("team-scope")
            await asyncio.to_thread(cluster.stop)
            view.reload_listing()
            await idle(context)
            await shot("team-unreachable")
            await context.services.team.aclose()
            window.scopes.setCurrentWidget(window.browser)
        finally:
            await asyncio.to_thread(cluster.destroy)

    steps["team"] = team

    async def agents() -> None:
        """Other agents' sessions (the test fixtures as their homes) listed beside the demo's, one
        opened at a tool call with its result, and the offer to continue it as a Rho session."""
        from PySide6.QtWidgets import QMessageBox

        from rho_desk.qt.services.settings import PREFS_AGENT_HOMES
        from tests.core.agents.conftest import main_sessions, make_homes

        homes = make_homes(scratch / "agents")
        for agent, folder in homes.items():
            context.settings.set(PREFS_AGENT_HOMES[agent], str(folder))
        await context.library.aopen(home)  # listed as a library of one's own, not the demo's
        await idle(context, 0.3)
        window.show_tab(TAB_CONVERSATION)
        claude = main_sessions(homes)["claude-code"]
        await document.aopen(claude)
        await idle(context)
        window.browser.select_path(claude)
        conversation.select_row(row_where(conversation, lambda m: len(list(m.tool_calls())) >= 1))
        await shot("agents-browser")
        window.app_actions.trigger("session.continue")
        await idle(context, 0.3)
        box = context.operations.continue_box
        assert box is not None
        box.grab().save(
            str(out / "agents-continue-as-rho.png")
        )  # a box of its own, over the window
        shots.append("agents-continue-as-rho")
        box.button(QMessageBox.StandardButton.Cancel).click()
        await idle(context)

    async def small() -> None:
        """A 1024 x 700 window: the Changes tab's file names, the Local / Team tabs focused from
        the keyboard, and the Usage window's note on a session it cannot open."""
        from PySide6.QtCore import Qt
        from PySide6.QtTest import QTest

        from rho_desk.qt.window.main_window import TAB_CHANGES

        window.resize(1024, 700)
        await open_session(IDEMPOTENCY)
        window.show_tab(TAB_CHANGES)
        await idle(context, 0.3)
        view = window.changes
        view.tree.setCurrentIndex(view.model.index_of("app/routers/payments.py", 4))
        window.activateWindow()
        window.browser.search.setFocus()
        for _ in range(2):  # Shift+Tab twice: the Local / Team tabs, framed
            QTest.keyClick(window.focusWidget(), Qt.Key.Key_Backtab)
        await shot("changes-1024x700")
        window.show_tab(TAB_CONVERSATION)
        window.browser.list.setFocus()
        outside = "699aa559-3eed-4ee7-b8e2-f8fcc1a6fc5a"  # in the demo's ledger, not its library
        view = window.show_usage()
        usage_window = window.usage_window
        assert usage_window is not None
        usage_window.resize(1024, 700)
        await idle(context, 0.3)
        keys = [g.key for g in view.sessions_model.rows]
        view.sessions.setCurrentIndex(view.sessions_model.index(keys.index(outside), 0))
        QTest.keyClick(view.sessions, Qt.Key.Key_Return)
        await idle(context, 0.2)
        usage_window.grab().save(str(out / "usage-not-in-library.png"))
        shots.append("usage-not-in-library")
        usage_window.close()
        window.resize(1280, 800)
        await idle(context)

    steps["agents"] = agents
    steps["small"] = small
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


def use_memory_keyring() -> None:
    """Keys and the export fingerprint key stay in this process."""
    import keyring
    import keyring.backend

    class MemoryKeyring(keyring.backend.KeyringBackend):
        priority = 1  # type: ignore[assignment]

        def __init__(self) -> None:
            super().__init__()
            self.entries: dict[tuple[str, str], str] = {}

        def get_password(self, service: str, username: str) -> str | None:
            return self.entries.get((service, username))

        def set_password(self, service: str, username: str, password: str) -> None:
            self.entries[(service, username)] = password

        def delete_password(self, service: str, username: str) -> None:
            self.entries.pop((service, username), None)

    keyring.set_keyring(MemoryKeyring())


def action_steps(
    context: object,
    open_session: Callable[[str], Awaitable[None]],
    idle: Callable[..., Awaitable[None]],
    out: Path,
    shots: list[str],
) -> dict[str, Callable[[], Awaitable[None]]]:
    """The shots of the action dialogs (compact, export, continue, edit, settings).

    A loopback model server (the providers' test helper, on 127.0.0.1:0) answers the continued
    conversation and the provider summary; nothing leaves the machine.
    """
    from rho_desk.providers.profiles import ProfileKind, ProfileStore, ProviderProfile
    from tests.providers.loopback import OPENAI_DONE, Reply, openai_chunk, serve

    commands = context.session_commands  # type: ignore[attr-defined]
    operations = context.operations  # type: ignore[attr-defined]
    dock = context.continue_dock  # type: ignore[attr-defined]
    conflict_dock = context.conflict_dock  # type: ignore[attr-defined]
    window = context.window  # type: ignore[attr-defined]
    state: dict[str, object] = {}

    async def loopback() -> object:
        if "lb" not in state:
            server = serve()
            state["server"] = server
            lb = await server.__anext__()
            profile = ProviderProfile(
                name="local-gpt",
                kind=ProfileKind.OPENAI_COMPATIBLE,
                base_url=lb.url + "/v1",
                model="gpt-4.1-mini",
                provider="openai",
                requires_key=False,
                context_window=128_000,
                permission_mode="off",
            )
            ProfileStore().upsert(profile, make_default=True)
            dock.panel.refresh_profiles()
            await idle(context)
            dock.panel.profile.setCurrentIndex(dock.panel.profile.findData("local-gpt"))
            state["lb"] = lb
        return state["lb"]

    def reply(*pieces: str, hang: bool = False) -> Reply:
        chunks = [openai_chunk({"role": "assistant", "content": pieces[0]})] + [
            openai_chunk({"content": p}) for p in pieces[1:]
        ]
        if hang:
            return Reply(chunks=chunks, hang_after=len(chunks), delay=0.05)
        return Reply(chunks=[*chunks, openai_chunk(finish="stop"), OPENAI_DONE], delay=0.05)

    def grab(widget: object, name: str) -> None:
        widget.grab().save(str(out / f"{name}.png"))  # type: ignore[attr-defined]
        shots.append(name)

    async def compaction() -> None:
        lb = await loopback()
        await open_session(NOTEBOOK)
        dialog = commands.show_dialog("compact")
        dialog.keep_tokens.setValue(0)
        dialog.keep_messages.setValue(4)
        await idle(context)
        dialog.table.selectRow(2)
        grab(dialog, "compaction-preview")
        dialog.compactor.setCurrentIndex(dialog.compactor.findData("local-gpt"))
        lb.queue(reply("Summarising", hang=True))  # type: ignore[attr-defined]
        dialog.start()
        await until(lambda: bool(lb.requests))  # type: ignore[attr-defined]
        grab(dialog, "compaction-running")
        dialog.cancel_run()
        await idle(context)
        dialog.close()

    async def export() -> None:
        await open_session(NOTEBOOK)
        dialog = commands.show_dialog("export")
        await idle(context)
        dialog.findings_table.selectRow(0)
        grab(dialog, "export-findings")
        dialog.tabs.setCurrentIndex(1)
        await idle(context)
        grab(dialog, "export-preview")
        # the dark theme: unchecked class boxes and the focused control must stay visible
        context.theme.set_preference("dark")
        dialog.tabs.setCurrentIndex(0)
        dialog.class_table.setFocus()
        await idle(context)
        grab(dialog, "dark-export-classes")
        context.theme.set_preference("light")
        dialog.close()

    async def edit() -> None:
        await open_session(WEBHOOK)
        dialog = commands.show_dialog("edit")
        await idle(context)
        row = next(
            i for i, r in enumerate(dialog.model.rows) if any(True for _ in r.message.tool_calls())
        )
        dialog.select_rows(row, row)
        dialog.delete_selected()
        dialog.select_rows(1, 1)
        dialog.edit_current()
        dialog.editor.setPlainText(dialog.editor.toPlainText() + " (and keep the fix small)")
        await idle(context)
        grab(dialog, "edit-messages")
        dialog.close()
        for kind, name in (("metadata", "edit-metadata"), ("strip", "strip-provider-blocks")):
            dialog = commands.show_dialog(kind)
            await idle(context)
            if kind == "metadata":
                for key, value in (("ticket", "PAY-481"), ("reviewer", "maya")):
                    row = dialog.model.add_row()
                    dialog.model.setData(dialog.model.index(row, 0), key)
                    dialog.model.setData(dialog.model.index(row, 1), value)
            grab(dialog, name)
            dialog.close()

    async def settings() -> None:
        await loopback()
        dialog = commands.show_dialog("settings")
        await idle(context)
        grab(dialog, "settings-providers")
        dialog.tabs.setCurrentIndex(1)
        dialog.policy.setCurrentIndex(dialog.policy.findData("tokens"))
        dialog.threshold.setValue(120_000)
        grab(dialog, "settings-compaction")
        dialog.close()

    async def continue_() -> None:
        lb = await loopback()
        await open_session(WEBHOOK)
        dock.show_continue()
        panel, controller = dock.panel, context.controller
        await idle(context)
        panel.composer.setPlainText(
            "Is the flaky refund test fixed for good, or only on my machine?"
        )
        panel.send()
        await until(lambda: panel.handoff.isVisible())
        await idle(context)
        grab(window, "continue-provider-switch")
        lb.queue(
            reply(
                "It is fixed for good: ",
                "the test no longer reads the wall clock. ",
                "The webhook handler now ",  # type: ignore[attr-defined]
                "takes the time from `clock.now()`, which the test freezes, so ",
                "the 300 s tolerance check ",
                "is deterministic on every machine",
                hang=True,
            )
        )
        panel.send_anyway.click()
        await until(lambda: "deterministic" in panel.reply.toPlainText())
        grab(window, "continue-streaming")
        window.resize(1024, 700)  # a small laptop screen: the conversation must stay readable
        await asyncio.sleep(0.3)  # the reply is still streaming: not idle
        grab(window, "continue-1024x700")
        window.resize(1280, 800)
        controller.cancel()
        await idle(context)
        # a finished turn from a server that reports no usage (llama.cpp): the estimate, marked
        lb.queue(
            reply(
                'Added under *Fixed*: "The refund webhook test no longer depends on the wall ',  # type: ignore[attr-defined]
                'clock." Nothing else in the changelog needed a change.',
            )
        )
        panel.composer.setPlainText("Add a changelog entry for it.")
        panel.send()
        await until(lambda: not controller.busy)
        await idle(context)
        grab(window, "continue-saved")
        # Rho writes to the same session meanwhile: the next prompt stops at the conflict banner
        from rho_desk.core.stores.rho_files import SessionWriter, read_session
        from rho_desk.core.wire import Message

        path = context.document.path  # type: ignore[attr-defined]
        with SessionWriter(read_session(path), take_lease=False) as writer:
            base = writer.tree.snapshot(trim=False, prompt_cache_key=None)
            turn = (
                Message.user_text("(typed in Rho) run the whole suite"),
                Message.assistant_text("All 214 tests pass."),
            )
            writer.save(base.replace(revision=base.revision + 1, history=base.history + turn))
        await context.document.areload()  # type: ignore[attr-defined]
        panel.composer.setPlainText("Open a PR description for this.")
        panel.send()
        await until(lambda: conflict_dock.isVisible())
        await idle(context)
        grab(window, "continue-conflict-banner")
        context.controller.detach()
        conflict_dock.hide()
        dock.hide()
        await close_loopback()

    async def close_loopback() -> None:
        server = state.pop("server", None)
        state.pop("lb", None)
        if server is not None:
            await server.aclose()  # type: ignore[attr-defined]

    async def tools() -> None:
        import json

        from rho_desk.core.tools.permissions import PermissionMode

        lb = await loopback()
        workspace = Path(tempfile.mkdtemp(prefix="payments-api-"))
        (workspace / "src" / "payments").mkdir(parents=True)
        (workspace / "src" / "payments" / "idempotency.py").write_text(
            "import time\n\n\nclass IdempotencyStore:\n    def __init__(self, ttl_seconds=3600):\n"
            "        self.ttl_seconds = ttl_seconds\n        self._seen = {}\n\n    def remember(self, key, response):\n"
            "        self._seen[key] = (time.time(), response)\n\n    def lookup(self, key):\n"
            "        entry = self._seen.get(key)\n        if entry is None:\n            return None\n"
            "        stored_at, response = entry\n        if time.time() - stored_at > self.ttl_seconds:\n"
            "            del self._seen[key]\n            return None\n        return response\n"
        )

        def call(call_id: str, name: str, arguments: dict[str, object]) -> Reply:
            first = {
                "index": 0,
                "id": call_id,
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(arguments)},
            }
            return Reply(
                chunks=[
                    openai_chunk({"role": "assistant", "content": None, "tool_calls": [first]}),
                    openai_chunk(finish="tool_calls"),
                    OPENAI_DONE,
                ]
            )

        from rho_desk.core.tools.text import file_hash

        source = (workspace / "src" / "payments" / "idempotency.py").read_text()
        document = (
            f"[src/payments/idempotency.py#{file_hash(source)}]\nPUT 1:\n+from .clock import clock\n"
            "PUT 10:\n+        self._seen[key] = (clock.now(), response)\n"
            "PUT 17:\n+        if clock.now() - stored_at > self.ttl_seconds:\n"
        )
        command = (
            "for t in test_replay_returns_stored_response test_expired_key_is_forgotten "
            'test_ttl_boundary_is_inclusive; do echo "tests/test_idempotency.py::$t PASSED"; sleep 0.4; done; '
            "echo 'collecting integration tests…' >&2; sleep 20"
        )
        lb.queue(
            call("call_edit", "edit", {"input": document}),  # type: ignore[attr-defined]
            call("call_test", "bash", {"command": command}),
            reply("unused", hang=True),
        )
        await open_session(IDEMPOTENCY)
        dock.show_continue()
        panel, controller = dock.panel, context.controller
        await idle(context)
        panel.mode_picker.setCurrentIndex(
            panel.mode_picker.findData(PermissionMode.SUPERVISED.value)
        )
        panel.composer.setPlainText(
            "Make the idempotency store use the injectable clock, then run its tests."
        )
        panel.send()
        await until(lambda: panel.workspace_banner.isVisible() or panel.handoff.isVisible())
        if panel.workspace_banner.isVisible():
            panel.workspace_banner.hide()
            controller.choose_workspace(str(workspace))
        # the chosen folder is new to the tools: trust it, as a user would
        await until(
            lambda: (
                panel.approval_card is not None
                or panel.handoff.isVisible()
                or panel.trust_box is not None
            )
        )
        if panel.trust_box is not None and panel.trust_box.trust_button is not None:
            panel.trust_box.trust_button.click()
            await until(lambda: panel.approval_card is not None or panel.handoff.isVisible())
        if panel.handoff.isVisible():
            panel.send_anyway.click()
        await until(lambda: panel.approval_card is not None)  # a turn runs: the bridge is not idle
        grab(window, "continue-approval-card")
        assert panel.approval_card is not None
        panel.approval_card.approve_once()
        await until(
            lambda: panel.approval_card is not None and panel.approval_card.request.tool == "bash"
        )
        panel.approval_card.approve_for_session()
        await until(
            lambda: (
                "call_test" in panel.shell_cards
                and "inclusive" in panel.shell_cards["call_test"].output.toPlainText()
            ),
            timeout=15,
        )
        await until(
            lambda: "collecting" in panel.shell_cards["call_test"].output.toPlainText(), timeout=5
        )
        grab(window, "continue-shell-output")
        controller.cancel()
        await until(lambda: not controller.busy)
        controller.detach()
        dock.hide()
        await close_loopback()

    async def compaction_done() -> None:
        # Last on purpose: it writes a new revision to the notebook session the export shots show.
        await open_session(NOTEBOOK)
        dialog = commands.show_dialog("compact")
        await idle(context)  # the compactor list is filled from the profiles file first
        dialog.compactor.setCurrentIndex(dialog.compactor.findData(""))  # the local digest
        dialog.keep_tokens.setValue(0)
        dialog.keep_messages.setValue(4)
        await idle(context)
        dialog.start()
        await until(lambda: dialog.undo_button.isEnabled())
        await idle(context)
        grab(dialog, "compaction-done")
        dialog.close()
        # Undo in a v1-v3 line: the earlier state appended again, read as a restore
        operations.undo()
        await until(lambda: bool(operations.history.undone))
        window.show_tab(2 - 1)  # Revisions
        await idle(context)
        grab(window, "revisions-restore")
        window.show_tab(0)

    async def compaction_refused() -> None:
        await open_session(RUST)
        dialog = commands.show_dialog("compact")
        await idle(context)
        dialog.compactor.setCurrentIndex(dialog.compactor.findData(""))  # the local digest
        dialog.keep_tokens.setValue(0)
        dialog.keep_messages.setValue(16)  # only the first request is older: its digest is larger
        await idle(context)
        grab(dialog, "compaction-refused")
        dialog.close()

    async def compaction_summary() -> None:
        # Writes a provider summary to the idempotency session (its shots are taken by then).
        lb = await loopback()
        await open_session(IDEMPOTENCY)
        dialog = commands.show_dialog("compact")
        await idle(context)
        dialog.compactor.setCurrentIndex(dialog.compactor.findData("local-gpt"))
        dialog.keep_tokens.setValue(0)
        dialog.keep_messages.setValue(4)
        await idle(context)
        lb.queue(
            reply(
                "The user asked for idempotency keys on POST /payments; ",  # type: ignore[attr-defined]
                "the plan stores a key per request in `idempotency_keys` and replays the stored "
                "response on a retry. Stopped before registering the middleware, as asked.",
            )
        )
        dialog.start()
        await until(lambda: dialog.undo_button.isEnabled())
        await idle(context)
        grab(dialog, "compaction-summary-written")
        dialog.close()

    # compaction_summary needs the loopback server that continue_ closes; compaction_done (last)
    # compacts the notebook and undoes it
    return {
        "compaction": compaction,
        "export": export,
        "edit": edit,
        "settings": settings,
        "compaction_summary": compaction_summary,
        "continue": continue_,
        "tools": tools,
        "compaction_refused": compaction_refused,
        "compaction_done": compaction_done,
    }


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots")
    parser.add_argument("--only", nargs="*", default=[])
    args = parser.parse_args()
    import qasync

    from rho_desk.qt.app import create_application, install_asyncgen_hooks

    app = create_application()
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    install_asyncgen_hooks(loop)
    try:
        status = loop.run_until_complete(main(args.out, set(args.only)))
    finally:
        loop.close()
    sys.exit(status)
