"""Libraries for the memory server's tests: a canary home with secrets everywhere, and helpers
to run ``rho-desk mcp`` as a real process."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from rho_desk.core.stores.library import index_home
from rho_desk.core.stores.rho_files import create_session
from rho_desk.core.wire import (
    AssistantMessage,
    ContentBlock,
    Message,
    ModelIdentity,
    SessionSnapshot,
)

from ..core.export.builders import (
    KNOWN,
    KNOWN_SPECIAL,
    SECRETS,
    canary_snapshot,
    forbidden_forms,
    secrets_messages,
)
from ..core.usage.ledgers import make_ledger, row

REPO = Path(__file__).resolve().parents[2]
IDENTITY = ModelIdentity("openai", "responses", "gpt-5")
CANARY_CWD = "/work/canary-project"
SECRET_CWD = f"/work/proj-{SECRETS[3].value}"  # a GitHub token in a folder name
CANARY_ID = "5f0c2d7e-8a41-4c1b-9d33-0e6b7a2f9c10"
PATH_ID = "7a1b2c3d-0000-4000-8000-000000000001"
TITLE_SECRET = SECRETS[2].value  # a GitHub token in a title


def secret_values() -> list[str]:
    """Every value whose presence in an answer, in any form, is a leak."""
    values = [s.value for s in SECRETS] + [
        KNOWN,
        KNOWN_SPECIAL,
        KNOWN.lower(),
        KNOWN.upper(),
        KNOWN_SPECIAL.upper(),
    ]
    values.append("b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ")  # the private key's body
    return values


def leaks(text: str) -> list[str]:
    found = []
    for value in secret_values():
        for form in forbidden_forms(value):
            if form in text:
                found.append(f"{value[:12]}…:{form[:16]}…")
    return found


def _writes_with_secrets() -> list[Message]:
    """Two turns that write a settings file holding secrets and rewrite it (a diff full of them),
    and write a file whose name carries a token."""
    before = "\n".join(["[db]", f"url = {SECRETS[12].text}", f"{SECRETS[13].text}", ""])
    after = before.replace("hunter2hunter2", "hunter3hunter3") + f"stripe = {SECRETS[6].value}\n"
    return [
        Message.user_text("write the settings file"),
        Message.enriched(
            AssistantMessage(
                content=(
                    ContentBlock.of_tool_call(
                        "w-1", "write_file", {"path": "settings.toml", "content": before}
                    ),
                ),
                provenance=IDENTITY,
            )
        ),
        Message.result("w-1", True, "wrote settings.toml"),
        Message.user_text("rotate the database password in settings.toml"),
        Message.enriched(
            AssistantMessage(
                content=(
                    ContentBlock.of_tool_call(
                        "w-2", "write_file", {"path": "settings.toml", "content": after}
                    ),
                    ContentBlock.of_tool_call(
                        "w-3",
                        "write_file",
                        {"path": f"keys/{SECRETS[2].value}.txt", "content": "x\n"},
                    ),
                ),
                provenance=IDENTITY,
            )
        ),
        Message.result("w-2", True, "wrote settings.toml"),
        Message.result("w-3", True, "wrote the key file"),
        Message.enriched(
            AssistantMessage(content=(ContentBlock.of_text("Rotated."),), provenance=IDENTITY)
        ),
    ]


def canary_home(root: Path) -> Path:
    """A Rho home whose sessions hold every secret the export tests plant, in every location they
    know (text, tool arguments and results, metadata, the title, a path, a folder name, diffs),
    and a usage ledger naming them."""
    home = root / "home"
    home.mkdir(parents=True)
    snapshot = canary_snapshot(extra=[*secrets_messages(), *_writes_with_secrets()])
    create_session(
        home,
        CANARY_CWD,
        snapshot,
        created=1_790_000_000,
        clock=lambda: 1_790_000_100,
        take_lease=False,
    ).close()
    other = SessionSnapshot.new(
        PATH_ID,
        1,
        (
            Message.user_text(f"deploy from this folder with {SECRETS[0].value}"),
            Message.assistant_text(f"Deployed with {SECRETS[5].text}."),
        ),
        IDENTITY,
    )
    create_session(
        home,
        SECRET_CWD,
        other,
        created=1_790_000_200,
        clock=lambda: 1_790_000_300,
        take_lease=False,
    ).close()
    index_home(
        home,
        titles=[(CANARY_CWD, CANARY_ID, f"deploy with {TITLE_SECRET}")],
        cache_dir=root / "index-cache",
    )
    make_ledger(
        home / "usage.sqlite3",
        [
            row(session_id=CANARY_ID, workspace_path=CANARY_CWD, model="gpt-5"),
            row(session_id=PATH_ID, workspace_path=SECRET_CWD, model=f"model-{SECRETS[7].value}"),
        ],
    )
    return home


def environment(tmp_path: Path, **extra: str) -> dict[str, str]:
    """A user with private cache, config and data folders, no keyring, and no other agent's
    sessions but those ``extra`` points at (each agent's data folder variable)."""
    base = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DBUS_SESSION_BUS_ADDRESS", "RHO_DESK_KEY_FILE")
    }
    return {
        **base,
        "PYTHONPATH": str(REPO),
        "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
        "RHO_DESK_CONFIG_DIR": str(tmp_path / "config"),
        "RHO_DESK_CACHE_DIR": str(tmp_path / "cache"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "RHO_HOME": str(tmp_path / "no-home"),
        "CLAUDE_CONFIG_DIR": str(tmp_path / "no-claude"),
        "CODEX_HOME": str(tmp_path / "no-codex"),
        "GEMINI_CLI_HOME": str(tmp_path / "no-gemini"),
        "PI_CODING_AGENT_DIR": str(tmp_path / "no-pi"),
        **extra,
    }


def command(*args: str) -> list[str]:
    return [sys.executable, "-m", "rho_desk", "mcp", *args]


def answer_text(result: Any) -> str:
    """Everything a tool result carries, as one string (content blocks and structured content)."""
    parts = [getattr(block, "text", "") or "" for block in result.content]
    if result.structured_content is not None:
        parts.append(json.dumps(result.structured_content, ensure_ascii=False))
    return "\n".join(parts)
