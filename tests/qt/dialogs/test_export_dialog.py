"""The export dialog: class counts, the debounced live preview, findings, blocking and override,
and the written export with a receipt that verifies against a fresh audit."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from rho_desk.core.export import (
    ALL_CLASSES,
    ContentClass,
    Finding,
    Severity,
    decode_receipt,
)
from rho_desk.core.stores.rho_files import create_session
from rho_desk.core.wire import ContentBlock, ImageContent, Message, SessionSnapshot
from rho_desk.providers.credentials import set_api_key
from rho_desk.qt.export import dialog as export_module

from ..conftest import idle, laid_out, until
from ..helpers import PROVIDER, turn
from .conftest import audit_written, demo_session

SECRET = "correct-horse-battery-staple-4711-xyzzy"  # no rule matches it: only the keyring knows it
TOKEN = "ghp_" + "a1B2c3D4e5" * 3 + "abcdef"


def _session_with_secret(home: Path) -> Path:
    """A v3 session whose user typed a stored key, and whose tool output holds a GitHub token."""
    png = base64.b64encode(b"GIF89a-not-a-png").decode()
    call = ContentBlock.of_tool_call("call_t", "read_file", {"path": ".env"})
    history = (
        Message.system_text("You are careful."),
        Message.user_blocks(
            [
                ContentBlock.of_text(f"use my key {SECRET} please"),
                ContentBlock(image=ImageContent(png, "image/png")),
            ]
        ),
        Message.assistant_blocks([call]),
        Message.result("call_t", True, f"GITHUB_TOKEN={TOKEN}"),
        *turn(1),
    )
    snapshot = SessionSnapshot.new(
        "6f9d1c2e-0000-4000-8000-000000000001", 4, history, PROVIDER, metadata={"team": "core"}
    )
    writer = create_session(home, "/work/secret", snapshot, take_lease=False)
    writer.close()
    return writer.path


def _compacted_session(home: Path) -> Path:
    """A session of three turns, then compacted to a summary and the last turn (revision 2)."""

    history = (*turn(1), *turn(2), *turn(3))
    snapshot = SessionSnapshot.new("6f9d1c2e-0000-4000-8000-0000000000c0", 1, history, PROVIDER)
    writer = create_session(home, "/work/compacted", snapshot, take_lease=False)
    summary = Message.user_text(
        "Automatic compaction summary of earlier conversation for model context only: …"
    )
    compacted = snapshot.replace(revision=2, history=(summary, *turn(3)))
    writer.save(
        compacted, display=()
    )  # a compaction adds nothing to display history (storage.md §6.4)
    writer.close()
    return writer.path


def _open(make_window, run, path: Path):
    context = make_window(open_file=path)
    dialog = context.session_commands.show_dialog("export")
    run(until(lambda: dialog.current() is not None))
    return context, dialog


def _wait_preview(run, context, dialog) -> None:
    dialog._timer.stop()
    dialog._on_timer_timeout()
    run(until(lambda: dialog.current() is not None))


def test_classes_preview_and_selection(make_window, run, demo_home: Path) -> None:
    path = demo_session(demo_home, "5f0c2a9e")
    context, dialog = _open(make_window, run, path)
    # the counts are those of what is exported: the conversation as shown, by default (titled)
    assert dialog.sources is not None and dialog.source is dialog.sources.display
    stats = dialog.current().stats
    model = dialog.classes
    for row, cls in enumerate(ALL_CLASSES):
        assert model.data(model.index(row, 2)) == f"{stats.strings[cls]:,}"
    # the saved default leaves provider context and metadata out
    assert dialog.current() is not None and dialog.current().selection.excluded == {
        ContentClass.PROVIDER_CONTEXT,
        ContentClass.METADATA,
    }
    assert dialog.preview.toPlainText() == dialog.current().data.decode()
    # unchecking a class schedules a new export after the pause (debounced, off-thread)
    row = ALL_CLASSES.index(ContentClass.TOOL_RECORDS)
    model.setData(model.index(row, 0), 0, 10)  # Qt.CheckStateRole, Unchecked
    assert (
        dialog.current() is None
        and not dialog.export_button.isEnabled()
        and dialog._timer.isActive()
    )
    _wait_preview(run, context, dialog)
    result = dialog.current()
    assert result is not None and ContentClass.TOOL_RECORDS in result.selection.excluded
    assert "[tool_records excluded" in dialog.preview.toPlainText()
    assert dialog.export_button.isEnabled()


def test_secrets_are_redacted_and_the_receipt_verifies(make_window, run, tmp_path: Path) -> None:
    set_api_key("work", SECRET)  # a known credential: redacted even where no rule would find it
    path = _session_with_secret(tmp_path / "home")
    context, dialog = _open(make_window, run, path)
    dialog.set_selection(set(ALL_CLASSES))
    _wait_preview(run, context, dialog)
    result = dialog.current()
    assert result is not None and not result.blocked
    assert SECRET.encode() not in result.data and TOKEN.encode() not in result.data
    assert {r.rule for r in result.redactions} >= {"github-token"} and len(result.redactions) == 2
    assert SECRET not in dialog.preview.toPlainText()
    # the declared PNG is not one: a low finding, shown with its location, never a value
    findings = dialog.findings
    assert [findings.data(findings.index(0, c)) for c in (0, 1)] == ["low", "image-mime-mismatch"]
    out = tmp_path / "out" / "export.json"
    written: list[tuple[Path, Path]] = []
    dialog.sig_written.connect(lambda a, b: written.append((a, b)))
    dialog.export_to(out)
    run(until(lambda: bool(written)))
    assert written == [(out, out.with_name("export.json.receipt.json"))]
    data = out.read_bytes()
    assert data == result.data and SECRET.encode() not in data
    check, report, receipt = audit_written(*written[0], known=[SECRET])
    assert check.ok and receipt.override is None  # the fresh audit reproduces the receipt
    assert [f.rule for f in report.findings] == ["image-mime-mismatch"]
    assert SECRET not in written[0][1].read_text()
    assert oct(out.stat().st_mode & 0o777) == "0o600"


def test_markdown_and_html_are_previewed_as_text(
    make_window, run, demo_home: Path, tmp_path: Path
) -> None:
    context, dialog = _open(make_window, run, demo_session(demo_home, "b2e47d10"))
    dialog.set_format("html")
    _wait_preview(run, context, dialog)
    assert dialog.current().format == "html" and dialog.preview.toPlainText().lstrip().startswith(
        "<!DOCTYPE html"
    )
    dialog.export_to(tmp_path / "t")  # no suffix: the format's is added
    run(until(lambda: dialog.last_written is not None))
    assert (tmp_path / "t.html").is_file() and (tmp_path / "t.html.receipt.json").is_file()
    dialog.set_format("markdown")
    _wait_preview(run, context, dialog)
    assert dialog.current().format == "markdown" and dialog.default_name().endswith(".md")
    dialog.choose_file()  # the save dialog offers the format's files first
    assert dialog.file_dialog is not None
    assert dialog.file_dialog.nameFilters() == ["Markdown transcript (*.md)", "All files (*)"]
    assert dialog.file_dialog.defaultSuffix() == "md"
    dialog.file_dialog.reject()


def test_blocking_findings_need_the_recorded_override(
    make_window, run, demo_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = export_module.build_export

    def with_a_critical_finding(
        *args, **kwargs
    ):  # stands in for a secret the redaction could not place
        result = real(*args, **kwargs)
        result.report.findings.append(
            Finding("openai-api-key", Severity.CRITICAL, "line 3", ContentClass.USER, "fp:0")
        )
        return result

    monkeypatch.setattr(export_module, "build_export", with_a_critical_finding)
    context, dialog = _open(make_window, run, demo_session(demo_home, "b2e47d10"))
    assert dialog.current().blocked and dialog.blocked.isVisible()
    assert not dialog.export_button.isEnabled()
    out = tmp_path / "blocked.json"
    dialog.export_to(out)
    run(idle(context.bridge))  # nothing to wait for: a blocked export is refused
    assert not out.exists()  # nothing is written without the override
    dialog.override.setChecked(True)
    assert dialog.export_button.isEnabled()
    dialog.export_to(out)
    run(until(lambda: dialog.last_written is not None))
    receipt = decode_receipt(out.with_name("blocked.json.receipt.json").read_bytes())
    assert (
        receipt.override is not None
        and receipt.override.allow_findings
        and receipt.override.blocking_findings == 1
    )


def test_without_a_keyring_the_export_uses_the_key_file_and_says_so(
    make_window, run, demo_home: Path, tmp_path: Path
) -> None:
    import keyring
    from keyring.backends.fail import Keyring as NoKeyring

    from rho_desk.core.export import parse_public_key, verify_receipt
    from rho_desk.keys import default_key_file

    keyring.set_keyring(NoKeyring())
    context, dialog = _open(make_window, run, demo_session(demo_home, "b2e47d10"))
    result = dialog.current()
    assert result is not None and dialog.export_button.isEnabled()  # the class counts are there too
    key_file = default_key_file()
    assert oct(key_file.stat().st_mode & 0o777) == "0o600"
    created = [n.text for n in context.notifier.history if "Created rho-desk's key" in n.text]
    assert len(created) == 2 and all(str(key_file) in text for text in created)
    out = tmp_path / "nokeyring.json"
    dialog.export_to(out)
    run(until(lambda: dialog.last_written is not None))
    check, _report, receipt = audit_written(out, out.with_name("nokeyring.json.receipt.json"))
    assert check.ok and receipt.signature is not None and receipt.history == "display"
    signed = verify_receipt(
        receipt,
        out.read_bytes(),
        _report,
        receipt.fingerprint_key_id,
        public_key=parse_public_key(receipt.signature.public_key),
    )
    assert signed.signature == "valid"


def test_the_conversation_as_shown_is_the_default_and_the_model_context_a_choice(
    make_window, run, tmp_path: Path
) -> None:
    path = _compacted_session(tmp_path / "home")
    context, dialog = _open(make_window, run, path)
    assert dialog.history_kind() == "display"
    shown = dialog.current()
    assert shown is not None and shown.history == "display"
    import json

    document = json.loads(shown.data)
    assert (
        document["format"] == "rho-desk.display-export" and len(document["messages"]) == 13
    )  # 3 turns and the marker
    dialog.set_history("model")
    _wait_preview(run, context, dialog)
    model = dialog.current()
    assert (
        model is not None and model.history == "model" and len(model.snapshot.history) == 5
    )  # the summary and the last turn
    out = tmp_path / "model.json"
    dialog.export_to(out)
    run(until(lambda: dialog.last_written is not None))
    assert decode_receipt(out.with_name("model.json.receipt.json").read_bytes()).history == "model"


def test_the_session_file_itself_is_never_the_output(make_window, run, tmp_path: Path) -> None:
    path = _session_with_secret(tmp_path / "home")
    before = path.read_bytes()
    context, dialog = _open(make_window, run, path)
    dialog.set_selection(set(ALL_CLASSES))
    _wait_preview(run, context, dialog)
    dialog.export_to(path)
    run(until(lambda: any("an export never replaces" in n.text for n in context.notifier.history)))
    assert path.read_bytes() == before
    assert any("an export never replaces" in n.text for n in context.notifier.history)


def test_a_snapshot_document_exports_its_model_context(
    make_window, run, tmp_path: Path, rho_fixtures: Path
) -> None:
    path = tmp_path / "snapshot.json"
    path.write_bytes((rho_fixtures / "session-snapshot-v2.json").read_bytes())
    _context, dialog = _open(make_window, run, path)
    assert dialog.history_kind() == "model" and not dialog.history.isEnabled()
    result = dialog.current()
    assert (
        result is not None
        and result.history == "model"
        and result.data.startswith(b'{\n  "schema_version": 2')
    )


_NO_DBUS_APP = r"""
import asyncio, json, sys
from pathlib import Path

