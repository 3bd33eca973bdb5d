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

The names below are imported on first use (:mod:`rho_desk.core.lazy`), so that importing one module of this package
(``rho-desk continue`` imports ``continuation`` and one adapter) does not load every adapter,
pydantic and the keyring.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from ..core.lazy import attach

# httpx imports its optional command-line client (click, rich, pygments: about 0.1 s) when they
# are installed, and rho-desk's lock installs them for its tools. No rho-desk process runs that
# client: a None entry makes its import fail the way httpx handles when they are missing (it then
# defines a stub ``httpx.main``).
if "httpx" not in sys.modules:
    sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]

if TYPE_CHECKING:
    from ..core.errors import CredentialsUnavailable as CredentialsUnavailable
    from ..core.errors import MissingApiKey as MissingApiKey
    from ..core.secrets.scrub import SecretString as SecretString
    from .anthropic import AnthropicProvider as AnthropicProvider
    from .base import HttpProvider as HttpProvider
    from .compactors import SummarizingCompactor as SummarizingCompactor
    from .credentials import NoKeyringBackend as NoKeyringBackend
    from .credentials import ResolvedKey as ResolvedKey
    from .export_secrets import stored_secrets as stored_secrets
    from .openai_chat import OpenAIChatProvider as OpenAIChatProvider
    from .profiles import DEFAULT_PROFILE as DEFAULT_PROFILE
    from .profiles import ProfileError as ProfileError
    from .profiles import ProfileKind as ProfileKind
    from .profiles import ProfileStore as ProfileStore
    from .profiles import ProviderProfile as ProviderProfile
    from .profiles import build_provider as build_provider
    from .profiles import open_provider as open_provider
    from .transport import Timeouts as Timeouts
    from .usage import Pricing as Pricing

if not TYPE_CHECKING:
    __getattr__, __dir__ = attach(__name__, __file__)
