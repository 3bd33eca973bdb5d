"""rho-desk's scanner against detect-secrets (its default plugins and filters) on the same text.

* every form of the corpus (``forms.FORMS`` and generated vendor tokens in five contexts) that
  detect-secrets catches, rho-desk catches too (the secret lies inside one of its hits);
* on a realistic benign session (``forms.benign_session``) rho-desk raises no more findings than
  detect-secrets.

``corpus_figures`` gives the counts docs/security.md reports.
"""

from __future__ import annotations

import random
import re
import string
from pathlib import Path

import pytest

from rho_desk.core.export import SecretScanner

from .forms import FORMS, Form, benign_session

detect_secrets = pytest.importorskip("detect_secrets")
from detect_secrets import SecretsCollection  # noqa: E402
from detect_secrets.settings import default_settings  # noqa: E402

_RNG = random.Random(19)
_ALNUM = string.ascii_letters + string.digits


def _r(n: int, alphabet: str = _ALNUM) -> str:
    while True:
        value = "".join(_RNG.choice(alphabet) for _ in range(n))
        if (
            any(c.isdigit() for c in value)
            and any(c.isupper() for c in value)
            and any(c.islower() for c in value)
        ):
            return value
        if alphabet in (string.hexdigits[:16], string.ascii_uppercase + string.digits) and any(
            c.isdigit() for c in value
        ):
            return value


_HEX = string.hexdigits[:16]
_B64 = _ALNUM + "+/"
_PEM = (
    "-----BEGIN RSA PRIVATE KEY-----\n"
    + "\n".join(_r(64, _B64) for _ in range(6))
    + "\n-----END RSA PRIVATE KEY-----"
)

# tokens of the shapes detect-secrets' plugins know (all synthetic)
TOKENS: dict[str, str] = {
    "aws-access-key-id": "AKIA" + _r(16, string.ascii_uppercase + string.digits),
    "azure-storage-key": "AccountKey=" + _r(86, _B64) + "==",
    "discord-bot-token": "M" + _r(23) + "." + _r(6) + "." + _r(27),
    "github-token": "ghp_" + _r(36),
    "gitlab-token": "glpat-" + _r(20),
    "jwt": "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ."
    + _r(43),
    "npm-token": "npm_" + _r(36),
    "openai-api-key": "sk-proj-" + _r(20) + "T3BlbkFJ" + _r(20),
    "pypi-token": "pypi-AgEIcHlwaS5vcmc" + _r(60),
    "sendgrid-api-key": "SG." + _r(22) + "." + _r(43),
    "slack-token": "xoxb-"
    + "".join(_RNG.choice(string.digits) for _ in range(11))
    + "-"
    + "".join(_RNG.choice(string.digits) for _ in range(12))
    + "-"
    + _r(24),
    "square-token": "sq0csp-" + _r(43),
    "stripe-api-key": "sk_live_" + _r(24),
    "telegram-bot-token": "".join(_RNG.choice(string.digits) for _ in range(9)) + ":AA" + _r(33),
    "twilio-api-key": "SK" + _r(32, _HEX),
    "artifactory-token": "AKCp" + _r(69),
    "mailchimp-api-key": _r(32, _HEX) + "-us12",
    "private-key": _PEM,
    "base64-random": _r(40, _B64),
}

_CONTEXTS = {
    "prose": "the value is {v} for now",
    "env": "SERVICE_VALUE={v}",
    "json": '{{"value": "{v}"}}',
    "yaml": "service:\n  value: {v}\n",
    "call": 'client = Client("{v}")',
}
# names detect-secrets' keyword and vendor plugins key on
_NAMED = {
    "cloudant": "CLOUDANT_PASSWORD = '{v}'",
    "ibm-iam": 'ibm_cloud_iam_api_key = "{v}"',
    "ibm-hmac": 'secret_access_key = "{v}"',
    "softlayer": "softlayer_api_key: {v}",
    "basic-auth-url": "https://admin:{v}@db.example.com/",
}


