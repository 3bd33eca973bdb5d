"""The copied upstream fixtures stay byte-identical to upstream's (see their README)."""

import hashlib

import pytest

from .conftest import RHO_FIXTURES

UPSTREAM_SHA256 = {
    "session-snapshot-v1.json": "13a3385152636c29dfd204c45188576c73fddbcb5666cbd2c7386ba02bb843e2",
    "session-snapshot-v2.json": "260271a5bc9fe98cec90aaed3feb898943b9625db797235b1d00559c41cb1421",
    "session-v1.jsonl": "775b301ef22fa8fd94a08deaaf26f58871dbab575709c964645ad3523f3a6fb0",
    "session-v2.jsonl": "af61604d9347fd7a7b467ca75789b2da23c2500002ab58fd4f0c09a7993f9c7a",
    "session-v3.jsonl": "30a87124b3a2c62e9a3032df8dd80aab726987cb14835e7a47b42fbcd643519a",
    "index-v0.sql": "7f2c3249dbd93698c86bf558d9302d432b0ba5961580fd48e82aca16254bbbd1",
    "index-v1.sql": "b9e3e625a48d5e920c38716de958a85ae71d1931dc3204ea433c7ec6ceee7247",
    "usage-v1.sqlite3": "a7adcbabd20bc1ab2df341dfdd4ea6a209f76ba88b228766fd106bfba8891578",
}


@pytest.mark.parametrize("name", sorted(UPSTREAM_SHA256))
def test_fixture_unchanged(name: str) -> None:
    assert hashlib.sha256((RHO_FIXTURES / name).read_bytes()).hexdigest() == UPSTREAM_SHA256[name]
