"""``rho-desk continue`` against servers that misbehave the way real models do: a model that
repeats the same call, one that keeps calling tools, one whose tool call runs into the output cap,
one whose stream breaks off and is retried. Each ends with a line that says why."""

from __future__ import annotations

from pathlib import Path

import pytest

from .loopback import Loopback, Reply, openai_chunk
from .test_cli_continue import events_of, make_session, rho_desk, text_reply, tool_reply


def _base(server: Loopback) -> list[str]:
    return ["--base-url", server.url + "/v1", "--model", "m", "--tools", "plan"]


@pytest.mark.asyncio
async def test_a_model_repeating_the_same_call_is_stopped_and_says_why(
    server: Loopback, tmp_path: Path
) -> None:
    workspace = tmp_path / "project"
    workspace.mkdir()
    (workspace / "README.md").write_text("hello\n")
    path = make_session(tmp_path, workspace)
    server.queue(*[tool_reply(f"c{i}", "read_file", {"path": "README.md"}) for i in range(32)])
    status, out, err = await rho_desk(
        tmp_path, "continue", str(path), "-m", "go", *_base(server), "--json"
    )
    assert status == 0, err
    assert len(server.requests) == 5  # cut at the fifth identical result, not at the 32-step limit
    done = events_of(out)[-1]
    assert done["event"] == "completed" and done["stop_reason"] == "Repetition"
    assert done["detail"].startswith(
        'the model called read_file {"path": "README.md"} 5 times with the same result'
    )
    status, _out, err = await rho_desk(
        tmp_path, "continue", str(path), "-m", "again", *_base(server)
    )
    assert status == 0 and "rho-desk: stopped (Repetition): the model called read_file" in err


@pytest.mark.asyncio
async def test_the_step_limit_is_said_and_set_by_max_steps(
    server: Loopback, tmp_path: Path
) -> None:
    workspace = tmp_path / "project"
    workspace.mkdir()
    for name in "abcd":
        (workspace / name).write_text(name)
    path = make_session(tmp_path, workspace)
    server.queue(*[tool_reply(f"c{n}", "read_file", {"path": n}) for n in "abcd"])
    status, _out, err = await rho_desk(
        tmp_path, "continue", str(path), "-m", "go", *_base(server), "--max-steps", "3"
    )
    assert status == 0, err
    assert len(server.requests) == 3
    assert "rho-desk: stopped (MaxSteps): the turn reached its limit of 3 model steps" in err
    status, _out, err = await rho_desk(
        tmp_path, "continue", str(path), "-m", "go", *_base(server), "--max-steps", "0"
    )
    assert status == 2 and "is not a positive whole number" in err and "Traceback" not in err


@pytest.mark.asyncio
async def test_a_tool_call_cut_at_the_output_cap_is_named_and_not_sent_again(
    server: Loopback, tmp_path: Path
) -> None:
    workspace = tmp_path / "project"
    workspace.mkdir()
    path = make_session(tmp_path, workspace)
    runaway = {
        "index": 0,
        "id": "c1",
        "type": "function",
        "function": {"name": "edit", "arguments": '{"input": "+x x x x'},
    }
    server.queue(
        Reply(
            chunks=[
                openai_chunk({"role": "assistant", "tool_calls": [runaway]}),
                openai_chunk({}, finish="length"),
                b"data: [DONE]\n\n",
            ]
        ),
        text_reply("never asked for"),
    )
    status, _out, err = await rho_desk(
        tmp_path, "continue", str(path), "-m", "go", *_base(server), "--max-tokens", "64"
    )
    assert status == 1
    assert (
        "the server cut the reply at its output limit (max_tokens 64; finish_reason: length)" in err
    )
    assert len(server.requests) == 1 and server.requests[0].body["max_tokens"] == 64