def corpus() -> list[Form]:
    forms = list(FORMS)
    for rule, token in TOKENS.items():
        for context, template in _CONTEXTS.items():
            if "\n" in token and context in ("json", "env", "call"):
                continue
            forms.append(Form("generated", f"{rule} {context}", template.format(v=token), token))
    for name, template in _NAMED.items():
        value = _r(48, _HEX) if "hmac" in name or "softlayer" in name else _r(24) + "!#"
        forms.append(Form("generated", name, template.format(v=value), value))
    return forms


def detect(text: str, folder: Path) -> list[tuple[str, str]]:
    path = folder / "sample.txt"
    path.write_text(text)
    with default_settings():
        found = SecretsCollection()
        found.scan_file(str(path))
    return [(s.type, s.secret_value or "") for f in found.files for s in found[f]]


def caught(scanner: SecretScanner, form: Form) -> bool:
    data = form.text.encode()
    needle = form.needle.encode()
    pos = data.find(needle)
    return any(h.start <= pos and pos + len(needle) <= h.end for h in scanner.scan(data))


def corpus_figures(folder: Path) -> dict[str, int]:
    """Counts over the corpus and the benign session (docs/security.md quotes them)."""
    scanner = SecretScanner()
    forms = corpus()
    theirs = {f.name: bool(detect(f.text, folder)) for f in forms}
    ours = {f.name: caught(scanner, f) for f in forms}
    benign = benign_session()
    return {
        "forms": len(forms),
        "detect_secrets": sum(theirs.values()),
        "rho_desk": sum(ours.values()),
        "theirs_not_ours": sum(theirs[n] and not ours[n] for n in theirs),
        "ours_not_theirs": sum(ours[n] and not theirs[n] for n in ours),
        "benign_detect_secrets": len(detect(benign, folder)),
        "benign_rho_desk": len(scanner.scan(benign.encode())),
    }


def test_every_form_detect_secrets_catches_is_caught(tmp_path: Path) -> None:
    scanner = SecretScanner()
    missed = [f.name for f in corpus() if detect(f.text, tmp_path) and not caught(scanner, f)]
    assert missed == []


def test_the_generated_forms_are_all_caught() -> None:
    scanner = SecretScanner()
    # a random string in prose has no context: neither scanner claims it (docs/security.md, limits)
    assert [f.name for f in corpus() if not caught(scanner, f)] == ["base64-random prose"]


def test_no_more_false_findings_than_detect_secrets_on_a_benign_session(tmp_path: Path) -> None:
    text = benign_session()
    theirs = detect(text, tmp_path)
    ours = SecretScanner().scan(text.encode())
    assert theirs  # the session holds what trips entropy scanners: the comparison means something
    assert len(ours) <= len(theirs)
    assert ours == []


_PIECE = re.compile(r"[A-Za-z0-9_~.\-]{8,}")


def _flagged_piece(value: str) -> str | None:
    """The part of a value detect-secrets flags that holds the secret: the value of ``NAME=VALUE``
    (its first run of token characters; detect-secrets' value may run on past the secret)."""
    tail = re.split(r"[=:]", value)[-1] if re.search(r"[=:]", value) else value
    found = _PIECE.search(tail)
    return found.group() if found else None


def test_what_detect_secrets_flags_in_the_other_corpora_is_redacted(tmp_path: Path) -> None:
    """The superset holds beyond ``corpus()``: on the generator's forms and on the forms of the
    structure, command-line and entropy tests, every value detect-secrets flags is inside a
    finding of rho-desk's."""
    from . import generator, test_command_lines, test_entropy_context, test_structure

    texts = [c.text for c in generator.sample(300)]
    texts += [t for t, _ in test_structure.CAUGHT.values()] + [
        t for t, _ in test_command_lines.CAUGHT.values()
    ]
    texts += [t for t, _ in test_entropy_context.CAUGHT.values()]
    scanner = SecretScanner()
    flagged, missed = 0, []
    for text in texts:
        data = text.encode()
        hits = scanner.scan(data)
        for _, value in detect(text, tmp_path):
            piece = _flagged_piece(value)
            if piece is None:
                continue
            flagged += 1
            at = data.find(piece.encode())
            if at >= 0 and not any(h.start <= at and at + len(piece) <= h.end for h in hits):
                missed.append((value, text[:80]))
    assert flagged >= 20  # the comparison means something
    assert missed == []
