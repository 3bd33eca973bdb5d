"""Workspace trust: a session file's folder is a claim, not a grant.

Attacks: a session whose recorded folder is ``/``, the home folder, a link to ``/`` or a folder
holding rho-desk's keys, continued against a real loopback model server that asks ``read_file``
on a secret outside any project. The tools must not run (nothing is sent, nothing is read); the
command line exits 2 naming the folder and the words to use; ``--trust-workspace`` is remembered
(0600 file) and revocable; the window asks in a box and Settings revokes.
"""

# Fixtures come from the app's and the providers' conftest files (imported, not copied); a test
# argument naming one is not a redefinition.
# ruff: noqa: F811

from __future__ import annotations

import asyncio
import json
import os
import stat
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QApplication

from rho_desk.core.stores.rho_files import create_session, read_session
from rho_desk.core.system.dirs import config_dir
from rho_desk.core.tools.trust import TRUST_FILE, TrustStore, WorkspaceRefused, refusal
from rho_desk.core.wire.model import AssistantMessage, ContentBlock, Message, ModelIdentity
from rho_desk.core.wire.snapshot import SessionSnapshot
from tests.providers.conftest import server  # noqa: F401
from tests.providers.loopback import OPENAI_DONE, Loopback, Reply, openai_chunk
from tests.qt.conftest import collect_garbage_here, isolated_dirs, make_window, qloop, run  # noqa: F401
from tests.qt.dialogs.conftest import loopback, loopback_profile, text_reply, until  # noqa: F401

IDENTITY = ModelIdentity("openai", "chat-completions", "m")
SECRET = "PRIVATE-KEY-4f1c2a9e7b3d5c8e0a6b"


def tool_reply(call_id: str, name: str, arguments: dict[str, Any]) -> Reply:
    first = {
        "index": 0,
        "id": call_id,
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(arguments)},
    }
    return Reply(
        chunks=[
            openai_chunk({"role": "assistant", "content": None, "tool_calls": [first]}),
            openai_chunk({}, finish="tool_calls"),
            OPENAI_DONE,
        ]
    )


def plain_reply(text: str) -> Reply:
    return Reply(
        chunks=[
            openai_chunk({"role": "assistant", "content": text}),
            openai_chunk({}, finish="stop"),
            OPENAI_DONE,
        ]
    )


def session_in(home: Path, cwd: str) -> Path:
    history = (
        Message.system_text("You are Rho."),
        Message.user_text("hello"),
        Message.enriched(
            AssistantMessage(content=(ContentBlock(text="Hi."),), provenance=IDENTITY)
        ),
    )
    with create_session(
        home, cwd, SessionSnapshot.new(str(uuid.uuid4()), 2, history, IDENTITY)
    ) as writer:
        return writer.path


