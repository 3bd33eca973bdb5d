"""The audit of exact bytes: secrets with paths, excluded classes, echoes, receipts."""

from __future__ import annotations

import base64
import hashlib
from urllib.parse import quote

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rho_desk.core.export import (
    ContentClass,
    EchoIndex,
    Finding,
    SecretScanner,
    Selection,
    Severity,
    audit_bytes,
    build_receipt,
    decode_receipt,
    detect_format,
    encode_receipt,
    export_snapshot,
    key_id,
    verify_receipt,
)
from rho_desk.core.export._classify import _OWN_NAMES, iter_slots, own_path
from rho_desk.core.export._display import display_slots
from rho_desk.core.export.scanner._prefilter import PARALLEL_MIN
from rho_desk.core.wire.codec import encode_pretty
from rho_desk.core.wire.model import AssistantMessage, ContentBlock, Message
from rho_desk.core.wire.snapshot import SessionSnapshot

from .builders import IDENTITY, PNG, SECRETS, canary_snapshot

C = ContentClass
KEY = b"\x05" * 32
LINE = "    result = compute_the_answer(first_argument, second_argument)"


def _snapshot(*messages: Message, **kw: object) -> SessionSnapshot:
    return SessionSnapshot.new("s-9", 4, messages, IDENTITY, **kw)  # type: ignore[arg-type]


def _call(text: str) -> list[Message]:
    return [
        Message.enriched(
            AssistantMessage(
                content=(ContentBlock.of_tool_call("c1", "read_file", {"path": "m.py"}),)
            )
        ),
        Message.result("c1", True, f"1:import os\n2:{LINE}\n3:print(result)"),
        Message.assistant_text(text),
    ]


def test_secret_findings_name_rule_path_and_fingerprint_never_the_value() -> None:
    data = encode_pretty(
        _snapshot(Message.user_text("hi"), Message.user_text(f"use {SECRETS[0].value}"))
    )
    report = audit_bytes(data, scanner=SecretScanner(), key=KEY)
    [finding] = report.findings
    assert (finding.rule, finding.severity, finding.location, finding.cls) == (
        "openai-api-key",
        Severity.CRITICAL,
        "$.history[1].User[0].Text",
        C.USER,
    )
    assert finding.fingerprint and SECRETS[0].value not in str(finding.to_json())
    assert report.format == "snapshot" and report.blocking == [finding]


def test_the_same_secret_in_several_strings_gets_each_path() -> None:
    value = SECRETS[4].value
    data = encode_pretty(
        _snapshot(Message.user_text(value), Message.user_text("x"), Message.user_text(value))
    )
    report = audit_bytes(data, scanner=SecretScanner(), key=KEY)
    assert [f.location for f in report.findings] == [
        "$.history[0].User[0].Text",
        "$.history[2].User[0].Text",
    ]


def test_jsonl_and_text_locations(rho_fixtures) -> None:  # type: ignore[no-untyped-def]
    lines = (rho_fixtures / "session-v3.jsonl").read_bytes().rstrip(b"\n").split(b"\n")
    lines[1] = lines[1].replace(b"delta prompt", f"delta prompt {SECRETS[4].value}".encode(), 1)
    report = audit_bytes(
        b"\n".join(lines) + b"\n", scanner=SecretScanner(), key=KEY, name="s.jsonl"
    )
    assert report.format == "jsonl"
    assert report.findings and all(f.location.startswith("line 2 $.") for f in report.findings)
    md = f"# t\n\nsome text\n{SECRETS[0].value}\n".encode()
    [finding] = audit_bytes(md, scanner=SecretScanner(), key=KEY, name="t.md").findings
    assert finding.location == "line 4"


def test_excluded_class_still_present_is_high() -> None:
    source = canary_snapshot(metadata={"rho_desk.export.excluded": "images,metadata"})
    report = audit_bytes(encode_pretty(source), scanner=SecretScanner(), key=KEY)
    assert report.excluded == {C.IMAGES, C.METADATA}
    locations = {(f.location, f.cls) for f in report.findings if f.rule == "excluded-class-present"}
    assert ("$.history[1].User[1].Image.data", C.IMAGES) in locations
    assert ("$.prompt_cache_key", C.METADATA) in locations
    assert all(
        f.severity is Severity.HIGH for f in report.findings if f.rule == "excluded-class-present"
    )