@pytest.mark.asyncio
async def test_a_broken_reply_that_is_retried_says_so(server: Loopback, tmp_path: Path) -> None:
    workspace = tmp_path / "project"
    workspace.mkdir()
    path = make_session(tmp_path, workspace)
    server.queue(
        Reply(
            chunks=[openai_chunk({"role": "assistant", "content": "Half a rep"}), b"x"],
            drop_after=1,
        ),
        text_reply("The whole reply."),
    )
    status, out, err = await rho_desk(
        tmp_path, "continue", str(path), "-m", "go", *_base(server), "--json"
    )
    assert status == 0, err
    events = events_of(out)
    kinds = [e["event"] for e in events]
    assert "reset" in kinds and kinds.index("reset") < len(kinds) - 1
    texts_after = "".join(e["text"] for e in events[kinds.index("reset") :] if e["event"] == "text")
    assert texts_after == "The whole reply."
    server.queue(
        Reply(chunks=[openai_chunk({"role": "assistant", "content": "Half"}), b"x"], drop_after=1),
        text_reply("Whole."),
    )
    status, out, err = await rho_desk(
        tmp_path, "continue", str(path), "-m", "again", *_base(server)
    )
    assert status == 0, err
    assert (
        out == "Half\nWhole.\n"
        and "the reply broke off; it is asked for again (the text above is replaced; retrying"
        in err
    )


def _streamed_write(pieces: int, piece: str) -> Reply:
    """A ``write`` call whose arguments arrive in ``pieces`` slow fragments (a long file)."""
    head = {
        "index": 0,
        "id": "c1",
        "type": "function",
        "function": {"name": "write", "arguments": '{"path": "big.txt", "content": "'},
    }
    chunks = [openai_chunk({"role": "assistant", "tool_calls": [head]})]
    chunks += [
        openai_chunk({"tool_calls": [{"index": 0, "function": {"arguments": piece}}]})
        for _ in range(pieces)
    ]
    chunks += [
        openai_chunk({"tool_calls": [{"index": 0, "function": {"arguments": '"}'}}]}),
        openai_chunk({}, finish="tool_calls"),
        b"data: [DONE]\n\n",
    ]
    return Reply(chunks=chunks, delay=0.03)


@pytest.mark.asyncio
async def test_a_tool_call_being_written_reports_its_progress(
    server: Loopback, tmp_path: Path
) -> None:
    workspace = tmp_path / "project"
    workspace.mkdir()
    path = make_session(tmp_path, workspace)
    server.queue(_streamed_write(20, "x" * 700), text_reply("Written."))
    status, out, err = await rho_desk(
        tmp_path, "continue", str(path), "-m", "go", *_base(server), "--json"
    )
    assert status == 0, err
    progress = [e for e in events_of(out) if e["event"] == "progress"]
    assert len(progress) >= 3, progress  # about one per 0.1 s of a 0.6 s call
    assert all(e["name"] == "write" and e["id"] == "c1" and e["index"] == 0 for e in progress)
    sizes = [e["bytes"] for e in progress]
    assert sizes == sorted(sizes) and sizes[-1] > 5_000


@pytest.mark.asyncio
async def test_the_model_the_server_names_is_the_one_recorded(
    server: Loopback, tmp_path: Path
) -> None:
    """A local server answers with the model it has loaded whatever the request names: the reply's
    provenance records the model every chunk names, not the one asked for."""
    from rho_desk.core.stores.rho_files import read_session

    workspace = tmp_path / "project"
    workspace.mkdir()
    path = make_session(tmp_path, workspace)
    served = "qwen2.5-coder-1.5b"
    for _ in range(2):
        server.queue(
            Reply(
                chunks=[
                    openai_chunk(
                        {"role": "assistant", "reasoning_content": "Let me think."}, model=served
                    ),
                    openai_chunk({"content": "Hi."}, model=served),
                    openai_chunk({}, finish="stop", model=served),
                    b"data: [DONE]\n\n",
                ]
            )
        )
    status, _out, err = await rho_desk(tmp_path, "continue", str(path), "-m", "go", *_base(server))
    assert status == 0, err
    assert server.requests[0].body["model"] == "m"
    last = read_session(path).tree.snapshot().history[-1].enriched_assistant
    assert last is not None and last.provenance.model == served
    # its reasoning stays the request's own: the next turn to the same server replays it, no handoff
    assert [b.identity.model for b in last.provider_context] == ["m"]
    status, _out, err = await rho_desk(
        tmp_path, "continue", str(path), "-m", "again", *_base(server)
    )
    assert status == 0, err
    assert any(
        m.get("reasoning_content") == "Let me think." for m in server.requests[1].body["messages"]
    )


