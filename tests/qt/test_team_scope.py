"""The Team scope of the session browser on a real PostgreSQL: list, search, open read-only with
the receipt verified, publish from the export dialog, and a dropped connection's banner and recovery."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from rho_desk.core.export import (
    ALL_CLASSES,
    Selection,
    decode_receipt,
    export_keys,
    read_export_source,
)
from rho_desk.keys import default_key_source
from rho_desk.qt.browser.team import TeamDelegate
from rho_desk.qt.services.settings import PREFS_TEAM_DATABASE
from rho_desk.qt.ui.roles import Role
from rho_desk.team.cluster import ThrowawayCluster
from rho_desk.team.db import keep_password_in_keyring
from rho_desk.team.library import TeamLibrary

from .conftest import laid_out, until


async def wait_for(predicate: Callable[[], bool], timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError("timed out")
        await asyncio.sleep(0.05)


async def publish_fixtures(dsn: str, rho_fixtures: Path) -> None:
    """(on the app's qasync loop: the tests drive everything through ``run``)"""
    async with await TeamLibrary.open(dsn) as lib:
        await lib.create_team("qa")
        keys = export_keys(default_key_source())
        for name in ("session-v2.jsonl", "session-v3.jsonl"):
            source = read_export_source(
                rho_fixtures / name, None, None
            )  # the conversation as shown
            await lib.publish(
                "qa", source, Selection.including(ALL_CLASSES), keys=keys, known_secrets=[]
            )


def test_team_scope_lists_searches_and_opens_with_a_verified_receipt(
    make_window, run, pg_db: str, rho_fixtures: Path, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    run(publish_fixtures(pg_db, rho_fixtures))
    (tmp_path / "rho" / "sessions").mkdir(parents=True)
    context = make_window(home=tmp_path / "rho")
    window, view = context.window, context.window.team_browser
    stripped = keep_password_in_keyring(pg_db)
    assert "password" not in stripped
    context.settings.set(PREFS_TEAM_DATABASE, stripped)
    window.scopes.setCurrentWidget(view)
    run(until(lambda: view.model.rowCount() == 2 and "2 sessions published" in view.footer.text()))
    assert view.model.rowCount() == 2 and not view.banner.isVisible()
    assert "2 sessions published" in view.footer.text()
    view.search.setText("delta")
    view.reload_listing()
    run(until(lambda: view.model.rowCount() == 1))
    assert view.model.rowCount() == 1
    # a card like the Local list's: the match highlighted, not shown between «»
    card = view.model.index(0).data(Role.ROW)
    assert (
        isinstance(view.list.itemDelegate(), TeamDelegate) and "«" not in view.model.index(0).data()
    )
    assert [card.text[a:b] for a, b in card.highlights] and all(
        card.text[a:b].lower() == "delta" for a, b in card.highlights
    )
    width = window.scopes.width()
    view.open_row(0)
    # the receipt is said last; the conversation's rows come from the document after
    run(until(lambda: view.receipt.toolTip() and window.conversation.model.rows.timestamps))
    assert context.document.is_open and context.document.is_snapshot_document  # read-only
    assert context.document.tree.active_leaf is not None
    public = export_keys(default_key_source()).public_key
    assert (
        view.receipt.isVisible()
        and f"✔ signed by {public} — valid" in view.receipt.accessibleDescription()
    )
    assert (
        public not in view.receipt.text() and public in view.receipt.toolTip()
    )  # cut in its middle on screen
    run(laid_out())
    assert window.scopes.width() <= width, (
        width,
        window.scopes.width(),
    )  # the key does not widen the sidebar
    assert view.opened is not None and oct(view.opened.path.stat().st_mode & 0o777) == "0o600"
    assert (
        view.opened.version.history == "display"
    )  # published as shown, opened as a snapshot of it
    # with the times the export keeps: the revision's, each message's (never "time unknown")
    leaf = context.document.tree.active_leaf
    assert leaf.time > 0 and "time unknown" not in window.conversation.bar.label.text()
    stamps = window.conversation.model.rows.timestamps
    assert stamps and all(s.isdigit() and int(s) > 0 for s in stamps)
    assert int(max(stamps, key=int)) == leaf.time
    # settings hold no password
    assert "password" not in str(context.settings.get(PREFS_TEAM_DATABASE))

    # the stored export is edited in the database and its hash fixed up: opening it says so
    from ..team.test_publish import _tamper

    sid = view.opened.version.session_id
    _tamper(pg_db, sid, "delta", "DELTA")
    view.open_row(0)
    run(until(lambda: "✘ INVALID:" in view.receipt.text()))
    assert "✘ INVALID:" in view.receipt.text() and "signature does not match" in view.receipt.text()


def test_publish_from_the_export_dialog(make_window, run, pg_db: str, rho_fixtures: Path) -> None:  # type: ignore[no-untyped-def]
    run(publish_fixtures(pg_db, rho_fixtures))  # creates the team
    context = make_window(open_file=rho_fixtures / "session-v1.jsonl")
    context.settings.set(PREFS_TEAM_DATABASE, keep_password_in_keyring(pg_db))
    dialog = context.session_commands.show_dialog("export")
    run(until(lambda: dialog.current() is not None))
    dialog.schedule(now=True)
    run(until(lambda: dialog.current() is not None and dialog.publish_button.isEnabled()))
    assert dialog.current() is not None and dialog.publish_button.isEnabled()
    assert dialog.history_kind() == "display"  # the dialog's default
    dialog.choose_team()  # the picker says what is sent (walkthrough T5)
    run(until(lambda: dialog.team_dialog is not None))
    assert dialog.team_dialog is not None and dialog.team_dialog.labelText().startswith(
        "Publishes the conversation as shown"
    )
    assert dialog.team_dialog.comboBoxItems() == ["qa"] and dialog.team_dialog.minimumWidth() >= 460
    dialog.team_dialog.reject()
    dialog.publish_to("qa")
    run(until(lambda: dialog.busy.label.text().startswith("Published revision")))
    sid = "11111111-1111-4111-8111-111111111111"

    async def stored() -> tuple[str, bytes, int]:
        async with await TeamLibrary.open(pg_db) as lib:
            version = await lib.show(sid, team="qa")
            return version.history, version.receipt, version.message_count

    history, receipt, count = run(stored())
    assert (
        history == "display" and count == 4
    )  # the conversation as shown (the model context has 2)
    signature = decode_receipt(receipt).signature
    assert (
        signature is not None
        and signature.public_key == export_keys(default_key_source()).public_key
    )
    # another history of the same revision: nothing changes (a revision is published once)
    dialog.set_history("model")
    run(until(lambda: dialog.current() is not None))
    dialog.schedule(now=True)
    run(until(lambda: dialog.current() is not None))
    dialog.publish_to("qa")
    run(until(lambda: "already published" in dialog.busy.label.text()))
    assert run(stored())[0] == "display" and "already published" in dialog.busy.label.text()
    dialog.close()


@pytest.fixture
def own_cluster():  # type: ignore[no-untyped-def]
    cluster = ThrowawayCluster()
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.destroy()


def test_a_dropped_connection_shows_a_banner_and_recovers(
    make_window, run, own_cluster: ThrowawayCluster, rho_fixtures: Path, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    dsn = own_cluster.dsn
    run(TeamLibrary.init(dsn))
    run(publish_fixtures(dsn, rho_fixtures))
    (tmp_path / "rho" / "sessions").mkdir(parents=True)
    context = make_window(home=tmp_path / "rho")
    view = context.window.team_browser
    context.settings.set(PREFS_TEAM_DATABASE, keep_password_in_keyring(dsn))
    context.window.scopes.setCurrentWidget(view)
    run(until(lambda: view.model.rowCount() == 2))
    assert view.model.rowCount() == 2
    own_cluster.stop()
    view.reload_listing()
    run(until(lambda: view.banner.isVisible() and "unreachable" in view.banner.text()))
    assert view.banner.isVisible() and "unreachable" in view.banner.text()
    assert own_cluster.password not in view.banner.text()
    own_cluster.start()
    run(wait_for(lambda: not view.banner.isVisible()), timeout=30)
    run(until(lambda: view.model.rowCount() == 2))
    assert view.model.rowCount() == 2  # listed again by itself


def test_a_published_compacted_session_counts_its_compactions(
    make_window, run, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    """A session published as shown carries its compaction markers but not the engine's
    counters: the Statistics tab counts the markers instead of saying 0, and the header shows no
    stand-in provider ('display/display/display')."""
    from rho_desk.core.export import export_snapshot
    from rho_desk.qt.window.main_window import TAB_STATISTICS

    from .helpers import v4_session

    source = read_export_source(v4_session(tmp_path / "home"), None, "display")
    result = export_snapshot(
        source.snapshot,
        Selection.including(ALL_CLASSES),
        key=b"k" * 32,
        history="display",
        timestamps=source.timestamps,
    )
    from rho_desk.qt.services.team import _write_viewable

    published = tmp_path / "published.json"
    _write_viewable(published, result.data)  # what the Team tab opens: the stored export, viewable
    context = make_window(open_file=published)
    window = context.window
    assert context.document.is_snapshot_document
    window.show_tab(TAB_STATISTICS)
    run(until(lambda: window.statistics.data is not None))
    assert window.statistics.cards["compactions"].value.text() == "1"
    assert "display/display" not in window.header.facts.text()


def test_a_published_model_context_is_dated_by_its_publication(
    make_window, run, pg_db: str, rho_fixtures: Path, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    """A model-context export records no times: the opened version's revision is dated by its
    publication, said as such, not "time unknown"."""

    async def publish_model() -> None:
        async with await TeamLibrary.open(pg_db) as lib:
            await lib.create_team("qa")
            source = read_export_source(rho_fixtures / "session-v3.jsonl", None, "model")
            await lib.publish(
                "qa",
                source,
                Selection.including(ALL_CLASSES),
                keys=export_keys(default_key_source()),
                known_secrets=[],
            )

    run(publish_model())
    (tmp_path / "rho" / "sessions").mkdir(parents=True)
    context = make_window(home=tmp_path / "rho")
    window, view = context.window, context.window.team_browser
    context.settings.set(PREFS_TEAM_DATABASE, keep_password_in_keyring(pg_db))
    window.scopes.setCurrentWidget(view)
    run(until(lambda: view.model.rowCount() == 1))
    assert view.model.rowCount() == 1
    view.open_row(0)
    run(until(lambda: view.opened is not None and bool(view.receipt.toolTip())))
    assert view.opened is not None and view.opened.version.history == "model"
    assert context.document.tree.active_leaf.time == 0  # the snapshot itself records none
    published = view.opened.version.published_at.timestamp()
    stamp = time.strftime("%b %d %Y, %H:%M", time.localtime(published))
    label = window.conversation.bar.label.text()
    assert f"published {stamp}" in label and "time unknown" not in label
    # a snapshot document of one's own, opened next, is not dated by that publication
    from rho_desk.core.wire.codec import encode_pretty

    local = tmp_path / "own.json"
    local.write_bytes(
        encode_pretty(read_export_source(rho_fixtures / "session-v3.jsonl", None, "model").snapshot)
    )
    run(context.document.aopen(local))
    run(until(lambda: "time unknown" in window.conversation.bar.label.text()))
    assert context.document.published_at is None
    assert "time unknown" in window.conversation.bar.label.text()
