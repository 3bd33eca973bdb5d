"""Entropy in context (issue 31, What to build 5): a random-looking value where a value stands is
redacted whatever its name says, and the values random by design and public stay intact.

The known false positives of entropy scanners are written here as the tools print them (go.sum,
terraform's lock file, a wheel's RECORD, npm/yarn/pnpm locks, SRI, ETags, image digests, UUIDs,
git SHAs, public JWKs); go.sum's ``h1:``, terraform's ``h1:``/``zh:`` and RECORD's ``sha256=``
were redacted before a digest's algorithm named as its label said digest.
"""

from __future__ import annotations

import json

import pytest

from rho_desk.core.export import SecretScanner, Selection, export_snapshot
from rho_desk.core.wire.model import Message, ModelIdentity
from rho_desk.core.wire.snapshot import SessionSnapshot

SCANNER = SecretScanner()
KEY = bytes(range(32))
IDENTITY = ModelIdentity("openai", "responses", "gpt-5")

_V = "Zq8vL2mTq9Rz7wK4nXp3Abc"
_H = "f3a1b2c3d4e5f60718293a4b5c6d7e8f"

CAUGHT: dict[str, tuple[str, str]] = {
    # a name that says nothing, the value where a value stands
    "a flag's value": (f"deploy --upstream {_V} --region eu", _V),
    "a short flag's value": (f"tool -k {_V} run", _V),
    "a CSV cell": (f"host,value,port\ndb1,{_V},5432\n", _V),
    "a TSV cell": (f"svc\tvalue\ndb\t{_V}\n", _V),
    "a Markdown table's cell": (f"| svc | value |\n|---|---|\n| db | {_V} |\n", _V),
    "aligned columns": (f"NAME       VALUE\nupstream   {_V}\n", _V),
    "a name and a value alone on a line": (f"upstream {_V}\n", _V),
    "a YAML list's item": (f"values:\n  - {_V}\n", _V),
    "an XML element's text": (f"<upstream>{_V}</upstream>", _V),
    "a key named key": (
        "key = adf4b1dbRdW3rOcB7xLthrM4BTBGK1qPLkHigpN1bXD6z",
        "adf4b1dbRdW3rOcB7xLthrM4BTBGK1qPLkHigpN1bXD6z",
    ),
    # hex that is not a digest's length (detect-secrets' hex plugin flags these)
    "hex as a call's argument (Twilio's Client(sid, token))": (
        f'client = Client("AC0123456789abcdef0123456789abcdef", "{_H}")',
        _H,
    ),
    "hex under a neutral name": (f'upstream = "{_H}"', _H),
    "hex in an env line": (f"UPSTREAM={_H}", _H),
    "hex in JSON": (f'{{"upstream": "{_H}"}}', _H),
    # a short value (16 to 19 characters), a string's prefix, colour codes around it
    "a short value under a short name": (
        'static const char *pw = "Q5rrKtboRwo2gyjXT2";',
        "Q5rrKtboRwo2gyjXT2",
    ),
    "a bytes literal": ("KEY = b'Hs7tuMjdV26mZv1pgkUe'", "Hs7tuMjdV26mZv1pgkUe"),
    "a coloured value": (
        "\x1b[1mAPI key:\x1b[0m \x1b[32mHHSoWTdV6KrcSBDxCBKn2a\x1b[0m",
        "HHSoWTdV6KrcSBDxCBKn2a",
    ),
    "a command's quoted argument": (
        "printf '28ukzezXfZswfpEotSQJ' > ~/.token",
        "28ukzezXfZswfpEotSQJ",
    ),
    # a decoded value is read in its place: the name, quotes and call around the encoded bytes
    "hex decoded in a call": (
        "SECRET = bytes.fromhex('526b37705132785a76394c6d5734744e386248')",
        "526b37705132785a76394c6d5734744e386248",
    ),
    "hex packed in Ruby": (
        "key = ['526b37705132785a76394c6d5734744e386248'].pack('H*')",
        "526b37705132785a76394c6d5734744e386248",
    ),
    "base64 decoded by the shell": (
        "DB_PASSWORD=$(echo 'Ums3cFEyeFp2OUxtVzR0TjhiSHM=' | base64 -d)",
        "Ums3cFEyeFp2OUxtVzR0TjhiSHM=",
    ),
    "octal escapes": (
        'pw = "\\121\\065\\162\\162\\113\\164\\142\\157\\122\\167\\157\\062\\147\\171\\152\\130\\124\\062";',
        "\\121\\065",
    ),
    "SQL's CHAR()": (
        "SELECT 1 WHERE api_key = CHAR(75,86,72,119,113,88,49,78,51,108,50,89,105,49,68,109);",
        "75,86,72,119",
    ),
    "percent-encoded query value": (
        "GET /api?k=%37%36%72%58%5A%52%65%35%4E%53%77%57%65%4A%39%64 HTTP/1.1",
        "%37%36%72%58",
    ),
    "hex of mixed case, a digest's length": (
        "sourcegraph: 6d2FabeB6ADd229Bc199FabA28fD3efb57dF0bD3",
        "6d2FabeB6ADd229Bc199FabA28fD3efb57dF0bD3",
    ),
}


