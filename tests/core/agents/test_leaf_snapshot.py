"""The snapshot of another agent's session (``open_snapshot``: ``rho-desk snapshot``, ``show``,
a model-history export) is read ``leaf_only``: the Claude Code and Codex readers let go of the
text of tool results before a compaction as they read (``AgentLog.compacted``). The snapshot
must be exactly the one the whole tree gives: for every fixture session, for long logs in a line
(where results are let go), for a leaf on a branch from before a compaction (read again whole),
for a compaction without a token count (whose estimate reads the results' text), and for
random logs of turns, compactions and rewinds."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rho_desk.core.agents import read_log
from rho_desk.core.agents.base import AgentLogError
from rho_desk.core.agents.build import build
from rho_desk.core.agents.formats import session_paths
from rho_desk.core.errors import InputError
from rho_desk.core.stores.open import open_snapshot
from rho_desk.core.stores.rho_files.records import NodeKind
from rho_desk.core.wire import encode

_CLAUDE_NAME = "6b7c0e2a-1111-4222-8333-444455556666.jsonl"
_CODEX_NAME = "rollout-2026-03-01T10-00-00-019c2b7e-5a10-7c3d-9e21-4b8f6a2d1c03.jsonl"


def _whole(path: Path, agent: str | None = None) -> bytes | None:
    """The active leaf's snapshot from the whole tree (``None``: no leaf)."""
    tree = build(read_log(path, agent=agent)).tree
    return encode(tree.snapshot(None)) if tree.active_leaf is not None else None


def _assert_same_snapshot(path: Path, agent: str | None = None) -> None:
    try:
        whole = _whole(path, agent)
    except AgentLogError as exc:
        whole_error: Any = ("error", exc.reason)
    else:
        whole_error = None
    try:
        lean = encode(open_snapshot(path))
    except AgentLogError as exc:
        assert whole_error == ("error", exc.reason)
        return
    except InputError:
        assert whole is None  # no leaf, no snapshot
        return
    assert whole_error is None
    assert lean == whole
    assert _steps(read_log(path, agent=agent, leaf_only=True)) == _steps(
        read_log(path, agent=agent)
    )


def _steps(log: Any) -> list[tuple[Any, ...]]:
    """The shape of a log's steps, which a ``leaf_only`` reading keeps (it empties results and
    replies, reads no times and counts no loss)."""
    return [
        (e.id, e.parent, e.turn, e.hidden, e.compaction is not None, len(e.messages), e.line)
        for e in log.entries.values()
    ] + [log.leaf, log.session_id, log.cwd, log.created, log.version, log.title]


def _write(path: Path, records: list[dict[str, Any]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records), "utf-8")
    return path


def _result(n: int) -> str:
    return f"output of call {n}: " + "line of a file\n" * 20


class _Claude:
    """A Claude Code log written turn by turn (the shapes of ``bench_agents._claude_log``)."""

    def __init__(self) -> None:
        self.records: list[dict[str, Any]] = []
        self.last: str | None = None
        self.turn = 0

    def put(self, record: dict[str, Any]) -> None:
        base = {"sessionId": "s1", "cwd": "/w", "version": "2.1.0",
                "timestamp": f"2026-02-01T10:{len(self.records) // 60 % 60:02d}:{len(self.records) % 60:02d}.000Z"}  # fmt: skip
        self.records.append({**base, **record})

    def turns(self, count: int, parent: str | None = None) -> None:
        if parent is not None:
            self.last = parent
        for _ in range(count):
            self.turn += 1
            n = self.turn
            u, a, r, t = (f"{k}{n}" for k in "uart")
            self.put({"type": "user", "uuid": u, "parentUuid": self.last,
                      "message": {"role": "user", "content": f"prompt {n}"}})  # fmt: skip
            self.put({"type": "assistant", "uuid": a, "parentUuid": u,
                      "message": {"role": "assistant", "id": f"m{n}", "model": "claude-x",
                                  "content": [{"type": "tool_use", "id": f"c{n}", "name": "Read",
                                               "input": {"file_path": f"/w/f{n}"}}],
                                  "usage": {"input_tokens": 5, "output_tokens": 6}}})  # fmt: skip
            self.put({"type": "user", "uuid": r, "parentUuid": a,
                      "message": {"role": "user", "content": [
                          {"type": "tool_result", "tool_use_id": f"c{n}", "content": _result(n),
                           "is_error": n % 7 == 0}]}})  # fmt: skip
            self.put({"type": "assistant", "uuid": t, "parentUuid": r,
                      "message": {"role": "assistant", "id": f"n{n}", "model": "claude-x",
                                  "content": [{"type": "text", "text": f"answer {n}"}]}})  # fmt: skip
            self.last = t

    def compaction(self, tokens: object = 180_000) -> None:
        self.turn += 1
        boundary, summary = f"b{self.turn}", f"s{self.turn}"
        meta: dict[str, Any] = {"trigger": "auto"}
        if tokens is not None:
            meta["preTokens"] = tokens
        self.put({"type": "system", "subtype": "compact_boundary", "uuid": boundary,
                  "parentUuid": None, "logicalParentUuid": self.last, "content": "compacted",
                  "compactMetadata": meta})  # fmt: skip
        self.put({"type": "user", "uuid": summary, "parentUuid": boundary, "isCompactSummary": True,
                  "message": {"role": "user", "content": f"summary {self.turn}"}})  # fmt: skip
        self.last = summary


