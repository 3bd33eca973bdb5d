"""Real model providers (OpenAI-compatible, Anthropic), their credentials and profiles, and the
compactor that calls them. May use the network; ``rho_desk.core`` never imports this package.

Modules:

* ``openai_chat``, ``anthropic``: the streaming adapters (``ModelProvider`` subclasses).
* ``transport``, ``sse``: the shared HTTP streaming, SSE decoding and error mapping.
* ``SecretString`` (from ``core.secrets.scrub``, with the scrubbing of text that leaves a provider).
* ``usage``: usage normalisation and cost (``Pricing``).
* ``credentials``: API keys in keyring (service ``rho-desk``).
* ``export_secrets``: what every export redacts, ``stored_secrets()`` among it.
* ``profiles``: ``ProviderProfile``, ``ProfileStore``, ``build_provider``, ``open_provider``.
* ``compactors``: ``SummarizingCompactor`` (the local one lives in ``rho_desk.core.compaction.local``).
* ``endpoint``: ``build_provider`` and the endpoint a command names (no pydantic, no keyring).
* ``continuation``: ``open_continuation``, one turn's engine, tools and checks for both front ends.

The names below are imported on first use (PEP 562), so that importing one module of this package
(``rho-desk continue`` imports ``continuation`` and one adapter) does not load every adapter,
pydantic and the keyring.
"""

from __future__ import annotations

import importlib
import sys
from typing import TYPE_CHECKING, Any

# httpx imports its optional command-line client (click, rich, pygments: about 0.1 s) when they
# are installed, and rho-desk's lock installs them for its tools. No rho-desk process runs that
# client: a None entry makes its import fail the way httpx handles when they are missing (it then
# defines a stub ``httpx.main``).
if "httpx" not in sys.modules:
    sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]

if TYPE_CHECKING:
    from ..core.errors import CredentialsUnavailable, MissingApiKey
    from ..core.secrets.scrub import SecretString
    from .anthropic import AnthropicProvider
    from .base import HttpProvider
    from .compactors import SummarizingCompactor
    from .credentials import NoKeyringBackend, ResolvedKey
    from .export_secrets import stored_secrets
    from .openai_chat import OpenAIChatProvider
    from .profiles import (
        DEFAULT_PROFILE,
        ProfileError,
        ProfileKind,
        ProfileStore,
        ProviderProfile,
        build_provider,
        open_provider,
    )
    from .transport import Timeouts
    from .usage import Pricing

_WHERE = {
    "DEFAULT_PROFILE": ".profiles",
    "AnthropicProvider": ".anthropic",
    "CredentialsUnavailable": "..core.errors",
    "HttpProvider": ".base",
    "MissingApiKey": "..core.errors",
    "NoKeyringBackend": ".credentials",
    "OpenAIChatProvider": ".openai_chat",
    "Pricing": ".usage",
    "ProfileError": ".profiles",
    "ProfileKind": ".profiles",
    "ProfileStore": ".profiles",
    "ProviderProfile": ".profiles",
    "ResolvedKey": ".credentials",
    "SecretString": "..core.secrets.scrub",
    "SummarizingCompactor": ".compactors",
    "Timeouts": ".transport",
    "build_provider": ".profiles",
    "open_provider": ".profiles",
    "stored_secrets": ".export_secrets",
}

__all__ = [
    "DEFAULT_PROFILE",
    "AnthropicProvider",
    "CredentialsUnavailable",
    "HttpProvider",
    "MissingApiKey",
    "NoKeyringBackend",
    "OpenAIChatProvider",
    "Pricing",
    "ProfileError",
    "ProfileKind",
    "ProfileStore",
    "ProviderProfile",
    "ResolvedKey",
    "SecretString",
    "SummarizingCompactor",
    "Timeouts",
    "build_provider",
    "open_provider",
    "stored_secrets",
]


def __getattr__(name: str) -> Any:
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(where, __name__), name)
    globals()[name] = value
    return value
