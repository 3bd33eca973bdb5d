"""The canary matrix: for many selections, every output holds exactly the allowed canaries.

A distinct canary sits in every wire location spec/export.md §4 names, and every kind of secret
is planted plain and encoded (URL-encoded, base64 at three alignments, unicode-escaped, inside
escaped JSON; known credentials also upper/lower-cased and HTML-escaped). For each selection:

* JSON: exactly the canaries of the included classes (and both images only if ``images``);
* Markdown/HTML: no canary of an excluded class; every included canary a transcript shows;
* every format: no secret in any form, and the audit has no critical or high finding;
* JSON: the output is a valid schema-2 snapshot with message order and call/result ids kept;
* one verdict: JSON, Markdown and HTML of every selection carry the same redactions, and the
  audits of their unredacted renderings find the same secrets.
"""

from __future__ import annotations

import itertools
import json
import random

import pytest

from rho_desk.core.export import (
    ALL_CLASSES,
    FORMATS,
    ContentClass,
    SecretScanner,
    Selection,
    audit_bytes,
    export_snapshot,
    render_html,
    render_markdown,
)
from rho_desk.core.export._audit import html_text
from rho_desk.core.export._redact import apply_selection
from rho_desk.core.wire.codec import decode_snapshot, encode_pretty

from .builders import (
    CANARIES,
    IMAGE_MARKERS,
    KNOWN,
    KNOWN_SPECIAL,
    NOT_IN_TRANSCRIPTS,
    SECRETS,
    canary,
    canary_snapshot,
    forbidden_forms,
    json_strings,
    secrets_messages,
)

KEY = bytes(range(32))


def _selections() -> list[frozenset[ContentClass]]:
    every = frozenset(ALL_CLASSES)
    chosen = {every, frozenset()}
    chosen.update(every - {c} for c in ALL_CLASSES)
    chosen.update(frozenset({c}) for c in ALL_CLASSES)
    rng = random.Random(20260822)
    while len(chosen) < 40:
        chosen.add(frozenset(c for c in ALL_CLASSES if rng.random() < 0.5))
    return sorted(chosen, key=lambda s: (len(s), sorted(c.value for c in s)))


SELECTIONS = _selections()
SNAPSHOT = canary_snapshot(extra=secrets_messages())


def _leaks(text: str) -> list[str]:
    leaked = []
    values = [s.value for s in SECRETS] + [
        KNOWN,
        KNOWN_SPECIAL,
        KNOWN.lower(),
        KNOWN.upper(),
        KNOWN_SPECIAL.upper(),
    ]
    values.append("b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ")  # the private key's body
    for value in values:
        for form in forbidden_forms(value):
            if form in text:
                leaked.append(f"{value[:12]}…:{form[:16]}…")
    return leaked


def _name(selection: frozenset[ContentClass]) -> str:
    return "+".join(sorted(c.value for c in selection)) or "nothing"


@pytest.mark.parametrize("included", SELECTIONS, ids=_name)
def test_json_export_holds_exactly_the_allowed_canaries(included: frozenset[ContentClass]) -> None:
    result = export_snapshot(
        SNAPSHOT, Selection.including(included), key=KEY, known_secrets=[KNOWN, KNOWN_SPECIAL]
    )
    text = result.data.decode()
    decoded = "\n".join(json_strings(json.loads(text)))
    for name, cls in CANARIES.items():
        assert (canary(name) in decoded) == (cls in included), (name, cls)
    for marker in IMAGE_MARKERS.values():
        assert (marker in decoded) == (ContentClass.IMAGES in included)
    assert _leaks(text) == [] and _leaks(decoded) == []
    assert result.report.blocking == []

    exported = decode_snapshot(result.data)
    assert len(exported.history) == len(SNAPSHOT.history)
    assert [m.kind for m in exported.history] == [m.kind for m in SNAPSHOT.history]
    calls = [[c.id for c in m.tool_calls()] for m in exported.history]
    assert calls == [[c.id for c in m.tool_calls()] for m in SNAPSHOT.history]
    results = [m.tool_result.id for m in exported.history if m.tool_result is not None]
    assert results == [m.tool_result.id for m in SNAPSHOT.history if m.tool_result is not None]
    for message in exported.history:
        for call in message.tool_calls():
            assert isinstance(call.arguments, dict)
    excluded = exported.metadata.get("rho_desk.export.excluded")
    assert excluded == ",".join(c.value for c in ALL_CLASSES if c not in included)


