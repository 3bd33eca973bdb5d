"""Exports that hold up: no keyring required, signed receipts a recipient verifies, the
conversation as shown, and outputs that never replace their input. Run as subprocesses, as a
user runs them (``rho`` and the ``env`` keyring of ``test_export_cli``)."""

from __future__ import annotations

import hashlib
import html
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from rho_desk.core.wire.codec import decode_snapshot, encode_pretty

from ..core.export.builders import KNOWN, canary_snapshot, secrets_messages
from . import test_export_cli
from .test_export_cli import REPO, rho

env = test_export_cli.env  # the same fixture: a keyring file and a config holding one credential


def no_dbus_env(tmp_path: Path) -> dict[str, str]:
    """A machine with no keyring at all: no D-Bus session, keyring's fail backend."""
    environ = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DBUS_SESSION_BUS_ADDRESS", "RHO_DESK_KEY_FILE")
    }
    return {
        **environ,
        "PYTHONPATH": str(REPO),
        "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
        "RHO_DESK_CONFIG_DIR": str(tmp_path / "config"),
    }


@pytest.fixture
def legacy(tmp_path: Path, rho_fixtures: Path) -> Path:
    """Upstream's v1 transcript: one compaction; 4 messages as shown, 2 in the model context."""
    path = tmp_path / "session-v1.jsonl"
    path.write_bytes((rho_fixtures / "session-v1.jsonl").read_bytes())
    return path


def _public_key(environ: dict[str, str], cwd: Path, *extra: str) -> str:
    out = rho(environ, cwd, "keys", *extra)
    assert out.returncode == 0, out.stderr
    return out.stdout.splitlines()[0]


# --- no keyring required --------------------------------------------------------------------


def test_export_and_verify_on_a_machine_without_any_keyring(tmp_path: Path, legacy: Path) -> None:
    environ = no_dbus_env(tmp_path)
    out = rho(environ, tmp_path, "export", str(legacy), "--include", "all", "-o", "shared.md")
    assert out.returncode == 0, out.stderr
    key_file = tmp_path / "config" / "keys"
    assert oct(key_file.stat().st_mode & 0o777) == "0o600"
    assert oct(key_file.parent.stat().st_mode & 0o777) == "0o700"
    # one line per key created, as ssh announces a new host key; nothing else on stderr
    notices = out.stderr.splitlines()
    assert len(notices) == 2 and all(f"in {key_file}" in n for n in notices), out.stderr
    again = rho(environ, tmp_path, "export", str(legacy), "--include", "all", "-o", "again.md")
    assert again.returncode == 0 and again.stderr == ""  # created once, then used
    public = _public_key(environ, tmp_path)
    assert public.startswith("ed25519:")
    audit = rho(environ, tmp_path, "audit", "shared.md", "--verify-key", public)
    assert audit.returncode == 0, audit.stdout + audit.stderr
    assert "signature valid" in audit.stdout and "size matches" in audit.stdout


def test_a_key_file_option_overrides_where_keys_live(tmp_path: Path, legacy: Path) -> None:
    environ = no_dbus_env(tmp_path)
    mine = tmp_path / "secrets" / "rho-desk.keys"
    out = rho(
        environ,
        tmp_path,
        "export",
        str(legacy),
        "--include",
        "all",
        "-o",
        "a.json",
        "--key-file",
        str(mine),
    )
    assert out.returncode == 0, out.stderr
    assert mine.is_file() and not (tmp_path / "config" / "keys").exists()
    public = _public_key(environ, tmp_path, "--key-file", str(mine))
    assert (
        rho(
            environ, tmp_path, "audit", "a.json", "--verify-key", public, "--key-file", str(mine)
        ).returncode
        == 0
    )
    # another key (the default file's, created now) is not the signer
    other = _public_key(environ, tmp_path)
    assert other != public
    failed = rho(environ, tmp_path, "audit", "a.json", "--verify-key", other)
    assert failed.returncode == 1 and "signed with another key" in failed.stderr


def test_a_key_file_others_can_read_is_refused(tmp_path: Path, legacy: Path) -> None:
    environ = no_dbus_env(tmp_path)
    assert rho(environ, tmp_path, "keys").returncode == 0
    key_file = tmp_path / "config" / "keys"
    key_file.chmod(0o644)
    out = rho(environ, tmp_path, "export", str(legacy), "--include", "all", "-o", "x.json")
    assert out.returncode == 2 and "readable by others" in out.stderr and "chmod 600" in out.stderr
    assert "Traceback" not in out.stderr and not (tmp_path / "x.json").exists()


