"""Every vendor token rule finds a token of its documented shape, and not the same text cut short.

The shapes are those gitleaks' default rules and detect-secrets' plugins document (docs/security.md
maps each of their rules to ours); the samples are synthetic.
"""

from __future__ import annotations

import json

import pytest

from rho_desk.core.export import RULES, SecretScanner
from rho_desk.core.export.scanner._rules import _VENDOR_TOKENS

A = "Q7x2K9mB4vT1pL8nR3sW6yZ0aD5fG2hJ"  # 32 mixed characters
H = "9f8e7d6c5b4a39281f0e1d2c3b4a5968"  # 32 hex characters
L = A * 8  # long mixed


SAMPLES: dict[str, list[str]] = {
    "slack-token": ["xoxb-2468013579-1357924680-AbCdEfGh1234IjKl", "xoxe.xoxp-1-" + A + A, "xoxe-1-" + A, "xapp-1-A04B7QX8M3K-4888745524576-" + H],
    "google-oauth-token": ["ya29.a0" + A],
    "adobe-client-secret": ["p8e-" + A],
    "gitlab-token": ["glpat-" + A[:20], "gldt-" + A[:20], "glrt-" + A[:24], "GR1348941" + A[:20], "glcbt-" + A[:20]],
    "digitalocean-token": ["dop_v1_" + H + H, "dor_v1_" + H + H],
    "shopify-token": ["shpat_" + H, "shpss_" + H],
    "sendgrid-api-key": ["SG." + A[:22] + "." + A + A[:11]],
    "vault-token": ["hvs." + L[:95]],
    "age-secret-key": ["AGE-SECRET-KEY-1" + "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L" * 2][:1] and ["AGE-SECRET-KEY-1" + ("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L" * 2)[:58]],
    "onepassword-token": ["A3-ABC123-DEF456GHI78-JKL90-MNO12-PQR34"],
    "airtable-token": ["patAbC123dEf456gH." + H + H],
    "alibaba-access-key-id": ["LTAI" + A[:20]],
    "artifactory-token": ["AKCp" + (A * 3)[:69]],
    "atlassian-api-token": ["ATATT3" + L[:186]],
    "aws-bedrock-api-key": ["ABSK" + L[:120]],
    "clojars-token": ["CLOJARS_" + (H * 2)[:60]],
    "cloudflare-origin-ca-key": ["v1.0-" + H[:24] + "-" + (H * 5)[:146]],
    "databricks-token": ["dapi" + H],
    "doppler-token": ["dp.pt." + A + A[:11]],
    "dropbox-token": ["sl." + L[:135]],
    "duffel-token": ["duffel_live_" + A + A[:11]],
    "dynatrace-token": ["dt0c01." + A[:24] + "." + A + A],
    "easypost-token": ["EZAK" + (A * 2)[:54]],
    "facebook-token": ["EAAM" + L[:110]],
    "flutterwave-key": ["FLWSECK_TEST-" + H + "-X"],
    "flyio-token": ["fo1_" + A + A[:11]],
    "frameio-token": ["fio-u-" + A + A],
    "grafana-token": ["glsa_" + A + "_" + H[:8], "glc_" + A + "=="],
    "harness-token": ["pat." + A[:22] + "." + A[:24] + "." + A[:20]],
    "heroku-api-key": ["HRKU-AA" + (A * 2)[:58]],
    "huggingface-token": ["api_org_" + "abcdefghijklmnopqrstuvwxyzABCDEFGH", "hf_" + A],
    "infracost-token": ["ico-" + A],
    "intra42-secret": ["s-s4t2ud-" + H + H],
    "linear-api-key": ["lin_api_" + (A * 2)[:40]],
    "mailgun-key": ["key-" + H],
    "mapbox-token": ["sk.eyJ1" + (A * 2)[:55] + "." + A[:22]],
    "newrelic-key": ["NRAK-" + "ABCDEFGHIJ1234567890KLMNOPQ"],
    "notion-token": ["ntn_" + "12345678901" + A + "abc"],
    "octopus-deploy-key": ["API-" + "ABCDEFGHIJ1234567890KLMNOP"],
    "openshift-token": ["sha256~" + A + A[:11]],
    "perplexity-api-key": ["pplx-" + (A * 2)[:48]],
    "planetscale-token": ["pscale_tkn_" + A],
    "postman-api-key": ["PMAK-" + H[:24] + "-" + (H * 2)[:34]],
    "prefect-api-key": ["pnu_" + (A * 2)[:36]],
    "pulumi-token": ["pul-" + (H * 2)[:40]],
    "readme-api-key": ["rdme_" + ("abc123def4" * 7)],
    "rubygems-token": ["rubygems_" + (H * 2)[:48]],
    "scalingo-token": ["tk-us-" + (A * 2)[:48]],
    "sendinblue-api-key": ["xkeysib-" + H + H + "-" + A[:16]],
    "sentry-token": ["sntryu_" + H + H],
    "settlemint-token": ["sm_pat_" + A[:16]],
    "shippo-token": ["shippo_live_" + (H * 2)[:40]],
    "sourcegraph-token": ["sgp_" + H[:16] + "_" + (H * 2)[:40]],
    "square-token": ["sq0csp-" + A + A[:11], "EAAA" + A],
    "stripe-api-key": ["sk_prod_" + A[:24], "whsec_" + A],
    "twilio-api-key": ["SK" + H],
    "typeform-token": ["tfp_" + (A * 2)[:59]],
    "yandex-token": ["AQVN" + A + "abc", "YC" + A + "abcdef"],
    "docker-hub-token": ["dckr_pat_" + A[:27]],
    "discord-bot-token": ["MTA4NzY1NDMyMTA5ODc2NTQz.GhIjKl." + A[:27]],
    "azure-storage-key": ["AccountKey=" + (A * 3)[:86] + "=="],
    "telegram-bot-token": ["1234567890:AAH" + A[:32]],
    "azure-ad-client-secret": ["abc8Q~" + A[:20] + "~x." + A[:9]],
}


def test_every_vendor_rule_has_a_sample() -> None:
    assert {rule for rule, _ in _VENDOR_TOKENS} <= set(SAMPLES)
    assert set(SAMPLES) <= set(RULES)


@pytest.mark.parametrize("rule", sorted(SAMPLES))
def test_a_vendor_token_is_found_plain_and_in_json(rule: str) -> None:
    scanner = SecretScanner()
    for token in SAMPLES[rule]:
        for data in (f"export X={token}\n".encode(), json.dumps({"out": f"value: {token}"}).encode(), f"\x1b[01;31m\x1b[K{token}\x1b[m".encode()):
            hits = scanner.scan(data)
            at = data.find(token.encode())
            assert any(h.rule == rule and h.start <= at and at + len(token) <= h.end for h in hits), (rule, token, data[:40], hits)