@pytest.mark.parametrize("fmt", ["markdown", "html"])
@pytest.mark.parametrize(
    "included", [*SELECTIONS[:: len(SELECTIONS) // 12 or 1], frozenset(ALL_CLASSES)], ids=_name
)
def test_transcripts_hold_no_excluded_canary_and_no_secret(
    fmt: str, included: frozenset[ContentClass]
) -> None:
    result = export_snapshot(
        SNAPSHOT,
        Selection.including(included),
        key=KEY,
        known_secrets=[KNOWN, KNOWN_SPECIAL],
        fmt=fmt,
    )
    text = result.data.decode()
    for name, cls in CANARIES.items():
        if cls not in included:
            assert canary(name) not in text, name
        elif name not in NOT_IN_TRANSCRIPTS:
            assert canary(name) in text, name
    for marker in IMAGE_MARKERS.values():
        assert (marker in text) == (ContentClass.IMAGES in included)
    assert _leaks(text) == []
    assert result.report.blocking == []


def test_every_secret_form_is_redacted_and_recorded() -> None:
    result = export_snapshot(
        SNAPSHOT, Selection.everything(), key=KEY, known_secrets=[KNOWN, KNOWN_SPECIAL]
    )
    rules = {r.rule for r in result.redactions}
    assert {s.kind for s in SECRETS} <= rules
    assert "known-credential" in rules
    encodings = {r.encoding for r in result.redactions}
    assert {"plain", "percent", "base64", "unicode-escape", "case", "json-escape"} <= encodings
    assert result.report.findings == []


@pytest.mark.parametrize(
    ("a", "b"),
    list(
        itertools.combinations(
            [ContentClass.USER, ContentClass.TOOL_RECORDS, ContentClass.DOCUMENTS], 2
        )
    ),
)
def test_neighbouring_classes_in_one_string_are_separated(a: ContentClass, b: ContentClass) -> None:
    # tool results hold document lines; user messages hold attachment blocks next to user text
    result = export_snapshot(SNAPSHOT, Selection.including({a, b}), key=KEY)
    decoded = "\n".join(json_strings(json.loads(result.data)))
    for name, cls in CANARIES.items():
        assert (canary(name) in decoded) == (cls in {a, b}), name


# --- one verdict whatever the format -----------------------------------------------------------


def _found(scanner: SecretScanner, data: bytes) -> set[tuple[str, bytes]]:
    return {(h.rule, h.value) for h in scanner.scan(data)}


@pytest.mark.parametrize("included", SELECTIONS, ids=_name)
def test_json_markdown_and_html_reach_one_verdict(included: frozenset[ContentClass]) -> None:
    """The whole matrix through the three formats: the same redactions, nothing left, and the
    audits of the unredacted renderings of the selection find the same secrets."""
    selection = Selection.including(included)
    results = {
        fmt: export_snapshot(
            SNAPSHOT, selection, key=KEY, known_secrets=[KNOWN, KNOWN_SPECIAL], fmt=fmt
        )
        for fmt in FORMATS
    }
    records = {
        fmt: sorted((r.rule, r.fingerprint, r.encoding) for r in result.redactions)
        for fmt, result in results.items()
    }
    assert records["json"] == records["markdown"] == records["html"]
    for fmt, result in results.items():
        assert result.report.blocking == [], fmt
        assert _leaks(result.data.decode()) == [], fmt

    scanner = SecretScanner([KNOWN, KNOWN_SPECIAL])
    shown, _ = apply_selection(SNAPSHOT, selection)
    as_json = _found(scanner, encode_pretty(shown))
    as_markdown = _found(scanner, render_markdown(shown))
    as_html = _found(scanner, html_text(render_html(shown)))
    # the transcripts show what the JSON holds, minus provider context and metadata (no secret
    # is planted there); the HTML also shows a tool call's first characters as a preview,
    # where a long key appears cut: each such finding is the start of a key found in full
    assert as_markdown == as_json
    assert as_json <= as_html
    for rule, value in as_html - as_json:
        assert any(other.startswith(value) for _, other in as_json), rule
    blocked = {
        fmt: bool(audit_bytes(data, scanner=scanner, key=KEY, fmt=fmt).blocking)
        for fmt, data in (
            ("snapshot", encode_pretty(shown)),
            ("markdown", render_markdown(shown)),
            ("html", render_html(shown)),
        )
    }
    assert len(set(blocked.values())) == 1, blocked