def test_an_image_of_the_wrong_type_is_low() -> None:
    source = _snapshot(Message.user_blocks([ContentBlock.of_image(PNG, "image/jpeg")]))
    [finding] = audit_bytes(encode_pretty(source), scanner=SecretScanner(), key=KEY).findings
    assert (finding.rule, finding.severity, finding.location) == (
        "image-mime-mismatch",
        Severity.LOW,
        "$.history[0].User[0].Image",
    )


@pytest.mark.parametrize(
    "echo",
    [
        f"I will change this line:\n{LINE}\nnow",
        f"I will change this line:\n  2:{LINE}\nnow",
        f"encoded: {quote(LINE.strip(), safe='')}",
        f"b64:\n{base64.b64encode(LINE.strip().encode()).decode()}",
        f"b64:\n{base64.b64encode(f'1:import os{chr(10)}2:{LINE}'.encode()).decode()}",
    ],
    ids=["plain", "numbered", "percent", "base64", "base64-numbered"],
)
def test_excluded_text_echoed_in_included_content_is_medium(echo: str) -> None:
    result = export_snapshot(
        _snapshot(*_call(echo)), Selection.excluding([C.TOOL_RECORDS]), key=KEY
    )
    [finding] = result.report.findings
    assert (finding.rule, finding.severity, finding.cls) == (
        "excluded-content-echo",
        Severity.MEDIUM,
        C.TOOL_RECORDS,
    )
    assert finding.location.startswith("$.history[2].Assistant[0].Text")
    assert finding.digest and finding.digest.startswith("sha256:")
    assert not result.blocked


def test_short_or_trivial_lines_are_not_echoes() -> None:
    source = _snapshot(
        Message.result("x", True, "-" * 60 + "\nok\n}"),
        Message.assistant_text("-" * 60 + "\nok\n}"),
    )
    result = export_snapshot(source, Selection.excluding([C.TOOL_RECORDS]), key=KEY)
    assert result.report.findings == []


def test_echo_findings_are_reproduced_from_the_receipt() -> None:
    result = export_snapshot(
        _snapshot(*_call(f"see\n{LINE}")), Selection.excluding([C.TOOL_RECORDS]), key=KEY
    )
    receipt = decode_receipt(
        encode_receipt(build_receipt(result, output_name="e.json", key_id=key_id(KEY)))
    )
    again = audit_bytes(
        result.data, scanner=SecretScanner(), key=KEY, recorded_echoes=receipt.finding_objects()
    )
    assert again.findings == result.report.findings
    check = verify_receipt(receipt, result.data, again, key_id(KEY))
    assert check.ok and check.fingerprints_compared
    # the echoed line edited: the recorded finding is gone, and the receipt no longer agrees
    edited = result.data.replace(b"compute_the_answer", b"compute_the_result")
    later = audit_bytes(
        edited, scanner=SecretScanner(), key=KEY, recorded_echoes=receipt.finding_objects()
    )
    check = verify_receipt(receipt, edited, later, key_id(KEY))
    assert later.findings == [] and not check.sha256_ok and len(check.missing) == 1


def test_transcript_echo_locations_are_lines() -> None:
    result = export_snapshot(
        _snapshot(*_call(f"see\n\n    {LINE.strip()}\n")),
        Selection.excluding([C.TOOL_RECORDS]),
        key=KEY,
        fmt="markdown",
    )
    [finding] = result.report.findings
    assert finding.location.startswith("line ")
    receipt = decode_receipt(
        encode_receipt(build_receipt(result, output_name="e.md", key_id=key_id(KEY)))
    )
    again = audit_bytes(
        result.data,
        scanner=SecretScanner(),
        key=KEY,
        name="e.md",
        recorded_echoes=receipt.finding_objects(),
    )
    assert again.findings == result.report.findings


def test_receipt_with_another_key_compares_without_fingerprints() -> None:
    source = _snapshot(Message.user_text(SECRETS[0].value))
    result = export_snapshot(source, Selection.everything(), key=KEY)
    receipt = decode_receipt(
        encode_receipt(build_receipt(result, output_name="e.json", key_id=key_id(KEY)))
    )
    edited = result.data.replace(
        b"[secret redacted: openai-api-key", SECRETS[0].value.encode() + b" [x"
    )
    other = b"\x06" * 32
    report = audit_bytes(edited, scanner=SecretScanner(), key=other)
    check = verify_receipt(receipt, edited, report, key_id(other))
    assert not check.fingerprints_compared and [f.rule for f in check.unexpected] == [
        "openai-api-key"
    ]


