"""Every vendor token rule finds a token of its documented shape, and not the same text cut short.

The shapes are those gitleaks' default rules and detect-secrets' plugins document (docs/security.md
maps each of their rules to ours); the samples are synthetic.
"""

from __future__ import annotations

import base64
import json
import random
import string

import pytest

from rho_desk.core.export import RULES, SecretScanner
from rho_desk.core.export.scanner._vendors import VENDOR_TOKENS

A = "Q7x2K9mB4vT1pL8nR3sW6yZ0aD5fG2hJ"  # 32 mixed characters
H = "9f8e7d6c5b4a39281f0e1d2c3b4a5968"  # 32 hex characters
L = A * 8  # long mixed


SAMPLES: dict[str, list[str]] = {
    "slack-token": [
        "xoxb-2468013579-1357924680-AbCdEfGh1234IjKl",
        "xoxe.xoxp-1-" + A + A,
        "xoxe-1-" + A,
        "xapp-1-A04B7QX8M3K-4888745524576-" + H,
    ],
    "google-oauth-token": ["ya29.a0" + A],
    "adobe-client-secret": ["p8e-" + A],
    "gitlab-token": [
        "glpat-" + A[:20],
        "gldt-" + A[:20],
        "glrt-" + A[:24],
        "GR1348941" + A[:20],
        "glcbt-" + A[:20],
    ],
    "digitalocean-token": ["dop_v1_" + H + H, "dor_v1_" + H + H],
    "shopify-token": ["shpat_" + H, "shpss_" + H],
    "sendgrid-api-key": ["SG." + A[:22] + "." + A + A[:11]],
    "vault-token": ["hvs." + L[:95]],
    "age-secret-key": ["AGE-SECRET-KEY-1" + "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L" * 2][:1]
    and ["AGE-SECRET-KEY-1" + ("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L" * 2)[:58]],
    "onepassword-token": ["A3-ABC123-DEF456GHI78-JKL90-MNO12-PQR34"],
    "airtable-token": ["patAbC123dEf456gH." + H + H],
    "alibaba-access-key-id": ["LTAI" + A[:20]],
    "artifactory-token": ["AKCp" + (A * 3)[:69]],
    "atlassian-api-token": ["ATATT3" + L[:186]],
    "aws-bedrock-api-key": ["ABSK" + L[:120]],
    "clojars-token": ["CLOJARS_" + (H * 2)[:60]],
    "cloudflare-origin-ca-key": ["v1.0-" + H[:24] + "-" + (H * 5)[:146]],
    "databricks-token": ["dapi" + H],
    "doppler-token": ["dp.pt." + A + A[:11], "dp.st.prd." + A + A[:11]],
    "dropbox-token": ["sl." + L[:135]],
    "duffel-token": ["duffel_live_" + A + A[:11]],
    "dynatrace-token": ["dt0c01." + A[:24] + "." + A + A],
    "easypost-token": ["EZAK" + (A * 2)[:54]],
    "facebook-token": ["EAAM" + L[:110]],
    "flutterwave-key": ["FLWSECK_TEST-" + H + "-X"],
    "flyio-token": ["fo1_" + A + A[:11], "fm2_" + (A + "-_") * 4],
    "frameio-token": ["fio-u-" + A + A],
    "grafana-token": ["glsa_" + A + "_" + H[:8], "glc_" + A + "=="],
    "harness-token": ["pat." + A[:22] + "." + A[:24] + "." + A[:20]],
    "heroku-api-key": ["HRKU-AA" + (A * 2)[:58]],
    "huggingface-token": [
        "api_org_" + "abcdefghijklmnopqrstuvwxyzABCDEFGH",
        "api_org_" + "kerarlazqqpkvxoymyznofhfsthqhjunih",
        "hf_" + A,
    ],
    "infracost-token": ["ico-" + A],
    "intra42-secret": ["s-s4t2ud-" + H + H],
    "linear-api-key": ["lin_api_" + (A * 2)[:40]],
    "mailgun-key": ["key-" + H],
    "mapbox-token": [
        "sk.eyJ1" + (A * 2)[:55] + "." + A[:22],
        "sk.eyJ1IjoiYWNtZSIsImEiOiJh4gHRpFR_sIGg48qk3Jl9Xy68-o.T6RnKAl63JZ5degp_Rgw3g",
    ],
    "google-client-secret": ["GOCSPX-" + A[:28]],
    "buildkite-token": ["bkua_" + "18f928bd54cdfa5edc2a348f135ee05ec7723655"],
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
    "openrouter-api-key": ["sk-or-v1-" + H + H],
    "groq-api-key": ["gsk_" + (A * 2)[:52]],
    "xai-api-key": ["xai-" + (A * 3)[:80]],
    "tavily-api-key": ["tvly-" + A, "tvly-dev-" + A, "tvly-dev-1b4vdc-" + A + "x"],
    "pinecone-api-key": ["pcsk_" + A[:5] + "_" + (A * 2)[:63]],
    "langsmith-api-key": ["lsv2_pt_" + H + "_" + H[:10], "lsv2_sk_" + H + "_" + H[:10]],
    "replicate-api-token": ["r8_" + (A * 2)[:37]],
    "fireworks-api-key": ["fw_" + A[:25]],
    "together-api-key": ["tgp_v1_" + (A * 2)[:43]],
    "elevenlabs-api-key": ["sk_" + (H * 2)[:48]],
    "voyage-api-key": ["pa-" + (A * 2)[:43]],
    "firecrawl-api-key": ["fc-" + H],
    "cerebras-api-key": ["csk-" + (H * 2)[:48].replace("f", "x")],
    "nvidia-api-key": ["nvapi-" + (A * 2)[:64]],
    "jina-api-key": ["jina_" + H + A[:28]],
    "e2b-api-key": ["e2b_" + (H * 2)[:40]],
    "resend-api-key": ["re_" + A[:8] + "_" + A[8:32]],
    "supabase-token": ["sbp_" + (H * 2)[:40], "sb_secret_" + A],
    "neon-api-key": ["napi_" + (A.lower() * 2)[:64]],
    "tailscale-key": ["tskey-auth-k" + A[:10] + "CNTRL-" + A],
    "posthog-personal-key": ["phx_" + (A * 2)[:43]],
    "deno-deploy-token": ["ddp_" + (A * 2)[:36]],
    "figma-token": ["figd_" + (A * 2)[:40]],
    "netlify-token": ["nfp_" + (A * 2)[:36]],
    "rootly-token": ["rootly_" + H + H],
    "ramp-secret": ["ramp_sec_" + (A * 2)[:48]],
    "bitbucket-app-password": ["ATBB" + A],
    "defined-networking-token": ["dnkey-" + A[:26] + "-" + (A * 2)[:52]],
    "lob-api-key": ["live_" + (H * 2)[:35], "test_" + (H * 2)[:35]],
    "gocardless-api-token": ["live_" + (A * 2)[:40]],
    "plaid-access-token": ["access-sandbox-a1b2c3d4-1111-2222-3333-444455556666"],
    "twitter-bearer-token": ["A" * 22 + (A * 3)[:90]],
    "sonarqube-token": ["sqp_" + (H * 2)[:40], "squ_" + (H * 2)[:40]],
    "clickhouse-secret-key": ["4b1d" + (A * 2)[:38]],
}


