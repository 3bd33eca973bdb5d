"""Another agent's session carried on in Rho: ``rho-desk import`` writes a Rho session that
``rho-desk continue`` continues (a real process against the loopback model server), sending the
imported history (every tool call with its result, the images) and saving one revision on top;
the file then passes ``rho-desk check``, and importing the source again writes nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from rho_desk.core.agents import AGENTS
from rho_desk.core.agents.importer import import_session
from rho_desk.core.stores.rho_files import read_session
from rho_desk.core.wire.model import Message

from ..core.agents.conftest import main_sessions, make_homes
from .loopback import Loopback
from .test_cli_continue import rho_desk, text_reply


@pytest.mark.asyncio
@pytest.mark.parametrize("agent", AGENTS)
async def test_an_imported_session_continues_in_rho(
    agent: str, server: Loopback, tmp_path: Path
) -> None:
    source = main_sessions(make_homes(tmp_path / "homes"))[agent]
    result = import_session(source, home=tmp_path / "rho")
    before = read_session(result.transcript).tree.snapshot()
    server.queue(text_reply("Carrying on from the import."))
    status, out, err = await rho_desk(
        tmp_path,
        "continue",
        str(result.transcript),
        "-m",
        "go on",
        "--base-url",
        server.url + "/v1",
        "--model",
        "m",
        "--tools",
        "off",
    )
    assert status == 0, err
    assert out == "Carrying on from the import.\n"
    messages = server.requests[0].body["messages"]
    calls = [
        c["id"] for m in messages if m.get("role") == "assistant" for c in m.get("tool_calls") or []
    ]
    answered = [m.get("tool_call_id") for m in messages if m.get("role") == "tool"]
    assert sorted(calls) == sorted(answered), "every tool call sent with its result"
    kept = [
        c.id for m in before.history for c in m.tool_calls()
    ]  # the model history after the last compaction
    assert calls == kept
    after = read_session(result.transcript).tree.snapshot()
    assert after.revision == before.revision + 1
    assert after.history[: len(before.history)] == before.history
    assert after.history[len(before.history)] == Message.user_text("go on")
    status, out, err = await rho_desk(tmp_path, "check", str(result.transcript))
    assert status == 0, out + err
    again = import_session(source, home=tmp_path / "rho")
    assert again.noop and again.transcript == result.transcript