@pytest.mark.asyncio
async def test_the_context_estimate_is_calibrated_by_a_server_that_counts_tokens(
    server: Loopback, tmp_path: Path
) -> None:
    """llama.cpp's ``/tokenize`` counts the history's text once per turn when a context window or a
    token policy is in force; the estimate (the window check, the token policy, the usage shown)
    follows the server's count. A server without it (404) leaves the estimate as it is; with
    neither in force nothing is asked."""
    workspace = tmp_path / "project"
    workspace.mkdir()
    path = make_session(tmp_path, workspace)
    server.queue(text_reply("One."), text_reply("Two."), text_reply("Three."))
    policy = ("--auto-compact", "tokens:1000000")  # counts tokens, never reached here
    status, out, err = await rho_desk(
        tmp_path, "continue", str(path), "-m", "go " * 200, *_base(server), "--json", *policy
    )
    assert status == 0, err
    plain = next(e for e in events_of(out) if e["event"] == "usage")["estimated_tokens"]
    assert server.tokenized == []
    server.tokens_per_char = 0.5  # twice the estimate's four characters a token
    status, out, err = await rho_desk(
        tmp_path, "continue", str(path), "-m", "hi", *_base(server), "--json"
    )
    assert status == 0 and server.tokenized == [], (
        err
    )  # neither a window nor a token policy: not asked
    status, out, err = await rho_desk(
        tmp_path, "continue", str(path), "-m", "go " * 200, *_base(server), "--json", *policy
    )
    assert status == 0, err
    usage = next(e for e in events_of(out) if e["event"] == "usage")
    assert usage["estimate_calibrated"] is True
    calibrated = usage["estimated_tokens"]
    assert len(server.tokenized) == 1 and "go go go" in server.tokenized[0]
    assert 1.5 * plain < calibrated < 2.5 * plain, (plain, calibrated)
    # the terminal's usage line says which estimate it shows
    server.queue(text_reply("Four."), text_reply("Five."))
    status, _out, err = await rho_desk(
        tmp_path, "continue", str(path), "-m", "go " * 200, *_base(server), *policy
    )
    assert (
        status == 0
        and "tokens (estimated, calibrated by the server's token count: the server reported no usage)"
        in err
    ), err
    server.tokens_per_char = None
    status, _out, err = await rho_desk(
        tmp_path, "continue", str(path), "-m", "go " * 200, *_base(server), *policy
    )
    assert status == 0 and "tokens (estimated: the server reported no usage)" in err, err


@pytest.mark.asyncio
async def test_a_request_that_fails_before_any_reply_and_is_retried_says_so(
    server: Loopback, tmp_path: Path
) -> None:
    workspace = tmp_path / "project"
    workspace.mkdir()
    path = make_session(tmp_path, workspace)
    server.queue(
        Reply(status=503, body=b'{"error": {"message": "loading model"}}'), text_reply("Ready.")
    )
    status, out, err = await rho_desk(tmp_path, "continue", str(path), "-m", "go", *_base(server))
    assert status == 0, err
    assert out == "Ready.\n"
    assert "rho-desk: retrying after provider attempt 1 of" in err and "loading model" in err


@pytest.mark.asyncio
async def test_a_server_that_dies_mid_reply_is_said_to_have_lost_the_connection(
    server: Loopback, tmp_path: Path
) -> None:
    """The server closes the socket mid-stream and is gone (every retry is refused, backing off
    1, 2 and 4 s): the last line says the connection was lost mid-reply, then that it could not
    connect again; the turn keeps nothing, and the broken text is said to be replaced."""
    workspace = tmp_path / "project"
    workspace.mkdir()
    path = make_session(tmp_path, workspace)
    server.queue(
        Reply(
            chunks=[
                openai_chunk({"role": "assistant", "content": "Half a rep"}),
                openai_chunk({"content": "ly"}),
                b"never",
            ],
            drop_after=2,
            die=True,
        )
    )
    status, out, err = await rho_desk(tmp_path, "continue", str(path), "-m", "go", *_base(server))
    assert status == 1, err
    where = server.url + "/v1"
    assert err.splitlines()[-1] == (
        f"rho-desk: the model call failed; nothing of this turn was kept: provider failed: the connection to {where} was lost"
        " mid-reply (the server closed it before the reply was complete); 3 more attempts failed, the last: could not"
        f" connect to {where} (connection refused, DNS or TLS failure)"
    )
    assert (
        "the reply broke off; it is asked for again (the text above is replaced; retrying after provider attempt 1 of 4:"
        f" the connection to {where} was lost mid-reply" in err
    )
    assert len(server.requests) == 1 and out == "Half a reply\n"


def _write_cut_mid_call() -> Reply:
    """A long ``write`` call whose connection drops halfway through its arguments."""
    reply = _streamed_write(20, "x" * 700)
    reply.drop_after = 12
    return reply