# --- signed receipts ------------------------------------------------------------------------


def _fix_receipt(receipt_path: Path, data: bytes) -> None:
    receipt = json.loads(receipt_path.read_text())
    receipt["output"]["sha256"] = hashlib.sha256(data).hexdigest()
    receipt["output"]["bytes"] = len(data)
    receipt_path.write_text(json.dumps(receipt, indent=2))


def test_a_hand_edited_export_with_a_fixed_up_receipt_fails_verification(
    env: dict[str, str], tmp_path: Path
) -> None:
    session = tmp_path / "session.json"
    session.write_bytes(encode_pretty(canary_snapshot(extra=secrets_messages())))
    out = rho(env, tmp_path, "export", str(session), "--include", "all", "-o", "shared.json")
    assert out.returncode == 0, out.stderr
    public = _public_key(env, tmp_path)
    export, receipt_path = tmp_path / "shared.json", tmp_path / "shared.json.receipt.json"
    assert rho(env, tmp_path, "audit", "shared.json", "--verify-key", public).returncode == 0

    # an edit no rule can see (a changed sentence), with the receipt's hash and size fixed by hand:
    # the plain audit is satisfied, the signature is not
    original = export.read_bytes()
    edited = original.replace(b"CANARY_USER_TEXT", b"CANARY_USER_EDIT", 1)
    assert edited != original
    export.write_bytes(edited)
    _fix_receipt(receipt_path, edited)
    plain = rho(env, tmp_path, "audit", "shared.json")
    assert plain.returncode == 0 and "sha256 matches" in plain.stdout
    verified = rho(env, tmp_path, "audit", "shared.json", "--verify-key", public)
    assert verified.returncode == 1
    assert "signature FAILED" in verified.stdout and "changed after signing" in verified.stderr

    # a key re-inserted in place of its redaction, receipt fixed again: fails too
    redacted = json.loads(receipt_path.read_text())["redactions"]
    assert redacted
    text = original.decode()
    start = text.index("[secret redacted:")
    reinserted = (text[:start] + KNOWN + text[text.index("]", start) + 1 :]).encode()
    export.write_bytes(reinserted)
    _fix_receipt(receipt_path, reinserted)
    verified = rho(env, tmp_path, "audit", "shared.json", "--verify-key", public)
    assert verified.returncode == 1 and "signature FAILED" in verified.stdout


def test_audit_names_every_failed_check_even_only_the_size(
    env: dict[str, str], tmp_path: Path, legacy: Path
) -> None:
    assert (
        rho(env, tmp_path, "export", str(legacy), "--include", "all", "-o", "s.md").returncode == 0
    )
    receipt_path = tmp_path / "s.md.receipt.json"
    receipt = json.loads(receipt_path.read_text())
    receipt["output"]["bytes"] += 1  # only the byte count is wrong
    receipt_path.write_text(json.dumps(receipt))
    audit = rho(env, tmp_path, "audit", "s.md")
    assert audit.returncode == 1
    assert "size DOES NOT MATCH" in audit.stdout and "sha256 matches" in audit.stdout
    assert "FAILED: size does not match" in audit.stderr
    report = json.loads(rho(env, tmp_path, "audit", "s.md", "--json").stdout)
    assert report["receipt"]["size_ok"] is False and report["receipt"]["failures"]


def test_an_unsigned_or_missing_receipt_does_not_verify(
    env: dict[str, str], tmp_path: Path, legacy: Path
) -> None:
    assert (
        rho(env, tmp_path, "export", str(legacy), "--include", "all", "-o", "s.md").returncode == 0
    )
    public = _public_key(env, tmp_path)
    receipt_path = tmp_path / "s.md.receipt.json"
    receipt = json.loads(receipt_path.read_text())
    del receipt["signature"]
    receipt_path.write_text(json.dumps(receipt))
    unsigned = rho(env, tmp_path, "audit", "s.md", "--verify-key", public)
    assert unsigned.returncode == 1 and "not signed" in unsigned.stderr
    receipt_path.unlink()
    missing = rho(env, tmp_path, "audit", "s.md", "--verify-key", public)
    assert missing.returncode == 2 and "Traceback" not in missing.stderr
    bad = rho(env, tmp_path, "audit", "s.md", "--verify-key", "ed25519:nope")
    assert bad.returncode == 2 and "not an Ed25519 public key" in bad.stderr


