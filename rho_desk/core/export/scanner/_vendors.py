"""The catalogue as data: the vendors' tokens by their prefixes, and a token whose prefix names a secret.

``VENDOR_TOKENS`` is each vendor token's rule id and pattern (a fixed prefix, then the random part:
the formats gitleaks' rules, detect-secrets' plugins and the vendors' own documentation give;
docs/security.md maps every gitleaks rule to one of these ids or says why none applies);
``_rules`` joins them into one pattern per first character, gated token by token
(``VENDOR_GATES`` where a token's own expression is not the best gate). ``SECRET_PREFIX`` and
``random_token`` find the tokens of vendors the table does not list: a prefix that says secret
(``…sk_``, ``…_secret_``, ``…key-``) before random characters.
"""

from __future__ import annotations

import binascii
import math
from collections import Counter
from itertools import pairwise
from typing import Final

__all__ = [
    "INFIX_TOKENS",
    "ONE_CASE_PREFIXES",
    "SECRET_PREFIX",
    "VENDOR_GATES",
    "VENDOR_NAMED",
    "VENDOR_SUFFIXES",
    "VENDOR_TOKENS",
    "random_token",
]

ONE_CASE_PREFIXES: Final = (b"api_org_",)
"""Prefixes of vendor tokens whose random part may be letters of one case and no digit (a
Hugging Face organisation token): a run of lower-case letters is searched for these only."""