import qasync

from rho_desk.qt.app import StartPlan, build_context, create_application, install_asyncgen_hooks
from rho_desk.qt.services.settings import use_settings_dir

session, out, scratch = (Path(a) for a in sys.argv[1:4])


async def main() -> dict[str, object]:
    use_settings_dir(scratch / "settings")
    context = build_context(StartPlan(None, session, False), install_hooks=False)
    await context.astart()

    async def idle() -> None:
        for _ in range(6):
            await context.bridge.wait_idle()
            await asyncio.sleep(0.05)

    await idle()
    dialog = context.session_commands.show_dialog("export")
    await idle()
    dialog._timer.stop()
    dialog._on_timer_timeout()
    await idle()
    result = dialog.current()
    dialog.export_to(out)
    await idle()
    facts = {
        "preview": result is not None,
        "enabled": dialog.export_button.isEnabled(),
        "counts": [dialog.classes.data(dialog.classes.index(r, 2)) for r in range(9)],
        "notices": [n.text for n in context.notifier.history],
        "written": out.is_file(),
    }
    await context.ashutdown()
    context.window.finish_close()
    return facts


app = create_application()
loop = qasync.QEventLoop(app)
asyncio.set_event_loop(loop)
install_asyncgen_hooks(loop)
try:
    print(json.dumps(loop.run_until_complete(main())))
