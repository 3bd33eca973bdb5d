"""A model endpoint as the provider adapters need it, and the provider built from it.

:func:`build_provider` turns anything with an endpoint's fields (a stored
:class:`~rho_desk.providers.profiles.ProviderProfile`, or an :class:`Endpoint` given on the command
line and saved nowhere) into a ready provider. This module needs neither pydantic nor the keyring
and imports only the adapter it builds, so ``rho-desk continue --base-url URL --model NAME``
reaches the network quickly (the ``continue.time_to_request`` benchmark).

:func:`resolve_permission_mode` is the permission-mode rule of a continued conversation, written once.
"""

from __future__ import annotations

import enum
import urllib.parse
from collections.abc import Mapping
from typing import TYPE_CHECKING, Protocol

import msgspec

from ..core.errors import InputError, MissingApiKey
from ..core.tools.permissions import DEFAULT_MODE, PermissionMode

if TYPE_CHECKING:
    import httpx

    from ..core.secrets.scrub import SecretString
    from .base import HttpProvider
    from .transport import Timeouts
    from .usage import Pricing

__all__ = [
    "Endpoint",
    "EndpointFields",
    "ProfileKind",
    "build_provider",
    "check_base_url",
    "resolve_permission_mode",
]


class ProfileKind(enum.Enum):
    """Which wire API a profile speaks."""

    OPENAI_COMPATIBLE = "openai-compatible"
    """Chat Completions: OpenAI, OpenRouter, Ollama, vLLM, llama.cpp's server, LM Studio."""
    ANTHROPIC = "anthropic"
    """Anthropic Messages."""


def resolve_permission_mode(
    permission_mode: str | None, override: PermissionMode | None = None
) -> PermissionMode:
    """The permission mode a continued conversation's tools run under: ``override`` (chosen for
    this conversation or on the command line), else the profile's ``permission_mode``, else
    ``supervised``.

    Raises:
        InputError: ``permission_mode`` names no mode.
    """
    if override is not None:
        return override
    return PermissionMode.parse(permission_mode) if permission_mode else DEFAULT_MODE


def check_base_url(name: str, url: str) -> None:
    """Refuse a base URL that is not http(s) or that carries user info, a query or a fragment.

    Raises:
        ValueError: the reason, naming the profile.
    """
    try:
        parts = urllib.parse.urlsplit(url)
    except ValueError:
        parts = None
    if parts is None or parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"profile '{name}': the base URL must be an http(s) URL")
    if parts.username or parts.password or parts.query or parts.fragment:
        # these are where secrets hide; keys go to the keyring
        raise ValueError(
            f"profile '{name}': the base URL must not contain user info, a query string or a fragment"
        )


class EndpointFields(Protocol):
    """What :func:`build_provider` reads of a profile."""

    @property
    def name(self) -> str: ...
    @property
    def kind(self) -> ProfileKind: ...
    @property
    def base_url(self) -> str: ...
    @property
    def model(self) -> str: ...
    @property
    def requires_key(self) -> bool: ...
    @property
    def extra_headers(self) -> Mapping[str, str]: ...
    @property
    def max_output_tokens(self) -> int | None: ...
    @property
    def reasoning(self) -> bool: ...
    @property
    def send_prompt_cache_key(self) -> bool: ...
    @property
    def context_window(self) -> int | None: ...
    @property
    def pricing(self) -> Pricing | None: ...
    @property
    def identity_provider(self) -> str: ...
    def timeouts(self) -> Timeouts: ...
    def permission_mode_for(self, override: PermissionMode | None = None) -> PermissionMode: ...


class Endpoint(msgspec.Struct, frozen=True):
    """An endpoint given for one command and saved nowhere (``--base-url URL --model NAME``).

    Raises:
        InputError: the base URL is refused (see :func:`check_base_url`).
    """

    kind: ProfileKind
    base_url: str
    model: str
    name: str = "command-line"
    requires_key: bool = False
    extra_headers: Mapping[str, str] = msgspec.field(default_factory=dict)
    max_output_tokens: int | None = None
    reasoning: bool = False
    send_prompt_cache_key: bool = False
    context_window: int | None = None
    pricing: Pricing | None = None
    permission_mode: str | None = None
    max_steps: int | None = None

    def __post_init__(self) -> None:
        try:
            check_base_url(self.name, self.base_url)
        except ValueError as exc:
            raise InputError(str(exc)) from None

    @property
    def identity_provider(self) -> str:
        return "anthropic" if self.kind is ProfileKind.ANTHROPIC else self.name

    def timeouts(self) -> Timeouts:
        from .transport import Timeouts

        return Timeouts()

    def permission_mode_for(self, override: PermissionMode | None = None) -> PermissionMode:
        return resolve_permission_mode(self.permission_mode, override)


def build_provider(
    profile: EndpointFields,
    api_key: SecretString | None,
    *,
    client: httpx.AsyncClient | None = None,
) -> HttpProvider:
    """A provider for ``profile`` using ``api_key``.

    Raises:
        MissingApiKey: the profile needs a key and ``api_key`` is ``None``.
    """
    if api_key is None and profile.requires_key:
        raise MissingApiKey(f"profile '{profile.name}' needs an API key")
    if profile.kind is ProfileKind.ANTHROPIC:
        from .anthropic import DEFAULT_MAX_OUTPUT_TOKENS, AnthropicProvider

        return AnthropicProvider(
            model=profile.model,
            api_key=api_key,
            base_url=profile.base_url,
            max_output_tokens=profile.max_output_tokens or DEFAULT_MAX_OUTPUT_TOKENS,
            thinking=profile.reasoning,
            extra_headers=dict(profile.extra_headers),
            context_window=profile.context_window,
            pricing=profile.pricing,
            timeouts=profile.timeouts(),
            client=client,
        )
    from .openai_chat import OpenAIChatProvider

    return OpenAIChatProvider(
        base_url=profile.base_url,
        model=profile.model,
        api_key=api_key,
        provider_name=profile.identity_provider,
        extra_headers=dict(profile.extra_headers),
        send_reasoning_effort=profile.reasoning,
        send_prompt_cache_key=profile.send_prompt_cache_key,
        max_output_tokens=profile.max_output_tokens,
        context_window=profile.context_window,
        pricing=profile.pricing,
        timeouts=profile.timeouts(),
        client=client,
    )
