"""Bad logs fail with the file, the line and the reason; torn tails are tolerated as Rho tolerates
its own; the limits are the Rho reader's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rho_desk.core.agents import AGENTS, AgentLogError, open_session, read_log
from rho_desk.core.errors import InputError
from rho_desk.core.stores.rho_files.reader import DAMAGED

from .conftest import main_sessions

JSONL_AGENTS = [a for a in AGENTS if a != "opencode"]


def _lines(path: Path) -> list[bytes]:
    return path.read_bytes().splitlines(keepends=True)


@pytest.mark.parametrize("agent", JSONL_AGENTS)
def test_a_broken_line_names_the_file_and_the_line(agent: str, homes: dict[str, Path]) -> None:
    path = main_sessions(homes)[agent]
    lines = _lines(path)
    lines[4] = b'{"type": "user", "message": \n'
    path.write_bytes(b"".join(lines))
    with pytest.raises(AgentLogError) as caught:
        read_log(path)
    assert (caught.value.source, caught.value.line) == (str(path), 5)
    assert "not JSON" in caught.value.reason
    assert str(path) in caught.value.text() and ":5:" in caught.value.text()


@pytest.mark.parametrize("agent", JSONL_AGENTS)
def test_read_tolerantly_a_broken_line_stops_the_read_with_a_note(
    agent: str, homes: dict[str, Path]
) -> None:
    path = main_sessions(homes)[agent]
    lines = _lines(path)
    lines[-2] = b"{]\n"
    path.write_bytes(b"".join(lines))
    session = open_session(path, tolerant=True)
    assert (
        session.damage is not None
        and session.damage.kind == DAMAGED
        and session.damage.line == len(lines) - 1
    )


@pytest.mark.parametrize("agent", JSONL_AGENTS)
def test_a_torn_last_line_is_left_out_with_a_note(agent: str, homes: dict[str, Path]) -> None:
    path = main_sessions(homes)[agent]
    whole = path.read_bytes()
    path.write_bytes(whole + whole.splitlines(keepends=True)[-1][:40].rstrip(b"\n"))
    session = open_session(path)
    assert [n.kind for n in session.notes] == ["torn-tail"]
    assert session.tree.history() == open_session(path).tree.history()


@pytest.mark.parametrize(
    ("agent", "line", "record", "reason"),
    [
        (
            "claude-code",
            2,
            b'{"type":"user","uuid":"u","parentUuid":null,"message":"hi"}',
            "`message` of a user record is not an object",
        ),
        (
            "claude-code",
            2,
            b'{"type":"assistant","uuid":"u","parentUuid":7,"message":{}}',
            "`parentUuid` of a `assistant` record",
        ),
        (
            "codex",
            2,
            b'{"timestamp":"x","type":"response_item","payload":[1]}',
            "an object `payload`",
        ),
        (
            "codex",
            2,
            b'{"timestamp":"x","type":"response_item","payload":{"type":"message","role":"user","content":"hi"}}',
            "`content` of a message is not an array",
        ),
        ("gemini", 2, b'{"$rewindTo":5}', "`$rewindTo` is not a message id"),
        ("gemini", 2, b'{"hello":"world"}', "neither a message"),
        (
            "pi",
            2,
            b'{"type":"message","id":"x","parentId":null,"message":{"role":"user","content":3}}',
            "neither text nor an array",
        ),
        ("pi", 2, b'{"type":"compaction","parentId":null}', "`compaction` entry has no `id`"),
    ],
)
def test_a_record_of_the_wrong_shape_is_refused(
    agent: str, line: int, record: bytes, reason: str, homes: dict[str, Path]
) -> None:
    path = main_sessions(homes)[agent]
    lines = _lines(path)
    lines.insert(line - 1, record + b"\n")
    path.write_bytes(b"".join(lines))
    with pytest.raises(AgentLogError) as caught:
        read_log(path)
    assert caught.value.line == line and reason in caught.value.reason


def test_unknown_records_and_members_are_counted_not_refused(homes: dict[str, Path]) -> None:
    path = main_sessions(homes)["claude-code"]
    with open(path, "ab") as handle:
        handle.write(b'{"type":"hologram","uuid":"h1","payload":{"x":1}}\n')
    log = read_log(path)
    assert log.loss.dropped["hologram:$"] == 1


@pytest.mark.parametrize("agent", JSONL_AGENTS)
def test_nesting_deeper_than_the_limit_is_refused(agent: str, homes: dict[str, Path]) -> None:
    path = main_sessions(homes)[agent]
    lines = _lines(path)
    # deeper than any supported Python's guard: msgspec bounds nesting by the interpreter's C
    # recursion limit (about 1,000 levels on 3.11 and 3.12, about 10,000 on 3.13)
    lines.insert(1, b'{"x":' + b"[" * 100_000 + b"]" * 100_000 + b"}\n")
    path.write_bytes(b"".join(lines))
    with pytest.raises(AgentLogError, match="nesting is too deep") as caught:
        read_log(path)
    assert caught.value.line == 2


def test_a_line_longer_than_the_limit_is_refused(
    homes: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    from rho_desk.core.agents import jsonl

    monkeypatch.setattr(jsonl, "MAX_LINE_BYTES", 200)
    path = main_sessions(homes)["codex"]
    with pytest.raises(AgentLogError, match="longer than 200 bytes") as caught:
        read_log(path)
    assert caught.value.line == 1


def test_a_file_larger_than_the_limit_is_refused(
    homes: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    from rho_desk.core.agents import jsonl

    monkeypatch.setattr(jsonl, "MAX_FILE_BYTES", 100)
    with pytest.raises(InputError, match="more than the 100"):
        read_log(main_sessions(homes)["pi"])


def test_a_missing_file_is_bad_input(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file"):
        read_log(tmp_path / "nothing.jsonl", agent="codex")


def test_an_opencode_row_that_is_not_json_names_the_row(homes: dict[str, Path]) -> None:
    import sqlite3
    from contextlib import closing

    database = homes["opencode"] / "opencode.db"
    with closing(sqlite3.connect(database)) as db, db:
        db.execute("update message set data = '{oops' where id = 'msg_c0f1a0000003ABCDEFGHIJK'")
    db.close()
    with pytest.raises(AgentLogError) as caught:
        read_log(main_sessions(homes)["opencode"])
    assert caught.value.line == 3 and "not JSON" in caught.value.reason


def test_an_opencode_database_without_a_session_named_says_how_to_name_one(
    homes: dict[str, Path],
) -> None:
    with pytest.raises(InputError, match="holds 2 sessions; name one as"):
        read_log(homes["opencode"] / "opencode.db")


def _retyped(value: object, replacement: object) -> list[object]:
    """Every copy of ``value`` with one ``type`` member (at any depth) set to ``replacement``."""
    out: list[object] = []
    if isinstance(value, dict):
        for key, item in value.items():
            if key == "type":
                out.append({**value, key: replacement})
            out += [{**value, key: changed} for changed in _retyped(item, replacement)]
    elif isinstance(value, list):
        for i, item in enumerate(value):
            out += [
                [*value[:i], changed, *value[i + 1 :]] for changed in _retyped(item, replacement)
            ]
    return out


@pytest.mark.parametrize(
    "replacement", [[], {"a": 1}, 7, None], ids=["array", "object", "number", "null"]
)
@pytest.mark.parametrize("agent", JSONL_AGENTS)
def test_a_type_that_is_not_a_string_is_refused_or_read_never_a_crash(
    agent: str, replacement: object, homes: dict[str, Path], tmp_path: Path
) -> None:
    """Every ``type`` member of every record of the fixture, one at a time, made an array, an
    object, a number or null: the read (and format detection) fails with the line, or reads."""
    import json

    from rho_desk.core.agents import detect

    path = main_sessions(homes)[agent]
    lines = _lines(path)
    target = tmp_path / path.name
    tried = 0
    for number, line in enumerate(lines, 1):
        try:
            record = json.loads(line)
        except ValueError:
            continue
        for changed in _retyped(record, replacement):
            target.write_bytes(
                b"".join(
                    [*lines[: number - 1], json.dumps(changed).encode() + b"\n", *lines[number:]]
                )
            )
            tried += 1
            detect(target)
            try:
                read_log(target, agent=agent)
            except AgentLogError as exc:
                assert exc.line is not None and exc.source == str(target)
    assert tried > 10


@pytest.mark.parametrize(
    "replacement", [[], {"a": 1}, 7, None], ids=["array", "object", "number", "null"]
)
def test_an_opencode_row_whose_type_is_not_a_string_is_refused_or_read(
    replacement: object, homes: dict[str, Path]
) -> None:
    """The same for opencode: every message and part row's ``type`` members, one at a time."""
    import json
    import sqlite3

    path = main_sessions(homes)["opencode"]
    database = homes["opencode"] / "opencode.db"
    db = sqlite3.connect(database)
    try:
        rows = [
            (table, rid, data)
            for table in ("message", "part")
            for rid, data in db.execute(f"select id, data from {table}")
        ]
        tried = 0
        for table, rid, data in rows:
            for changed in _retyped(json.loads(data), replacement):
                with db:
                    db.execute(
                        f"update {table} set data = ? where id = ?", (json.dumps(changed), rid)
                    )
                tried += 1
                try:
                    read_log(path)
                except AgentLogError as exc:
                    assert exc.source is not None and str(database) in exc.source
                with db:
                    db.execute(f"update {table} set data = ? where id = ?", (data, rid))
        assert tried > 10
    finally:
        db.close()


def test_a_step_id_whose_revision_id_is_taken_is_refused(tmp_path: Path) -> None:
    """Two roots get an empty first revision, whose id is that of a step with an empty id: the
    log decides the ids, so the build checks them (the rest of its records hold by construction)."""
    path = tmp_path / "6b7c0e2a-1111-4222-8333-444455556666.jsonl"
    records = [
        {
            "type": "user",
            "uuid": uuid,
            "parentUuid": None,
            "sessionId": "s",
            "message": {"role": "user", "content": uuid or "a"},
        }
        for uuid in ("", "b")
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in records), "utf-8")
    with pytest.raises(InputError) as caught:
        open_session(path)
    assert "duplicate node id" in caught.value.reason and caught.value.source == str(path)
