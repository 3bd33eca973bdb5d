"""Real model providers (OpenAI-compatible, Anthropic), their credentials and profiles, and the
compactor that calls them. May use the network; ``rho_desk.core`` never imports this package.

Modules:

* ``openai_chat``, ``anthropic``: the streaming adapters (``ModelProvider`` subclasses).
* ``transport``, ``sse``: the shared HTTP streaming, SSE decoding and error mapping.
* ``secret``: ``SecretString`` and the scrubbing of text that leaves a provider.
* ``usage``: usage normalisation and cost (``Pricing``).
* ``credentials``: API keys in keyring (service ``rho-desk``), ``stored_secrets()``.
* ``profiles``: ``ProviderProfile``, ``ProfileStore``, ``build_provider``, ``open_provider``.
* ``compactors``: ``SummarizingCompactor`` (the local one lives in ``rho_desk.core.compaction.local``).
"""

from ..core.errors import CredentialsUnavailable
from .anthropic import AnthropicProvider
from .base import HttpProvider
from .compactors import SummarizingCompactor
from .credentials import (
    MissingApiKey,
    NoKeyringBackend,
    ResolvedKey,
    stored_secrets,
)
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
from .secret import SecretString
from .transport import Timeouts
from .usage import Pricing

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
