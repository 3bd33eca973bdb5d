"""Every secret form of ``forms.FORMS`` is found, raw and inside the JSON string an export holds
it in, and an export of a session holding it keeps none of it (the receipt counts a redaction
for each); the benign session raises nothing."""

from __future__ import annotations

import json

import pytest

from rho_desk.core.export import Hit, SecretScanner, Selection, audit_bytes, export_snapshot
from rho_desk.core.wire.codec import encode_pretty
from rho_desk.core.wire.model import Message

from .builders import canary_snapshot
from .forms import FORMS, Form, benign_session

SCANNER = SecretScanner()
KEY = bytes(range(32))


def _covered(data: bytes, hits: list[Hit], needle: bytes) -> bool:
    pos = data.find(needle)
    assert pos >= 0, "needle not in the text"
    while pos >= 0:
        if not any(h.start <= pos and pos + len(needle) <= h.end for h in hits):
            return False
        pos = data.find(needle, pos + 1)
    return True


def found(text: str, needle: str) -> bool:
    raw = text.encode()
    if not _covered(raw, SCANNER.scan(raw), needle.encode()):
        return False
    as_json = json.dumps({"output": text}, ensure_ascii=False).encode()
    inner = json.dumps(needle, ensure_ascii=False)[1:-1].encode()
    return _covered(as_json, SCANNER.scan(as_json), inner)


@pytest.mark.parametrize("form", FORMS, ids=lambda f: f"{f.cause}:{f.name}")
def test_form_is_found_raw_and_in_json(form: Form) -> None:
    assert found(form.text, form.needle)


@pytest.mark.parametrize("cause", sorted({f.cause for f in FORMS}))
def test_an_export_keeps_none_of_the_forms_and_counts_them(cause: str) -> None:
    forms = [f for f in FORMS if f.cause == cause]
    snapshot = canary_snapshot(extra=[Message.user_text(f.text) for f in forms])
    # unredacted, the audit reports a critical finding for each form's message
    report = audit_bytes(
        encode_pretty(snapshot), scanner=SECRET_FREE_SCANNER, key=KEY, fmt="snapshot"
    )
    flagged = {
        f.location.split(".content")[0] for f in report.findings if f.severity.value == "critical"
    }
    assert len(flagged) >= len(forms)
    result = export_snapshot(snapshot, Selection.everything(), key=KEY)
    for form in forms:
        inner = json.dumps(form.needle, ensure_ascii=False)[1:-1].encode()
        assert inner not in result.data, form.name
    assert len(result.redactions) >= len(forms)
    assert result.report.blocking == []


SECRET_FREE_SCANNER = SecretScanner()


def test_the_benign_session_raises_nothing() -> None:
    text = benign_session().encode()
    hits = SCANNER.scan(text)
    assert [(h.rule, text[h.start : h.end][:40]) for h in hits] == []