# Vendor tokens with a distinctive prefix (the formats gitleaks' default rules and detect-secrets'
# plugins document; docs/security.md maps each of their rules to one of ours). One alternation,
# one pass over the runs; the group that matched names the rule.
VENDOR_TOKENS: Final[tuple[tuple[str, bytes], ...]] = (
    (
        "slack-token",
        rb"xox(?:e\.xox[bp]-\d-[A-Za-z0-9]{20,}|[abposre]-[A-Za-z0-9\-]{15,})|xapp-\d-[A-Za-z0-9]+-\d+-[A-Za-z0-9]{16,}",
    ),
    ("google-oauth-token", rb"ya29\.[0-9A-Za-z_\-]{20,}"),
    (
        "gitlab-token",
        rb"gl(?:pat|dt|rt|ptt|cbt|oas|ft|imt|agent|soat|ffct)-[0-9A-Za-z_\-]{20,}|GR1348941[0-9A-Za-z_\-]{20,}",
    ),
    ("digitalocean-token", rb"do[opr]_v1_[a-f0-9]{64}"),
    ("shopify-token", rb"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}"),
    ("sendgrid-api-key", rb"SG\.[A-Za-z0-9_\-]{20,24}\.[A-Za-z0-9_\-]{40,45}"),
    ("vault-token", rb"hv[sb]\.[A-Za-z0-9_\-]{90,}"),
    ("age-secret-key", rb"AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}"),
    (
        "onepassword-token",
        rb"ops_eyJ[A-Za-z0-9+/]{250,}={0,3}|A3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}",
    ),
    ("airtable-token", rb"pat[A-Za-z0-9]{14}\.[a-f0-9]{64}"),
    ("alibaba-access-key-id", rb"LTAI[A-Za-z0-9]{20}"),
    ("artifactory-token", rb"AKCp[A-Za-z0-9]{69}|cmVmd[A-Za-z0-9]{59}"),
    ("atlassian-api-token", rb"ATATT3[A-Za-z0-9_\-=]{186}|ATCTT3xFfG[A-Za-z0-9+/=_\-]{30,}"),
    (
        "aws-bedrock-api-key",
        rb"ABSK[A-Za-z0-9+/]{109,269}={0,2}|bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t[A-Za-z0-9+/=]*",
    ),
    ("clojars-token", rb"CLOJARS_[a-z0-9]{60}"),
    ("cloudflare-origin-ca-key", rb"v1\.0-[a-f0-9]{24}-[a-f0-9]{146}"),
    ("databricks-token", rb"dapi[a-f0-9]{32}(?:-\d)?"),
    (
        "doppler-token",
        rb"dp\.(?:pt|st|sa|ct|scim|audit)\.(?:[a-z0-9_\-]{1,32}\.)?[A-Za-z0-9]{40,44}",
    ),
    ("dropbox-token", rb"sl\.[A-Za-z0-9_\-=]{130,140}"),
    ("duffel-token", rb"duffel_(?:test|live)_[A-Za-z0-9_\-=]{43}"),
    ("dynatrace-token", rb"dt0c01\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{64}"),
    ("easypost-token", rb"EZ(?:AK|TK)[A-Za-z0-9]{54}"),
    ("facebook-token", rb"EAA[MC][A-Za-z0-9]{100,}"),
    ("flutterwave-key", rb"FLWSECK(?:_TEST)?-[a-h0-9]{32}-X|FLWSECK(?:_TEST)?-[a-h0-9]{12}"),
    ("flyio-token", rb"fo1_[A-Za-z0-9_\-]{43}|fm[12][ar]?_[A-Za-z0-9+/_\-]{100,}={0,3}"),
    ("frameio-token", rb"fio-u-[A-Za-z0-9_\-=]{64}"),
    (
        "grafana-token",
        rb"eyJrIjoi[A-Za-z0-9]{70,400}={0,3}|glc_[A-Za-z0-9+/]{32,400}={0,3}|glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}",
    ),
    (
        "harness-token",
        rb"pat\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{20}|sat\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{20}",
    ),
    ("heroku-api-key", rb"HRKU-AA[0-9A-Za-z_\-]{58}"),
    ("huggingface-token", rb"api_org_[A-Za-z]{34}"),
    ("infracost-token", rb"ico-[A-Za-z0-9]{32}"),
    ("intra42-secret", rb"s-s4t2(?:ud|af)-[a-f0-9]{64}"),
    ("linear-api-key", rb"lin_api_[A-Za-z0-9]{40}"),
    ("mailgun-key", rb"key-[a-f0-9]{32}"),
    ("mapbox-token", rb"sk\.eyJ[A-Za-z0-9_\-]{30,}\.[A-Za-z0-9_\-]{20,}"),
    ("google-client-secret", rb"GOCSPX-[A-Za-z0-9_\-]{28}"),
    ("buildkite-token", rb"bkua_[a-f0-9]{40}"),
    ("newrelic-key", rb"NR(?:AK|II|JS)-[A-Za-z0-9\-]{19,32}"),
    ("notion-token", rb"ntn_[0-9]{11}[A-Za-z0-9]{35}"),
    ("octopus-deploy-key", rb"API-[A-Z0-9]{26}"),
    ("openshift-token", rb"sha256~[A-Za-z0-9_\-]{43}"),
    ("perplexity-api-key", rb"pplx-[A-Za-z0-9]{48}"),
    ("planetscale-token", rb"pscale_(?:tkn|oauth|pw)_[A-Za-z0-9_=.\-]{32,64}"),
    ("postman-api-key", rb"PMAK-[a-f0-9]{24}-[a-f0-9]{34}"),
    ("prefect-api-key", rb"pnu_[A-Za-z0-9]{36}"),
    ("pulumi-token", rb"pul-[a-f0-9]{40}"),
    ("readme-api-key", rb"rdme_[a-z0-9]{70}"),
    ("rubygems-token", rb"rubygems_[a-f0-9]{48}"),
    ("scalingo-token", rb"tk-us-[A-Za-z0-9_\-]{48}"),
    ("sendinblue-api-key", rb"xkeysib-[a-f0-9]{64}-[A-Za-z0-9]{16}"),
    ("sentry-token", rb"sntrys_eyJ[A-Za-z0-9+/=]{30,}_[A-Za-z0-9+/]{43}|sntryu_[a-f0-9]{64}"),
    ("settlemint-token", rb"sm_[aps]at_[A-Za-z0-9]{16}"),
    ("shippo-token", rb"shippo_(?:live|test)_[a-fA-F0-9]{40}"),
    ("sourcegraph-token", rb"sgp_(?:[a-fA-F0-9]{16}|local)_[a-fA-F0-9]{40}"),
    ("square-token", rb"EAAA[A-Za-z0-9_\-]{22,60}|sq0(?:atp|csp)-[A-Za-z0-9_\-]{22,60}"),
    (
        "stripe-api-key",
        rb"sk_prod_[A-Za-z0-9]{10,99}|rk_prod_[A-Za-z0-9]{10,99}|whsec_[A-Za-z0-9]{32,}",
    ),
    ("twilio-api-key", rb"SK[0-9a-fA-F]{32}"),
    ("typeform-token", rb"tfp_[A-Za-z0-9_\-.=]{59}"),
    (
        "yandex-token",
        rb"t1\.[A-Za-z0-9_\-]+=*\.[A-Za-z0-9_\-]{86}=*|AQVN[A-Za-z0-9_\-]{35,38}|YC[A-Za-z0-9_\-]{38}",
    ),
    ("docker-hub-token", rb"dckr_pat_[A-Za-z0-9_\-]{27,}"),
    ("adobe-client-secret", rb"p8e-[A-Za-z0-9]{32}"),
    (
        "discord-bot-token",
        b"|".join(
            c + rb"[A-Za-z0-9_\-]{23,25}\.[A-Za-z0-9_\-]{6}\.[A-Za-z0-9_\-]{27,38}"
            for c in (b"M", b"N", b"O")
        ),
    ),
    ("azure-storage-key", rb"AccountKey=[A-Za-z0-9+/]{86}=="),
    # model and AI-tool vendors (their documented prefixes; lengths a little wider than issued)
    ("groq-api-key", rb"gsk_[A-Za-z0-9]{40,64}"),
    ("xai-api-key", rb"xai-[A-Za-z0-9_]{60,100}"),
    ("tavily-api-key", rb"tvly-(?:[a-z]{2,8}-)?[A-Za-z0-9\-]{24,80}"),
    ("pinecone-api-key", rb"pcsk_[A-Za-z0-9]{4,8}_[A-Za-z0-9]{40,80}"),
    ("langsmith-api-key", rb"lsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}"),
    ("replicate-api-token", rb"r8_[A-Za-z0-9_\-]{30,45}"),
    ("fireworks-api-key", rb"fw_[A-Za-z0-9]{20,48}"),
    ("together-api-key", rb"tgp_v1_[A-Za-z0-9_\-]{36,56}"),
    ("elevenlabs-api-key", rb"sk_[a-f0-9]{48}"),
    ("voyage-api-key", rb"pa-[A-Za-z0-9_\-]{36,56}"),
    ("firecrawl-api-key", rb"fc-[a-f0-9]{32}"),
    ("cerebras-api-key", rb"csk-[a-z0-9]{40,56}"),
    ("nvidia-api-key", rb"nvapi-[A-Za-z0-9_\-]{56,72}"),
    ("jina-api-key", rb"jina_[a-f0-9]{32}[A-Za-z0-9_\-]{20,40}"),
    ("e2b-api-key", rb"e2b_[A-Za-z0-9]{32,48}"),
    ("resend-api-key", rb"re_[A-Za-z0-9]{6,10}_[A-Za-z0-9]{20,32}"),
    # developer platforms
    ("supabase-token", rb"sbp_[a-f0-9]{40}|sb_secret_[A-Za-z0-9_\-]{20,64}"),
    ("neon-api-key", rb"napi_[a-z0-9]{64}"),
    ("tailscale-key", rb"tskey-[a-z]+-[A-Za-z0-9_]{6,}-[A-Za-z0-9_]{16,}"),
    ("posthog-personal-key", rb"phx_[A-Za-z0-9_]{40,50}"),
    ("deno-deploy-token", rb"dd[pw]_[A-Za-z0-9]{36}"),
    ("figma-token", rb"fig[dp]_[A-Za-z0-9_\-=]{40,54}"),
    ("netlify-token", rb"nfp_[A-Za-z0-9_]{36,40}"),
    ("rootly-token", rb"rootly_[a-f0-9]{64}"),
    ("ramp-secret", rb"ramp_sec_[A-Za-z0-9]{48}"),
    ("bitbucket-app-password", rb"ATBB[A-Za-z0-9_=.\-]{28,}"),
    # gitleaks' rules whose tokens have a prefix of their own
    ("defined-networking-token", rb"dnkey-[A-Za-z0-9=_\-]{26}-[A-Za-z0-9=_\-]{52}"),
    ("lob-api-key", rb"live_[a-f0-9]{35}|test_[a-f0-9]{35}"),
    ("gocardless-api-token", rb"live_[A-Za-z0-9_\-=]{40}"),
    (
        "plaid-access-token",
        rb"access-(?:sandbox|development|production)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",
    ),
    ("twitter-bearer-token", rb"AAAAAAAAAAAAAAAAAAAAA[A-Za-z0-9%]{80,100}"),
    ("sonarqube-token", rb"sq[upa]_[a-f0-9]{40}"),
    ("clickhouse-secret-key", rb"4b1d[A-Za-z0-9]{38}"),
)