# The vendors that issue model and AI-tool keys; each key is found wherever it stands: in prose, as
# the value of a name written without "=" (a shell's `set`, a table, a log line), in YAML.
LLM_VENDORS = (
    "groq-api-key",
    "xai-api-key",
    "tavily-api-key",
    "pinecone-api-key",
    "langsmith-api-key",
    "openrouter-api-key",
    "replicate-api-token",
    "fireworks-api-key",
    "together-api-key",
    "elevenlabs-api-key",
    "voyage-api-key",
    "firecrawl-api-key",
    "cerebras-api-key",
    "nvidia-api-key",
    "jina-api-key",
    "perplexity-api-key",
)
PLACES = (
    "Here is the key we use in staging: {} (rotate it after the demo).",
    "set -x MODEL_KEY {}",
    "| production | {} | 2025-01-03 |",
    "provider:\n  key: {}\n",
    "INFO client ready with {}",
)


@pytest.mark.parametrize("rule", LLM_VENDORS)
def test_a_model_vendor_key_is_found_in_prose_and_under_a_name_without_equals(rule: str) -> None:
    scanner = SecretScanner()
    for token in SAMPLES[rule]:
        for place in PLACES:
            for data in (
                place.format(token).encode(),
                json.dumps({"text": place.format(token)}).encode(),
            ):
                at = data.find(token.encode())
                assert any(
                    h.start <= at and at + len(token) <= h.end for h in scanner.scan(data)
                ), (rule, place)


