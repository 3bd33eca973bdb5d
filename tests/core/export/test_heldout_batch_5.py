"""The fifth held-out batch (issue 31): 151 everyday secret forms and 27 benign look-alikes,
written without looking at the scanner or its rules' tests, and measured blind on main
``58da74e`` (ruleset 17): 21 forms leaked in full (18 of them with ``findings: 0`` in the receipt),
none was blocked, and 4 look-alikes were damaged. ``heldout_batch_5.json`` holds the forms as the
batch wrote them; ``batch: extra`` marks the further forms of a fixed cause, written before the fix
was checked against them (55 forms and 44 look-alikes, for thirteen causes: credential nouns of
other languages in names, an XML value in the element after its name's or inside it, references
to a secret's store read as the secret, a bare value printed by a command whose subcommand,
operand or selector names the credential, a directive's words read past a JSON string's closing
quote, prose's value in typographic quotes, a directive typed at a client's prompt, a
printer's selector picking what is about the secret, a subcommand reading its secret from
standard input, a cookie string given to a client's option, a vendor's name before ``KEY``,
a password flag beside a user flag of a client the table does not know, and a token as a URL's
path segment after one naming it).

The forms are what a coding session holds from the tools batches 1-4 covered least: cloud CLIs'
output (``aws sts``, ``az``, ``ssm``, Secrets Manager, ``gcloud``, ``vault``, ``heroku``),
Kubernetes, Helm and Compose files, CI logs, IDE and package-manager configuration (VS Code,
JetBrains, Maven, Gradle, NuGet, Composer, Cargo, RubyGems, pip, Yarn, ``gh``, Terraform, s3cmd,
sbt, conda, DBeaver), HAR files and cookies, crash dumps, mail (SMTP ``AUTH``, Postfix, mutt,
fetchmail, quoted-printable), mobile projects, database clients, notebooks, log formats,
encodings, values split over two lines, tables, prose in English and nine other languages, and
Windows and network configuration. Each is planted as batch 3 plants it, or in an assistant's
reasoning summary, and exported: no secret of it survives, plain, escaped or decoded (batch 4's
views, plus ``\\xNN`` and octal escapes, base64 words inside wrapped rows and plain hex runs), and
no export is blocked; a look-alike's text comes out as it went in. What still leaks is named in
``LIMITS`` with the reason (docs/security.md states them too).
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import json
import re
from pathlib import Path
from typing import Any

import pytest

from .test_heldout_batch_3 import _planted, _strings, _survives
from .test_heldout_batch_4 import _export, _marked, _more_views

FORMS: list[dict[str, Any]] = json.loads(
    (Path(__file__).with_name("heldout_batch_5.json")).read_text(encoding="utf-8")
)

LIMITS: dict[str, str] = {
    "cloud-az-storage-keys-table": "an 88-character key in an aligned table's `Value` column, its row named `key1`",
    "mail-postfix-sasl-passwd": "Postfix `sasl_passwd`: `[host]:port user:four letter groups` (a Gmail app password)",
    "db-es-reset-password": "`New value: X`, the output of elasticsearch-reset-password",
    "nb-output-env": "a notebook's output holding the value, its name in the cell's source after it",
    "prose-letters-phrase": "prose `the wifi password for the office is three words`",
    "x-prompt-ftp-user": "`ftp> user NAME X`: ftp's `user` command is no verb of the directive reader",
    "x-prompt-valkey-acl": "`ACL SETUSER u on >X`: ACL's `>` before a password reads as a redirection",
    "x-cookie-ab": "ApacheBench's `ab -C`: `ab` is no client of the table, since as a word it is a hex byte of every dump (`AB`)",
    "x-cookie-requests": '`requests.get(…, cookies={"ASP.NET_SessionId": X})`: a call\'s `cookies=` argument names no credential',
}
"""The forms still leaking, each with why."""

DAMAGED: dict[str, str] = {
    "ok-smtp-ehlo": "a Message-ID's random local part after `=`",
    "ok-google-services-ids": "Firebase's `mobilesdk_app_id`: a random public id after `android:`",
    "ok-mongo-objectid": "`ObjectId('<24 hex>')`: a database id in a call",
}
"""The look-alikes still changed by the export, each with why."""

UNFLAGGED: dict[str, str] = {
    k: v for k, v in LIMITS.items() if k not in {"cloud-az-storage-keys-table", "nb-output-env"}
}
"""The leaking forms the audit's second opinion does not flag either: their exports still say
``findings: 0``."""

_B64_WORD = re.compile(r"[A-Za-z0-9+/]{12,}={0,2}")
_B64_BLOCK = re.compile(r"(?:^[A-Za-z0-9+/=]{8,}$\n?)+", re.M)
_HEX_RUN = re.compile(r"(?:[0-9a-f]{2}){8,}")


def _views_5(text: str) -> list[str]:
    out = _more_views(text)
    out.append(re.sub(r"\\x([0-9a-fA-F]{2})", lambda m: chr(int(m.group(1), 16)), text))
    out.append(re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), text))
    peeled = re.sub(r"^(?:\d+:|\+)", "", text, flags=re.M)
    words = _B64_WORD.findall(peeled) + ["".join(b.split()) for b in _B64_BLOCK.findall(peeled)]
    for word in words:
        with contextlib.suppress(binascii.Error, ValueError):
            out.append(base64.b64decode(word + "=" * (-len(word) % 4)).decode("latin-1"))
    out.extend(bytes.fromhex(h).decode("latin-1") for h in _HEX_RUN.findall(text))
    return out


def _left(form: dict[str, Any], strings: list[str]) -> list[str]:
    more = [view for s in strings for view in _views_5(s)]
    return [s for s in form["secrets"] if _survives(s, strings) or _survives(s, more)]


@pytest.mark.parametrize("form", [_marked(f, LIMITS) for f in FORMS if not f.get("benign")])
def test_no_secret_of_the_form_survives_its_export(form: dict[str, Any]) -> None:
    result = _export(form)
    strings = _strings(json.loads(result.data))
    left = _left(form, strings)
    assert not left, (form["note"], left, max(strings, key=len)[:400])
    assert not result.blocked


@pytest.mark.parametrize("form", [_marked(f, DAMAGED) for f in FORMS if f.get("benign")])
def test_the_look_alike_comes_out_as_it_went_in(form: dict[str, Any]) -> None:
    result = _export(form)
    strings = _strings(json.loads(result.data))
    planted = form["text"] if form["loc"] == "reasoning" else _planted(form)
    assert planted in strings or form["text"] in strings, (
        form["note"],
        max(strings, key=len)[:400],
    )
    assert not result.blocked


@pytest.mark.parametrize("form", [_marked(f, UNFLAGGED) for f in FORMS if f["id"] in LIMITS])
def test_a_form_that_still_leaks_is_a_finding_of_the_audit(form: dict[str, Any]) -> None:
    """A form the scanner misses is flagged for review in the receipt, not ``findings: 0``."""
    result = _export(form)
    assert result.report.findings, form["note"]
    assert not result.blocked


def test_every_secret_is_visible_in_the_form_as_written() -> None:
    """A secret the views cannot see in its own form (or in its rows) would count as never leaking."""
    for form in FORMS:
        for secret in form.get("secrets", []):
            seen = [form["text"], form["text"] if form["loc"] == "reasoning" else _planted(form)]
            assert _left({"secrets": [secret]}, seen), (form["id"], secret)


def test_the_batch_is_the_one_measured() -> None:
    """151 secret forms and 27 look-alikes of the blind batch, the further forms after them."""
    blind = [f for f in FORMS if f.get("batch") != "extra"]
    assert sum(1 for f in blind if not f.get("benign")) == 151
    assert sum(1 for f in blind if f.get("benign")) == 27
    assert len({f["id"] for f in FORMS}) == len(FORMS)