def test_formats_are_detected() -> None:
    assert detect_format(encode_pretty(canary_snapshot())) == "snapshot"
    assert detect_format(b'{"a": 1}') == "json"
    assert detect_format(b'{"type":"session"}\n{"type":"x"}\n') == "jsonl"
    assert detect_format(b"<!DOCTYPE html><html>") == "html"
    assert detect_format(b"# title", "x.md") == "markdown"
    assert detect_format(b"plain words") == "text"


def test_findings_round_trip_and_order() -> None:
    a = Finding("jwt", Severity.CRITICAL, "$.history[17].User[0].Text", C.USER, "fp:1")
    b = Finding("jwt", Severity.CRITICAL, "$.history[101].User[0].Text", C.USER, "fp:1")
    c = Finding("image-mime-mismatch", Severity.LOW, "$.history[2].User[0].Image", C.IMAGES)
    assert sorted([c, b, a], key=Finding.sort_key) == [a, b, c]
    assert Finding.from_json(a.to_json()) == a


_OWN_COMPONENTS = [f".{name}" for name in _OWN_NAMES] + ["[0]", "[7]", "[12345]"]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(_OWN_COMPONENTS), max_size=10).map("".join),
    st.sampled_from(["", " line 1", " line 40312"]),
)
def test_a_location_of_the_walks_own_names_holds_no_secret(components: str, line: str) -> None:
    """What ``own_path`` lets past unscanned, the scanner finds nothing in."""
    location = "$" + components + line
    assert own_path(location)
    assert SecretScanner().scan(location.encode()) == []


def test_every_slot_path_without_a_key_from_the_data_is_the_walks_own() -> None:
    secret = SECRETS[4].value
    source = canary_snapshot(
        extra=[
            Message.enriched(
                AssistantMessage(
                    content=(ContentBlock.of_tool_call("c", "http", {secret: 1, "url": "x"}),)
                )
            ),
        ],
        metadata={secret: "v", "rho_desk.export.excluded": ""},
    )
    scanner = SecretScanner()
    paths = [slot.path for slot in iter_slots(source)] + [
        slot.path for slot in display_slots(source, None)
    ]
    own = [p for p in paths if own_path(p)]
    assert len(own) > len(paths) // 2
    for path in own:
        assert scanner.redact_location(path + " line 3") == path + " line 3"
    # a key from the data is never the walks' own, whatever it is called
    assert not any(
        own_path(p) for p in paths if secret in p or "url" in p or "encrypted_content" in p
    )
    assert not own_path('$.metadata["token"]') and not own_path("$.history[0].User[0].Text line 3x")


@pytest.mark.parametrize("excluded", [[], [C.TOOL_RECORDS], [C.IMAGES, C.METADATA]])
def test_an_export_audits_its_snapshot_as_the_bytes_decode(excluded: list[ContentClass]) -> None:
    """``export_snapshot`` hands the audit the snapshot it just encoded (``encodes``) instead of
    the audit decoding the bytes again: the report is the one the bytes alone give."""
    source = canary_snapshot(
        extra=[
            *_call(f"see\n{LINE}"),
            Message.user_text(f"key {SECRETS[0].value}"),
            Message.user_blocks([ContentBlock.of_image(PNG, "image/jpeg")]),
        ]
    )
    result = export_snapshot(source, Selection.excluding(excluded), key=KEY)
    again = audit_bytes(
        result.data,
        scanner=SecretScanner(),
        key=KEY,
        fmt="snapshot",
        excluded=result.selection.excluded,
        echo=EchoIndex(result.exclusion.originals),
    )
    assert again.findings == result.report.findings and again.excluded == result.report.excluded


def test_a_large_export_is_hashed_while_it_is_audited() -> None:
    """An output of ``PARALLEL_MIN`` bytes or more is hashed on a worker thread: the same digest."""
    source = _snapshot(
        *(Message.user_text(f"{n} " + "lorem ipsum dolor " * 400) for n in range(60))
    )
    result = export_snapshot(source, Selection.everything(), key=KEY)
    assert len(result.data) >= PARALLEL_MIN
    assert result.sha256 == hashlib.sha256(result.data).hexdigest()