finally:
    loop.close()
"""


def test_the_dialog_exports_on_a_machine_without_any_keyring(
    tmp_path: Path, rho_fixtures: Path
) -> None:
    """The app in its own process, no D-Bus session and keyring's fail backend: the class counts
    fill in, Export is enabled, the keys are created in the key file (said once each), and the
    written receipt verifies with `rho-desk audit --verify-key`."""
    import json
    import os
    import subprocess
    import sys

    repo = Path(__file__).resolve().parents[3]
    session = tmp_path / "session-v1.jsonl"
    session.write_bytes((rho_fixtures / "session-v1.jsonl").read_bytes())
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DBUS_SESSION_BUS_ADDRESS", "RHO_DESK_KEY_FILE")
    }
    env.update(
        PYTHONPATH=str(repo),
        PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring",
        QT_QPA_PLATFORM="offscreen",
        RHO_DESK_CONFIG_DIR=str(tmp_path / "config"),
        RHO_DESK_CACHE_DIR=str(tmp_path / "cache"),
        RHO_DESK_TRASH_DIR=str(tmp_path / "trash"),
        HOME=str(tmp_path / "home"),
    )
    out = tmp_path / "export.md"
    run = subprocess.run(
        [sys.executable, "-c", _NO_DBUS_APP, str(session), str(out), str(tmp_path)],
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    facts = json.loads(run.stdout.strip().splitlines()[-1])
    assert facts["preview"] and facts["enabled"] and facts["written"], facts
    assert "…" not in facts["counts"] and facts["counts"][1] != "0"
    created = [n for n in facts["notices"] if "Created rho-desk's key" in n]
    assert len(created) == 2 and all(str(tmp_path / "config" / "keys") in n for n in created)
    keys = subprocess.run(
        [sys.executable, "-m", "rho_desk", "keys"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    audit = subprocess.run(
        [
            sys.executable,
            "-m",
            "rho_desk",
            "audit",
            str(out),
            "--verify-key",
            keys.stdout.split()[0],
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert audit.returncode == 0 and "signature valid" in audit.stdout, audit.stdout + audit.stderr


def test_content_class_names_are_never_cut(make_window, run, demo_home: Path) -> None:
    """Walkthrough E1: "System and project instr…" at every window size. A long name wraps onto a
    second line of its row; nothing is elided and nothing needs a horizontal scroll bar."""
    from PySide6.QtCore import Qt

    _context, dialog = _open(make_window, run, demo_session(demo_home, "b2e47d10"))
    table = dialog.class_table
    assert table.wordWrap() and table.textElideMode() is Qt.TextElideMode.ElideNone
    dialog.resize(700, 640)
    run(laid_out())
    table.resizeRowsToContents()
    heights = [table.rowHeight(r) for r in range(dialog.classes.rowCount())]
    assert max(heights) > min(heights)  # the longest names took a second line
    header = table.horizontalHeader()
    assert sum(header.sectionSize(c) for c in range(header.count())) <= table.viewport().width() + 2


def test_the_publish_picker_says_what_is_sent(make_window, run, demo_home: Path) -> None:
    """Walkthrough T5: the team picker said only "Team:" and the chosen format was silently not used."""
    _context, dialog = _open(make_window, run, demo_session(demo_home, "b2e47d10"))
    dialog.set_format("markdown")
    summary = dialog.publish_summary()
    assert summary.startswith(
        "Publishes the conversation as shown, without provider replay blocks (opaque)"
    )
    assert (
        "as a JSON document (a team library keeps JSON: the Markdown transcript format is for files)"
        in summary
    )
    dialog.set_format("json")
    assert "format is for files" not in dialog.publish_summary()


def test_a_first_export_names_the_session_and_explains_its_echoes(
    make_window, run, demo_home: Path
) -> None:
    """The default selection (provider replay blocks and custom metadata left out) stays, and so
    do the medium echo findings it brings; the dialog says in plain words what they are. The
    heading, the Markdown heading and the save dialog's file name name the session."""
    path = demo_session(demo_home, "4a7e2c19")  # reasoning summaries repeat its replay blocks
    context = make_window(home=demo_home, open_file=path)
    dialog = context.session_commands.show_dialog("export")
    run(
        until(
            lambda: (
                dialog.current() is not None
                and context.window.browser.summary_for(path) is not None
            )
        )
    )
    summary = context.window.browser.summary_for(path)
    title = summary.title or summary.first_user_message.splitlines()[0]
    result = dialog.current()
    echoes = [f for f in result.report.findings if f.rule == "excluded-content-echo"]
    assert echoes and not result.blocked
    note = dialog.findings_note.text()
    assert (
        dialog.findings_note.isVisible() and f"The {len(echoes)} medium findings are echoes" in note
    )
    assert "provider_context" in note and "do not stop the export" in note
    assert "does not stop the export" in dialog.findings.data(
        dialog.findings.index(0, 1), 3
    )  # ToolTipRole
    assert f"“{title[:40]}" in dialog.heading.text() and "4a7e2c19" not in dialog.heading.text()
    dialog.set_format("markdown")
    _wait_preview(run, context, dialog)
    first_prompt = " ".join(summary.first_user_message.splitlines()[0].split())
    heading = dialog.current().data.decode().splitlines()[0]
    assert heading in (
        f"# {first_prompt}",
        f"# {first_prompt[:79].rstrip()}…",
    )  # the title is metadata, left out
    assert heading != "# rho session"
    name = dialog.default_name()
    assert name.endswith(f"-r{dialog.source.revision}.md") and name.startswith(
        export_module.file_stem(title)
    )
    assert export_module.file_stem("Churn: retention by cohort!") == "churn-retention-by-cohort"


