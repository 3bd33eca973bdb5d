"""The window and ``rho-desk continue`` continue a session through the same code: on the same
session and the same provider switch they find the same replay-safety report, and with the same
automatic compaction policy they compact it the same way. The command line runs as a real
process against the same loopback model server the window uses."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from rho_desk.core.session import turn
from rho_desk.core.stores.rho_files import read_session
from rho_desk.providers.profiles import ProfileKind, ProfileStore, ProviderProfile
from rho_desk.qt.services.settings import (
    PREFS_COMPACTION_KEEP_MESSAGES,
    PREFS_COMPACTION_KEEP_TOKENS,
    PREFS_COMPACTION_POLICY,
    PREFS_COMPACTION_THRESHOLD,
)

from ...providers.loopback import Loopback
from ..conftest import until
from ..helpers import turn_events, v3_session
from .conftest import demo_session, text_reply


def _cli(run, *argv: str) -> tuple[int, str, str]:
    """``rho-desk`` as a process, while the test's loop keeps serving the loopback server."""
    process = subprocess.Popen(
        [sys.executable, "-m", "rho_desk", *argv],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    run(until(lambda: process.poll() is not None, timeout=60), timeout=70)
    out, err = process.communicate()
    return process.returncode, out, err


def test_the_window_and_the_command_line_check_and_compact_alike(
    make_window, run, demo_home: Path, tmp_path: Path, loopback: Loopback
) -> None:
    # one stored profile (keyless: the process has no access to the test's keyring), the default
    shared = ProviderProfile(
        name="shared",
        kind=ProfileKind.OPENAI_COMPATIBLE,
        base_url=loopback.url + "/v1",
        model="gpt-test",
        provider="loopback",
        requires_key=False,
        permission_mode="off",
    )
    ProfileStore().upsert(shared, make_default=True)
    app_path = demo_session(demo_home, "c81f3e02")  # native blocks from OpenAI and Anthropic
    cli_home = tmp_path / "cli-home"
    shutil.copytree(demo_home, cli_home)
    cli_path = cli_home / app_path.relative_to(demo_home)
    endpoint = ["--profile", "shared"]

    # the same check: the app's report is the command line's refusal
    context = make_window(open_file=app_path)
    host = context.continue_dock
    host.show_continue()
    run(until(lambda: host.panel.profile.count() > 0))  # the panel has read the profiles
    controller, panel = context.controller, host.panel
    reports: list[tuple[object, str]] = []
    controller.sig_handoff_required.connect(lambda r, i: reports.append((r, i)))
    panel.composer.setPlainText("Continue with another model")
    panel.send()
    run(until(lambda: not controller.busy))
    assert len(reports) == 1 and not loopback.requests
    report, identity = reports[0]
    status, _out, err = _cli(
        run, "continue", str(cli_path), "-m", "Continue with another model", *endpoint
    )
    assert status == 2 and not loopback.requests
    assert f"replay safety: {report.describe(identity)}" in err and "--send-anyway" in err

    # the same compaction: policy after 10 messages, 4 kept verbatim, no token limit
    s = context.settings
    s.set(PREFS_COMPACTION_POLICY, "messages")
    s.set(PREFS_COMPACTION_THRESHOLD, 10)
    s.set(PREFS_COMPACTION_KEEP_MESSAGES, 4)
    s.set(PREFS_COMPACTION_KEEP_TOKENS, 0)
    phases = turn_events(
        controller,
        turn.CompactionStarted | turn.CompactionDone,
        lambda e: "started" if isinstance(e, turn.CompactionStarted) else "completed",
    )
    loopback.queue(text_reply("Sure."))
    panel.send_anyway.click()
    run(until(lambda: len(loopback.requests) == 1 and not controller.busy))
    assert phases == ["started", "completed"]
    loopback.queue(text_reply("Sure."))
    status, out, err = _cli(
        run,
        "continue",
        str(cli_path),
        "-m",
        "Continue with another model",
        *endpoint,
        "--send-anyway",
        "--auto-compact",
        "messages:10",
        "--keep-messages",
        "4",
        "--keep-tokens",
        "0",
    )
    assert status == 0, err
    assert out == "Sure.\n"
    app_tree, cli_tree = read_session(app_path).tree, read_session(cli_path).tree
    app_state, cli_state = app_tree.snapshot(), cli_tree.snapshot()
    assert (
        app_state.compaction.completed_compactions
        == cli_state.compaction.completed_compactions
        == 1
    )
    assert app_state.history == cli_state.history and app_state.revision == cli_state.revision
    # both sent the same compacted history
    assert loopback.requests[0].body["messages"] == loopback.requests[1].body["messages"]


def test_one_turn_through_the_window_and_the_command_line_makes_the_same_saves(
    make_window, run, tmp_path: Path, loopback: Loopback
) -> None:
    """The turn driver below both front ends: the same turn (an automatic compaction, then the
    reply) on two copies of a session is saved as the same revisions, of the same kinds, with the
    same states, whether the window or ``rho-desk continue --json`` ran it."""
    import json

    shared = ProviderProfile(
        name="shared",
        kind=ProfileKind.OPENAI_COMPATIBLE,
        base_url=loopback.url + "/v1",
        model="gpt-test",
        provider="loopback",
        requires_key=False,
        permission_mode="off",
    )
    ProfileStore().upsert(shared, make_default=True)
    app_home, cli_home = tmp_path / "app-home", tmp_path / "cli-home"
    app_path = v3_session(app_home, turns=4)  # 17 messages
    shutil.copytree(app_home, cli_home)
    cli_path = cli_home / app_path.relative_to(app_home)
    base = read_session(app_path, check_name=False).tree.active_leaf

    context = make_window(open_file=app_path)
    context.continue_dock.show_continue()
    run(
        until(lambda: context.continue_dock.panel.profile.count() > 0)
    )  # the panel has read the profiles
    controller = context.controller
    s = context.settings
    s.set(PREFS_COMPACTION_POLICY, "messages")
    s.set(PREFS_COMPACTION_THRESHOLD, 10)
    s.set(PREFS_COMPACTION_KEEP_MESSAGES, 4)
    s.set(PREFS_COMPACTION_KEEP_TOKENS, 0)
    app_saves = turn_events(controller, turn.Saved, lambda e: e.node.revision)
    loopback.queue(text_reply("Compacted and answered."))
    assert controller.send("Next step", profile="shared")
    run(until(lambda: not controller.busy))

    loopback.queue(text_reply("Compacted and answered."))
    status, out, err = _cli(
        run,
        "continue",
        str(cli_path),
        "-m",
        "Next step",
        "--profile",
        "shared",
        "--json",
        "--auto-compact",
        "messages:10",
        "--keep-messages",
        "4",
        "--keep-tokens",
        "0",
    )
    assert status == 0, err
    cli_saves = [e["revision"] for e in map(json.loads, out.splitlines()) if e["event"] == "saved"]

    assert len(app_saves) == 2 and app_saves == cli_saves  # the compaction, then the turn
    assert loopback.requests[0].body["messages"] == loopback.requests[1].body["messages"]
    app_tree, cli_tree = (
        read_session(app_path, check_name=False).tree,
        read_session(cli_path, check_name=False).tree,
    )

    def written(tree):  # the revisions the turn wrote, oldest first
        nodes = [n for n in tree.nodes.values() if n.revision > base.revision]
        return sorted(nodes, key=lambda n: n.revision)

    assert [(n.kind, n.revision) for n in written(app_tree)] == [
        (n.kind, n.revision) for n in written(cli_tree)
    ]
    for app_node, cli_node in zip(written(app_tree), written(cli_tree), strict=True):
        app_state, cli_state = app_tree.snapshot(app_node), cli_tree.snapshot(cli_node)
        assert app_state.history == cli_state.history
        assert (
            app_state.compaction.completed_compactions == cli_state.compaction.completed_compactions
        )
