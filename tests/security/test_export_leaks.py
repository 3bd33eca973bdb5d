"""Secrets in a session from elsewhere do not leave the machine through an export when the
scanner's fast path (the hyperscan gate) and its plain ``re`` path would disagree: forms that
once passed the gate unreported, each exported and checked in the exact bytes written."""

from __future__ import annotations

import pytest

from rho_desk.core.export import Selection, export_snapshot
from rho_desk.core.export.scanner._prefilter import HYPERSCAN
from rho_desk.core.wire.model import Message, ModelIdentity
from rho_desk.core.wire.snapshot import SessionSnapshot

pytestmark = pytest.mark.skipif(not HYPERSCAN, reason="the gate needs hyperscan")

SECRET = "S3cr3tValue9x"


@pytest.mark.parametrize(
    "line",
    [
        f"$config['xCookie'='{SECRET}'];",  # a name run into the word before it, quote, then =
        f"session_cookie' => '{SECRET}'",
    ],
)
def test_a_cookie_name_before_its_quote_and_assignment_is_redacted(line: str) -> None:
    source = SessionSnapshot.new(
        "s-1",
        1,
        [Message.user_text(f"here is the config:\n{line}\n")],
        ModelIdentity("openai", "responses", "gpt-5"),
    )
    result = export_snapshot(source, Selection.everything(), key=b"\x01" * 32)
    assert SECRET.encode() not in result.data
    assert [r.rule for r in result.redactions] == ["credential-assignment"]
