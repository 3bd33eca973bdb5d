"""``rho-desk export`` and ``rho-desk audit``, run as subprocesses.

The subprocesses use ``FileKeyring`` below (selected with ``PYTHON_KEYRING_BACKEND``): a JSON
file in the test's temp folder, so that the export and the audit share the fingerprint key and
the stored provider credentials, as two runs on one machine would. ``RHO_DESK_CONFIG_DIR`` points
the provider profiles at the temp folder too.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import keyring.backend
import pytest

from rho_desk.core.wire.codec import decode_snapshot, encode_pretty
from rho_desk.core.wire.model import Message
from rho_desk.providers.credentials import keyring_user

from ..core.export.builders import KNOWN, SECRETS, canary, canary_snapshot, secrets_messages

REPO = Path(__file__).resolve().parents[2]


class FileKeyring(keyring.backend.KeyringBackend):
    """A keyring in a JSON file named by ``RHO_DESK_TEST_KEYRING`` (tests only: plain text)."""

    priority = 1  # type: ignore[assignment]

    def _path(self) -> Path:
        return Path(os.environ["RHO_DESK_TEST_KEYRING"])

    def _load(self) -> dict[str, str]:
        try:
            return json.loads(self._path().read_text())  # type: ignore[no-any-return]
        except FileNotFoundError:
            return {}

    def get_password(self, service: str, username: str) -> str | None:
        return self._load().get(f"{service}/{username}")

    def set_password(self, service: str, username: str, password: str) -> None:
        data = self._load()
        data[f"{service}/{username}"] = password
        self._path().write_text(json.dumps(data))

    def delete_password(self, service: str, username: str) -> None:
        data = self._load()
        data.pop(f"{service}/{username}", None)
        self._path().write_text(json.dumps(data))


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    config = tmp_path / "config"
    config.mkdir()
    # a provider credential rho-desk holds: the profile store is empty, the username index knows it
    (config / "credential-index.json").write_text(json.dumps({"usernames": ["work"]}))
    keyring_file = tmp_path / "keyring.json"
    keyring_file.write_text(json.dumps({f"rho-desk/{keyring_user('work')}": KNOWN}))
    return {
        **os.environ,
        "PYTHONPATH": str(REPO),
        "PYTHON_KEYRING_BACKEND": "tests.cli.test_export_cli.FileKeyring",
        "RHO_DESK_TEST_KEYRING": str(keyring_file),
        "RHO_DESK_CONFIG_DIR": str(config),
    }


def rho(env: dict[str, str], cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rho_desk", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture
def session(tmp_path: Path) -> Path:
    path = tmp_path / "session.json"
    path.write_bytes(encode_pretty(canary_snapshot(extra=secrets_messages())))
    return path


def test_unknown_class_exits_2_and_lists_the_valid_names(
    env: dict[str, str], tmp_path: Path, session: Path
) -> None:
    out = rho(env, tmp_path, "export", str(session), "--exclude", "images,pictures")
    assert out.returncode == 2
    assert (
        "'pictures'" in out.stderr
        and "tool_records" in out.stderr
        and "reasoning_summaries" in out.stderr
    )
    assert "Traceback" not in out.stderr
    assert list(tmp_path.glob("rho-session-*")) == []


def test_include_or_exclude_is_required(env: dict[str, str], tmp_path: Path, session: Path) -> None:
    out = rho(env, tmp_path, "export", str(session))
    assert out.returncode == 2 and "--include" in out.stderr


def test_export_then_audit_reports_zero_findings(
    env: dict[str, str], tmp_path: Path, session: Path
) -> None:
    out = rho(
        env,
        tmp_path,
        "export",
        str(session),
        "--exclude",
        "images,provider_context",
        "-o",
        "shared.json",
    )
    assert out.returncode == 0, out.stderr
    export = tmp_path / "shared.json"
    receipt_path = tmp_path / "shared.json.receipt.json"
    snapshot = decode_snapshot(export.read_bytes())  # a valid schema-2 snapshot
    assert snapshot.metadata["rho_desk.export.excluded"] == "images,provider_context"
    text = export.read_text()
    assert KNOWN not in text and all(s.value not in text for s in SECRETS)
    assert canary("user_text") in text and canary("context_enriched") not in text
    assert oct(export.stat().st_mode & 0o777) == "0o600"

    receipt = json.loads(receipt_path.read_text())
    assert receipt["format"] == "rho-desk.export-receipt" and receipt["format_version"] == 2
    assert receipt["history"] == "model"  # a snapshot document holds only the model context
    assert receipt["signature"]["algorithm"] == "Ed25519" and receipt["ruleset_version"] >= 1
    assert receipt["source"] == {
        "session_id": snapshot.session_id,
        "revision": 12,
        "file": "session.json",
    }
    assert receipt["selection"]["excluded"] == ["images", "provider_context"]
    assert receipt["classes"]["images"] == {
        "included": False,
        "strings": 2,
        "bytes": receipt["classes"]["images"]["bytes"],
        "placeholders": 2,
    }
    assert receipt["findings"] == [] and receipt.get("override") is None
    rules = {r["rule"] for r in receipt["redactions"]}
    assert "known-credential" in rules and "openai-api-key" in rules
    assert all(r["fingerprint"].startswith("fp:") for r in receipt["redactions"])
    assert KNOWN not in receipt_path.read_text()

    audit = rho(env, tmp_path, "audit", "shared.json")
    assert audit.returncode == 0, audit.stdout + audit.stderr
    assert (
        "0 finding(s)" in audit.stdout
        and "sha256 matches" in audit.stdout
        and "findings reproduced" in audit.stdout
    )

    audit_json = rho(env, tmp_path, "audit", "shared.json", "--json")
    report = json.loads(audit_json.stdout)
    assert (
        report["findings"] == []
        and report["receipt"]["sha256_ok"]
        and report["format"] == "snapshot"
    )


def test_one_byte_reinserting_a_secret_is_found(env: dict[str, str], tmp_path: Path) -> None:
    # not a key until one byte changes, and words, not random: neither the scanner nor the second
    # opinion takes it
    near_miss = "xk-proj-ThisIsNotARealKeyButLongEnoughToMatchT3BlbkFJ"
    session = tmp_path / "session.json"
    session.write_bytes(
        encode_pretty(
            canary_snapshot(extra=[*secrets_messages(), Message.user_text(f"config {near_miss}")])
        )
    )
    out = rho(env, tmp_path, "export", str(session), "--include", "all", "-o", "e.json")
    assert out.returncode == 0 and "findings: 0" in out.stdout, out.stderr
    export = tmp_path / "e.json"
    data = bytearray(export.read_bytes())
    at = data.index(near_miss.encode())
    data[at] = ord("s")
    export.write_bytes(bytes(data))

    audit = rho(env, tmp_path, "audit", "e.json", "--json")
    assert audit.returncode == 1
    report = json.loads(audit.stdout)
    [finding] = report["findings"]
    assert finding["rule"] == "openai-api-key" and finding["severity"] == "critical"
    assert finding["location"].startswith("$.history[") and finding["location"].endswith(
        ".User[0].Text"
    )
    assert finding["fingerprint"].startswith("fp:") and "sk-proj" not in audit.stdout
    assert report["receipt"]["sha256_ok"] is False
    assert [f["rule"] for f in report["receipt"]["unexpected"]] == ["openai-api-key"]


def test_forged_marker_with_the_content_still_there_is_a_high_finding(
    env: dict[str, str], tmp_path: Path
) -> None:
    from rho_desk.core.wire.snapshot import SessionSnapshot

    base = canary_snapshot()
    forged = SessionSnapshot.new(
        base.session_id,
        base.revision,
        base.history,
        base.provider,
        metadata={"rho_desk.export.excluded": "user", "rho_desk.export.redacted": "true"},
    )
    forged_path = tmp_path / "forged.json"
    forged_path.write_bytes(encode_pretty(forged))
    audit = rho(env, tmp_path, "audit", str(forged_path))
    assert audit.returncode == 1
    assert "high     excluded-class-present (user) at $.history[1].User[0].Text" in audit.stdout


def test_a_secret_only_the_rendered_bytes_show_is_redacted_where_it_is(
    env: dict[str, str], tmp_path: Path
) -> None:
    # The title's lines are joined in the transcript heading: only the rendered bytes hold an
    # "Authorization: Basic ..." header. The transcript's scan finds it, the title string holds
    # it: it is redacted there, and the export is written with nothing left to find.
    base = canary_snapshot(metadata={"title": "Authorization:\n  Basic dXNlcjpwYXNzd29yZDEyMw=="})
    session = tmp_path / "s.json"
    session.write_bytes(encode_pretty(base))
    out = rho(env, tmp_path, "export", str(session), "--include", "all", "-o", "t.md")
    assert out.returncode == 0, out.stderr
    md = (tmp_path / "t.md").read_text()
    assert "dXNlcjpwYXNzd29yZDEyMw==" not in md and md.startswith(
        "# Authorization: Basic [secret redacted: authorization-header fp:"
    )
    receipt = json.loads((tmp_path / "t.md.receipt.json").read_text())
    assert receipt["findings"] == [] and receipt.get("override") is None
    assert [(r["rule"], r["path"]) for r in receipt["redactions"]] == [
        ("authorization-header", "$.metadata.title")
    ]
    audit = rho(env, tmp_path, "audit", "t.md")
    assert (
        audit.returncode == 0
        and "findings reproduced" in audit.stdout
        and "sha256 matches" in audit.stdout
    )


def test_markdown_export(env: dict[str, str], tmp_path: Path) -> None:
    session = tmp_path / "s.json"
    session.write_bytes(encode_pretty(canary_snapshot()))
    out = rho(env, tmp_path, "export", str(session), "--include", "all", "-o", "ok.md")
    assert out.returncode == 0, out.stderr
    md = (tmp_path / "ok.md").read_text()
    assert md.startswith("# Session CANARY_TITLE_Q7") and canary("user_text") in md
    receipt = json.loads((tmp_path / "ok.md.receipt.json").read_text())
    assert receipt["output"]["format"] == "markdown"


def test_existing_output_is_not_overwritten_without_force(
    env: dict[str, str], tmp_path: Path, session: Path
) -> None:
    (tmp_path / "x.json").write_text("keep me")
    out = rho(env, tmp_path, "export", str(session), "--include", "user", "-o", "x.json")
    assert out.returncode == 2 and "--force" in out.stderr
    assert (tmp_path / "x.json").read_text() == "keep me"
    out = rho(env, tmp_path, "export", str(session), "--include", "user", "-o", "x.json", "--force")
    assert out.returncode == 0, out.stderr
    assert decode_snapshot((tmp_path / "x.json").read_bytes()).session_id


def test_format_and_extension_must_agree(
    env: dict[str, str], tmp_path: Path, session: Path
) -> None:
    out = rho(
        env, tmp_path, "export", str(session), "--include", "all", "-o", "x.md", "--format", "html"
    )
    assert out.returncode == 2 and "does not match" in out.stderr


def test_html_export_and_its_audit(env: dict[str, str], tmp_path: Path, session: Path) -> None:
    out = rho(env, tmp_path, "export", str(session), "--exclude", "metadata", "--format", "html")
    assert out.returncode == 0, out.stderr
    [page] = tmp_path.glob("rho-session-5f0c2d7e-r12.html")
    text = page.read_text()
    assert (
        text.startswith("<!DOCTYPE html>")
        and "<script" not in text
        and "Content-Security-Policy" in text
    )
    audit = rho(env, tmp_path, "audit", page.name)
    assert audit.returncode == 0, audit.stdout + audit.stderr
    assert "html, 0 finding(s)" in audit.stdout


def test_no_keyring_backend_still_exports_and_audits(tmp_path: Path, session: Path) -> None:
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO),
        "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
        "RHO_DESK_CONFIG_DIR": str(tmp_path),
    }
    env.pop("DBUS_SESSION_BUS_ADDRESS", None)
    out = rho(env, tmp_path, "export", str(session), "--include", "all")
    assert out.returncode == 0, out.stderr
    assert "Created rho-desk's key" in out.stderr and "Traceback" not in out.stderr
    assert len(list(tmp_path.glob("rho-session-*"))) == 2
    audit = rho(env, tmp_path, "audit", str(session))
    assert audit.returncode == 1  # the raw session holds secrets
    assert "critical" in audit.stdout


def test_a_rho_session_file_at_a_chosen_revision(
    env: dict[str, str], tmp_path: Path, rho_fixtures: Path
) -> None:
    session = tmp_path / "session-v3.jsonl"
    session.write_bytes((rho_fixtures / "session-v3.jsonl").read_bytes())
    out = rho(
        env,
        tmp_path,
        "export",
        str(session),
        "--revision",
        "1",
        "--exclude",
        "metadata",
        "--history",
        "model",
        "-o",
        "r1.json",
    )
    assert out.returncode == 0, out.stderr
    exported = decode_snapshot((tmp_path / "r1.json").read_bytes())
    assert exported.revision == 1 and [m.text() for m in exported.history] == ["delta prompt"]
    assert exported.prompt_cache_key is None
    audit = rho(env, tmp_path, "audit", str(session))
    assert audit.returncode == 0 and "jsonl, 0 finding(s)" in audit.stdout
    bad = rho(env, tmp_path, "export", str(session), "--revision", "9", "--include", "all")
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