VENDOR_GATES: Final = {
    "discord-bot-token": rb"\.[A-Za-z0-9_\-]{6}\.[A-Za-z0-9_\-]{27,38}",
}
"""A token's gate expression where its first byte is its only literal before a dot: from the
first dot on, the same end (``M``, ``N`` or ``O`` then 23 token bytes would have hyperscan try
every such byte: a fifth of the token gate's time on a session)."""


SECRET_PREFIX: Final = (
    rb"(?<!\\)(?:[a-z0-9]{1,10}[_\-]){0,2}[a-z0-9]{0,10}(?:sk|secret|key|token|tkn|pat|api|priv)(?:[_\-][a-z0-9]{1,8})?"
    rb"[_\-](?P<body>[A-Za-z0-9][A-Za-z0-9_\-]{19,})"
)
"""A token whose prefix names a secret (``gsk_``, ``pcsk_``, ``lsv2_sk_``, ``nvapi-``, ``secret_``,
``key-``) and whatever vendor issued it: the rule for the vendors the catalogue does not list."""
_SEPARATORS: Final = b"_-"
_RANDOM_MIN: Final = 20
_UPPER: Final = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_LOWER: Final = b"abcdefghijklmnopqrstuvwxyz"
_DIGITS: Final = b"0123456789"
_KIND_TABLE: Final = bytes(
    0x41 if b in _UPPER else 0x61 if b in _LOWER else 0x30 if b in _DIGITS else 0x2E
    for b in range(256)
)
_PRINTABLE: Final = bytes(range(0x20, 0x7F)) + b"\t\r\n"


