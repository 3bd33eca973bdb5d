"""``rho-desk compact``: dry run, local and provider compaction written as a new complete base."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from rho_desk.cli import main
from rho_desk.core.compaction.local import DIGEST_MARKER, SUMMARY_MARKER
from rho_desk.core.stores.rho_files import create_session, read_session
from rho_desk.core.wire.codec import decode_snapshot, encode_pretty
from rho_desk.core.wire.model import AssistantMessage, ContentBlock, Message, ModelIdentity
from rho_desk.core.wire.snapshot import SessionSnapshot
from rho_desk.providers.credentials import set_api_key
from rho_desk.providers.profiles import ProfileKind, ProfileStore, ProviderProfile

from .loopback import OPENAI_DONE, Loopback, Reply, openai_chunk

IDENTITY = ModelIdentity("anthropic", "anthropic-messages", "claude-test")


def history(turns: int) -> tuple[Message, ...]:
    messages: list[Message] = [Message.system_text("You are Rho.")]
    for n in range(turns):
        messages += [
            Message.user_text(f"request {n}: edit src/m{n}.rs"),
            Message.enriched(
                AssistantMessage(
                    content=(
                        ContentBlock(text=f"Editing {n}."),
                        ContentBlock.of_tool_call(f"c{n}", "edit", {"path": f"src/m{n}.rs"}),
                    ),
                    provenance=IDENTITY,
                )
            ),
            Message.result(f"c{n}", True, "edited"),
            Message.enriched(
                AssistantMessage(content=(ContentBlock(text=f"Done {n}."),), provenance=IDENTITY)
            ),
        ]
    return tuple(messages)


def snapshot(turns: int = 10) -> SessionSnapshot:
    return SessionSnapshot.new(
        "0b6f3c1e-6d0a-4c3e-9b7a-2f1d9e8c7a55", 3, history(turns), IDENTITY, metadata={"title": "t"}
    )


@pytest.fixture
def session_path(tmp_path: Path) -> Path:
    with create_session(tmp_path / "rho", "/work/project", snapshot()) as writer:
        return writer.path


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(["compact", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_dry_run_json_reports_and_writes_nothing(
    session_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = session_path.read_bytes()
    status, out, _ = run_cli(
        capsys, str(session_path), "--dry-run", "--json", "--keep-messages", "4"
    )
    assert status == 0
    report = json.loads(out)
    assert session_path.read_bytes() == before
    assert report["dry_run"] is True and report["nothing_to_compact"] is False
    assert report["previous_messages"] == 41 and report["current_messages"] == 6
    # 36 messages are replaced by one digest: 35 fewer (the spec's removed_messages accounting)
    assert (
        report["removed_messages"] == 35
        and report["replaced_messages"] == len(report["removed"]) == 36
    )
    assert report["removed"][0] == {"index": 1, "kind": "User", "text": "request 0: edit src/m0.rs"}
    assert report["previous_tokens"] > report["current_tokens"] > 0
    assert report["removed_tokens"] == report["previous_tokens"] - report["current_tokens"]
    assert report["replacement"].startswith(DIGEST_MARKER)
    assert report["new_revision"] is None and report["written"] is None


def test_dry_run_human_output(session_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run_cli(capsys, str(session_path.parent), "--dry-run", "--keep-messages", "4")
    assert status == 0
    assert out.startswith("Dry run: local compaction of ")
    assert "  replace  36 messages (#1-#36: " in out and "with one digest" in out
    assert "  messages 41 -> 6" in out
    assert "Draft digest:\n  [rho-desk digest v1]" in out


def test_local_compaction_appends_a_new_complete_base(
    session_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = session_path.read_bytes()
    status, out, _ = run_cli(capsys, str(session_path), "--json", "--keep-messages", "4")
    assert status == 0
    report = json.loads(out)
    after = session_path.read_bytes()
    assert after.startswith(before) and len(after) > len(before)  # appended, nothing rewritten
    assert json.loads(after.splitlines()[-1])["type"] == "snapshot"
    assert report["new_revision"] == 4 and report["written"] == "snapshot record"
    compacted = read_session(session_path).tree.snapshot()
    assert compacted.revision == 4
    assert compacted.provider == IDENTITY  # compaction does not change the provider identity
    assert compacted.metadata == {"title": "t"}
    assert compacted.history[0] == Message.system_text("You are Rho.")
    assert compacted.history[1].user[0].text.startswith(DIGEST_MARKER)  # type: ignore[index]
    assert compacted.history[2:] == history(10)[-4:]
    state = compacted.compaction
    assert (
        state.completed_compactions == 1
        and state.removed_messages == 35
        and state.last_revision == 4
    )
    assert state.last_previous_tokens == report["previous_tokens"]
    assert state.last_current_tokens == report["current_tokens"]
    # again: nothing left to compact, nothing written
    status, out, _ = run_cli(capsys, str(session_path), "--keep-messages", "6")
    assert status == 0 and out.startswith("Nothing to compact")
    assert session_path.read_bytes() == after


def test_snapshot_document_in_place_and_to_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    document = tmp_path / "snap.json"
    document.write_bytes(encode_pretty(snapshot()))
    out_file = tmp_path / "out.json"
    assert run_cli(capsys, str(document), "-o", str(out_file), "--keep-messages", "2")[0] == 0
    written = decode_snapshot(out_file.read_bytes())
    assert written.revision == 4 and len(written.history) == 3  # system, digest, last answer
    assert decode_snapshot(document.read_bytes()).revision == 3  # untouched
    assert run_cli(capsys, str(document), "--keep-messages", "2")[0] == 0
    assert decode_snapshot(document.read_bytes()) == written


def test_bad_input_and_usage(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run_cli(capsys, str(tmp_path / "missing.jsonl"))
    assert status == 2 and "missing.jsonl" in err and "Traceback" not in err
    broken = tmp_path / "broken.json"
    broken.write_text('{"schema_version": 2, "session_id": "x"')
    status, _, err = run_cli(capsys, str(broken))
    assert status == 2 and "broken.json" in err
    assert run_cli(capsys, str(broken), "--keep-messages", "0", "--keep-tokens", "0")[0] == 2


def test_conflict_when_the_file_changes_meanwhile(
    session_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from rho_desk.core.compaction.manual import ThreadedCompactor

    real = ThreadedCompactor.compact

    async def compact_while_rho_writes(self, request):  # type: ignore[no-untyped-def]
        with open(session_path, "ab") as handle:  # another writer appends a line meanwhile
            handle.write(b'{"type":"snapshot_delta"}\n')
        return await real(self, request)

    monkeypatch.setattr(ThreadedCompactor, "compact", compact_while_rho_writes)
    before_tail = session_path.read_bytes()
    status, _, err = run_cli(capsys, str(session_path), "--keep-messages", "4")
    assert status == 1 and "Traceback" not in err
    assert session_path.read_bytes() == before_tail + b'{"type":"snapshot_delta"}\n'


@pytest.mark.asyncio
async def test_provider_compaction_through_a_profile(
    server: Loopback, session_path: Path, config_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    profile = ProviderProfile(
        name="local-llm",
        kind=ProfileKind.OPENAI_COMPATIBLE,
        base_url=server.url + "/v1",
        model="summarizer",
        provider="vllm",
    )
    ProfileStore().save([profile], default="local-llm")
    set_api_key(profile, "sk-cli-test-0000")
    chunks = [
        openai_chunk({"role": "assistant", "content": "Ten edits to src/m*.rs, all done."}),
        openai_chunk({}, finish="stop"),
        openai_chunk(
            choices=False,
            usage={
                "prompt_tokens": 500,
                "completion_tokens": 20,
                "total_tokens": 520,
                "cost": 0.0021,
            },
        ),
        OPENAI_DONE,
    ]
    server.queue(Reply(chunks=chunks))
    status = await asyncio.to_thread(
        main,
        ["compact", str(session_path), "--compactor", "provider", "--keep-messages", "4", "--json"],
    )
    out, err = capsys.readouterr()
    assert status == 0, err
    report = json.loads(out)
    assert report["profile"] == "local-llm" and report["cost_usd_micros"] == 2100
    assert server.requests[0].headers["Authorization"] == "Bearer sk-cli-test-0000"
    compacted = read_session(session_path).tree.snapshot()
    summary = compacted.history[1].user[0].text  # type: ignore[index]
    assert summary.startswith(SUMMARY_MARKER) and summary.endswith(
        "Ten edits to src/m*.rs, all done."
    )
    assert compacted.compaction.removed_cost_usd_micros == 2100
    assert "sk-cli-test" not in session_path.read_text()


def test_provider_compaction_without_a_key_fails_cleanly(
    session_path: Path, config_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    profile = ProviderProfile(
        name="openai",
        kind=ProfileKind.OPENAI_COMPATIBLE,
        base_url="https://api.openai.com/v1",
        model="gpt-4.1",
    )
    ProfileStore().save([profile], default="openai")
    before = session_path.read_bytes()
    status, _, err = run_cli(capsys, str(session_path), "--compactor", "provider")
    assert status == 1 and "No API key is stored for profile 'openai'" in err
    assert session_path.read_bytes() == before
    # a dry run needs neither key nor network
    status, out, _ = run_cli(capsys, str(session_path), "--compactor", "provider", "--dry-run")
    assert status == 0 and "(estimate: the summary is not written yet)" in out


def test_a_compaction_that_does_not_shrink_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tiny = SessionSnapshot.new(
        "0b6f3c1e-6d0a-4c3e-9b7a-2f1d9e8c7a56",
        1,
        (Message.user_text("a"), Message.assistant_text("b"), Message.user_text("c" * 4000)),
        IDENTITY,
    )
    with create_session(tmp_path / "rho", "/work/project", tiny) as writer:
        path = writer.path
    before = path.read_bytes()
    status, out, _ = run_cli(
        capsys, str(path), "--dry-run", "--json", "--keep-tokens", "1", "--keep-messages", "0"
    )
    report = json.loads(out)
    assert (
        status == 0 and "would not shrink" in report["refused"] and not report["nothing_to_compact"]
    )
    status, out, err = run_cli(capsys, str(path), "--keep-tokens", "1", "--keep-messages", "0")
    assert status == 1 and "Refused, nothing written" in out and "would not shrink" in out, (
        out,
        err,
    )
    assert path.read_bytes() == before
