"""Snapshots for the export tests: a canary in every wire location, and secrets of every kind.

Every canary is unique, names its class, and is planted in one location spec/export.md §4 names
(both histories share the Message shape, so one history covers them). The secrets are synthetic
values of the right shapes, never real credentials, planted plain and encoded in included
content.
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from urllib.parse import quote

from rho_desk.core.export import ContentClass
from rho_desk.core.wire.model import (
    AbortedAssistant,
    AssistantMessage,
    ContentBlock,
    Message,
    ModelIdentity,
    ModelUsage,
    PartialToolCall,
    ProviderContextBlock,
)
from rho_desk.core.wire.snapshot import CompactionState, SessionSnapshot

C = ContentClass
IDENTITY = ModelIdentity("openai", "responses", "gpt-5")
OTHER = ModelIdentity("anthropic", "anthropic-messages", "claude-x")
PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4).decode()
JPEG = base64.b64encode(b"\xff\xd8\xff\xe0" + bytes(range(200))).decode()


def canary(name: str) -> str:
    """A unique marker: upper case, so no secret rule and no base64 decoding touches it."""
    return f"CANARY_{name.upper()}_Q7"


# (class, location) of every canary in ``canary_snapshot``; the transcripts show a subset
CANARIES: dict[str, ContentClass] = {
    "system": C.INSTRUCTIONS,
    "agents_md": C.INSTRUCTIONS,
    "user_text": C.USER,
    "steering": C.USER,
    "assistant_legacy": C.ASSISTANT,
    "assistant_enriched": C.ASSISTANT,
    "assistant_aborted": C.ASSISTANT,
    "args_enriched": C.TOOL_RECORDS,
    "args_nested": C.TOOL_RECORDS,
    "args_host": C.TOOL_RECORDS,
    "args_user": C.TOOL_RECORDS,
    "args_aborted_block": C.TOOL_RECORDS,
    "partial_args": C.TOOL_RECORDS,
    "result_ok": C.TOOL_RECORDS,
    "result_error": C.TOOL_RECORDS,
    "result_url": C.TOOL_RECORDS,
    "result_extracted": C.TOOL_RECORDS,
    "attached_name": C.DOCUMENTS,
    "attached_text": C.DOCUMENTS,
    "attached_warning": C.DOCUMENTS,
    "label_name": C.DOCUMENTS,
    "doc_warning": C.DOCUMENTS,
    "summary_enriched": C.REASONING_SUMMARIES,
    "summary_aborted": C.REASONING_SUMMARIES,
    "context_enriched": C.PROVIDER_CONTEXT,
    "context_aborted": C.PROVIDER_CONTEXT,
    "context_fallback": C.PROVIDER_CONTEXT,
    "meta_key": C.METADATA,
    "meta_value": C.METADATA,
    "title": C.METADATA,
    "cache_key": C.METADATA,
}

# Image data has no readable canary: its base64 text itself is the marker.
IMAGE_MARKERS = {"png": PNG, "jpeg": JPEG}

# Canaries that Markdown/HTML transcripts do not show even when included (as upstream: no opaque
# provider context, no partial tool calls, metadata only through the title, no cache key).
NOT_IN_TRANSCRIPTS = {
    "context_enriched",
    "context_aborted",
    "partial_args",
    "meta_key",
    "meta_value",
    "cache_key",
}


def canary_snapshot(
    *, extra: list[Message] | None = None, metadata: dict[str, str] | None = None
) -> SessionSnapshot:
    """A session with a canary in every location the spec names, and no secret."""
    k = canary
    history = [
        Message.system_text(
            f"You are Rho. {k('system')}\nAdditional instructions from AGENTS.md files:\n"
            f'<agents_instructions path="/home/u/proj/AGENTS.md">{k("agents_md")}</agents_instructions>'
        ),
        Message.user_blocks(
            [
                ContentBlock.of_text(f"Please look at this {k('user_text')}"),
                ContentBlock.of_image(PNG, "image/png"),
                ContentBlock.of_text(
                    f"Attached file: {k('attached_name')} (final).pdf (application/pdf)\n"
                    "Extraction notice: content was truncated to the attachment limit.\n"
                    f"Extraction warnings: {k('attached_warning')}; another\n<<<\n{k('attached_text')} body\n>>>"
                ),
                ContentBlock.of_text(f"[pdf: {k('label_name')}.pdf · 1234 chars · truncated]"),
            ]
        ),
        Message.assistant_blocks(
            [ContentBlock.of_tool_call("host-1", "skill", {"name": k("args_host")})]
        ),
        Message.result("host-1", True, f"skill body {k('result_url')} https://example.com/page"),
        Message.enriched(
            AssistantMessage(
                content=(
                    ContentBlock.of_text(f"Sure. {k('assistant_enriched')}"),
                    ContentBlock.of_tool_call(
                        "call-1",
                        "bash",
                        {"command": f"echo {k('args_enriched')}", "timeout_seconds": 30},
                    ),
                    ContentBlock.of_tool_call(
                        "call-2",
                        "edit",
                        {"input": [{"path": "a.py", "ops": {"put": k("args_nested")}}]},
                    ),
                ),
                provenance=IDENTITY,
                reasoning_summary=f"thinking {k('summary_enriched')}",
                provider_context=(
                    ProviderContextBlock(
                        identity=IDENTITY,
                        kind="openai_response_output_item",
                        position=0,
                        data={"type": "reasoning", "encrypted_content": k("context_enriched")},
                    ),
                    ProviderContextBlock(
                        identity=IDENTITY,
                        kind="rho.sdk.portable_fallback.v1",
                        data=f"fallback {k('context_fallback')}",
                    ),
                ),
            )
        ),
        Message.result("call-1", True, f"{k('result_ok')}\nline two of the output"),
        Message.result("call-2", False, f"error: {k('result_error')}"),
        Message.user_text(f"steer: {k('steering')}"),
        Message.user_blocks(
            [
                ContentBlock.of_tool_call("user-call", "read_file", {"path": k("args_user")}),
                ContentBlock.of_image(JPEG, "image/jpeg"),
            ]
        ),
        Message.assistant_text(f"legacy {k('assistant_legacy')}"),
        Message.enriched(
            AssistantMessage(
                content=(ContentBlock.of_tool_call("call-3", "read_file", {"path": "report.pdf"}),),
                provenance=IDENTITY,
            )
        ),
        Message.result(
            "call-3",
            True,
            f"{k('result_extracted')} extracted\n\nExtraction notice: content was truncated at the output limit.\n"
            f"[document warning: {k('doc_warning')}]",
        ),
        Message.aborted(
            AbortedAssistant(
                content=(
                    ContentBlock.of_text(f"partial {k('assistant_aborted')}"),
                    ContentBlock.of_tool_call(
                        "call-4", "write", {"content": k("args_aborted_block")}
                    ),
                ),
                reasoning="",
                provenance=OTHER,
                reasoning_summary=f"aborted thinking {k('summary_aborted')}",
                provider_context=(
                    ProviderContextBlock(
                        identity=OTHER,
                        kind="anthropic_content_block",
                        data={"signature": k("context_aborted")},
                    ),
                ),
                tool_calls=(
                    PartialToolCall(
                        id="call-5", name="bash", arguments=f'{{"command": "{k("partial_args")}'
                    ),
                ),
                usage=ModelUsage(input_tokens=10),
            )
        ),
        *(extra or []),
    ]
    meta = {k("meta_key"): k("meta_value"), "title": f"Session {k('title')}"}
    if metadata:
        meta.update(metadata)
    return SessionSnapshot.new(
        "5f0c2d7e-8a41-4c1b-9d33-0e6b7a2f9c10",
        12,
        history,
        IDENTITY,
        CompactionState(1, 4, 300, 0, 900, 600, 9),
        metadata=meta,
        prompt_cache_key=f"rho:{k('cache_key')}",
    )


# --- secrets ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Secret:
    """A synthetic secret: the text to plant and the value that must never come out."""

    kind: str
    text: str
    value: str


SECRETS = [
    Secret(
        "openai-api-key",
        "sk-proj-Q9xT2mB7vK4pL8nR1sW6yZ3aD5fG0hJ2kM4qU7eI9oP1",
        "sk-proj-Q9xT2mB7vK4pL8nR1sW6yZ3aD5fG0hJ2kM4qU7eI9oP1",
    ),
    Secret(
        "anthropic-api-key",
        "sk-ant-api03-Zz81Yy72Xx63Ww54Vv45Uu36Tt27Ss18Rr09Qq1Pp2Oo3Nn4Mm5Ll6Kk7Jj8Ii9Hh0Gg-AAB",
        "sk-ant-api03-Zz81Yy72Xx63Ww54Vv45Uu36Tt27Ss18Rr09Qq1Pp2Oo3Nn4Mm5Ll6Kk7Jj8Ii9Hh0Gg-AAB",
    ),
    Secret(
        "github-token",
        "ghp_R4nd0mT0k3nV4lu3F0rT3st1ngPurp0s3sXY",
        "ghp_R4nd0mT0k3nV4lu3F0rT3st1ngPurp0s3sXY",
    ),
    Secret(
        "github-token",
        "github_pat_11ABCDEFG0abcdefghij_KLMNOPQRSTUVWXYZ0123456789",
        "github_pat_11ABCDEFG0abcdefghij_KLMNOPQRSTUVWXYZ0123456789",
    ),
    Secret("aws-access-key-id", "AKIAZ7Q3W5E1R9T2Y4U6", "AKIAZ7Q3W5E1R9T2Y4U6"),
    Secret(
        "google-api-key",
        "AIzaSyB9x8W7v6U5t4S3r2Q1p0OnMlKjIhGfEdC",
        "AIzaSyB9x8W7v6U5t4S3r2Q1p0OnMlKjIhGfEdC",
    ),
    Secret(
        "slack-token",
        "xoxb-2468013579-1357924680-AbCdEfGh1234IjKl",
        "xoxb-2468013579-1357924680-AbCdEfGh1234IjKl",
    ),
    Secret(
        "stripe-api-key", "sk_live_51HqLyjWDarjtT1zdp7dcXYZ9", "sk_live_51HqLyjWDarjtT1zdp7dcXYZ9"
    ),
    Secret(
        "jwt",
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
    ),
    Secret(
        "private-key",
        "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n-----END OPENSSH PRIVATE KEY-----",
        "-----BEGIN OPENSSH PRIVATE KEY-----",
    ),
    Secret(
        "authorization-header",
        "Authorization: Basic dXNlcjpwYXNzd29yZDEyMw==",
        "dXNlcjpwYXNzd29yZDEyMw==",
    ),
    Secret("bearer-token", "curl -H 'Bearer 7fa9c3e1b2d4a6f8e0c2b4d6'", "7fa9c3e1b2d4a6f8e0c2b4d6"),
    Secret("cookie", "Cookie: session=9f8e7d6c5b4a3210; theme=dark", "session=9f8e7d6c5b4a3210"),
    Secret(
        "signed-url-query",
        "https://bucket.s3.amazonaws.com/f.tar?X-Amz-Expires=600&X-Amz-Signature=4f3c2b1a0e9d8c7b6a5f4e3d2c1b0a99&x=1",
        "4f3c2b1a0e9d8c7b6a5f4e3d2c1b0a99",
    ),
    Secret(
        "url-password",
        "postgres://admin:S3cr3tPassw0rdX@db.example.com:5432/app",
        "S3cr3tPassw0rdX",
    ),
    Secret("credential-assignment", 'DB_PASSWORD="hunter2hunter2"', "hunter2hunter2"),
    Secret(
        "webhook-url",
        "https://hooks.slack.com/services/T0ABCDEF1/B0GHIJKL2/xyzXYZ0123456789abcd",
        "xyzXYZ0123456789abcd",
    ),
]

KNOWN = "kr-profile-Credential-5f3a9c71"
"""A credential rho-desk holds in keyring (passed as a known secret)."""
KNOWN_SPECIAL = 'p@ss"w\\rd!Long#2'
"""A known credential with characters JSON and HTML escape."""


def secret_forms(secret: Secret) -> dict[str, str]:
    """How one secret is planted: plain, URL-encoded, base64 (three alignments), unicode-escaped,
    JSON-escaped inside a JSON document."""
    text = secret.text
    forms = {
        "plain": text,
        "percent": quote(text, safe=""),
        "json": json.dumps({"config": text}),
    }
    for k in range(3):
        forms[f"base64_{k}"] = base64.b64encode(b"x" * k + f" {text} ".encode()).decode()
    first = text[0]
    if first.isalpha():
        forms["unicode"] = f"\\u{ord(first):04x}{text[1:]}"
    return forms


def known_forms(value: str) -> dict[str, str]:
    forms = {
        "plain": value,
        "upper": value.upper(),
        "lower": value.lower(),
        "percent": quote(value, safe=""),
        "json": json.dumps({"k": value})[7:-2],
        "html": value.replace("&", "&amp;").replace('"', "&quot;"),
    }
    for k in range(3):
        forms[f"base64_{k}"] = base64.b64encode(b"y" * k + value.encode() + b"z").decode()
    return forms


def secrets_messages() -> list[Message]:
    """Messages planting every secret in every form, in user text, tool arguments and results."""
    out: list[Message] = []
    n = 0
    for secret in SECRETS:
        for form, text in secret_forms(secret).items():
            n += 1
            holder = n % 3
            if holder == 0:
                out.append(Message.user_text(f"{form}: {text}"))
            elif holder == 1:
                out.append(
                    Message.enriched(
                        AssistantMessage(
                            content=(
                                ContentBlock.of_tool_call(
                                    f"s-{n}", "bash", {"command": f"run {text}"}
                                ),
                            ),
                            provenance=IDENTITY,
                        )
                    )
                )
                out.append(Message.result(f"s-{n}", True, "done"))
            else:
                out.append(
                    Message.assistant_blocks(
                        [ContentBlock.of_tool_call(f"s-{n}", "read_file", {"path": "x"})]
                    )
                )
                out.append(Message.result(f"s-{n}", True, f"output line\n{text}\nmore"))
    for value in (KNOWN, KNOWN_SPECIAL):
        for form, text in known_forms(value).items():
            out.append(Message.user_text(f"known {form}: [{text}]"))
    return out


def forbidden_forms(value: str) -> list[str]:
    """Strings whose presence in an output means the secret ``value`` leaked."""
    raw = value.encode()
    out = {value, quote(value, safe="")}
    for k in range(3):
        encoded = base64.b64encode(b"\0" * k + raw).decode()
        first = (0, 2, 3)[k]
        last = (k + len(raw)) * 8 // 6
        core = encoded[first:last]
        if len(core) >= 12:
            out.add(core)
    return sorted(out)


def json_strings(value: object) -> list[str]:
    """Every string of a decoded JSON document, keys included (what a leak check must read)."""
    out: list[str] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out.append(item)
        elif isinstance(item, dict):
            out.extend(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return out
