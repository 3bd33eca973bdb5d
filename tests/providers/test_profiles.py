"""Provider profiles: validation (no secrets anywhere), the JSON store, the provider factory."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from rho_desk.core.secrets.scrub import SecretString
from rho_desk.core.wire.model import ModelIdentity
from rho_desk.providers.anthropic import AnthropicProvider
from rho_desk.providers.credentials import MissingApiKey, set_api_key
from rho_desk.providers.openai_chat import OpenAIChatProvider
from rho_desk.providers.profiles import (
    DEFAULT_PROFILE,
    ProfileError,
    ProfileKind,
    ProfileStore,
    ProviderProfile,
    build_provider,
    config_dir,
    open_provider,
)
from rho_desk.providers.usage import Pricing

ROUTER = ProviderProfile(
    name="openrouter",
    kind=ProfileKind.OPENAI_COMPATIBLE,
    base_url="https://openrouter.ai/api/v1",
    model="anthropic/claude-sonnet-4",
    context_window=200_000,
    extra_headers={"HTTP-Referer": "https://example.org", "X-Title": "rho-desk"},
    pricing=Pricing(input=3, output=15),
)
CLAUDE = ProviderProfile(
    name="claude",
    kind=ProfileKind.ANTHROPIC,
    base_url="https://api.anthropic.com/v1",
    model="claude-sonnet-4-5",
    reasoning=True,
)


def test_config_dir_honours_the_override(config_dir: Path) -> None:
    from rho_desk.providers import profiles

    assert profiles.config_dir() == config_dir
    assert ProfileStore().path == config_dir / "providers.json"


def test_config_dir_default_is_platformdirs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("RHO_DESK_CONFIG_DIR", raising=False)
    assert config_dir().name == "rho-desk"


def test_default_is_a_keyless_local_ollama(config_dir: Path) -> None:
    store = ProfileStore()
    assert store.profiles() == (DEFAULT_PROFILE,)
    assert store.default() == DEFAULT_PROFILE
    assert DEFAULT_PROFILE.requires_key is False
    assert DEFAULT_PROFILE.base_url.startswith("http://127.0.0.1:11434")
    assert not store.path.exists()  # nothing written until the user saves


def test_round_trip_atomic_and_secret_free(config_dir: Path) -> None:
    store = ProfileStore()
    store.save([DEFAULT_PROFILE, ROUTER, CLAUDE], default="claude")
    assert store.profiles() == (DEFAULT_PROFILE, ROUTER, CLAUDE)
    assert store.default() == CLAUDE
    text = store.path.read_text()
    document = json.loads(text)
    assert document["version"] == 1 and document["default"] == "claude"
    assert document["profiles"][1]["kind"] == "openai-compatible"
    assert [p.name for p in config_dir.iterdir()] == ["providers.json"]  # no temp files left
    store.upsert(ROUTER.replace(model="openai/gpt-4.1"))
    assert store.get("openrouter").model == "openai/gpt-4.1"
    assert [p.name for p in store.profiles()] == ["ollama-local", "openrouter", "claude"]
    store.remove("claude")
    assert store.default() == DEFAULT_PROFILE
    store.set_default("openrouter")
    assert store.default().name == "openrouter"  # type: ignore[union-attr]
    with pytest.raises(ProfileError, match="no provider profile named 'nope'"):
        store.get("nope")


@pytest.mark.parametrize(
    ("change", "match"),
    [
        ({"base_url": "https://user:pw@api.example.com/v1"}, "user info"),
        ({"base_url": "https://api.example.com/v1?key=abc"}, "query string"),
        ({"base_url": "ftp://api.example.com"}, "http"),
        ({"extra_headers": {"Authorization": "Bearer x"}}, "credential"),
        ({"extra_headers": {"X-Api-Key": "x"}}, "credential"),
        ({"extra_headers": {"Cookie": "s=1"}}, "credential"),
        ({"extra_headers": {"X-Ok": "a\r\nInjected: 1"}}, "invalid header"),
        ({"api_key_env": "NOT A NAME"}, "environment variable"),
        ({"context_window": 0}, "context window"),
        ({"name": ""}, "name"),
        ({"model": " "}, "model"),
        ({"idle_timeout": 0.0}, "timeouts"),
    ],
)
def test_validation_refuses_secrets_and_nonsense(change: dict[str, object], match: str) -> None:
    with pytest.raises(ProfileError, match=match):
        ROUTER.replace(**change)


def test_malformed_file_is_located(config_dir: Path) -> None:
    store = ProfileStore()
    config_dir.mkdir()
    store.path.write_text(
        '{"version": 1, "profiles": [{"name": "x", "kind": "openai-compatible", "base_url": 5, "model": "m"}]}'
    )
    with pytest.raises(ProfileError) as caught:
        store.load()
    assert caught.value.path == "$.profiles[0].base_url"
    assert caught.value.source == str(store.path)
    store.path.write_text('{"version": 1,\n "profiles": [\n  {"name": x}]}')
    with pytest.raises(ProfileError) as caught:
        store.load()
    assert caught.value.line == 3
    store.path.write_text('{"version": 1,\n "profiles": [\n  {"name": ')
    with pytest.raises(ProfileError) as caught:
        store.load()
    assert caught.value.line == 3
    store.path.write_text('{"version": 2, "profiles": []}')
    with pytest.raises(ProfileError, match="newer rho-desk"):
        store.load()
    store.path.write_text(
        '{"version": 1, "profiles": [{"name": "x", "kind": "openai-compatible", "base_url": "https://a.b/v1?k=SECRET", "model": "m"}]}'
    )
    with pytest.raises(ProfileError, match="query string"):
        store.load()


def test_secret_header_in_file_is_refused(config_dir: Path) -> None:
    config_dir.mkdir()
    raw = ROUTER.replace(extra_headers={})
    document = {
        "version": 1,
        "profiles": [
            {
                **json.loads(
                    json.dumps(
                        {
                            "name": raw.name,
                            "kind": "openai-compatible",
                            "base_url": raw.base_url,
                            "model": raw.model,
                        }
                    )
                ),
                "extra_headers": {"authorization": "Bearer sk-x"},
            }
        ],
    }
    ProfileStore().path.write_text(json.dumps(document))
    with pytest.raises(ProfileError, match="credential"):
        ProfileStore().load()


def test_build_provider_per_kind() -> None:
    key = SecretString("sk-test")
    openai = build_provider(ROUTER, key)
    assert isinstance(openai, OpenAIChatProvider)
    assert openai.identity() == ModelIdentity(
        "openrouter", "openai-chat-completions", "anthropic/claude-sonnet-4"
    )
    assert openai.context_window == 200_000 and openai.pricing == ROUTER.pricing
    named = build_provider(ROUTER.replace(provider="openai"), key)
    assert named.identity().provider == "openai"
    claude = build_provider(CLAUDE, key)
    assert isinstance(claude, AnthropicProvider) and claude.thinking is True
    assert claude.identity() == ModelIdentity(
        "anthropic", "anthropic-messages", "claude-sonnet-4-5"
    )
    ollama = build_provider(DEFAULT_PROFILE, None)
    assert ollama.identity() == ModelIdentity("ollama", "openai-chat-completions", "llama3.2")
    with pytest.raises(MissingApiKey):
        build_provider(ROUTER, None)
    assert "sk-test" not in repr(openai) and "sk-test" not in repr(claude)


@pytest.mark.asyncio
async def test_open_provider_resolves_the_key_from_keyring(config_dir: Path) -> None:
    set_api_key(CLAUDE, "sk-ant-stored")
    provider, resolved = await open_provider(CLAUDE)
    try:
        assert resolved is not None and resolved.source == "keyring"
        assert provider.identity().model == "claude-sonnet-4-5"
    finally:
        await provider.aclose()


def test_files_written_are_private_to_the_directory(config_dir: Path) -> None:
    ProfileStore().save([ROUTER])
    assert oct(os.stat(ProfileStore().path).st_mode & 0o777) in ("0o600", "0o644", "0o664")


def test_file_errors_name_the_field_and_the_reason(config_dir: Path) -> None:
    store = ProfileStore()
    config_dir.mkdir()
    base = {
        "name": "x",
        "kind": "openai-compatible",
        "base_url": "https://a.example/v1",
        "model": "m",
    }
    cases = [
        ({**base, "colour": "blue"}, "$.profiles[0].colour", "Extra inputs"),
        ({**base, "kind": "gemini"}, "$.profiles[0].kind", "'openai-compatible' or 'anthropic'"),
        ({**base, "context_window": 0}, "$.profiles[0]", "context window must be positive"),
        ({**base, "pricing": {"input": -1}}, "$.profiles[0].pricing", "non-negative"),
    ]
    for profile, path, reason in cases:
        store.path.write_text(json.dumps({"version": 1, "profiles": [profile]}))
        with pytest.raises(ProfileError) as caught:
            store.load()
        assert (caught.value.source, caught.value.path) == (str(store.path), path)
        assert reason in caught.value.reason, caught.value.reason


def test_the_file_keeps_its_shape_and_round_trips(config_dir: Path) -> None:
    store = ProfileStore()
    priced = CLAUDE.replace(pricing=Pricing(input=3.0, output=15.0))
    store.save([ROUTER, priced], default=priced.name)
    written = json.loads(store.path.read_text())
    assert written["version"] == 1 and written["default"] == priced.name
    assert "requires_key" not in written["profiles"][0]  # defaults are left out, as before
    assert written["profiles"][1]["pricing"] == {"input": 3.0, "output": 15.0}
    loaded = store.load()
    assert loaded.profiles == (ROUTER, priced) and loaded.default == priced.name