@pytest.mark.parametrize(("fmt", "ext"), [("json", "json"), ("markdown", "md")])
def test_the_dialog_and_the_command_line_write_the_same_export_and_receipt(
    make_window,
    run,
    tmp_path: Path,
    fmt: str,
    ext: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """One export path: for the same choices (the classes, the format, the history) the export
    dialog and ``rho-desk export`` build and sign through the same two functions, and write the
    same bytes, receipt included (its signing time fixed by SOURCE_DATE_EPOCH, as for any
    reproducible output)."""
    from rho_desk.cli import main

    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1767225600")
    set_api_key("work", SECRET)  # a known credential, gathered once for both
    path = _session_with_secret(tmp_path / "home")
    context, dialog = _open(make_window, run, path)
    dialog.set_selection(
        set(ALL_CLASSES) - {ContentClass.METADATA, ContentClass.IMAGES}
    )  # no finding left
    dialog.format.setCurrentIndex(dialog.format.findData(fmt))
    _wait_preview(run, context, dialog)
    result = dialog.current()
    assert result is not None and not result.blocked and result.history == "display"
    app_out = tmp_path / "app" / f"export.{ext}"
    dialog.export_to(app_out)
    run(until(lambda: dialog.last_written is not None))

    cli_out = tmp_path / "cli" / f"export.{ext}"
    cli_out.parent.mkdir()
    status = main(
        [
            "export",
            str(path),
            "--exclude",
            "metadata,images",
            "--history",
            "display",
            "-o",
            str(cli_out),
        ]
    )
    assert status == 0, capsys.readouterr().err
    assert (
        app_out.read_bytes() == cli_out.read_bytes() and SECRET.encode() not in cli_out.read_bytes()
    )
    receipt = f"export.{ext}.receipt.json"
    assert (app_out.parent / receipt).read_bytes() == (cli_out.parent / receipt).read_bytes()
    check, _report, _receipt = audit_written(cli_out, cli_out.parent / receipt, known=[SECRET])
    assert check.ok
