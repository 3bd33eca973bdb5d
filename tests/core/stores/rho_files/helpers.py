"""Builders for transcripts in tests, and the worked examples of storage.md (verbatim)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

# storage.md §11: the worked v4 example (N1 -> N2, set_leaf N1, N1 -> N3 compaction), verbatim.
V4_EXAMPLE = (
    '{"type":"session","version":4,"id":"5f0c2d7e-8a41-4c1b-9d33-0e6b7a2f9c10","timestamp":"1767225600","cwd":"/home/alice/proj","agent_id":"default","agent_fingerprint":"9b1f0c3e5a7d2b4c6e8f0a1b3c5d7e9f1a2b4c6d8e0f2a4b6c8d0e2f4a6b8c0d"}\n'
    '{"type":"node","id":"N1","timestamp":"1767225660","kind":"commit","transition":{"type":"snapshot","snapshot":{"schema_version":2,"session_id":"5f0c2d7e-8a41-4c1b-9d33-0e6b7a2f9c10","revision":1,"history":[{"System":"You are a coding agent."},{"User":[{"Text":"list the files"}]},{"Assistant":[{"ToolCall":{"id":"call_1","name":"bash","arguments":{"command":"ls"}}}]},{"ToolResult":{"id":"call_1","ok":true,"content":"Cargo.toml\\nsrc"}},{"EnrichedAssistant":{"content":[{"Text":"Two entries."}],"provenance":{"provider":"openai","api":"responses","model":"gpt-5"}}}],"provider":{"provider":"openai","api":"responses","model":"gpt-5"},"compaction":{"completed_compactions":0,"removed_messages":0,"removed_tokens":0,"removed_cost_usd_micros":0,"last_previous_tokens":null,"last_current_tokens":null,"last_revision":null},"prompt_cache_key":"rho:5f0c2d7e-8a41-4c1b-9d33-0e6b7a2f9c10"}},"display_messages":[{"timestamp":"1767225660","message":{"User":[{"Text":"list the files"}]}},{"timestamp":"1767225660","message":{"Assistant":[{"ToolCall":{"id":"call_1","name":"bash","arguments":{"command":"ls"}}}]}},{"timestamp":"1767225660","message":{"ToolResult":{"id":"call_1","ok":true,"content":"Cargo.toml\\nsrc"}}},{"timestamp":"1767225660","message":{"EnrichedAssistant":{"content":[{"Text":"Two entries."}],"provenance":{"provider":"openai","api":"responses","model":"gpt-5"}}}}]}\n'
    '{"type":"node","id":"N2","parent_id":"N1","timestamp":"1767225720","kind":"commit","transition":{"type":"snapshot_delta","delta":{"base_revision":1,"session_id":"5f0c2d7e-8a41-4c1b-9d33-0e6b7a2f9c10","revision":2,"appended_history":[{"User":[{"Text":"and the hidden ones?"}]},{"EnrichedAssistant":{"content":[{"Text":"None."}]}}],"provider":{"provider":"openai","api":"responses","model":"gpt-5"},"compaction":{"completed_compactions":0,"removed_messages":0,"removed_tokens":0,"removed_cost_usd_micros":0,"last_previous_tokens":null,"last_current_tokens":null,"last_revision":null},"metadata":{},"prompt_cache_key":"rho:5f0c2d7e-8a41-4c1b-9d33-0e6b7a2f9c10"}},"display_messages":[{"timestamp":"1767225720","message":{"User":[{"Text":"and the hidden ones?"}]}},{"timestamp":"1767225720","message":{"EnrichedAssistant":{"content":[{"Text":"None."}]}}}]}\n'
    '{"type":"set_leaf","timestamp":"1767225780","target_id":"N1"}\n'
    '{"type":"node","id":"N3","parent_id":"N1","timestamp":"1767225800","kind":"compaction","compaction_facts":{"previous_messages":5,"current_messages":3,"previous_tokens":120,"current_tokens":60,"cost_usd_micros":null},"transition":{"type":"snapshot","snapshot":{"schema_version":2,"session_id":"5f0c2d7e-8a41-4c1b-9d33-0e6b7a2f9c10","revision":3,"history":[{"System":"You are a coding agent."},{"User":[{"Text":"Automatic compaction summary of earlier conversation for model context only:\\n\\nThe user listed files; there are two."}]},{"EnrichedAssistant":{"content":[{"Text":"Two entries."}]}}],"provider":{"provider":"openai","api":"responses","model":"gpt-5"},"compaction":{"completed_compactions":1,"removed_messages":2,"removed_tokens":60,"removed_cost_usd_micros":0,"last_previous_tokens":120,"last_current_tokens":60,"last_revision":3},"prompt_cache_key":"rho:5f0c2d7e-8a41-4c1b-9d33-0e6b7a2f9c10"}},"display_messages":[]}\n'
)

# storage.md §7.5: what Rho appends to the v3 fixture when it continues it, verbatim.
V3_UPGRADE_EXAMPLE = (
    '{"type":"upgrade","timestamp":"1767225900","active_leaf_id":"legacy:0000000000000251"}\n'
    '{"type":"node","id":"<uuid4>","parent_id":"legacy:0000000000000251","timestamp":"1767225900","kind":"commit","transition":{"type":"snapshot","snapshot":{"schema_version":2,"session_id":"33333333-3333-4333-8333-333333333333","revision":2,"history":[{"User":[{"Text":"delta prompt"}]},{"Assistant":[{"Text":"delta answer"}]}],"provider":{"provider":"fixture-provider","api":"fixture-api","model":"fixture-model"},"compaction":{"completed_compactions":0,"removed_messages":0,"removed_tokens":0,"removed_cost_usd_micros":0,"last_previous_tokens":null,"last_current_tokens":null,"last_revision":null},"prompt_cache_key":"rho:delta-fixture"}},"display_messages":[]}\n'
)

SID = "5f0c2d7e-8a41-4c1b-9d33-0e6b7a2f9c10"
PROVIDER = {"provider": "openai", "api": "responses", "model": "gpt-5"}
ZERO = {
    "completed_compactions": 0,
    "removed_messages": 0,
    "removed_tokens": 0,
    "removed_cost_usd_micros": 0,
    "last_previous_tokens": None,
    "last_current_tokens": None,
    "last_revision": None,
}


def user(text: str) -> dict[str, Any]:
    return {"User": [{"Text": text}]}


def assistant(text: str) -> dict[str, Any]:
    return {"Assistant": [{"Text": text}]}


def tool_call(call_id: str, name: str = "bash") -> dict[str, Any]:
    return {
        "Assistant": [{"ToolCall": {"id": call_id, "name": name, "arguments": {"command": "ls"}}}]
    }


def tool_result(call_id: str, content: str = "ok") -> dict[str, Any]:
    return {"ToolResult": {"id": call_id, "ok": True, "content": content}}


def compaction(
    count: int = 1, removed: int = 2, revision: int | None = None, **extra: Any
) -> dict[str, Any]:
    return {
        **ZERO,
        "completed_compactions": count,
        "removed_messages": removed,
        "last_revision": revision,
        **extra,
    }


def header(
    version: int = 4, sid: str = SID, ts: str = "1767225600", cwd: str = "/home/alice/proj"
) -> dict[str, Any]:
    return {"type": "session", "version": version, "id": sid, "timestamp": ts, "cwd": cwd}


def snapshot(
    revision: int,
    history: list[Any],
    *,
    sid: str = SID,
    comp: dict[str, Any] | None = None,
    key: str | None = None,
    metadata: dict[str, str] | None = None,
    provider: dict[str, str] | None = None,
) -> dict[str, Any]:
    value: dict[str, Any] = {
        "schema_version": 2,
        "session_id": sid,
        "revision": revision,
        "history": history,
        "provider": provider or PROVIDER,
        "compaction": comp or ZERO,
    }
    if metadata:
        value["metadata"] = metadata
    if key is not None:
        value["prompt_cache_key"] = key
    return value


def delta(
    base: int,
    revision: int,
    appended: list[Any],
    *,
    sid: str = SID,
    comp: dict[str, Any] | None = None,
    metadata: dict[str, str] | None = None,
    key: str | None = None,
) -> dict[str, Any]:
    value: dict[str, Any] = {
        "base_revision": base,
        "session_id": sid,
        "revision": revision,
        "appended_history": appended,
        "provider": PROVIDER,
        "compaction": comp or ZERO,
        "metadata": metadata or {},
    }
    if key is not None:
        value["prompt_cache_key"] = key
    return value


def shown(ts: str, *messages: Any) -> list[dict[str, Any]]:
    return [{"timestamp": ts, "message": m} for m in messages]


def node(
    node_id: str,
    parent: str | None,
    ts: str,
    *,
    snap: dict[str, Any] | None = None,
    dlt: dict[str, Any] | None = None,
    kind: str = "commit",
    facts: dict[str, Any] | None = None,
    display: list[Any] | None = None,
) -> dict[str, Any]:
    value: dict[str, Any] = {"type": "node", "id": node_id}
    if parent is not None:
        value["parent_id"] = parent
    value["timestamp"] = ts
    value["kind"] = kind
    if facts is not None:
        value["compaction_facts"] = facts
    if snap is not None:
        value["transition"] = {"type": "snapshot", "snapshot": snap}
    else:
        value["transition"] = {"type": "snapshot_delta", "delta": dlt}
    value["display_messages"] = display or []
    return value


def set_leaf(target: str, ts: str = "1767225999") -> dict[str, Any]:
    return {"type": "set_leaf", "timestamp": ts, "target_id": target}


def legacy_snapshot(
    ts: str, snap: dict[str, Any], display: list[Any] | None = None
) -> dict[str, Any]:
    return {
        "type": "snapshot",
        "timestamp": ts,
        "snapshot": snap,
        "display_messages": display or [],
    }


def legacy_delta(ts: str, dlt: dict[str, Any], display: list[Any] | None = None) -> dict[str, Any]:
    return {
        "type": "snapshot_delta",
        "timestamp": ts,
        "delta": dlt,
        "display_messages": display or [],
    }


def line(record: dict[str, Any]) -> bytes:
    """One record as Rho writes it: compact JSON, raw UTF-8, one newline."""
    return json.dumps(record, separators=(",", ":"), ensure_ascii=False).encode("utf-8") + b"\n"


def transcript(*records: dict[str, Any]) -> bytes:
    return b"".join(line(r) for r in records)


def write(path: Path, *records: dict[str, Any]) -> Path:
    path.write_bytes(transcript(*records))
    return path


def v4_simple(turns: int = 3) -> bytes:
    """A v4 file: a root snapshot and ``turns - 1`` delta commits, one user+assistant pair each."""
    records = [
        header(),
        node(
            "n1",
            None,
            "1767225601",
            snap=snapshot(1, [user("u1"), assistant("a1")]),
            display=shown("1767225601", user("u1"), assistant("a1")),
        ),
    ]
    for i in range(2, turns + 1):
        ts = str(1767225600 + i)
        records.append(
            node(
                f"n{i}",
                f"n{i - 1}",
                ts,
                dlt=delta(i - 1, i, [user(f"u{i}"), assistant(f"a{i}")]),
                display=shown(ts, user(f"u{i}"), assistant(f"a{i}")),
            )
        )
    return transcript(*records)