def _codex(path: Path, turns: int, every: int, *, counted: bool = True) -> Path:
    lines: list[dict[str, Any]] = [
        {"timestamp": "2026-03-01T10:00:00.000Z", "type": "session_meta",
         "payload": {"id": "t1", "cwd": "/w", "timestamp": "2026-03-01T10:00:00.000Z"}},
    ]  # fmt: skip

    def put(kind: str, payload: dict[str, Any]) -> None:
        lines.append({"timestamp": "2026-03-01T10:00:01.000Z", "type": kind, "payload": payload})

    for n in range(1, turns + 1):
        if n % every == 0:
            put("compacted", {"message": f"summary {n}"})
        put("turn_context", {"cwd": "/w", "model": "gpt-x"})
        put("response_item", {"type": "message", "role": "user",
                              "content": [{"type": "input_text", "text": f"prompt {n}"}]})  # fmt: skip
        put("response_item", {"type": "function_call", "name": "shell", "call_id": f"c{n}",
                              "arguments": json.dumps({"command": ["cat", f"f{n}"]})})  # fmt: skip
        if counted:
            usage = {"input_tokens": 100 * n, "cached_input_tokens": 0, "output_tokens": 10,
                     "reasoning_output_tokens": 0, "total_tokens": 100 * n + 10}  # fmt: skip
            put("event_msg", {"type": "token_count",
                              "info": {"total_token_usage": usage, "last_token_usage": usage}})  # fmt: skip
        put("response_item", {"type": "function_call_output", "call_id": f"c{n}",
                              "output": _result(n)})  # fmt: skip
        put("response_item", {"type": "message", "role": "assistant",
                              "content": [{"type": "output_text", "text": f"answer {n}"}]})  # fmt: skip
    return _write(path, lines)


def _results(path: Path, agent: str, *, leaf_only: bool) -> list[str]:
    log = read_log(path, agent=agent, leaf_only=leaf_only)
    return [
        m.tool_result.content
        for e in log.entries.values()
        for m in e.messages
        if m.tool_result is not None
    ]


def _answers(path: Path, agent: str) -> list[str]:
    """The replies' texts a ``leaf_only`` reading keeps (their calls are kept in any case)."""
    log = read_log(path, agent=agent, leaf_only=True)
    replies = [m.enriched_assistant for e in log.entries.values() for m in e.messages]
    assert sum(b.tool_call is not None for r in replies if r is not None for b in r.content) == (
        len(_results(path, agent, leaf_only=False))
    )
    return [b.text for r in replies if r is not None for b in r.content if b.text is not None]


def test_every_fixture_session_has_the_same_snapshot(pristine: dict[str, Path]) -> None:
    for agent, home in pristine.items():
        for path in session_paths(agent, home):
            for one in [path, *(ref.path for ref in read_log(path, agent=agent).subagents)]:
                _assert_same_snapshot(one, agent)