def random_token(body: bytes) -> bool:
    """Random-looking base62 (``_`` and ``-`` aside): both cases and digits (two or more of each),
    the kind of character changing at nearly half the places (an identifier changes kind once a
    word: ``getUserById2024``), near the entropy of random text, and not base64 of text (that is
    decoded and read as text)."""
    chars = body.translate(None, _SEPARATORS)
    n = len(chars)
    if n < _RANDOM_MIN:
        return False
    counts = [n - len(chars.translate(None, kind)) for kind in (_UPPER, _LOWER, _DIGITS)]
    if min(counts) < 2:
        return False
    kinds = chars.translate(_KIND_TABLE)
    changes = sum(1 for a, b in pairwise(kinds) if a != b)
    if changes * 20 < (n - 1) * 9:
        return False
    entropy = -sum(c / n * math.log2(c / n) for c in Counter(chars).values())
    return entropy >= min(4.0, math.log2(n) - 0.9) and not _base64_of_text(body)


def _base64_of_text(body: bytes) -> bool:
    try:
        decoded = binascii.a2b_base64(body.replace(b"-", b"+").replace(b"_", b"/") + b"==")
    except binascii.Error:
        return False
    return len(decoded) >= 12 and len(decoded.translate(None, _PRINTABLE)) * 10 <= len(decoded)


VENDOR_SUFFIXES: Final = {"gitlab-token": rb"\.[0-9a-z]{9}(?![A-Za-z0-9])"}
"""What may follow a vendor token as part of it, past the run it ends (GitLab's routable tokens
end in ``.`` and nine characters)."""


INFIX_TOKENS: Final[tuple[tuple[str, bytes, bytes, bytes], ...]] = (
    ("hashicorp-tf-api-token", rb"[A-Za-z0-9]{14}", b".atlasv1.", rb"[A-Za-z0-9_=\-]{60,70}"),
    ("maxmind-license-key", rb"[A-Za-z0-9]{6}_[A-Za-z0-9]{29}", b"_mmk", b""),
    *(
        (
            "authress-access-key",
            rb"(?:sc|ext|scauth|authress)_[A-Za-z0-9]{5,30}\.[A-Za-z0-9]{4,6}",
            fixed,
            rb"[A-Za-z0-9\-]{10,32}\.[A-Za-z0-9+/_=\-]{30,120}",
        )
        for fixed in (b".acc_", b".acc-")
    ),
)
"""Tokens known by a fixed part inside or after them (``.atlasv1.``, ``_mmk``, ``.acc_``), which the
text is searched for (a head of short dotted parts is no run of its own): the rule id, the head's
shape before it (found back from it), the fixed part, and the shape after it."""