def secret_file(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "id_ed25519"
    path.write_text(SECRET + "\n")
    return path


async def rho_desk(*argv: str) -> tuple[int, str, str]:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "rho_desk",
        *argv,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    out, err = await asyncio.wait_for(process.communicate(), timeout=60)
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


def sent(server: Loopback) -> str:
    return json.dumps([r.body for r in server.requests])


def endpoint(server: Loopback) -> list[str]:
    return ["--base-url", server.url + "/v1", "--model", "m"]


# --- the rules ----------------------------------------------------------------------------------


def test_the_folders_tools_never_run_in(isolated_dirs: Path, tmp_path: Path) -> None:
    home = Path(os.environ["HOME"])
    project = tmp_path / "project"
    project.mkdir()
    (tmp_path / "to-root").symlink_to("/")
    assert refusal(project) is None
    assert refusal(home / "src" / "app") is None  # a project inside the home folder is fine
    assert refusal("/") == "it is the root of the file system"
    assert (
        refusal(tmp_path / "to-root") == "it is the root of the file system"
    )  # real paths are compared
    assert refusal(home) is not None and "home folder" in (refusal(home) or "")
    assert refusal(home / ".ssh") is not None and refusal(home / ".ssh" / "keys") is not None
    for system in ("/etc", "/usr", "/var", "/tmp", "/bin", "/proc", "/dev", "/boot", "/opt"):
        assert refusal(system) is not None, system
    assert "inside /etc" in (refusal("/etc/ssh") or "")  # secrets: everything inside too
    assert refusal(config_dir()) is not None and refusal(config_dir() / "sub") is not None
    assert "contains" in (refusal(isolated_dirs) or "")  # holds rho-desk's config folder
    assert refusal(home / ".rho") is not None and refusal(home / ".rho" / "sessions") is not None
    os.environ["RHO_HOME"] = str(project / "rho-data")
    try:
        assert "contains" in (
            refusal(project) or ""
        )  # Rho's home inside: the project holds sessions
    finally:
        del os.environ["RHO_HOME"]
    store = TrustStore()
    with pytest.raises(WorkspaceRefused):
        store.trust(tmp_path / "to-root")
    assert store.folders() == ()


def test_the_trust_file_is_private_and_revocable(isolated_dirs: Path, tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / "sub").mkdir(parents=True)
    store = TrustStore()
    assert store.trust(project) == project.resolve()
    assert store.path == config_dir() / TRUST_FILE
    assert stat.S_IMODE(store.path.stat().st_mode) == 0o600
    assert store.is_trusted(project / "sub")  # a trusted folder covers its subfolders
    assert not store.is_trusted(tmp_path)
    assert store.revoke(project) and not store.is_trusted(project) and not store.revoke(project)
    store.path.write_text('{"version": 1, "folders": [{"path": "relative"}]}')
    with pytest.raises(Exception, match=str(store.path)):
        store.folders()


# --- the command line ---------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_a_session_in_the_root_folder_reads_nothing(
    server: Loopback, isolated_dirs: Path, tmp_path: Path
) -> None:
    secret = secret_file(tmp_path / "elsewhere")
    path = session_in(tmp_path / "rho", "/")
    server.queue(tool_reply("c1", "read_file", {"path": str(secret)}), plain_reply("done"))
    status, _out, err = await rho_desk("continue", str(path), "-m", "read it", *endpoint(server))
    assert status == 2, err
    assert "tools never run in / (it is the root of the file system)" in err
    assert "--workspace DIR" in err and "--tools off" in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1
    # asked to trust it: still refused, nothing remembered
    status, _out, err = await rho_desk(
        "continue", str(path), "-m", "read it", *endpoint(server), "--trust-workspace"
    )
    assert status == 2 and "root of the file system" in err
    assert TrustStore().folders() == ()
    assert not server.requests and SECRET not in sent(server)
    assert read_session(path).tree.snapshot().revision == 2


@pytest.mark.asyncio
async def test_a_session_in_the_home_folder_reads_no_key(
    server: Loopback, isolated_dirs: Path, tmp_path: Path
) -> None:
    home = Path(os.environ["HOME"])
    secret = secret_file(home / ".ssh")
    path = session_in(tmp_path / "rho", str(home))
    server.queue(tool_reply("c1", "read_file", {"path": ".ssh/id_ed25519"}), plain_reply("done"))
    for extra in ((), ("--trust-workspace",), ("--tools", "plan", "--trust-workspace")):
        status, _out, err = await rho_desk(
            "continue", str(path), "-m", "read it", *endpoint(server), *extra
        )
        assert status == 2, err
        assert f"tools never run in {home.resolve()} (it is your home folder itself" in err
    # --workspace must pass the same rules: a link to / is /
    (tmp_path / "to-root").symlink_to("/")
    status, _out, err = await rho_desk(
        "continue",
        str(path),
        "-m",
        "x",
        *endpoint(server),
        "--workspace",
        str(tmp_path / "to-root"),
        "--trust-workspace",
    )
    assert status == 2 and "tools never run in / " in err
    assert not server.requests and SECRET not in sent(server) and secret.exists()


@pytest.mark.asyncio
async def test_an_untrusted_folder_asks_once_then_is_remembered_until_revoked(
    server: Loopback, isolated_dirs: Path, tmp_path: Path
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "notes.txt").write_text("alpha\n")
    path = session_in(tmp_path / "rho", str(project))
    status, _out, err = await rho_desk("continue", str(path), "-m", "go", *endpoint(server))
    assert status == 2 and not server.requests
    assert f"the tools' folder {project.resolve()} is not trusted on this machine" in err
    assert "--trust-workspace trusts it" in err and "--workspace DIR" in err and str(path) in err

    server.queue(tool_reply("c1", "read_file", {"path": "notes.txt"}), plain_reply("Read it."))
    status, out, err = await rho_desk(
        "continue", str(path), "-m", "go", *endpoint(server), "--trust-workspace", "--json"
    )
    assert status == 0, err
    finished = [json.loads(line) for line in out.splitlines() if '"tool_finished"' in line]
    assert finished[0]["ok"] and "alpha" in finished[0]["content"]
    store = TrustStore()
    assert [f.path for f in store.folders()] == [project.resolve()]
    assert stat.S_IMODE(store.path.stat().st_mode) == 0o600

    server.queue(plain_reply("Again."))
    status, _out, err = await rho_desk("continue", str(path), "-m", "again", *endpoint(server))
    assert status == 0, err  # remembered: no question

    assert store.revoke(project)
    status, _out, err = await rho_desk("continue", str(path), "-m", "once more", *endpoint(server))
    assert status == 2 and "is not trusted on this machine" in err
    assert len(server.requests) == 3


