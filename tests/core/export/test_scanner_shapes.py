"""Credential shapes and non-secrets the gitleaks samples brought in (ruleset 4), one case each.

``test_vs_gitleaks.py`` measures them all at once; these name each form, so a regression says
which one broke.
"""

from __future__ import annotations

import json

import pytest

from rho_desk.core.export import SecretScanner

SCANNER = SecretScanner()
P = "Zq8vR2xK7mW4pT9n"  # a password-like value
TOKEN = "c26b378d985b458e4f1a"

CAUGHT: dict[str, tuple[str, str]] = {
    "xml element text on its own line": (f"<apiToken>\n    {P}\n</apiToken>", P),
    "go typed declaration": (f'var githubToken string = "{P}"', P),
    "go short declaration": (f'apiToken := "{P}"', P),
    "make simple assignment": (f'API_TOKEN ::= "{P}"', P),
    "make conditional assignment": (f'API_TOKEN ?= "{P}"', P),
    "php append": (f'$apiToken .= "{P}"', P),
    "default after ||": (f'const token = process.env.TOKEN || "{P}"', P),
    "kotlin typed": (f'val apiToken: String = "{P}"', P),
    "backquoted value": (f"apiToken := `{P}`", P),
    "quoted name, comma, quoted value": (f'System.setProperty("API_TOKEN", "{P}")', P),
    "nuget key/value attributes": (f'<add key="ClearTextPassword" value="{P}" />', P),
    "curl api key as user name": (
        f"curl -u sk_test_{TOKEN}: https://api.example.com",
        f"sk_test_{TOKEN}",
    ),
    "curl quoted password": (f"curl --user kevin:'{P}' -X PATCH", P),
    "curl empty user": (f'curl -u ":{P}" https://localhost:9200', P),
    "bundler credentials": (f"BUNDLE_ENTERPRISE__CONTRIBSYS__COM: cafebabe:{TOKEN}", TOKEN),
    "slack webhook without scheme": (
        "hooks.slack.com/services/T0ABCDEF1/B0GHIJKL2/xyzXYZ0123456789abcd",
        "T0ABCDEF1/B0GHIJKL2/xyzXYZ0123456789abcd",
    ),
    "slack workflow webhook": (
        "https://hooks.slack.com/workflows/T01ABCD2EFG/A0B1C2D3E4F/123456789012345678/q1W2e3R4t5Y6u7I8o9P0a1S2",
        "T01ABCD2EFG/A0B1C2D3E4F/123456789012345678/q1W2e3R4t5Y6u7I8o9P0a1S2",
    ),
    "teams webhook": (
        "https://acme.webhook.office.com/webhookb2/7ove8hzv-p35a@1o5ridc1-nvh4/IncomingWebhook/kdf5iwjs4tqn2/9f8e7d6c",
        "7ove8hzv-p35a@1o5ridc1-nvh4/IncomingWebhook/kdf5iwjs4tqn2/9f8e7d6c",
    ),
    "adobe client secret": (
        "ADOBE = p8e-7bcfec3899994aed81699bfd9be981e8",
        "p8e-7bcfec3899994aed81699bfd9be981e8",
    ),
    "facebook app token": (
        "facebook 1308742762612587|rhoK1cbv0DOU_RTX_87O4MkX7AI",
        "1308742762612587|rhoK1cbv0DOU_RTX_87O4MkX7AI",
    ),
    "jwt with a short header": (
        "eyJ2ZXIiOiIyIn0.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODB9.dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk",
        "eyJ2ZXIiOiIyIn0.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODB9.dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk",
    ),
    "hugging face token of letters": (
        "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",
        "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",
    ),
    "fly.io token as printed": (
        "FLY_API_TOKEN: FlyV1 fm2_lJPECAAAAAAAAyZtxBD1hSZ7L5leXsj64ZbDlkm/wrVodHRwczovL2FwaS5mbHkuaW8vdjGWAJLOAAwMDB8Lk7l",
        "fm2_lJPECAAAAAAAAyZtxBD1hSZ7L5leXsj64ZbDlkm/wrVodHRwczovL2FwaS5mbHkuaW8vdjGWAJLOAAwMDB8Lk7l",
    ),
    "kubernetes secret data": (
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ndata:\n  password: UyFCXCpkJHpEc2I9\n  username: YWRtaW4=\n",
        "UyFCXCpkJHpEc2I9",
    ),
    "kubernetes secret, kind after data, block scalar": (
        "apiVersion: v1\ndata:\n  .dockercfg: |\n    eyJhdXRocyI6eyJodHRwczovL2V4YW1wbGUvdjEvIjp7ImF1dGgiOiJvcGVuc2VzYW1lIn19fQo=\nkind: Secret\n",
        "eyJhdXRocyI6eyJodHRwczovL2V4YW1wbGUvdjEvIjp7ImF1dGgiOiJvcGVuc2VzYW1lIn19fQo=",
    ),
    # a Secret's value is one whatever its length (ruleset 6 kept values under 8 characters)
    "kubernetes secret with a short value": (
        "apiVersion: v1\nkind: secret\ndata:\n\textra: YmFyCg==\n",
        "YmFyCg==",
    ),
    "a long token at the head of a base64 run": (
        "token: ops_eyJ"
        + "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVphYmNkZWZnaGlqa2xtbm9wcXJzdHV2d3h5ejAxMjM0NTY3ODkrLw"
        * 12,
        "ops_eyJQUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVphYmNk",
    ),
}

