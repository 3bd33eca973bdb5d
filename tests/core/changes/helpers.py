"""Sessions with file-changing tool calls, written through rho-desk's own writer."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rho_desk.core.stores.rho_files import SessionWriter, create_session, read_session
from rho_desk.core.tools.text import chain_snapshot, file_hash, numbered_view
from rho_desk.core.wire.model import AssistantMessage, ContentBlock, Message, ModelIdentity
from rho_desk.core.wire.snapshot import SessionSnapshot

IDENTITY = ModelIdentity("openai", "chat-completions", "m")
SESSION_ID = "5e2c1a9f-0b7d-4e3a-8c6f-1d2e3f4a5b6c"


def assistant(*calls: tuple[str, str, dict[str, Any]], text: str = "") -> Message:
    blocks = [ContentBlock(text=text)] if text else []
    blocks += [ContentBlock.of_tool_call(cid, name, args) for cid, name, args in calls]
    return Message.enriched(AssistantMessage(content=tuple(blocks), provenance=IDENTITY))


def result(cid: str, content: str, ok: bool = True) -> Message:
    return Message.result(cid, ok, content)


def read_result(path: str, text: str) -> str:
    return numbered_view(f"[{path}#{file_hash(text)}]", text, None, None)


def write_result(path: str, text: str, created: bool) -> str:
    return f"{'created' if created else 'wrote'} {path}\n\n{chain_snapshot(path, text)}"


def coding_session(root: Path, workspace: Path) -> Path:
    """Four turns: create a file, edit it (hashline), run a shell command, edit an unseen file."""
    app = "def main():\n    print('hi')\n"
    edited = "def main():\n    print('hello')\n"
    turns: list[tuple[Message, ...]] = [
        (
            Message.user_text("Create app.py"),
            assistant(("c1", "write", {"path": "app.py", "content": app})),
            result("c1", write_result("app.py", app, True)),
            assistant(text="Done."),
        ),
        (
            Message.user_text("Say hello instead"),
            assistant(("c2", "read_file", {"path": "app.py"})),
            result("c2", read_result("app.py", app)),
            assistant(
                (
                    "c3",
                    "edit",
                    {"input": f"[app.py#{file_hash(app)}]\nPUT 2:\n+    print('hello')\n"},
                )
            ),
            result("c3", "ok"),
            assistant(text="Changed."),
        ),
        (
            Message.user_text("Run the tests"),
            assistant(("c4", "bash", {"command": "pytest -q && rm -rf build"})),
            result("c4", "1 passed"),
            assistant(text="Green."),
        ),
        (
            Message.user_text("Fix the README"),
            assistant(("c5", "edit", {"input": "[README.md#ABCD]\nPUT 1:\n+# Title\n"})),
            result("c5", "ok"),
            assistant(("c6", "write", {"path": "notes.txt", "content": "refused"})),
            result("c6", "write capability denied", ok=False),
            assistant(text="Fixed."),
        ),
    ]
    history: tuple[Message, ...] = ()
    path: Path | None = None
    writer: SessionWriter | None = None
    for revision, turn in enumerate(turns, start=1):
        history = history + turn
        snapshot = SessionSnapshot.new(SESSION_ID, revision, history, IDENTITY)
        if writer is None:
            writer = create_session(root, str(workspace), snapshot)
            path = writer.path
        else:
            writer.save(snapshot)
    assert writer is not None and path is not None
    writer.close()
    (workspace / "app.py").write_text(edited)
    assert read_session(path).tree.snapshot().revision == 4
    return path