# --- keys known by the vendor's name beside them ------------------------------------------------

_AN = rb"[A-Za-z0-9]"
_HEXD = rb"[a-fA-F0-9]"
_UUID = rb"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"

VENDOR_NAMED: Final[tuple[tuple[str, tuple[bytes, ...], bytes], ...]] = (
    # rule id, the words that name the vendor (lower case), the value's shape
    ("adafruit-api-key", (b"adafruit",), rb"[A-Za-z0-9_\-]{32}"),
    ("airtable-api-key", (b"airtable",), _AN + rb"{17}"),
    ("algolia-api-key", (b"algolia",), _AN + rb"{32}"),
    ("alibaba-secret-key", (b"alibaba", b"aliyun"), _AN + rb"{30}"),
    ("asana-client-secret", (b"asana",), _AN + rb"{32}"),
    ("atlassian-api-token", (b"atlassian", b"confluence", b"jira"), _AN + rb"{24}"),
    ("beamer-api-token", (b"beamer",), rb"b_[A-Za-z0-9=_\-]{44}"),
    ("bitbucket-client-secret", (b"bitbucket",), rb"[A-Za-z0-9=_\-]{64}"),
    ("bittrex-key", (b"bittrex",), _AN + rb"{32}"),
    ("cisco-meraki-api-key", (b"meraki",), rb"[0-9a-f]{40}"),
    ("cloudflare-api-key", (b"cloudflare", b"cf_api"), rb"[A-Za-z0-9_\-]{40}|" + _HEXD + rb"{37}"),
    ("codecov-access-token", (b"codecov",), _AN + rb"{32}|" + _UUID),
    ("cohere-api-key", (b"cohere", b"co_api_key"), _AN + rb"{40}"),
    ("coinbase-access-token", (b"coinbase",), rb"[A-Za-z0-9_\-]{64}"),
    ("confluent-key", (b"confluent",), _AN + rb"{16}|" + _AN + rb"{64}"),
    ("contentful-token", (b"contentful",), rb"[A-Za-z0-9=_\-]{43}"),
    ("datadog-key", (b"datadog", b"dd_api", b"dd_app"), _AN + rb"{32}|" + _AN + rb"{40}"),
    ("deepgram-api-key", (b"deepgram",), _AN + rb"{40}"),
    ("discord-secret", (b"discord",), _HEXD + rb"{64}|[A-Za-z0-9=_\-]{32}"),
    ("droneci-access-token", (b"droneci", b"drone_token"), _AN + rb"{32}"),
    (
        "dropbox-api-token",
        (b"dropbox",),
        _AN + rb"{15}|" + _AN + rb"{11}AAAAAAAAAA[A-Za-z0-9\-_=]{43}",
    ),
    ("etsy-access-token", (b"etsy",), _AN + rb"{24}"),
    ("exa-api-key", (b"exa_api", b"exa-api", b"exa api", b"exa key", b"exa_key"), _UUID),
    ("facebook-secret", (b"facebook", b"fb_app"), _HEXD + rb"{32}"),
    ("fastly-api-token", (b"fastly",), rb"[A-Za-z0-9=_\-]{32}"),
    ("finicity-key", (b"finicity",), _HEXD + rb"{32}|" + _AN + rb"{20}"),
    ("finnhub-access-token", (b"finnhub",), _AN + rb"{20}"),
    ("flickr-access-token", (b"flickr",), _AN + rb"{32}"),
    ("freshbooks-access-token", (b"freshbooks",), _AN + rb"{64}"),
    ("gitter-access-token", (b"gitter",), rb"[A-Za-z0-9_\-]{40}"),
    ("heroku-api-key", (b"heroku",), _UUID),
    ("hubspot-api-key", (b"hubspot",), _UUID),
    ("intercom-api-key", (b"intercom",), rb"[A-Za-z0-9=_\-]{60}"),
    (
        "jfrog-api-key",
        (b"jfrog", b"artifactory", b"bintray", b"xray"),
        _AN + rb"{73}|" + _AN + rb"{64}",
    ),
    ("kraken-access-token", (b"kraken",), rb"[A-Za-z0-9/=_+\-]{80,90}"),
    ("kucoin-key", (b"kucoin",), _HEXD + rb"{24}|" + _UUID),
    ("launchdarkly-access-token", (b"launchdarkly",), rb"[A-Za-z0-9=_\-]{40}"),
    ("linear-client-secret", (b"linear",), _HEXD + rb"{32}"),
    ("linkedin-client-secret", (b"linkedin", b"linked_in", b"linked-in"), _AN + rb"{16}"),
    ("looker-client-secret", (b"looker",), _AN + rb"{24}"),
    ("mailgun-signing-key", (b"mailgun",), rb"[a-h0-9]{32}-[a-h0-9]{8}-[a-h0-9]{8}"),
    ("mattermost-access-token", (b"mattermost",), _AN + rb"{26}"),
    ("messagebird-api-token", (b"messagebird", b"message_bird", b"message-bird"), _AN + rb"{25}"),
    ("mistral-api-key", (b"mistral",), _AN + rb"{32}"),
    ("netlify-access-token", (b"netlify",), rb"[A-Za-z0-9=_\-]{40,46}"),
    (
        "nytimes-access-token",
        (b"nytimes", b"new-york-times", b"newyorktimes"),
        rb"[A-Za-z0-9=_\-]{32}",
    ),
    ("okta-access-token", (b"okta",), rb"00[A-Za-z0-9_=\-]{40}"),
    ("plaid-secret-key", (b"plaid",), _AN + rb"{30}"),
    ("privateai-api-token", (b"privateai", b"private_ai", b"private-ai"), _AN + rb"{32}"),
    ("rapidapi-access-token", (b"rapidapi",), rb"[A-Za-z0-9_\-]{50}"),
    ("sendbird-access-token", (b"sendbird",), _HEXD + rb"{40}"),
    ("sentry-access-token", (b"sentry",), _HEXD + rb"{64}"),
    ("serpapi-key", (b"serpapi", b"serp_api"), _HEXD + rb"{64}"),
    ("serper-key", (b"serper",), _HEXD + rb"{40}"),
    ("snyk-api-token", (b"snyk",), _UUID),
    ("sonar-api-token", (b"sonar",), rb"(?:sq[upa]_)?[A-Za-z0-9=_\-]{40}"),
    ("squarespace-access-token", (b"squarespace",), _UUID),
    ("sumologic-access-token", (b"sumo",), _AN + rb"{64}"),
    ("travisci-access-token", (b"travis",), _AN + rb"{22}"),
    ("twitch-api-token", (b"twitch",), _AN + rb"{30}"),
    (
        "twitter-key",
        (b"twitter",),
        _AN + rb"{25}|" + _AN + rb"{45}|" + _AN + rb"{50}|[0-9]{15,25}-" + _AN + rb"{20,40}",
    ),
    ("wandb-api-key", (b"wandb", b"weights_and_biases"), _HEXD + rb"{40}"),
    ("zendesk-secret-key", (b"zendesk",), _AN + rb"{40}"),
    ("zhipu-api-key", (b"zhipu", b"bigmodel"), _HEXD + rb"{32}\." + _AN + rb"{16}"),
    ("assemblyai-api-key", (b"assemblyai", b"assembly_ai"), _HEXD + rb"{32}"),
    ("openweather-api-key", (b"openweather", b"owm_"), _HEXD + rb"{32}"),
    (
        "azure-openai-key",
        (b"azure_openai", b"azure-openai", b"azureopenai"),
        _HEXD + rb"{32}|" + _AN + rb"{84}",
    ),
    ("sambanova-api-key", (b"sambanova",), _UUID),
    ("ai21-api-key", (b"ai21",), _AN + rb"{32}"),
    ("elevenlabs-api-key", (b"elevenlabs", b"xi-api-key", b"xi_api_key"), _HEXD + rb"{32}"),
    ("gitlab-session-cookie", (b"_gitlab_session",), rb"[0-9a-z]{32}"),
)
"""Keys with no prefix of their own, known by the vendor's name beside them (``DATADOG_API_KEY``,
``datadog: …``, "the Mistral key is …"): each rule's id, the words that name the vendor, and the
shape of its keys (gitleaks' rules of this kind and the vendors' documentation). ``_rules``
confirms a value of that shape within a few words after the name, on its line, when an operator
or a word saying credential stands between them; a name that says id or public is not a key's."""
