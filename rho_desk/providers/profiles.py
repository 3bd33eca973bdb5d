"""Provider profiles: typed, secret-free settings for each model endpoint, and their JSON store.

A profile names one endpoint (kind, base URL, model, context window, options). It never holds a
secret: keys live in keyring under the profile's name (``credentials``), base URLs with user
info or a query string are refused, and so are extra headers that look like credentials. The
GUI and the command line share one ``ProfileStore``: a JSON file in
``platformdirs.user_config_dir("rho-desk")`` (``RHO_DESK_CONFIG_DIR`` overrides it), written
atomically (temp file, fsync, replace, fsync of the directory).

With no file yet, the store offers one built-in profile: a local Ollama server, which needs no
key. ``build_provider`` turns a profile and its key into a ready provider.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Final, Self

import msgspec
from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    PlainSerializer,
    ValidationError,
    model_validator,
)

from ..core.errors import InputError
from ..core.system.dirs import CONFIG_DIR_ENV, config_dir
from ..core.system.fsio import atomic_write
from ..core.system.paths import check_private_folder
from ..core.tools.permissions import PermissionMode
from ..core.wire.limits import TooDeep, check_depth
from .base import HttpProvider
from .credentials import ResolvedKey, aresolve_api_key
from .endpoint import ProfileKind, build_provider, check_base_url, resolve_permission_mode
from .transport import Timeouts
from .usage import Pricing

__all__ = [
    "CONFIG_DIR_ENV",
    "DEFAULT_PROFILE",
    "PROFILES_FILE",
    "ProfileError",
    "ProfileKind",
    "ProfileStore",
    "ProfilesDocument",
    "ProviderProfile",
    "build_provider",
    "config_dir",
    "open_provider",
]

PROFILES_FILE: Final = "providers.json"
FORMAT_VERSION: Final = 1

_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_HEADER_NAME = re.compile(r"^[A-Za-z0-9!#$%&'*+.^_`|~-]+$")
# Header names that carry credentials: they belong in keyring, never in a settings file.
_SECRET_HEADER = re.compile(
    r"(?i)(auth|token|secret|key|cookie|session|password|credential|signature)"
)


class ProfileError(InputError, ValueError):
    """A profile, or the profiles file, is invalid."""


def _pricing(value: object) -> Pricing | None:
    if value is None or isinstance(value, Pricing):
        return value
    try:
        return msgspec.convert(value, Pricing)
    except (msgspec.ValidationError, ValueError) as exc:
        raise ValueError(str(exc).partition(" - at `")[0]) from None


PricingField = Annotated[
    Pricing | None,
    BeforeValidator(_pricing),
    PlainSerializer(lambda value: None if value is None else msgspec.to_builtins(value)),
]
"""A :class:`~rho_desk.providers.usage.Pricing` (a ``msgspec`` struct used on the request path)
read from and written to the profiles file."""


class ProviderProfile(BaseModel):
    """One model endpoint. Holds no secret (the key is in keyring under ``name``).

    Invalid values raise :class:`ProfileError` naming the field and the reason, whether the
    profile is built in code, edited in the settings dialog or read from the profiles file.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)

    name: str
    """Unique name; also the keyring username of the profile's API key."""
    kind: ProfileKind
    base_url: str
    """API root, e.g. ``https://api.openai.com/v1`` (no user info, no query string)."""
    model: str
    context_window: int | None = None
    """The model's context window in tokens, when known (reported with usage)."""
    provider: str | None = None
    """Provider name of the model identity (OpenAI-compatible only); defaults to ``name``."""
    api_key_env: str | None = None
    """Opt-in: read the key from this environment variable when keyring has none."""
    requires_key: bool = True
    """False for servers that take no key (a local Ollama)."""
    extra_headers: dict[str, str] = {}
    """Non-secret headers (``HTTP-Referer``, ``anthropic-beta``...)."""
    max_output_tokens: int | None = None
    """Output token limit to request (16384 for Anthropic, 8192 for OpenAI-compatible servers when
    unset: a runaway reply stops at it)."""
    max_steps: int | None = None
    """Model steps one continued turn may take (default 32, upstream's ``DEFAULT_MAX_STEPS``)."""
    reasoning: bool = False
    """Send reasoning controls: ``reasoning_effort`` (OpenAI-compatible) or extended thinking
    (Anthropic). Off by default: models and servers that do not support them reject them."""
    send_prompt_cache_key: bool = False
    """Forward the session's prompt-cache key (OpenAI-compatible servers that accept it)."""
    pricing: PricingField = None
    """US dollars per million tokens, for cost when the server reports none."""
    connect_timeout: float | None = None
    idle_timeout: float | None = None
    """Longest silence tolerated inside a streamed reply, in seconds."""
    permission_mode: str | None = None
    """What the coding tools may do when continuing with this profile (``off``, ``plan``,
    ``supervised``, ``allow_edits``, ``bypass``); unset means ``supervised``."""

    def __init__(self, **data: Any) -> None:
        try:
            super().__init__(**data)
        except ValidationError as exc:
            raise _profile_error(exc) from None

    @model_validator(mode="after")
    def _check(self) -> Self:
        if (
            not self.name
            or len(self.name) > 100
            or any(ord(c) < 32 for c in self.name)
            or self.name != self.name.strip()
        ):
            raise ValueError(
                "a profile name must be 1-100 printable characters without surrounding spaces"
            )
        if not self.model.strip():
            raise ValueError(f"profile '{self.name}' has no model")
        check_base_url(self.name, self.base_url)
        if self.context_window is not None and self.context_window <= 0:
            raise ValueError(f"profile '{self.name}': the context window must be positive")
        if self.max_output_tokens is not None and self.max_output_tokens <= 0:
            raise ValueError(f"profile '{self.name}': the output token limit must be positive")
        if self.max_steps is not None and self.max_steps <= 0:
            raise ValueError(f"profile '{self.name}': the step limit must be positive")
        if self.api_key_env is not None and not _ENV_NAME.match(self.api_key_env):
            raise ValueError(
                f"profile '{self.name}': '{self.api_key_env}' is not an environment variable name"
            )
        for header, value in self.extra_headers.items():
            if not _HEADER_NAME.match(header) or "\n" in value or "\r" in value:
                raise ValueError(f"profile '{self.name}': invalid header '{header}'")
            if _SECRET_HEADER.search(header):
                raise ValueError(
                    f"profile '{self.name}': header '{header}' looks like a credential; "
                    "store the API key in the keyring instead"
                )
        if self.permission_mode is not None:
            try:
                PermissionMode.parse(self.permission_mode)
            except InputError as exc:
                raise ValueError(f"profile '{self.name}': {exc.text()}") from None
        for timeout in (self.connect_timeout, self.idle_timeout):
            if timeout is not None and not 0 < timeout <= 3600:
                raise ValueError(
                    f"profile '{self.name}': timeouts must be between 0 and 3600 seconds"
                )
        return self

    def permission_mode_for(self, override: PermissionMode | None = None) -> PermissionMode:
        """The permission mode a continued conversation's tools run under: ``override`` (chosen
        for this conversation or on the command line), else this profile's, else ``supervised``."""
        return resolve_permission_mode(self.permission_mode, override)

    @property
    def identity_provider(self) -> str:
        """The ``provider`` part of the model identity this profile's provider reports."""
        if self.kind is ProfileKind.ANTHROPIC:
            return "anthropic"
        return self.provider or self.name

    def timeouts(self) -> Timeouts:
        default = Timeouts()
        return Timeouts(
            connect=self.connect_timeout or default.connect,
            idle=self.idle_timeout or default.idle,
            write=default.write,
        )

    def replace(self, **changes: Any) -> ProviderProfile:
        """A copy with ``changes`` applied, validated like a new profile."""
        return ProviderProfile(**{**self._fields(), **changes})

    def _fields(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in type(self).model_fields}


