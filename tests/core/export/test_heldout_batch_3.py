"""The third held-out batch (issue 31): 507 everyday secret forms in 12 causes and 69 benign
look-alikes, written without looking at the rules and measured blind on main d01df15 (62 forms
leaked, 9 look-alikes damaged), then fixed by cause. ``heldout_batch_3.json`` holds the forms as
the batch wrote them (``batch: extra``: the further forms of each fixed cause, written before the
fix was checked against them: 40 forms and 33 look-alikes, 8 of them from the project's own docs
and code).

Each form is planted where the batch planted it (a ``bash`` call's output or command, a
``read_file`` result as numbered rows, a diff, hashline or grep rows, ``apply_patch`` input, the
``write`` tool's content, an interrupted call's raw arguments, a failed result, a user's text)
and exported: no secret of it survives in the export, plain, escaped or decoded, and no export is
blocked; a look-alike's text comes out as it went in. The forms that still leak are named in
``LIMITS`` with the reason (docs/security.md states them too).
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import json
import re
import unicodedata
import urllib.parse
from pathlib import Path
from typing import Any

import pytest

from rho_desk.core.export import ExportResult, Selection, export_snapshot
from rho_desk.core.wire.codec import decode_snapshot

KEY = bytes(range(32))
FORMS: list[dict[str, Any]] = json.loads(
    (Path(__file__).with_name("heldout_batch_3.json")).read_text(encoding="utf-8")
)

LIMITS_BASE: dict[str, str] = {
    "cfg-nginx-basic-header": "a header's value quoted as one nginx argument (`Authorization \"Basic …\"`): the scheme's quote hides the base64",
    "cfg-haproxy-userlist": "haproxy `stats auth user:X`: a directive's user:password word",
    "cfg-postfix-sasl": "postfix sasl_passwd `host user:X` with a letters-only app password",
    "cfg-chap-secrets": "ppp chap-secrets columns (client server secret ip) under a commented header",
    "code-rust-unwrap-or": 'a literal default in `.unwrap_or_else(|_| "X")` of a credential-named lookup two calls before',
    "code-concat-split": "a token split by `+`: the second half has no name",
    "argv-printf-pipe": "`printf '%s\\n'`: the literal `\\n` in the format is read as a line break",
    "sh-read-s-transcript": "a value echoed after `read -s`: nothing names it on its line",
    "sh-redis-config-get": "`CONFIG GET requirepass` output: the name and the value on numbered lines",
    "vendor-razorpay-neutral-json": "`rzp_live_` is Razorpay's key id (shown in checkout pages); the batch counted it as a secret",
    "enc-go-byte-slice": "a Go byte slice of hex literals is not decoded",
    "enc-java-char-array": "a Java char array is not decoded",
    "enc-b64-wrapped-short-lines": "base64 wrapped at 8 columns: its lines are shorter than a wrapped blob's",
    "key-bitcoin-wif": "a bitcoin WIF key as a command's argument: base58, no name",
    "key-solana-keypair": "a keypair as a JSON array of 64 byte values",
    "key-otpauth-migration": "otpauth-migration:// data (protobuf of TOTP seeds, base64)",
    "url-phpsessid": "`PHPSESSID=X` outside a Cookie header: the gate's keywords are not in the name",
    "x-cfg-pgpass-grep-rows": "a .pgpass line in grep rows: the row's `path:1:` reads as its first fields",
    "x-code-swift-keychain-set": 'Swift `keychain.set("X", forKey: "token")`: the name comes after the value',
    "x-code-rust-string-from": '`let token = String::from("X")`: the call is read as the value',
    "x-cfg-pam-ldap-bindpw": "pam_ldap `bindpw X`: no keyword of the gate in the name",
    "url-mattermost-hook": "a Mattermost webhook URL (`/hooks/<26>`) under a neutral name",
}
"""The forms still leaking, each with why."""
LIMITS: dict[str, str] = {
    **LIMITS_BASE,
    "cfg-nginx-basic-header@diff": LIMITS_BASE["cfg-nginx-basic-header"],
    "sh-redis-config-get@error": LIMITS_BASE["sh-redis-config-get"],
    "vendor-razorpay-neutral-json@grep": LIMITS_BASE["vendor-razorpay-neutral-json"],
}

UNFLAGGED: dict[str, str] = {
    "vendor-razorpay-neutral-json": "a key id, not a secret: 14 characters after its prefix, too few to look random",
    "vendor-razorpay-neutral-json@grep": "a key id, not a secret: 14 characters after its prefix, too few to look random",
    "key-otpauth-migration": "a value named `data` is data to the second opinion (an image's, encrypted content's)",
    "url-phpsessid": "lower-case letters and digits: by shape, an id as much as a session's secret",
    "url-mattermost-hook": "a URL's path segment of lower-case letters and digits: by shape, an id",
}
"""The leaking forms the audit's second opinion does not flag either, each with why: their exports
still say ``findings: 0``."""


# --- where a form is planted (as the batch's harness plants it) ---------------------------------


def _numbered(text: str) -> str:
    return "\n".join(f"{i}:{line}" for i, line in enumerate(text.split("\n"), 1))


def _planted(form: dict[str, Any]) -> str:
    text: str = form["text"]
    loc = form["loc"]
    lines = text.split("\n")
    if loc == "read":
        return _numbered(text)
    if loc == "hashline":
        return "[config/app.conf#K7Q2]\n" + _numbered(text)
    if loc == "grep":
        return "\n".join(f"config/app.conf:{i}:{line}" for i, line in enumerate(lines, 1))
    if loc == "diff":
        body = "\n".join("+" + line for line in lines)
        head = "diff --git a/config/app.conf b/config/app.conf\nindex 3f2a1c4..9be01d7 100644\n"
        return f"{head}--- a/config/app.conf\n+++ b/config/app.conf\n@@ -1,0 +1,{len(lines)} @@\n{body}"
    if loc == "patch":
        body = "\n".join("+" + line for line in lines)
        return f"*** Begin Patch\n*** Add File: config/app.conf\n{body}\n*** End Patch"
    if loc == "aborted":
        return '{"command": ' + json.dumps(text)
    return text


def _history(form: dict[str, Any]) -> list[dict[str, Any]]:
    loc, text, cid = form["loc"], _planted(form), "call_0"

    def turn(call: dict[str, Any], content: str, ok: bool = True) -> list[dict[str, Any]]:
        return [
            {"Assistant": [{"ToolCall": {"id": cid, **call}}]},
            {"ToolResult": {"id": cid, "ok": ok, "content": content}},
        ]

    if loc == "user":
        return [{"User": [{"Text": text}]}]
    if loc == "command":
        return turn({"name": "bash", "arguments": {"command": text}}, "done")
    if loc == "write":
        return turn({"name": "write", "arguments": {"path": "notes.txt", "content": text}}, "ok")
    if loc == "patch":
        return turn({"name": "apply_patch", "arguments": {"input": text}}, "applied 1 file")
    if loc == "aborted":
        usage = {"input_tokens": 10, "output_tokens": 5, "cache_read_tokens": None}
        call = {"id": cid, "name": "bash", "arguments": text}
        aborted = {"content": [{"Text": "Running it."}], "reasoning": "", "tool_calls": [call]}
        return [{"AbortedAssistant": {**aborted, "usage": usage}}]
    if loc in ("read", "hashline"):
        return turn({"name": "read_file", "arguments": {"path": "config/app.conf"}}, text)
    if loc == "grep":
        return turn({"name": "grep", "arguments": {"pattern": "=", "path": "config"}}, text)
    cmd = form.get("cmd", "git diff" if loc == "diff" else "./run.sh")
    return turn({"name": "bash", "arguments": {"command": cmd}}, text, ok=loc != "error")


def _export(form: dict[str, Any]) -> tuple[list[str], bool]:
    result = _result(form)
    return _strings(json.loads(result.data)), result.blocked


def _result(form: dict[str, Any]) -> ExportResult:
    return _exported([{"User": [{"Text": "look"}]}, *_history(form)])


def _exported(history: list[dict[str, Any]]) -> ExportResult:
    """A session of ``history`` (wire records), exported as JSON with everything selected."""
    raw = {
        "schema_version": 2,
        "session_id": "s-1",
        "revision": 1,
        "history": history,
        "provider": {"provider": "openai", "api": "responses", "model": "gpt-5"},
        "compaction": {"completed_compactions": 0, "removed_messages": 0},
        "metadata": {},
        "prompt_cache_key": "k",
    }
    return export_snapshot(
        decode_snapshot(json.dumps(raw)), Selection.everything(), key=KEY, fmt="json"
    )


def _strings(node: object) -> list[str]:
    if isinstance(node, str):
        return [node]
    if isinstance(node, dict):
        return [s for v in node.values() for s in _strings(v)]
    if isinstance(node, list):
        return [s for v in node for s in _strings(v)]
    return []


# --- what survives: plain, escaped, decoded -------------------------------------------------------

_IGNORABLE = re.compile(
    "[\u00ad\u034f\u180e\u200b-\u200f\u202a-\u202e\u2060-\u206f\ufe00-\ufe0f\ufeff]"
)
_B64 = re.compile(r"[A-Za-z0-9+/_\-]{12,}={0,2}")


def _views(text: str) -> list[str]:
    out = [text, urllib.parse.unquote(urllib.parse.unquote(text))]
    out.append(unicodedata.normalize("NFKC", _IGNORABLE.sub("", text)))
    out.append(re.sub(r"\\u\{?([0-9A-Fa-f]{2,6})\}?", lambda m: chr(int(m.group(1), 16)), text))
    squeezed = re.sub(r"\s+", "", text)
    blocks = ["".join(b.split()) for b in re.findall(r"(?:^[A-Za-z0-9+/=]{4,}$\n?)+", text, re.M)]
    for m in (m for t in (squeezed, *blocks) for m in _B64.finditer(t)):
        run = m.group(0).rstrip("=").replace("-", "+").replace("_", "/")
        with contextlib.suppress(binascii.Error, ValueError):
            out.append(base64.b64decode(run + "=" * (-len(run) % 4)).decode("latin-1"))
    for m in re.finditer(r"(?:0x[0-9A-Fa-f]{2}\s*,\s*){5,}0x[0-9A-Fa-f]{2}", text):
        out.append(
            bytes(int(v, 16) for v in re.findall(r"0x([0-9A-Fa-f]{2})", m.group(0))).decode(
                "latin-1"
            )
        )
    chars = re.findall(r"'(.)'", text)
    if len(chars) >= 6:
        out.append("".join(chars))
    return out


def _survives(secret: str, strings: list[str]) -> bool:
    escaped = json.dumps(secret)[1:-1]
    return any(secret in view or escaped in view for s in strings for view in _views(s))


def _params(benign: bool) -> list[Any]:
    out = []
    for form in FORMS:
        if bool(form.get("benign")) != benign:
            continue
        marks = []
        if form["id"] in LIMITS:
            marks.append(pytest.mark.xfail(strict=True, reason=LIMITS[form["id"]]))
        out.append(pytest.param(form, id=form["id"], marks=marks))
    return out


@pytest.mark.parametrize("form", _params(benign=False))
def test_no_secret_of_the_form_survives_its_export(form: dict[str, Any]) -> None:
    strings, blocked = _export(form)
    left = [s for s in form["secrets"] if _survives(s, strings)]
    assert not left, (form["note"], left, max(strings, key=len)[:400])
    assert not blocked


@pytest.mark.parametrize("form", _params(benign=True))
def test_the_look_alike_comes_out_as_it_went_in(form: dict[str, Any]) -> None:
    strings, blocked = _export(form)
    planted = _planted(form)
    assert planted in strings or form["text"] in strings, (
        form["note"],
        max(strings, key=len)[:400],
    )
    assert not blocked


@pytest.mark.parametrize(
    "form",
    [
        pytest.param(
            form,
            id=form["id"],
            marks=[pytest.mark.xfail(strict=True, reason=UNFLAGGED[form["id"]])]
            if form["id"] in UNFLAGGED
            else [],
        )
        for form in FORMS
        if form["id"] in LIMITS
    ],
)
def test_a_form_that_still_leaks_is_a_finding_of_the_audit(form: dict[str, Any]) -> None:
    """The audit's second opinion reads command lines' words and decoded text: a form the
    scanner misses is flagged for review in the receipt, not ``findings: 0``."""
    result = _result(form)
    assert result.report.findings, form["note"]
    assert all(f.rule.startswith("second-opinion:") for f in result.report.findings)
    assert not result.blocked


def test_the_batch_is_the_one_measured() -> None:
    """507 secret forms and 69 look-alikes of the blind batch, the further forms after them."""
    blind = [f for f in FORMS if f.get("batch") != "extra"]
    assert sum(1 for f in blind if not f.get("benign")) == 507
    assert sum(1 for f in blind if f.get("benign")) == 69
    assert len({f["id"] for f in FORMS}) == len(FORMS)