LEFT_ALONE: dict[str, str] = {
    "placeholder token": "ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
    "placeholder key id": "key = AKIAXXXXXXXXXXXXXXXX",
    "placeholder password": "password: ****************",
    "public token": 'publicToken = "9Cnzj4p4WGeKLs1Pt8QuKUpRKfFLfRYC9AIKjbJTWit"',
    "public key by name": 'public_key = "9Cnzj4p4WGeKLs1Pt8QuKUpRKfFLfRYC9AIKjbJTWit"',
    "csrf token": "csrf-token=Mj2qykJO5rELyHgezQ69nzUX0i3OH67V7+V4eUrLfpuyOuxmiW9rhROG/Whikle15syazJOkrjJa3U2AbhIvUw==",
    "rails authenticity token": "authenticity_token: 7SWa-Fo1_hsC6oovfBsJFLGPUl2EhkSWPbJhWANwgaJWBDl1vxd9VNq",
    "a name about the secret": "secret_length = X25519.secret_length",
    "the name of a secret": 'LLM_SECRET_NAME = "NEXUS-GPT4-API-KEY"',
    "an id by its quoted name": '  "credentialId": "B9mTcFSck2LzJO2S3ols63",',
    "private key template": "-----BEGIN PRIVATE KEY-----\nanything\n-----END PRIVATE KEY-----",
    "empty private key": "-----BEGIN OPENSSH PRIVATE KEY----------END OPENSSH PRIVATE KEY-----",
    "windows environment variable": '<add key="ClearTextPassword" value="%TestSourcePassword%" />',
    "sops ciphertext": "password: ENC[AES256_GCM,data:W3PiZ6lD6bpfAdI=,iv:2qF98ZkchgfWF4tZo8fok6zY0ZLNRV3wFpl8n2iyC7I=,tag:FzoL+CZHkLEqfWKniRApBA==,type:str]",
    "braced placeholder": "SUMO_ACCESS_KEY={SumoAccessKey}",
    "curl usage text": 'curl --user "username:password" https://example.com',
    "curl placeholder in brackets": "curl --user neo4j:[PASSWORD] http://[IP]:7474/db/data/",
    "google key with more after it": "AIzaTesb6Tscfcni8vIpWZqNCXFDFslJtVSvFDqabcd123",
    "hf_ and a long identifier": "- (id)hf_requiredCharacteristicTypesForDisplayMetadata;",
    "sentry user token of a wrong length": "sntryu_af64ce4d34afc40e86138e28176a44ba538ef815835313eb882279d8f08183b7c",
    "kubernetes secret template": "apiVersion: v1\nkind: Secret\ndata:\n  password: {{ .Values.Password }}\n",
    "sops secret is not a secret manifest": "kind: SopsSecret\nspec:\n  data:\n    api: ZGF0YS12YWx1ZTE=\n",
}


@pytest.mark.parametrize("name", sorted(CAUGHT))
def test_shape_is_caught_raw_and_in_json(name: str) -> None:
    text, needle = CAUGHT[name]
    for data in (text.encode(), json.dumps({"output": text}).encode()):
        hits = SCANNER.scan(data)
        at = data.find(needle.encode())
        assert at >= 0
        assert any(h.start <= at and at + len(needle) <= h.end for h in hits), (
            name,
            data[:60],
            hits,
        )


@pytest.mark.parametrize("name", sorted(LEFT_ALONE))
def test_non_secret_is_left_alone(name: str) -> None:
    assert SCANNER.scan(LEFT_ALONE[name].encode()) == []


@pytest.mark.parametrize(
    ("value", "kept"),
    [
        (b"abxxxxxxcdef", True),  # six in a row, half of the value
        (b"ab\n\n\n\n\n\ncdef", True),  # any byte, a line break too
        (b"abxxxxxcdefx", False),  # five in a row (half of it all the same)
        (b"xxxxxxabcdefgh", False),  # six in a row, less than half
        (b"xxxxxxx", False),  # shorter than a value
    ],
)
def test_a_placeholder_is_one_byte_six_times_in_a_row_and_half_of_the_value(
    value: bytes, kept: bool
) -> None:
    from rho_desk.core.export.scanner._catalogue import Hit, placeholder

    assert placeholder(Hit("generic-api-key", 0, len(value), value)) is kept
    assert not placeholder(Hit("known-credential", 0, len(value), value))