def _profile_error(exc: ValidationError, source: str | None = None) -> ProfileError:
    """The first problem pydantic found, as a ``ProfileError`` naming the field and the reason."""
    first = exc.errors(include_url=False)[0]
    path = "$" + "".join(
        f"[{part}]" if isinstance(part, int) else f".{part}" for part in first["loc"]
    )
    inner = first.get("ctx", {}).get("error")
    if isinstance(inner, ProfileError):  # a nested profile's own error (its __init__ ran)
        return ProfileError(
            inner.reason, source=source, path=path + (inner.path or "$")[1:] or None
        )
    reason = str(first["msg"]).removeprefix("Value error, ")
    return ProfileError(reason, source=source, path=path if path != "$" else None)


DEFAULT_PROFILE: Final = ProviderProfile(
    name="ollama-local",
    kind=ProfileKind.OPENAI_COMPATIBLE,
    base_url="http://127.0.0.1:11434/v1",
    model="llama3.2",
    provider="ollama",
    requires_key=False,
    context_window=131_072,
)
"""A local Ollama server: the profile offered before the user configures any."""


class ProfilesDocument(BaseModel):
    """The profiles file (``providers.json``), as people edit it."""

    model_config = ConfigDict(extra="forbid")

    version: int
    """Format version; a newer one than :data:`FORMAT_VERSION` is refused."""
    default: str | None = None
    """Name of the default profile."""
    profiles: list[ProviderProfile] = []


@dataclass(frozen=True, slots=True)
class ProfileSet:
    """Everything the profiles file holds."""

    profiles: tuple[ProviderProfile, ...]
    default: str | None

    def get(self, name: str) -> ProviderProfile:
        for profile in self.profiles:
            if profile.name == name:
                return profile
        known = ", ".join(p.name for p in self.profiles) or "none"
        raise ProfileError(f"no provider profile named '{name}' (known: {known})")