# --- the conversation as shown --------------------------------------------------------------


def test_after_a_compaction_the_display_export_has_the_whole_conversation(
    env: dict[str, str], tmp_path: Path, legacy: Path
) -> None:
    out = rho(env, tmp_path, "export", str(legacy), "--include", "all", "-o", "shown.json")
    assert out.returncode == 0, out.stderr
    document = json.loads((tmp_path / "shown.json").read_text())
    assert document["format"] == "rho-desk.display-export" and document["history"] == "display"
    texts = [json.dumps(m["message"]) for m in document["messages"]]
    assert len(texts) == 4 and "legacy answer" in texts[1] and "Compacted context" in texts[2]
    assert all(m["timestamp"] for m in document["messages"])
    assert json.loads((tmp_path / "shown.json.receipt.json").read_text())["history"] == "display"
    for fmt in ("md", "html"):
        shown = rho(env, tmp_path, "export", str(legacy), "--include", "all", "-o", f"shown.{fmt}")
        assert shown.returncode == 0 and "legacy answer" in (tmp_path / f"shown.{fmt}").read_text()

    model = rho(
        env,
        tmp_path,
        "export",
        str(legacy),
        "--include",
        "all",
        "--history",
        "model",
        "-o",
        "model.json",
    )
    assert model.returncode == 0, model.stderr
    snapshot = decode_snapshot((tmp_path / "model.json").read_bytes())
    assert [m.text() for m in snapshot.history] == [
        "compacted legacy summary",
        "answer after compaction",
    ]
    assert json.loads((tmp_path / "model.json.receipt.json").read_text())["history"] == "model"
    audit = rho(env, tmp_path, "audit", "shown.json")
    assert audit.returncode == 0 and "display, 0 finding(s)" in audit.stdout


def test_a_snapshot_document_has_no_display_history(env: dict[str, str], tmp_path: Path) -> None:
    session = tmp_path / "snap.json"
    session.write_bytes(encode_pretty(canary_snapshot()))
    out = rho(env, tmp_path, "export", str(session), "--include", "all", "--history", "display")
    assert out.returncode == 2 and "only the model context" in out.stderr
    default = rho(env, tmp_path, "export", str(session), "--include", "all", "-o", "d.json")
    assert default.returncode == 0 and "only the model context" in default.stderr


# --- output safety --------------------------------------------------------------------------


def test_the_output_is_never_the_input(env: dict[str, str], tmp_path: Path, legacy: Path) -> None:
    before = legacy.read_bytes()
    link = tmp_path / "link.jsonl"
    link.symlink_to(legacy)
    hard = tmp_path / "hard.jsonl"
    os.link(legacy, hard)
    for target in (legacy.name, str(legacy), "./" + legacy.name, link.name, hard.name):
        out = rho(
            env,
            tmp_path,
            "export",
            str(legacy),
            "--include",
            "all",
            "--format",
            "json",
            "-o",
            target,
            "--force",
        )
        assert out.returncode == 2, (target, out.stdout, out.stderr)
        assert "it is the input" in out.stderr and "Traceback" not in out.stderr
    # the receipt may not replace the input either
    out = rho(
        env,
        tmp_path,
        "export",
        str(legacy),
        "--include",
        "all",
        "-o",
        "x.md",
        "--receipt",
        str(legacy),
        "--force",
    )
    assert out.returncode == 2
    assert legacy.read_bytes() == before and link.is_symlink()


def test_force_replaces_a_symlink_never_its_target(
    env: dict[str, str], tmp_path: Path, legacy: Path
) -> None:
    precious = tmp_path / "precious.txt"
    precious.write_text("do not overwrite me\n")
    link = tmp_path / "out.md"
    link.symlink_to(precious)
    refused = rho(env, tmp_path, "export", str(legacy), "--include", "all", "-o", "out.md")
    assert refused.returncode == 2 and "--force" in refused.stderr
    out = rho(env, tmp_path, "export", str(legacy), "--include", "all", "-o", "out.md", "--force")
    assert out.returncode == 0, out.stderr
    assert precious.read_text() == "do not overwrite me\n"
    assert not link.is_symlink() and "legacy answer" in link.read_text()