@pytest.mark.asyncio
async def test_without_tools_nothing_is_asked(
    server: Loopback, isolated_dirs: Path, tmp_path: Path
) -> None:
    path = session_in(tmp_path / "rho", "/")
    server.queue(plain_reply("No tools needed."))
    status, out, err = await rho_desk(
        "continue", str(path), "-m", "hi", *endpoint(server), "--tools", "off"
    )
    assert status == 0, err
    assert out == "No tools needed.\n" and "tools" not in server.requests[0].body


# --- the window ---------------------------------------------------------------------------------


def _box() -> Any:
    from rho_desk.qt.continue_.trust import WorkspaceTrustBox

    boxes = [
        w
        for w in QApplication.topLevelWidgets()
        if isinstance(w, WorkspaceTrustBox) and w.isVisible()
    ]
    return boxes[0] if boxes else None


def _panel(
    make_window: Any, run: Any, path: Path, mode: str = "supervised"
) -> tuple[Any, Any, Any]:
    context = make_window(open_file=path)
    context.continue_dock.show_continue()
    run(
        until(lambda: context.continue_dock.panel.profile.count() > 0)
    )  # the panel has read the profiles
    panel = context.continue_dock.panel
    panel.mode_picker.setCurrentIndex(panel.mode_picker.findData(mode))
    return context, context.controller, panel


def test_the_window_asks_before_tools_run_in_an_untrusted_folder(
    make_window, run, tmp_path: Path, loopback: Loopback, loopback_profile
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "notes.txt").write_text("alpha\n")
    path = session_in(tmp_path / "rho", str(project))
    _context, controller, panel = _panel(make_window, run, path)
    panel.composer.setPlainText("read the notes")
    panel.send()
    run(until(lambda: _box() is not None))
    box = _box()
    assert str(project.resolve()) in box.text() and str(path) in box.informativeText()
    assert box.trust_button is not None and box.defaultButton() is box.cancel_button
    assert not loopback.requests and not controller.busy  # nothing sent while it asks
    loopback.queue(tool_reply("c1", "read_file", {"path": "notes.txt"}), text_reply("Read it."))
    box.trust_button.click()
    run(until(lambda: len(loopback.requests) == 2 and not controller.busy))
    assert [f.path for f in TrustStore().folders()] == [project.resolve()]
    assert "alpha" in json.dumps(loopback.requests[1].body)
    # remembered: the next turn does not ask
    loopback.queue(text_reply("Again."))
    panel.composer.setPlainText("again")
    panel.send()
    run(until(lambda: len(loopback.requests) == 3 and not controller.busy))
    assert _box() is None


def test_the_window_never_trusts_the_home_folder(
    make_window, run, tmp_path: Path, loopback: Loopback, loopback_profile
) -> None:
    home = Path(os.environ["HOME"])
    secret = secret_file(home / ".ssh")
    path = session_in(tmp_path / "rho", str(home))
    _context, controller, panel = _panel(make_window, run, path, "plan")
    panel.composer.setPlainText("read my key")
    panel.send()
    run(until(lambda: _box() is not None))
    box = _box()
    assert box.trust_button is None and "home folder" in box.text()
    assert not loopback.requests
    loopback.queue(
        tool_reply("c1", "read_file", {"path": str(secret)}), text_reply("No tools here.")
    )
    box.without_button.click()
    run(until(lambda: len(loopback.requests) >= 1 and not controller.busy))
    assert "tools" not in loopback.requests[0].body and SECRET not in json.dumps(
        [r.body for r in loopback.requests]
    )
    assert TrustStore().folders() == ()


def test_settings_lists_and_revokes_trusted_folders(make_window, run, tmp_path: Path) -> None:
    first, second = tmp_path / "one", tmp_path / "two"
    first.mkdir()
    second.mkdir()
    store = TrustStore()
    store.trust(first)
    store.trust(second)
    context = make_window()
    dialog = context.session_commands.show_dialog("settings")
    run(until(lambda: dialog.trusted.count() == 2))  # the trusted folders are read
    listed = [dialog.trusted.item(i).text() for i in range(dialog.trusted.count())]
    assert listed == [str(first.resolve()), str(second.resolve())]
    dialog.trusted.setCurrentRow(0)
    dialog.revoke.click()
    run(until(lambda: dialog.trusted.count() == 1))
    assert [f.path for f in store.folders()] == [second.resolve()]
    assert [dialog.trusted.item(i).text() for i in range(dialog.trusted.count())] == [
        str(second.resolve())
    ]