@pytest.mark.asyncio
async def test_a_reset_mid_call_starts_the_progress_again(server: Loopback, tmp_path: Path) -> None:
    """The stream breaks while a call is being written and the request is sent again: ``--json``
    says ``reset``, and the progress of the retried call counts from zero, not on top of the
    broken one. Piped, the text mode shows no live line at all (nor its escape sequences)."""
    workspace = tmp_path / "project"
    workspace.mkdir()
    path = make_session(tmp_path, workspace)
    server.queue(
        _write_cut_mid_call(), _streamed_write(6, "y" * 100), text_reply("Not written: plan mode.")
    )
    status, out, err = await rho_desk(
        tmp_path, "continue", str(path), "-m", "go", *_base(server), "--json"
    )
    assert status == 0, err
    events = events_of(out)
    kinds = [e["event"] for e in events]
    reset = kinds.index("reset")
    before = [e["bytes"] for e in events[:reset] if e["event"] == "progress"]
    after = [e["bytes"] for e in events[reset:] if e["event"] == "progress"]
    assert before and before[-1] > 5_000, before
    assert after and after[-1] < 1_000, after  # the retried call's own size
    server.queue(
        _write_cut_mid_call(), _streamed_write(6, "y" * 100), text_reply("Not written: plan mode.")
    )
    status, out, err = await rho_desk(
        tmp_path, "continue", str(path), "-m", "again", *_base(server)
    )
    assert status == 0, err
    assert "writing" not in err and "\x1b" not in err and "\r" not in err, err
    assert "rho-desk: retrying after provider attempt 1 of 4: the connection to" in err
    assert out == "Not written: plan mode.\n"


@pytest.mark.asyncio
async def test_a_text_reply_cut_at_the_output_cap_says_so(server: Loopback, tmp_path: Path) -> None:
    """A text reply the server cut (``finish_reason: length``) is kept as written, and the turn
    says it was cut, instead of ending as a normal answer with no word (34.7)."""
    workspace = tmp_path / "project"
    workspace.mkdir()
    path = make_session(tmp_path, workspace)
    server.queue(
        Reply(
            chunks=[
                openai_chunk({"role": "assistant", "content": "One, two, three, fo"}),
                openai_chunk({}, finish="length"),
                b"data: [DONE]\n\n",
            ]
        )
    )
    status, out, err = await rho_desk(
        tmp_path, "continue", str(path), "-m", "count", *_base(server), "--max-tokens", "8"
    )
    assert status == 0, err
    assert out.startswith("One, two, three, fo")
    assert (
        "rho-desk: stopped (OutputLimit): the server cut the reply at its output limit (max_tokens 8; finish_reason: length)"
        in err
    )
    from rho_desk.core.stores.rho_files import read_session

    assert (
        read_session(path).tree.snapshot().history[-1].text() == "One, two, three, fo"
    )  # kept as written
    server.queue(
        Reply(
            chunks=[
                openai_chunk({"role": "assistant", "content": "Done."}),
                openai_chunk({}, finish="stop"),
                b"data: [DONE]\n\n",
            ]
        )
    )
    status, out, err = await rho_desk(
        tmp_path, "continue", str(path), "-m", "go", *_base(server), "--json"
    )
    done = events_of(out)[-1]
    assert status == 0 and done["stop_reason"] == "EndTurn"  # a whole reply stays a normal answer


@pytest.mark.asyncio
async def test_a_model_named_by_its_file_path_leaves_no_path_in_the_session(
    server: Loopback, tmp_path: Path
) -> None:
    """llama-server names its model by the GGUF file it loaded: the reply's provenance keeps the
    file name, and the session, which may leave the machine, no local path (34.7)."""
    workspace = tmp_path / "project"
    workspace.mkdir()
    path = make_session(tmp_path, workspace)
    served = "/home/someone/.cache/models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
    server.queue(
        Reply(
            chunks=[
                openai_chunk({"role": "assistant", "content": "Hi."}, model=served),
                openai_chunk({}, finish="stop", model=served),
                b"data: [DONE]\n\n",
            ]
        )
    )
    status, _out, err = await rho_desk(tmp_path, "continue", str(path), "-m", "hi", *_base(server))
    assert status == 0, err
    from rho_desk.core.stores.rho_files import read_session

    last = read_session(path).tree.snapshot().history[-1].enriched_assistant
    assert last is not None and last.provenance is not None
    assert last.provenance.model == "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
    assert b"/home/someone" not in path.read_bytes()