def test_a_long_claude_code_line_lets_the_results_before_its_last_compaction_go(
    tmp_path: Path,
) -> None:
    log = _Claude()
    for _ in range(3):
        log.turns(5)
        log.compaction()
    log.turns(4)
    path = _write(tmp_path / _CLAUDE_NAME, log.records)
    kept = _results(path, "claude-code", leaf_only=True)
    assert kept == [""] * 15 + [_result(n) for n in range(19, 23)]  # the last four turns' results
    assert _results(path, "claude-code", leaf_only=False) == [
        _result(n) for n in [*range(1, 6), *range(7, 12), *range(13, 18), *range(19, 23)]
    ]
    assert _answers(path, "claude-code") == [f"answer {n}" for n in range(19, 23)]
    _assert_same_snapshot(path)


def test_a_long_codex_line_lets_the_results_before_its_last_compaction_go(tmp_path: Path) -> None:
    path = _codex(tmp_path / _CODEX_NAME, 20, 6)
    kept = _results(path, "codex", leaf_only=True)
    assert kept == [""] * 17 + [_result(n) for n in (18, 19, 20)]
    assert _answers(path, "codex") == [f"answer {n}" for n in range(1, 21)]  # replies are short
    _assert_same_snapshot(path)


def test_a_compaction_without_a_token_count_keeps_what_it_estimates_from(tmp_path: Path) -> None:
    log = _Claude()
    log.turns(3)
    log.compaction(tokens=None)  # estimated from the history before it: its results' text
    log.turns(3)
    log.compaction(tokens=0)
    log.turns(3)
    log.compaction()
    log.turns(2)
    path = _write(tmp_path / _CLAUDE_NAME, log.records)
    kept = _results(path, "claude-code", leaf_only=True)
    assert kept[:6] == [_result(n) for n in (1, 2, 3, 5, 6, 7)]
    assert kept[6:9] == ["", "", ""]  # counted by the compaction after them
    _assert_same_snapshot(path)
    codex = _codex(tmp_path / "codex" / _CODEX_NAME, 14, 5, counted=False)
    assert "" not in _results(codex, "codex", leaf_only=True)
    _assert_same_snapshot(codex)


def test_a_leaf_on_a_branch_from_before_a_compaction_is_read_whole(tmp_path: Path) -> None:
    log = _Claude()
    log.turns(4)
    log.compaction()
    log.turns(3)
    log.compaction()
    log.turns(2)
    log.turns(1, parent="t2")  # a rewind to the second turn: its history holds turns 1 and 2
    path = _write(tmp_path / _CLAUDE_NAME, log.records)
    lean = read_log(path, leaf_only=True)
    assert lean.released is not None and not lean.keeps_leaf()
    snapshot = encode(open_snapshot(path))
    assert json.dumps(_result(1))[1:-1].encode() in snapshot  # a result the lean reading let go
    _assert_same_snapshot(path)


@st.composite
def _claude_histories(draw: st.DrawFn) -> list[dict[str, Any]]:
    """Turns, compactions (with a token count, 0 or none) and rewinds to an earlier step."""
    log = _Claude()
    for _ in range(draw(st.integers(1, 12))):
        step = draw(st.sampled_from(["turns", "turns", "compaction", "rewind"]))
        if step == "turns":
            log.turns(draw(st.integers(1, 3)))
        elif step == "compaction":
            log.compaction(draw(st.sampled_from([None, 0, 50, 180_000])))
        else:
            ids = [r["uuid"] for r in log.records if r["type"] != "system"]
            log.turns(1, parent=draw(st.sampled_from(ids)) if ids else None)
    return log.records


@settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(records=_claude_histories())
def test_random_claude_code_histories_have_the_same_snapshot(
    tmp_path: Path, records: list[dict[str, Any]]
) -> None:
    _assert_same_snapshot(_write(tmp_path / _CLAUDE_NAME, records))


