"""A file in the workspace hard-linked to one outside counts as outside (issue 32, item 5).

No path shows a hard link: ``project/notes.txt`` and ``elsewhere/id_ed25519`` are one file under
two names. Its ``stat`` does (``st_nlink > 1``). Every tool that would read it (``read_file``,
``grep``, and ``write`` and ``edit``, which read it for the diff they ask approval with) refuses
it and says why, unless the user granted that file; a link made between the resolution and the
read is caught on the descriptor; and end to end, the provider never receives the other file's
content.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from rho_desk.core.tools import ToolError, ToolOutput
from rho_desk.core.tools.permissions import PermissionMode
from rho_desk.core.tools.text import file_hash

from ..core.tools.test_workspace_and_modes import call, toolset
from ..providers.loopback import Loopback, serve
from ..providers.test_cli_continue import make_session, text_reply, tool_reply

SECRET = "-----BEGIN OPENSSH PRIVATE KEY----- hardlinked-secret-0451"


@pytest.fixture
def linked(tmp_path: Path) -> tuple[Path, Path]:
    """``project/notes.txt`` is a hard link to ``elsewhere/key``."""
    root, outside = tmp_path / "project", tmp_path / "elsewhere"
    root.mkdir()
    outside.mkdir()
    (outside / "key").write_text(SECRET + "\n")
    os.link(outside / "key", root / "notes.txt")
    (root / "plain.txt").write_text("plain\n")
    return root, outside


def _refused(result: ToolOutput | ToolError) -> str:
    assert isinstance(result, ToolError), result
    assert SECRET not in str(result)
    return str(result)


@pytest.mark.asyncio
async def test_every_tool_refuses_a_hard_linked_file_and_says_why(
    linked: tuple[Path, Path],
) -> None:
    root, outside = linked
    tools = toolset(root, PermissionMode.BYPASS)
    assert "2 hard links" in _refused(await call(tools, "read_file", path="notes.txt"))
    assert "counts as outside" in _refused(
        await call(tools, "write", path="notes.txt", content="mine\n")
    )
    edit = f"[notes.txt#{file_hash(SECRET + chr(10))}]\nPUT 1:\n+replaced\n"
    assert "hard links" in _refused(await call(tools, "edit", input=edit))
    assert (outside / "key").read_text() == SECRET + "\n"  # nothing written through it
    found = await call(tools, "grep", pattern="BEGIN|plain")
    assert (
        isinstance(found, ToolOutput)
        and SECRET not in found.content
        and "plain.txt" in found.content
    )
    assert "1 files with several hard links not searched" in found.content
    listed = await call(tools, "list_dir", path=".")
    assert isinstance(listed, ToolOutput) and "notes.txt" in listed.content  # a name is not content


@pytest.mark.asyncio
async def test_a_granted_file_may_be_used(linked: tuple[Path, Path]) -> None:
    root, _outside = linked
    tools = toolset(root, PermissionMode.BYPASS, granted=(root / "notes.txt",))
    read = await call(tools, "read_file", path="notes.txt")
    assert isinstance(read, ToolOutput) and SECRET in read.content


@pytest.mark.asyncio
async def test_a_link_made_after_the_path_was_resolved_is_caught_on_the_descriptor(
    tmp_path: Path,
) -> None:
    from rho_desk.core.tools import ToolInvocation

    from ..core.tools.test_workspace_and_modes import context

    root, outside = tmp_path / "project", tmp_path / "elsewhere"
    root.mkdir()
    outside.mkdir()
    (outside / "key").write_text(SECRET + "\n")
    (root / "notes.txt").write_text("mine\n")
    tools = toolset(root, PermissionMode.BYPASS)
    prepared = await tools["read_file"].prepare(
        ToolInvocation("c1", "read_file", {"path": "notes.txt"}), context()
    )
    (root / "notes.txt").unlink()
    os.link(outside / "key", root / "notes.txt")  # swapped in before the read runs
    with pytest.raises(ToolError, match="hard links"):
        await prepared.execute(context())


@pytest_asyncio.fixture
async def server() -> AsyncIterator[Loopback]:
    async for loopback in serve():
        yield loopback


@pytest.mark.asyncio
async def test_the_provider_never_receives_a_hard_linked_files_content(
    server: Loopback, tmp_path: Path, linked: Any
) -> None:
    root, _outside = linked
    path = make_session(tmp_path, root)
    server.queue(tool_reply("c1", "read_file", {"path": "notes.txt"}), text_reply("Done."))
    env = {
        **os.environ,
        "RHO_DESK_CONFIG_DIR": str(tmp_path / "config"),
        "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
    }
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "rho_desk",
        "continue",
        str(path),
        "-m",
        "read notes.txt",
        "--base-url",
        server.url + "/v1",
        "--model",
        "m",
        "--tools",
        "plan",
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=env,
        cwd=root,
    )
    out, err = await asyncio.wait_for(process.communicate(), timeout=60)
    assert process.returncode == 0, err.decode()
    sent = " ".join(str(r.body) for r in server.requests)
    assert len(server.requests) == 2 and SECRET not in sent and "hard links" in sent
    assert SECRET not in out.decode() + err.decode()