def _covered(data: bytes, needle: bytes) -> bool:
    pos = data.find(needle)
    assert pos >= 0, needle
    return any(h.start <= pos and pos + len(needle) <= h.end for h in SCANNER.scan(data))


@pytest.mark.parametrize("name", sorted(CAUGHT))
def test_a_random_value_where_a_value_stands_is_found_raw_and_in_json(name: str) -> None:
    text, needle = CAUGHT[name]
    assert _covered(text.encode(), needle.encode()), name
    assert _covered(json.dumps({"output": text}).encode(), json.dumps(needle)[1:-1].encode()), name


@pytest.mark.parametrize("fmt", ["json", "markdown", "html"])
def test_no_export_keeps_a_random_value_and_none_is_blocked(fmt: str) -> None:
    for name, (text, needle) in CAUGHT.items():
        session = SessionSnapshot.new(
            "s-1", 1, [Message.user_text("look"), Message.result("c-1", True, text)], IDENTITY
        )
        result = export_snapshot(session, Selection.everything(), key=KEY, fmt=fmt)
        out = result.data.decode()
        assert needle not in out and json.dumps(needle)[1:-1] not in out, name
        assert not result.blocked, (name, [(f.rule, f.location) for f in result.report.blocking])


LEFT_ALONE: dict[str, str] = {
    "go.sum": (
        "github.com/google/uuid v1.6.0 h1:NIvaJDMOsjHA8n1jAhLSgzrAzy1Hgr+hNrb57e+94F0=\n"
        "github.com/google/uuid v1.6.0/go.mod h1:TIyPZe4MgqvfeYDBFedMoGGpEw/LqOeaOT+nhxU+yHo=\n"
    ),
    "go.sum in read_file rows": "1:golang.org/x/sys v0.15.0 h1:h48lPFYpsTvQJZF4EKyI4aLHaev3CxivZmv7yZig9pc=\n",
    "terraform lock": (
        'provider "registry.terraform.io/hashicorp/aws" {\n  version     = "5.31.0"\n  constraints = "~> 5.0"\n  hashes = [\n'
        '    "h1:XoDb1VXu/qUBxB9ThUvPKoH3oJZMl8J2wvhF6JwxObk=",\n'
        '    "zh:0cdb9c2083bf0902442384f7309367791e4640581652dda456f2d6d7abf0de8d",\n  ]\n}\n'
    ),
    "wheel RECORD": (
        "requests/__init__.py,sha256=fWW2ki1ORQPBUUZ4DbGZmkyTK2B5tE-Iyn7kOqKlQmE,4924\n"
        "requests/api.py,sha256=q61xcXq4tmiImrvcSVLTbFyCiD2F-L_-hI9eKqQqcoM,6449\n"
        "requests-2.31.0.dist-info/RECORD,,\n"
    ),
    "pip hashes": "requests==2.31.0 \\\n    --hash=sha256:58cd2187c01e70e6e26505bca751777aa9f2ee0b7f4300988b709f44e013003f\n",
    "poetry.lock": '{file = "requests-2.31.0-py3-none-any.whl", hash = "sha256:58cd2187c01e70e6e26505bca751777aa9f2ee0b7f4300988b709f44e013003f"},\n',
    "Cargo.lock": 'name = "serde"\nchecksum = "25dd9975e68d0cb5aa1120c288333fc98731bd1dd12f561e468ea4728c042b89"\n',
    "package-lock": '"integrity": "sha512-v2kDEe57lecTulaDIuNTPy3Ry4gLGJ6Z1O3vE1krgXZNrsQ+LFTGHVxVjcXPs17LhbZVGedAJv8XZ1tvj5FvSg=="\n',
    "yarn.lock": "  integrity sha512-v2kDEe57lecTulaDIuNTPy3Ry4gLGJ6Z1O3vE1krgXZNrsQ+LFTGHVxVjcXPs17LhbZVGedAJv8XZ1tvj5FvSg==\n",
    "pnpm-lock": "    resolution: {integrity: sha512-v2kDEe57lecTulaDIuNTPy3Ry4gLGJ6Z1O3vE1krgXZNrsQ+LFTGHVxVjcXPs17LhbZVGedAJv8XZ1tvj5FvSg==}\n",
    "flake.lock": '"narHash": "sha256-1Xw3wfJjvEjOxUrOSnu/yFcJ6m5BeK0ByO6sJVh3v4Q=",\n',
    "SRI": '<script src="x.js" integrity="sha384-oqVuAfXRKap7fdgcCY5uykM6+R9GqQ8K/uxy9rx7HNQlGYl1kPzQho1wx4JwY8wC"></script>',
    "ETag": 'ETag: "33a64df551425fcc55e4d42a148795d9f25f89d4"\nETag: W/"0815-1a2b3c4d5e6f7a8b9c0d"\n',
    "image digest": "image: nginx@sha256:0d17b565c37bcbd895e9d92315a05c1c3c9a29f762b011a10c54a66cd53c9b31\n",
    "docker inspect": '"Id": "sha256:a6bd71f48f6839d9faae1f29d3babef831e76bc213107682c5cc80f0cbb30866",\n',
    "blake3 and md5 labels": "blake3:5Kq3TfPaX9wQm2ZrB8sLd4Vn7Yc1Hj6Ge0Uo\nContent-MD5: Q2hlY2sgSW50ZWdyaXR5IQ==\ncrc32c=n03x6A==\n",
    "UUIDs": "request_id: 3f2504e0-4f89-11d3-9a0c-0305e82c3301\nid=550e8400-e29b-41d4-a716-446655440000\n",
    "git SHAs": "commit 9fceb02d0ae598e95dc970b74767f19372d61af8\nparent: 1f7a7a472abf3dd9643fd615f6da379c4acb3e3a\n",
    "md5sum": "d41d8cd98f00b204e9800998ecf8427e  file.txt\n",
    "BSD digests": (
        "MD5 (file.txt) = d41d8cd98f00b204e9800998ecf8427e\n"
        "SHA256 (file.txt) = e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\n"
    ),
    "a fingerprint": "[secret redacted: openai-api-key fp:cb0ee018c21cf780]\nfp: cb0ee018c21cf780\n",
    "a digest's column": "| file | md5 |\n|---|---|\n| a.tgz | d41d8cd98f00b204e9800998ecf8427e |\n",
    "a digest's column in TSV": "path\tsha256\nbin/app\te3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\n",
    "a digest's flag": "curl -fsSL --sha256 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855 https://x\n",
    "a nonce's flag": "tool --nonce Zq8vL2mTq9Rz7wK4nXp3Abc run\n",
    "an id numbered": "x-amz-request-id: 4442587FB7D0A2F9\nx-amz-id-2: vlR7PnpV2Ce81l0PRw6jlUpck7Jo5ZsQjryTjKlc5aLWGVHPZLj5NeC6qMa0emYBDXOo6QBU0Wo=\n",
    "a commit in a table": "| commit | message |\n|---|---|\n| 9fceb02d0ae598e95dc970b74767f19372d61af8 | Fix parser |\n",
    "a commit as a flag's value": "git checkout --detach 9fceb02d0ae598e95dc970b74767f19372d61af8\n",
    "ids in a CSV": "id,name,created\n3f2504e0-4f89-11d3-9a0c-0305e82c3301,alice,2024-01-01\n",
    "docker images": "REPOSITORY   TAG       IMAGE ID       CREATED        SIZE\nnginx        latest    a6bd71f48f68   2 weeks ago    187MB\n",
    "a list of images": "images:\n  - nginx@sha256:0d17b565c37bcbd895e9d92315a05c1c3c9a29f762b011a10c54a66cd53c9b31\n  - redis:7.2.3-alpine\n",
    "an XML version": "<version>1.2.3-SNAPSHOT</version>\n<artifactId>spring-boot-starter-web</artifactId>\n",
    "public JWK": (
        '{"keys":[{"kty":"RSA","kid":"1b94c","use":"sig","alg":"RS256","n":"vrjOfz9Ccdgx5nQudyhdoR17V-IubWMeOZCwX_jj0hgAsz2J_'
        'pqYW08PLbK_PdiVGKPrqzmDIsLI7sA25VEnHU1uCLNwBuUiCO11_-7dYbsr4iJmG0Qu2j8DsVyT1azpJC_NG84Ty5KKthuCaPod7iI7w0LK9orSMhB",'
        '"e":"AQAB"}]}'
    ),
}


@pytest.mark.parametrize("name", sorted(LEFT_ALONE))
def test_a_value_random_by_design_and_public_is_left_alone(name: str) -> None:
    text = LEFT_ALONE[name].encode()
    assert [(h.rule, text[h.start : h.end]) for h in SCANNER.scan(text)] == [], name