@st.composite
def _codex_histories(draw: st.DrawFn) -> list[dict[str, Any]]:
    """Turns (a call answered, answered with an error, or never: an aborted call), compactions
    (after a token count or not, with a replacement history or not) and model changes."""
    lines: list[dict[str, Any]] = [
        {"timestamp": "2026-03-01T10:00:00.000Z", "type": "session_meta",
         "payload": {"id": "t1", "cwd": "/w", "timestamp": "2026-03-01T10:00:00.000Z"}},
    ]  # fmt: skip

    def put(kind: str, payload: dict[str, Any]) -> None:
        stamp = f"2026-03-01T10:{len(lines) // 60 % 60:02d}:{len(lines) % 60:02d}.000Z"
        lines.append({"timestamp": stamp, "type": kind, "payload": payload})

    for n in range(draw(st.integers(1, 16))):
        step = draw(st.sampled_from(["turn", "turn", "turn", "compacted", "model"]))
        if step == "model":
            put("turn_context", {"cwd": "/w", "model": draw(st.sampled_from(["gpt-x", "gpt-y"]))})
        elif step == "compacted":
            if draw(st.booleans()):
                usage = {"input_tokens": 100 * n, "output_tokens": 10, "total_tokens": 100 * n + 10}
                put("event_msg", {"type": "token_count",
                                  "info": {"total_token_usage": usage, "last_token_usage": usage}})  # fmt: skip
            payload: dict[str, Any] = {"message": f"summary {n}"}
            if draw(st.booleans()):
                payload["replacement_history"] = [
                    {"type": "message", "role": "user",
                     "content": [{"type": "input_text", "text": f"kept {n}"}]}
                ]  # fmt: skip
            put("compacted", payload)
        else:
            put("response_item", {"type": "message", "role": "user",
                                  "content": [{"type": "input_text", "text": f"prompt {n}"}]})  # fmt: skip
            put("response_item", {"type": "function_call", "name": "shell", "call_id": f"c{n}",
                                  "arguments": json.dumps({"command": ["cat", f"f{n}"]})})  # fmt: skip
            outcome = draw(st.sampled_from(["ok", "ok", "error", "none"]))
            if outcome != "none":
                output = (
                    _result(n)
                    if outcome == "ok"
                    else json.dumps({"output": "no", "metadata": {"exit_code": 1}})
                )
                put("response_item", {"type": "function_call_output", "call_id": f"c{n}",
                                      "output": output})  # fmt: skip
            put("response_item", {"type": "message", "role": "assistant",
                                  "content": [{"type": "output_text", "text": f"answer {n}"}]})  # fmt: skip
    return lines


@settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(lines=_codex_histories())
def test_random_codex_histories_have_the_same_snapshot(
    tmp_path: Path, lines: list[dict[str, Any]]
) -> None:
    _assert_same_snapshot(_write(tmp_path / _CODEX_NAME, lines))


def test_the_lean_tree_starts_at_the_last_compaction(tmp_path: Path) -> None:
    """Read for the leaf's snapshot, a line's revisions before its last compaction get no node:
    the compaction's revision is the root, with the revision number and compaction state the
    whole tree gives it; nothing the reading left out is counted."""
    log = _Claude()
    for _ in range(3):
        log.turns(4)
        log.compaction()
    log.turns(2)
    path = _write(tmp_path / _CLAUDE_NAME, log.records)
    whole = build(read_log(path)).tree
    lean_log = read_log(path, leaf_only=True)
    lean = build(lean_log, leaf_only=True).tree
    compactions = [n for n in whole.nodes.values() if n.kind is NodeKind.COMPACTION]
    assert len(compactions) == 3
    last = compactions[-1]
    on_leaf = [n for n in whole.nodes.values() if n.revision >= last.revision]
    assert [(n.id, n.revision, n.compaction) for n in lean.nodes.values()] == [
        (n.id, n.revision, n.compaction) for n in on_leaf
    ]
    root = next(iter(lean.nodes.values()))
    assert root.parent is None and root.id == last.id
    assert encode(lean.snapshot(None)) == encode(whole.snapshot(None))
    assert lean_log.loss.as_json() == {"dropped": {}, "made": {}}
    assert read_log(path).loss.as_json()["dropped"]  # the whole reading counts them
    assert len(build(read_log(path, leaf_only=True)).tree.nodes) == len(whole.nodes)
