"""A scripted model (the loopback server, the real OpenAI adapter, the real engine) asks for
read_file, grep and an edit in a temporary workspace: the reads run, the edit waits for approval,
the diff shown is the one applied, the file changes only after approval, and the saved session
holds the calls and results in Rho's shapes."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from rho_desk.core.session import Rho, SessionOptions, events
from rho_desk.core.stores.rho_files import SessionWriter, create_session, read_session
from rho_desk.core.tools.permissions import ApprovalDecision, ApprovalRequest, PermissionMode
from rho_desk.core.tools.setup import tool_setup
from rho_desk.core.tools.text import file_hash, unified_diff
from rho_desk.core.wire.model import Message, ModelIdentity
from rho_desk.core.wire.snapshot import SessionSnapshot
from rho_desk.providers.openai_chat import OpenAIChatProvider

from .loopback import OPENAI_DONE, Loopback, Reply, openai_chunk

SOURCE = "def greet(name):\n    return 'hi ' + name\n\n\ndef main():\n    print(greet('you'))\n"


def calls_reply(*calls: tuple[str, str, dict[str, Any]]) -> Reply:
    deltas = [
        {
            "index": i,
            "id": cid,
            "type": "function",
            "function": {"name": name, "arguments": json.dumps(args)},
        }
        for i, (cid, name, args) in enumerate(calls)
    ]
    return Reply(
        chunks=[
            openai_chunk({"role": "assistant", "content": None, "tool_calls": deltas}),
            openai_chunk({}, finish="tool_calls"),
            OPENAI_DONE,
        ]
    )


def text_reply(text: str) -> Reply:
    return Reply(
        chunks=[
            openai_chunk({"role": "assistant", "content": text}),
            openai_chunk({}, finish="stop"),
            OPENAI_DONE,
        ]
    )


class Gate:
    """Holds each approval until the test opens it."""

    def __init__(self) -> None:
        self.asked: list[ApprovalRequest] = []
        self.waiting = asyncio.Event()
        self.answer: asyncio.Future[ApprovalDecision] | None = None

    async def request(self, request: ApprovalRequest) -> ApprovalDecision:
        self.asked.append(request)
        self.answer = asyncio.get_running_loop().create_future()
        self.waiting.set()
        return await self.answer


@pytest.mark.asyncio
async def test_reads_run_the_edit_waits_for_approval_and_is_saved_in_rho_shapes(
    server: Loopback, tmp_path: Path
) -> None:
    workspace = tmp_path / "project"
    (workspace / "src").mkdir(parents=True)
    app = workspace / "src" / "app.py"
    app.write_text(SOURCE)
    (workspace / "README.md").write_text("call greet() to greet\n")
    tag = file_hash(SOURCE)
    edit_document = f"[src/app.py#{tag}]\nPUT 2:\n+    return 'hello ' + name\n"
    server.queue(
        calls_reply(
            ("call_read", "read_file", {"path": "src/app.py"}),
            ("call_grep", "grep", {"pattern": "greet"}),
        ),
        calls_reply(("call_edit", "edit", {"input": edit_document})),
        text_reply("Changed the greeting."),
    )
    identity = ModelIdentity("openai", "chat-completions", "m")
    start = SessionSnapshot.new(
        "9a1f4e6c-3b2d-4c1e-8f7a-5d6e7f8a9b0c", 0, (Message.system_text("You are Rho."),), identity
    )
    with create_session(tmp_path / "rho", str(workspace), start) as writer:
        path = writer.path

    gate = Gate()
    setup = tool_setup(PermissionMode.SUPERVISED, gate, cwd=str(workspace))
    provider = OpenAIChatProvider(base_url=server.url + "/v1", model="m", api_key=None)
    session_file = read_session(path)
    async with provider:
        rho = Rho.builder().provider(provider).tools(setup.tools).build()
        session = rho.session(SessionOptions.from_snapshot(session_file.tree.snapshot()))
        run = session.start("make the greeting say hello")
        finished: dict[str, Any] = {}
        started: list[str] = []

        async def consume() -> None:
            async for event in run:
                if isinstance(event, events.ToolStarted):
                    started.append(event.name)
                elif isinstance(event, events.ToolFinished):
                    finished[event.call_id] = event.result
                elif isinstance(event, events.Completed):
                    with SessionWriter(session_file) as writer:
                        writer.save(session.snapshot())

        consumer = asyncio.ensure_future(consume())
        await asyncio.wait_for(gate.waiting.wait(), timeout=10)
        # The reads ran without asking; the edit waits, and the file is untouched meanwhile.
        assert {"call_read", "call_grep"} <= finished.keys() and "call_edit" not in finished
        assert [r.tool for r in gate.asked] == ["edit"]
        await asyncio.sleep(0.2)
        assert app.read_text() == SOURCE
        shown = gate.asked[0].diff
        assert gate.answer is not None
        gate.answer.set_result(ApprovalDecision.allow_once())
        await asyncio.wait_for(consumer, timeout=10)
        await run.outcome()

    after = app.read_text()
    assert after == SOURCE.replace("'hi '", "'hello '")
    assert shown == unified_diff(
        SOURCE, after, "src/app.py", False
    )  # what was approved is what was applied
    assert started == ["read_file", "grep", "edit"]

    saved = read_session(path).tree.snapshot()
    assert saved.revision == 1
    history = saved.history
    results = {m.tool_result.id: m.tool_result for m in history if m.tool_result is not None}
    assert results["call_read"].ok and results["call_read"].content == (
        f"[src/app.py#{tag}]\n1:def greet(name):\n2:    return 'hi ' + name\n3:\n4:\n5:def main():\n6:    print(greet('you'))"
    )
    readme_tag = file_hash("call greet() to greet\n")
    assert results["call_grep"].content == (
        f"[README.md#{readme_tag}]\n1 | call greet() to greet\n[src/app.py#{tag}]\n1 | def greet(name):\n6 |     print(greet('you'))\n\n"
        "3 matches in 2 files"
    )
    assert results["call_edit"].ok and results["call_edit"].content.startswith(
        f"PUT 2: (1 → 1 line(s))\n[src/app.py#{file_hash(after)}]\n1:def greet(name):\n2:    return 'hello ' + name"
    )
    # Rho's wire shapes on disk: ToolCall blocks inside EnrichedAssistant, then ToolResult records.
    raw = path.read_text()
    assert '{"ToolCall":{"id":"call_edit","name":"edit","arguments":{"input":' in raw.replace(
        ": ", ":"
    ).replace(", ", ",")
    assert '"ToolResult":{"id":"call_read","ok":true,"content":' in raw.replace(": ", ":").replace(
        ", ", ","
    )
    # The second request carried the tool results back to the model in order.
    second = server.requests[1].body["messages"]
    assert [m.get("tool_call_id") for m in second if m["role"] == "tool"] == [
        "call_read",
        "call_grep",
    ]
