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

__all__ = ["SECRET_PREFIX", "VENDOR_GATES", "VENDOR_TOKENS", "random_token"]

# Vendor tokens with a distinctive prefix (the formats gitleaks' default rules and detect-secrets'
# plugins document; docs/security.md maps each of their rules to one of ours). One alternation,
# one pass over the runs; the group that matched names the rule.
VENDOR_TOKENS: Final[tuple[tuple[str, bytes], ...]] = (
    ("slack-token", rb"xox(?:e\.xox[bp]-\d-[A-Za-z0-9]{20,}|[abposre]-[A-Za-z0-9\-]{15,})|xapp-\d-[A-Za-z0-9]+-\d+-[A-Za-z0-9]{16,}"),
    ("google-oauth-token", rb"ya29\.[0-9A-Za-z_\-]{20,}"),
    ("gitlab-token", rb"gl(?:pat|dt|rt|ptt|cbt|oas|ft|imt|agent|soat|ffct)-[0-9A-Za-z_\-]{20,}|GR1348941[0-9A-Za-z_\-]{20,}"),
    ("digitalocean-token", rb"do[opr]_v1_[a-f0-9]{64}"),
    ("shopify-token", rb"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}"),
    ("sendgrid-api-key", rb"SG\.[A-Za-z0-9_\-]{20,24}\.[A-Za-z0-9_\-]{40,45}"),
    ("vault-token", rb"hv[sb]\.[A-Za-z0-9_\-]{90,}"),
    ("age-secret-key", rb"AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}"),
    ("onepassword-token", rb"ops_eyJ[A-Za-z0-9+/]{250,}={0,3}|A3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}"),
    ("airtable-token", rb"pat[A-Za-z0-9]{14}\.[a-f0-9]{64}"),
    ("alibaba-access-key-id", rb"LTAI[A-Za-z0-9]{20}"),
    ("artifactory-token", rb"AKCp[A-Za-z0-9]{69}|cmVmd[A-Za-z0-9]{59}"),
    ("atlassian-api-token", rb"ATATT3[A-Za-z0-9_\-=]{186}|ATCTT3xFfG[A-Za-z0-9+/=_\-]{30,}"),
    ("aws-bedrock-api-key", rb"ABSK[A-Za-z0-9+/]{109,269}={0,2}|bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t[A-Za-z0-9+/=]*"),
    ("clojars-token", rb"CLOJARS_[a-z0-9]{60}"),
    ("cloudflare-origin-ca-key", rb"v1\.0-[a-f0-9]{24}-[a-f0-9]{146}"),
    ("databricks-token", rb"dapi[a-f0-9]{32}(?:-\d)?"),
    ("doppler-token", rb"dp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,44}"),
    ("dropbox-token", rb"sl\.[A-Za-z0-9_\-=]{130,140}"),
    ("duffel-token", rb"duffel_(?:test|live)_[A-Za-z0-9_\-=]{43}"),
    ("dynatrace-token", rb"dt0c01\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{64}"),
    ("easypost-token", rb"EZ(?:AK|TK)[A-Za-z0-9]{54}"),
    ("facebook-token", rb"EAA[MC][A-Za-z0-9]{100,}"),
    ("flutterwave-key", rb"FLWSECK(?:_TEST)?-[a-h0-9]{32}-X|FLWSECK(?:_TEST)?-[a-h0-9]{12}"),
    ("flyio-token", rb"fo1_[A-Za-z0-9_\-]{43}|fm[12][ar]?_[A-Za-z0-9+/]{100,}={0,3}"),
    ("frameio-token", rb"fio-u-[A-Za-z0-9_\-=]{64}"),
    ("grafana-token", rb"eyJrIjoi[A-Za-z0-9]{70,400}={0,3}|glc_[A-Za-z0-9+/]{32,400}={0,3}|glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}"),
    ("harness-token", rb"pat\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{20}|sat\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{20}"),
    ("heroku-api-key", rb"HRKU-AA[0-9A-Za-z_\-]{58}"),
    ("huggingface-token", rb"api_org_[A-Za-z]{34}"),
    ("infracost-token", rb"ico-[A-Za-z0-9]{32}"),
    ("intra42-secret", rb"s-s4t2(?:ud|af)-[a-f0-9]{64}"),
    ("linear-api-key", rb"lin_api_[A-Za-z0-9]{40}"),
    ("mailgun-key", rb"key-[a-f0-9]{32}"),
    ("mapbox-token", rb"sk\.eyJ[A-Za-z0-9_\-]{50,}\.[A-Za-z0-9_\-]{20,}"),
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
    ("stripe-api-key", rb"sk_prod_[A-Za-z0-9]{10,99}|rk_prod_[A-Za-z0-9]{10,99}|whsec_[A-Za-z0-9]{32,}"),
    ("twilio-api-key", rb"SK[0-9a-fA-F]{32}"),
    ("typeform-token", rb"tfp_[A-Za-z0-9_\-.=]{59}"),
    ("yandex-token", rb"t1\.[A-Za-z0-9_\-]+=*\.[A-Za-z0-9_\-]{86}=*|AQVN[A-Za-z0-9_\-]{35,38}|YC[A-Za-z0-9_\-]{38}"),
    ("docker-hub-token", rb"dckr_pat_[A-Za-z0-9_\-]{27,}"),
    ("adobe-client-secret", rb"p8e-[A-Za-z0-9]{32}"),
    ("discord-bot-token", b"|".join(c + rb"[A-Za-z0-9_\-]{23,25}\.[A-Za-z0-9_\-]{6}\.[A-Za-z0-9_\-]{27,38}" for c in (b"M", b"N", b"O"))),
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
    ("tailscale-key", rb"tskey-[a-z]+-[A-Za-z0-9_]{6,}-[A-Za-z0-9_]{16,}"),
    ("posthog-personal-key", rb"phx_[A-Za-z0-9_]{40,50}"),
    ("deno-deploy-token", rb"dd[pw]_[A-Za-z0-9]{36}"),
    ("figma-token", rb"fig[dp]_[A-Za-z0-9_\-=]{40,54}"),
    ("netlify-token", rb"nfp_[A-Za-z0-9_]{36,40}"),
    ("rootly-token", rb"rootly_[a-f0-9]{64}"),
    ("ramp-secret", rb"ramp_sec_[A-Za-z0-9]{48}"),
    ("bitbucket-app-password", rb"ATBB[A-Za-z0-9_=.\-]{28,}"),
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
_KIND_TABLE: Final = bytes(0x41 if b in _UPPER else 0x61 if b in _LOWER else 0x30 if b in _DIGITS else 0x2E for b in range(256))
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