def _line_of(data: bytes, message: str) -> int | None:
    """The 1-based line msgspec's error points at (truncation points at the last line)."""
    match = re.search(r"\(byte (\d+)\)", message)
    if match is not None:
        return data[: int(match.group(1))].count(b"\n") + 1
    if "truncated" in message:
        return data.count(b"\n") + 1
    return None


class ProfileStore:
    """The profiles file: load, look up, add, replace and remove profiles.

    Args:
        directory: where the file lives (default ``config_dir()``, read at each call so tests
            and embedders can redirect it with ``RHO_DESK_CONFIG_DIR``).
    """

    def __init__(self, directory: Path | None = None) -> None:
        self._directory = directory

    @property
    def path(self) -> Path:
        return (self._directory or config_dir()) / PROFILES_FILE

    def __repr__(self) -> str:
        return f"ProfileStore({str(self.path)!r})"

    def load(self) -> ProfileSet:
        """The stored profiles; the built-in Ollama profile when there is no file yet.

        Raises:
            ProfileError: the file is malformed, or written by a newer rho-desk.
            StorageError: the file cannot be read.
        """
        path = self.path
        # another local user who can write here could point a profile's base URL (and its key)
        # at their own server
        check_private_folder(path.parent, what="rho-desk's settings folder")
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            return ProfileSet((DEFAULT_PROFILE,), DEFAULT_PROFILE.name)
        except OSError as exc:
            from ..core.errors import StorageError

            raise StorageError(f"{path}: {exc.strerror or type(exc).__name__}") from None
        failure: ProfileError | None = None
        try:
            # bounded first: msgspec and pydantic recurse once per nesting level
            check_depth(data, source=str(path))
            # msgspec parses (and locates syntax errors by line); pydantic validates the fields
            document = ProfilesDocument.model_validate(msgspec.json.decode(data))
        except TooDeep as exc:
            failure = ProfileError(exc.reason, source=str(path))
        except msgspec.DecodeError as exc:
            failure = ProfileError(
                f"not valid JSON ({exc})", source=str(path), line=_line_of(data, str(exc))
            )
        except ValidationError as exc:
            failure = _profile_error(exc, source=str(path))
        if failure is not None:
            raise failure
        if document.version > FORMAT_VERSION:
            raise ProfileError(
                f"written by a newer rho-desk (format {document.version}; this one reads {FORMAT_VERSION})",
                source=str(path),
            )
        names = [p.name for p in document.profiles]
        duplicates = sorted({n for n in names if names.count(n) > 1})
        if duplicates:
            raise ProfileError(
                f"duplicate profile names: {', '.join(duplicates)}", source=str(path)
            )
        default = document.default if document.default in names else (names[0] if names else None)
        return ProfileSet(tuple(document.profiles), default)

    def profiles(self) -> tuple[ProviderProfile, ...]:
        return self.load().profiles

    def get(self, name: str) -> ProviderProfile:
        """The profile called ``name`` (``ProfileError`` when there is none)."""
        return self.load().get(name)

    def default(self) -> ProviderProfile | None:
        loaded = self.load()
        return loaded.get(loaded.default) if loaded.default is not None else None

    def save(self, profiles: Iterable[ProviderProfile], default: str | None = None) -> None:
        """Replace the whole file atomically.

        Raises:
            ProfileError: duplicate names, or an unknown default.
            StorageError: the file could not be written (the old one is unchanged).
        """
        items = list(profiles)
        names = [p.name for p in items]
        if len(set(names)) != len(names):
            raise ProfileError("profile names must be unique")
        if default is not None and default not in names:
            raise ProfileError(f"no provider profile named '{default}'")
        document = ProfilesDocument(version=FORMAT_VERSION, default=default, profiles=items)
        text = document.model_dump_json(indent=2, exclude_defaults=True, exclude_none=True)
        atomic_write(self.path, text.encode("utf-8") + b"\n")

    def upsert(self, profile: ProviderProfile, *, make_default: bool = False) -> None:
        """Add ``profile``, or replace the one with the same name."""
        loaded = self.load()
        items = [p for p in loaded.profiles if p.name != profile.name]
        position = next(
            (i for i, p in enumerate(loaded.profiles) if p.name == profile.name), len(items)
        )
        items.insert(position, profile)
        self.save(items, profile.name if make_default else loaded.default)

    def remove(self, name: str) -> None:
        loaded = self.load()
        loaded.get(name)
        items = [p for p in loaded.profiles if p.name != name]
        default = loaded.default if loaded.default != name else (items[0].name if items else None)
        self.save(items, default)

    def set_default(self, name: str) -> None:
        loaded = self.load()
        loaded.get(name)
        self.save(loaded.profiles, name)


async def open_provider(profile: ProviderProfile) -> tuple[HttpProvider, ResolvedKey | None]:
    """Resolve the profile's key off the event-loop thread, then build its provider.

    Returns the provider and where its key came from (``None`` for keyless profiles).
    """
    resolved = await aresolve_api_key(profile)
    return build_provider(profile, resolved.secret if resolved else None), resolved
