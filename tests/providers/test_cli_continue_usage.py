"""``rho-desk continue`` records every request it sends in the usage ledger of the session's
Rho home, so ``rho-desk usage`` (and Rho) see what rho-desk spent (the second walkthrough: after
35 turns, ``rho-desk usage`` said there was no ledger)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from .loopback import OPENAI_DONE, Loopback, Reply, openai_chunk
from .test_cli_continue import SESSION_ID, make_session, rho_desk, tool_reply


def reply_with_usage(text: str, prompt: int, completion: int, cost: float | None = None) -> Reply:
    usage: dict[str, object] = {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }
    if cost is not None:
        usage["cost"] = cost
    return Reply(
        chunks=[
            openai_chunk({"role": "assistant", "content": text}),
            openai_chunk({}, finish="stop"),
            openai_chunk(choices=False, usage=usage),
            OPENAI_DONE,
        ]
    )


@pytest.mark.asyncio
async def test_continued_turns_appear_in_rho_desk_usage(server: Loopback, tmp_path: Path) -> None:
    workspace = tmp_path / "project"
    workspace.mkdir()
    (workspace / "a.txt").write_text("a\n")
    path = make_session(tmp_path, workspace)
    home = tmp_path / "rho"
    assert not (home / "usage.sqlite3").exists()
    server.queue(
        tool_reply("c1", "read_file", {"path": "a.txt"}),
        reply_with_usage("Read it.", 1000, 20, cost=0.0025),
        Reply(status=503, body=b'{"error":{"message":"busy"}}'),  # retried by the engine
        reply_with_usage("Second.", 1200, 30),  # no cost reported, no price known: NULL
    )
    base = ["--base-url", server.url + "/v1", "--model", "m"]
    for prompt in ("read a", "again"):
        status, _out, err = await rho_desk(tmp_path, "continue", str(path), "-m", prompt, *base)
        assert status == 0, err
        assert "usage ledger was not written" not in err
    db = sqlite3.connect(home / "usage.sqlite3")
    rows = db.execute(
        "SELECT session_id, run_id, step_index, attempt_index, purpose, request_outcome, input_tokens, "
        "output_tokens, total_tokens, cost_usd_micros, workspace_path, provider, model, rho_version "
        "FROM usage_events ORDER BY rowid"
    ).fetchall()
    db.close()
    assert [r[2:10] for r in rows] == [
        (
            1,
            1,
            "agent",
            "completed",
            None,
            None,
            None,
            None,
        ),  # the tool call: the server reported nothing
        (
            2,
            1,
            "agent",
            "completed",
            None,
            20,
            1020,
            2500,
        ),  # an inclusive prompt: input split unknown, as Rho stores it
        (1, 1, "agent", "failed", None, None, None, None),
        (1, 2, "agent", "completed", None, 30, 1230, None),
    ]
    assert {r[0] for r in rows} == {SESSION_ID} and len({r[1] for r in rows}) == 2
    assert {r[10] for r in rows} == {str(workspace)} and {(r[11], r[12]) for r in rows} == {
        ("command-line", "m")
    }
    assert all(r[13].startswith("rho-desk/") for r in rows)
    status, out, err = await rho_desk(
        tmp_path, "usage", "--home", str(home), "--by", "session", "--json"
    )
    assert status == 0, err
    (group,) = json.loads(out)["groups"]
    assert group["key"] == SESSION_ID and group["requests"] == 4 and group["total_tokens"] == 2250
    assert group["cost_usd"] == pytest.approx(0.0025) and group["requests_without_cost"] == 3
    status, out, err = await rho_desk(tmp_path, "check", str(path))
    assert status == 0, out + err


@pytest.mark.asyncio
async def test_an_unwritable_ledger_is_said_and_the_turn_still_saved(
    server: Loopback, tmp_path: Path
) -> None:
    workspace = tmp_path / "project"
    workspace.mkdir()
    path = make_session(tmp_path, workspace)
    ledger = tmp_path / "rho" / "usage.sqlite3"
    ledger.write_bytes(b"this is not a database, and it is not ours to replace" * 100)
    server.queue(reply_with_usage("Fine.", 10, 1))
    status, out, err = await rho_desk(
        tmp_path,
        "continue",
        str(path),
        "-m",
        "go",
        "--base-url",
        server.url + "/v1",
        "--model",
        "m",
        "--tools",
        "off",
    )
    assert status == 0, err
    assert out == "Fine.\n"
    assert "rho-desk: the usage ledger was not written, this turn's spend is not in it:" in err
    assert ledger.read_bytes().startswith(b"this is not a database")