def test_stale_temporary_files_of_a_killed_export_are_removed(
    env: dict[str, str], tmp_path: Path, legacy: Path
) -> None:
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    dead_pid = int(dead.stdout)  # that process has exited
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    stale = out_dir / f".tmp-shared.md-{dead_pid}-0a1b2c3d"
    stale.write_text("half an export")
    old = out_dir / f".tmp-other.md-{os.getpid()}-00ff00ff"  # a live process's, but a day old
    old.write_text("x")
    os.utime(old, (1, 1))
    live = out_dir / f".tmp-busy.md-{os.getpid()}-0badf00d"  # a live writer's: kept
    live.write_text("y")
    mine_not = out_dir / ".tmp-notes"  # not a name of ours: kept
    mine_not.write_text("z")
    out = rho(env, tmp_path, "export", str(legacy), "--include", "all", "-o", "out/shared.md")
    assert out.returncode == 0, out.stderr
    assert not stale.exists() and not old.exists()
    assert live.exists() and mine_not.exists()


# --- HTML polish ----------------------------------------------------------------------------


def test_html_title_is_the_sessions_title_and_tables_are_tables(
    env: dict[str, str], tmp_path: Path, rho_fixtures: Path
) -> None:
    import sqlite3

    from rho_desk.core.stores.rho_files.reader import read_session
    from rho_desk.core.stores.rho_files.writer import SessionWriter
    from rho_desk.core.wire import Message

    home = tmp_path / "home"
    folder = home / "sessions" / "ws"
    folder.mkdir(parents=True)
    source = rho_fixtures / "session-v3.jsonl"
    session_id = read_session(source).tree.session_id
    path = folder / f"100_{session_id}.jsonl"
    path.write_bytes(source.read_bytes())
    file = read_session(path)
    table = "| tool | runs |\n| --- | --- |\n| pytest | 3 |\n"
    writer = SessionWriter(file, take_lease=False)
    snapshot = file.tree.snapshot()
    writer.save(
        snapshot.replace(
            revision=snapshot.revision + 1,
            history=snapshot.history + (Message.user_text("sum up"), Message.assistant_text(table)),
        )
    )
    writer.close()
    db = sqlite3.connect(home / "sessions" / "index.sqlite3")
    db.executescript((rho_fixtures / "index-v1.sql").read_text())
    db.execute("update sessions set id = ?, title = ?", (session_id, "Fix <the> flaky   build"))
    db.commit()
    db.close()

    out = rho(env, tmp_path, "export", str(path), "--include", "all", "-o", "t.html")
    assert out.returncode == 0, out.stderr
    page = (tmp_path / "t.html").read_text()
    assert (
        "<title>Fix &lt;the&gt; flaky build</title>" in page
        and "<h1>Fix &lt;the&gt; flaky build</h1>" in page
    )
    assert "<table>" in page and "<th>tool</th>" in page and "<td>pytest</td>" in page
    assert "| --- |" not in page
    md = rho(env, tmp_path, "export", str(path), "--include", "all", "-o", "t.md")
    assert md.returncode == 0 and (tmp_path / "t.md").read_text().startswith(
        "# Fix <the> flaky build\n"
    )
    # leaving metadata out leaves the title out too (it is metadata): the first prompt heads it
    bare = rho(env, tmp_path, "export", str(path), "--exclude", "metadata", "-o", "bare.html")
    assert bare.returncode == 0 and "flaky" not in (tmp_path / "bare.html").read_text()
    from rho_desk.core.stores.rho_files.views import user_text

    first = next(t for m in file.tree.history() if (t := user_text(m))).splitlines()[0]
    assert (
        f"<title>{html.escape(' '.join(first.split())[:79])}"
        in (tmp_path / "bare.html").read_text()
    )
    # and without the prompts either, the heading says only what it is
    none = rho(env, tmp_path, "export", str(path), "--exclude", "metadata,user", "-o", "none.md")
    assert none.returncode == 0 and (tmp_path / "none.md").read_text().startswith("# rho session\n")