def test_every_vendor_rule_has_a_sample() -> None:
    assert {rule for rule, _ in VENDOR_TOKENS} <= set(SAMPLES)
    assert set(SAMPLES) <= set(RULES)


@pytest.mark.parametrize("rule", sorted(SAMPLES))
def test_a_vendor_token_is_found_plain_and_in_json(rule: str) -> None:
    scanner = SecretScanner()
    for token in SAMPLES[rule]:
        for data in (
            f"export X={token}\n".encode(),
            json.dumps({"out": f"value: {token}"}).encode(),
            f"\x1b[01;31m\x1b[K{token}\x1b[m".encode(),
        ):
            hits = scanner.scan(data)
            at = data.find(token.encode())
            assert any(
                h.rule == rule and h.start <= at and at + len(token) <= h.end for h in hits
            ), (rule, token, data[:40], hits)


# --- a prefix that says secret, from a vendor the catalogue does not list ---------------------------

_RNG = random.Random(31)
_B62 = string.ascii_letters + string.digits


def _random(n: int) -> str:
    return "".join(_RNG.choice(_B62) for _ in range(n))


UNLISTED = [
    "acmesk_" + _random(40),
    "zeta-secret-" + _random(32),
    "mytool_api_" + _random(36),
    "orbkey-" + _random(28),
    "wsk_live_" + _random(44),
    "x9pat_" + _random(30),
    "foo_tkn_v2_" + _random(40),
    "vault_priv_" + _random(48),
]

LOOK_ALIKES = [
    "toolu_01" + _random(22),  # tool call ids, message ids: no word that says secret
    "call_" + _random(24),
    "msg_01" + _random(22),
    "api_getUserProfileById2024Handler",  # an identifier: one change of kind a word
    "task_" + "3f2a9c1e4b7d48a6b0c2d1e5f6a7b8c9",  # hex ids: one case
    "secret_" + "rotation_interval_seconds",
    "key-" + base64.b64encode(b"the quick brown fox jumps over").decode(),  # base64 of text
    "token_" + "a1B2" * 6,  # a pattern, not random
]


@pytest.mark.parametrize("token", UNLISTED)
def test_a_token_whose_prefix_names_a_secret_is_found_whoever_issued_it(token: str) -> None:
    scanner = SecretScanner()
    for place in (
        "the new credential is {} as of today",
        "KEY {}",
        '{{"k": "{}"}}',
        "\x1b[32m{}\x1b[0m",
    ):
        data = place.format(token).encode()
        at = data.find(token.encode())
        assert any(h.start <= at and at + len(token) <= h.end for h in scanner.scan(data)), (
            token,
            place,
        )


@pytest.mark.parametrize("text", LOOK_ALIKES)
def test_identifiers_and_encoded_text_under_such_a_prefix_are_left_alone(text: str) -> None:
    assert SecretScanner().scan(f"see {text} in the log".encode()) == []
