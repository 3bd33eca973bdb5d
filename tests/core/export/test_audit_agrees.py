"""Redaction and the audit agree (issue 31, "What to build" 6): what the scanner itself produced
never blocks an export.

Two forms of a held-out batch were blocked instead of redacted, in two ways:

* a rule read the placeholder the redaction had just written as the value it replaced (a
  Kubernetes Secret as ``kubectl get secret -o json`` prints it: every ``data`` value is a
  secret, whatever its shape), so each round redacted the placeholder again and the audit of the
  final bytes found it; the same with markup beside a placeholder (``<code>[secret redacted: …``
  in HTML);
* a transcript puts a reasoning summary on lines of its own, after a heading and a fence, where
  a rule reads a secret the JSON string (one line, ``\\n`` escapes) hid from it: redaction worked
  on the JSON, the audit on the transcript.

Each form in every place a session holds text and in every format: redacted, not blocked, and no
placeholder nested in another.
"""

from __future__ import annotations

import base64
import json

import pytest

from rho_desk.core.export import SecretScanner, Selection, audit_bytes, export_snapshot
from rho_desk.core.export._redact import SECRET_PLACEHOLDER, outside_placeholders
from rho_desk.core.export.scanner import Hit
from rho_desk.core.wire.model import AssistantMessage, ContentBlock, Message, ModelIdentity
from rho_desk.core.wire.snapshot import SessionSnapshot

KEY = bytes(range(32))
IDENTITY = ModelIdentity("openai", "responses", "gpt-5")
FORMATS = ("json", "markdown", "html")


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


PASSWORD = "s3cr3t-Pa55w0rd!"
K8S_JSON = json.dumps(
    {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": "db"},
        "type": "Opaque",
        "data": {"password": _b64(PASSWORD), "user": _b64("admin")},
    },
    indent=4,
)
K8S_YAML = f"apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ntype: Opaque\ndata:\n  password: {_b64(PASSWORD)}\n  user: {_b64('admin')}\n"
HEADING = "**Checking the config**\n\n"
COMMAND = "htpasswd -bc /etc/nginx/.htpasswd admin Vx7qLm2Rt9Kw"
JWT = "eyJ2ZXIiOiIyIn0.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODB9.dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"

# (text, the values that must leave, formats where it is checked)
FORMS: dict[str, tuple[str, tuple[str, ...], tuple[str, ...]]] = {
    "kubernetes secret as json": (K8S_JSON, (_b64(PASSWORD),), FORMATS),
    "kubernetes secret as yaml": (K8S_YAML, (_b64(PASSWORD),), FORMATS),
    "value in backquotes (html <code>)": (
        "apiToken := `Zq8vR2xK7mW4pT9n`",
        ("Zq8vR2xK7mW4pT9n",),
        FORMATS,
    ),
    # the JSON string hides these from the rules (the JSON export's leak is the scanner's; the
    # transcripts, where the audit reads them, must redact them rather than block)
    "command line after a heading": (HEADING + COMMAND, ("Vx7qLm2Rt9Kw",), ("markdown", "html")),
    "token after a heading": (HEADING + JWT, (JWT,), ("markdown", "html")),
}


def _places(text: str) -> dict[str, list[Message]]:
    return {
        "reasoning summary": [
            Message.user_text("look"),
            Message.enriched(
                AssistantMessage(
                    content=(ContentBlock.of_text("ok"),),
                    provenance=IDENTITY,
                    reasoning_summary=text,
                )
            ),
        ],
        "tool result": [
            Message.user_text("look"),
            Message.assistant_blocks(
                [ContentBlock.of_tool_call("c1", "bash", {"command": "kubectl get secret db"})]
            ),
            Message.result("c1", True, text),
        ],
        "tool arguments": [
            Message.user_text("look"),
            Message.assistant_blocks(
                [ContentBlock.of_tool_call("c1", "write_file", {"path": "s.yaml", "content": text})]
            ),
            Message.result("c1", True, "ok"),
        ],
        "assistant": [Message.user_text("look"), Message.assistant_text(text)],
        "user": [Message.user_text(text)],
    }


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("form", sorted(FORMS))
def test_redacted_not_blocked_in_every_place(form: str, fmt: str) -> None:
    text, needles, formats = FORMS[form]
    if fmt not in formats:
        pytest.skip("the JSON string hides this form from the rules")
    for place, messages in _places(text).items():
        if formats != FORMATS and place == "tool arguments":
            continue  # a transcript shows arguments as JSON too: the rules do not see these there
        snapshot = SessionSnapshot.new("s-1", 1, [Message.system_text("sys"), *messages], IDENTITY)
        result = export_snapshot(snapshot, Selection.everything(), key=KEY, fmt=fmt)
        assert not result.blocked, (place, [(f.rule, f.location) for f in result.report.blocking])
        out = result.data.decode()
        for needle in needles:
            assert needle not in out and json.dumps(needle)[1:-1] not in out, (place, needle)
        assert b"[secret redacted: [secret redacted:" not in result.data, place
        assert result.redactions, place
        # the file alone gives the same audit (``rho-desk audit``)
        again = audit_bytes(
            result.data,
            scanner=SecretScanner(),
            key=KEY,
            name=f"export.{ {'markdown': 'md'}.get(fmt, fmt) }",
        )
        assert not again.blocking, (place, [(f.rule, f.location) for f in again.blocking])


def test_a_placeholder_is_no_hit_but_a_value_beside_one_is() -> None:
    placeholder = b"[secret redacted: kubernetes-secret fp:0123456789abcdef]"
    data = (
        b'\\"password\\": \\"'
        + placeholder
        + b'\\", <code>'
        + placeholder
        + b"</code> "
        + placeholder
        + b"Tail9secret"
    )
    inside = data.index(placeholder) + 18
    code = data.index(b"<code>")
    glued = data.rindex(placeholder)
    hits = [
        Hit("kubernetes-secret", inside, inside + 30, b"x"),  # within a placeholder
        Hit(
            "credential-assignment", data.index(b"password"), inside, b"x"
        ),  # a name and the placeholder's start
        Hit("credential-assignment", code, code + 14, b"x"),  # markup and the placeholder's start
        Hit("credential-assignment", glued, len(data), b"x"),  # a value glued to a placeholder
    ]
    kept = outside_placeholders(data, hits)
    assert kept == hits[1:2] + hits[3:]
    assert SECRET_PLACEHOLDER.fullmatch(placeholder)
    assert not SECRET_PLACEHOLDER.fullmatch(b"[secret redacted: x fp:0123456789abcdeX]")
