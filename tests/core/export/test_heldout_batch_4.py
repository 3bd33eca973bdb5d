"""The fourth held-out batch (issue 31): 107 everyday secret forms and 26 benign look-alikes,
written without looking at the scanner or its rules' tests, and measured blind on main
``dbb4654``: 13 forms leaked in full (11 of them with ``findings: 0`` in the receipt), none
was blocked, and 4 look-alikes were damaged. ``heldout_batch_4.json`` holds the forms as the batch
wrote them; ``batch: extra`` marks the further forms of a fixed cause, written before the fix was
checked against them (42 forms and 31 look-alikes, for ten causes: padding wider than four
spaces around a name's operator, a credential pair among other pairs on its line, a .pgpass line
after an escaped line break, a variable's reference as an Authorization header's value, a
``<placeholder>`` value read as an XML element, Go's MySQL DSN ``user:X@tcp(…)``, a SQL column's
type read as its value, a value written with HTML character references, and ``PW`` ending a
name, ``olcRootPW``, which the name rule's keyword lists did not hold, and a call named ``auth``
taking the password as its last string, ``red:auth("X")``).

The forms are the configuration files of tools (.npmrc, .pypirc, .netrc, .pgpass, rclone,
kubeconfig, docker ``auths``, tfvars, ansible, CI), shell history, environment dumps (``docker
inspect``, ``kubectl describe``, ``ps e``, ``/proc/*/environ``), log lines and stack traces, HTTP
headers and query strings, code literals in eleven languages, SQL, connection strings, tables,
comments, reasoning prose and encodings. Each is planted as batch 3 plants it, or in an assistant's
reasoning summary, and exported: no secret of it survives, plain, escaped or decoded (batch 3's
views, plus HTML character references and an ``xxd`` dump's hex), and no export is blocked; a
look-alike's text comes out as it went in. What still leaks is named in ``LIMITS`` with the reason
(docs/security.md states them too).
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any

import pytest

from rho_desk.core.export import ExportResult

from .test_heldout_batch_3 import _exported, _planted, _result, _strings, _survives

FORMS: list[dict[str, Any]] = json.loads(
    (Path(__file__).with_name("heldout_batch_4.json")).read_text(encoding="utf-8")
)

LIMITS: dict[str, str] = {
    "tbl-aligned-secrets-list": "a 16-hex value in an aligned VALUE column under a name without a credential word",
    "prose-ish": "prose `the password is … specifically X`: a value in a sentence is named only by the words before it",
    "prose-slash-pair": "prose `admin / X`: a user and password pair written with a spaced slash",
    "prose-passphrase": "prose `passphrase … is four words`: a passphrase of plain words in a sentence",
}
"""The forms still leaking, each with why."""

DAMAGED: dict[str, str] = {
    "x-auth-ok-scope": '`auth("reports:read")`: a scope in a call named `auth` reads as a `user:password` pair',
    "x-pgpass-ok-times": "`sha:1234:abcd:ef:0123456789` after another line: a colon record of five fields ending in ten digits reads as a .pgpass line",
}
"""The look-alikes still changed by the export, each with why."""

UNFLAGGED: dict[str, str] = {
    "env-printenv-letters": "a six-letter word: by shape, a setting",
    "tbl-aligned-secrets-list": "16 hex digits: by shape, an id",
    "prose-ish": "letters, one digit and a symbol at the end: below the password shape's two digits",
    "prose-slash-pair": "one word and four digits and a symbol at the end: no symbol between letters or digits",
    "prose-passphrase": "plain words: by shape, prose",
}
"""The leaking forms the audit's second opinion does not flag either, each with why: their exports
still say ``findings: 0``."""


def _export(form: dict[str, Any]) -> ExportResult:
    if form["loc"] != "reasoning":
        return _result(form)
    summary = {"content": [{"Text": "Done."}], "reasoning_summary": form["text"]}
    return _exported([{"User": [{"Text": "look"}]}, {"EnrichedAssistant": summary}])


_XXD_ROW = re.compile(r"^[0-9a-f]{8}: ((?:[0-9a-f]{2,4} ?)+)", re.M)


def _more_views(text: str) -> list[str]:
    out = [html.unescape(text), html.unescape(text.replace("\\u0026", "&"))]  # Go's JSON: \u0026
    rows = _XXD_ROW.findall(text)
    if rows:
        out.append(bytes.fromhex("".join(r.replace(" ", "") for r in rows)).decode("latin-1"))
    return out


def _left(form: dict[str, Any], strings: list[str]) -> list[str]:
    more = [view for s in strings for view in _more_views(s)]
    return [s for s in form["secrets"] if _survives(s, strings) or _survives(s, more)]


def _marked(form: dict[str, Any], reasons: dict[str, str]) -> Any:
    marks = []
    if form["id"] in reasons:
        marks.append(pytest.mark.xfail(strict=True, reason=reasons[form["id"]]))
    return pytest.param(form, id=form["id"], marks=marks)


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
    """A secret the views cannot see in its own form would count as never leaking."""
    for form in FORMS:
        for secret in form.get("secrets", []):
            assert _left({"secrets": [secret]}, [form["text"]]), (form["id"], secret)


def test_the_batch_is_the_one_measured() -> None:
    """107 secret forms and 26 look-alikes of the blind batch, the further forms after them."""
    blind = [f for f in FORMS if f.get("batch") != "extra"]
    assert sum(1 for f in blind if not f.get("benign")) == 107
    assert sum(1 for f in blind if f.get("benign")) == 26
    assert len({f["id"] for f in FORMS}) == len(FORMS)
