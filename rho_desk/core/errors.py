"""The one tree of rho-desk errors: what went wrong, and whose fault it was.

::

    RhoError                        every error rho-desk raises on purpose
     ├── KnownError                 the environment's or the input's fault; has a user-facing text()
     │    ├── InputError            malformed or unsupported data (CLI exit status 2)
     │    │    └── WireFormatError  JSON that is not Rho's wire format; names the JSON path
     │    ├── StorageError          the disk said no (ENOSPC, EIO, permissions, locks)
     │    │    ├── RevisionConflict another writer changed the file since we read it
     │    │    ├── DatabaseUnavailable  a database server is unreachable or dropped the connection
     │    │    └── SchemaTooNew     stored data from a newer rho-desk: neither read nor written
     │    ├── AccessDenied          the account may not do this (a role outside the team)
     │    ├── CredentialsUnavailable  no keyring backend, or no key stored for a profile
     │    │    └── MissingApiKey   the profile needs a key and none is stored
     │    └── EngineError           the session engine's errors (spec/engine.md §12)
     │         ├── InvalidConfiguration
     │         ├── AuthenticationError
     │         ├── ProviderError    a model provider failed; kind, retryability, retry_after
     │         ├── ToolFailed
     │         ├── PersistenceError
     │         ├── PolicyDenied
     │         ├── RuntimeShutdown
     │         ├── SessionBusy      a second mutable operation on a busy session
     │         ├── Cancelled        silent in the UI
     │         ├── Interrupted
     │         ├── InvalidHostResponse
     │         └── ContextWindowExceeded  a request larger than the model's known window
     └── BugError                   a broken invariant inside rho-desk itself

Core code raises these and never shows UI. :func:`error_text` is the one place that turns an
error into words, for the app (its notices and every dialog) and the command line alike. The
text of an error never holds a secret: adapters build messages from sanitized parts only.
"""

from __future__ import annotations

import enum
import sys
from datetime import timedelta

__all__ = [
    "AccessDenied",
    "AuthenticationError",
    "BugError",
    "Cancelled",
    "ContextWindowExceeded",
    "CredentialsUnavailable",
    "DatabaseUnavailable",
    "EngineError",
    "InputError",
    "Interrupted",
    "InvalidConfiguration",
    "InvalidHostResponse",
    "KnownError",
    "MissingApiKey",
    "PersistenceError",
    "PolicyDenied",
    "ProviderDiagnostic",
    "ProviderError",
    "ProviderErrorKind",
    "Retryability",
    "RevisionConflict",
    "RhoError",
    "RuntimeShutdown",
    "SchemaTooNew",
    "SessionBusy",
    "StorageError",
    "ToolFailed",
    "WireFormatError",
    "error_text",
    "format_retry_after",
]


class RhoError(Exception):
    """Base of every error rho-desk raises on purpose."""

    def text(self) -> str:
        """A short message for a person: what happened, without a traceback."""
        return str(self)


class KnownError(RhoError):
    """The environment's or the input's fault, not a bug in rho-desk."""


class BugError(RhoError):
    """A broken invariant inside rho-desk; the UI shows the crash dialog for these."""


class InputError(KnownError):
    """Malformed or unsupported data, located as precisely as we can.

    Args:
        reason: what is wrong, in a few words.
        source: the file (or other origin) the data came from, if known.
        line: 1-based line number inside ``source``, if known.
        path: the JSON path of the offending value (``$.history[3].User``), if known.
    """

    def __init__(
        self,
        reason: str,
        *,
        source: str | None = None,
        line: int | None = None,
        path: str | None = None,
    ) -> None:
        self.reason = reason
        self.source = source
        self.line = line
        self.path = path
        super().__init__(self._compose())

    def _compose(self) -> str:
        where = []
        if self.source is not None:
            where.append(self.source if self.line is None else f"{self.source}:{self.line}")
        elif self.line is not None:
            where.append(f"line {self.line}")
        if self.path is not None and self.path != "$":
            where.append(f"at {self.path}")
        return f"{' '.join(where)}: {self.reason}" if where else self.reason


class WireFormatError(InputError):
    """JSON that is not a valid value of Rho's wire format (unknown variant, bad type, ...)."""


class StorageError(KnownError):
    """Reading or writing a file failed (disk full, I/O error, permission, lock)."""


class RevisionConflict(StorageError):
    """Another writer changed the session since this process last read or wrote it.

    Nothing was written. The user chooses: reload, or fork into a new session.
    """


class DatabaseUnavailable(StorageError):
    """A database server cannot be reached, or dropped the connection; nothing was committed."""


class SchemaTooNew(StorageError):
    """Stored data has a schema version newer than this rho-desk knows; it is neither read nor written."""


class AccessDenied(KnownError):
    """The account has no right to do this (a database role outside the team, for example)."""


class CredentialsUnavailable(KnownError):
    """A credential cannot be read: no keyring backend, or nothing stored for the profile."""


class MissingApiKey(CredentialsUnavailable):
    """The profile needs a key and none is stored (nor in its opted-in environment variable)."""


# --- engine errors (spec/engine.md §12) -----------------------------------------------------


class EngineError(KnownError):
    """The session engine's error enum. ``str(err)`` is upstream's display text."""

    prefix = ""

    def __init__(self, message: str = "") -> None:
        self.message = message
        super().__init__(f"{self.prefix}{message}" if self.prefix else message)


class InvalidConfiguration(EngineError):
    prefix = "invalid configuration: "


class AuthenticationError(EngineError):
    prefix = "authentication failed: "


class ToolFailed(EngineError):
    prefix = "tool failed: "


class PersistenceError(EngineError):
    prefix = "persistence failed: "


class PolicyDenied(EngineError):
    prefix = "policy denied operation: "


class RuntimeShutdown(EngineError):
    def __init__(self) -> None:
        super().__init__("runtime has been shut down")


class SessionBusy(EngineError):
    """A second mutable operation was attempted while one is active; it fails at once."""

    def __init__(self) -> None:
        super().__init__("session already has an active run")


class Cancelled(EngineError):
    """The operation was cancelled cooperatively. The UI stays silent about it."""

    def __init__(self) -> None:
        super().__init__("operation cancelled")


class Interrupted(EngineError):
    prefix = "operation interrupted: "


class InvalidHostResponse(EngineError):
    prefix = "invalid host response: "


class ContextWindowExceeded(EngineError):
    """The request the engine would send is larger than the provider's context window.

    Raised before anything is sent (and after automatic compaction, when configured, could not
    make it fit), so that a server never sees a prompt it can only truncate or drop.
    """

    def __init__(self, tokens: int, window: int, calibrated: bool = False) -> None:
        self.tokens = tokens
        self.window = window
        self.calibrated = calibrated
        """The count follows the server's own token count of the text (llama.cpp's ``/tokenize``);
        otherwise it is rho-desk's estimate alone, and says so."""
        how = "estimated, calibrated by the server's token count" if calibrated else "estimated"
        super().__init__(
            f"the request is about {tokens:,} tokens ({how}), {tokens - window:,} over the model's"
            f" {window:,}-token context window; compact the session, shorten the prompt,"
            " or raise the profile's context window"
        )


class ProviderErrorKind(enum.Enum):
    AUTHENTICATION = "Authentication"
    RATE_LIMIT = "RateLimit"
    TIMEOUT = "Timeout"
    INVALID_RESPONSE = "InvalidResponse"
    UNAVAILABLE = "Unavailable"
    INTERRUPTED = "Interrupted"
    OTHER = "Other"


class Retryability(enum.Enum):
    RETRYABLE = "Retryable"
    PERMANENT = "Permanent"


class ProviderDiagnostic:
    """Bounded provider detail shown only to the user: never in model context, logs or reports.

    At most 16 384 UTF-8 bytes; longer text is cut at a character boundary and marked.
    Its ``repr`` never shows the text.
    """

    LIMIT = 16_384
    MARKER = "\n[diagnostic truncated]"
    __slots__ = ("_text",)

    def __init__(self, text: str) -> None:
        raw = text.encode("utf-8")
        if len(raw) > self.LIMIT:
            room = self.LIMIT - len(self.MARKER.encode("utf-8"))
            text = raw[:room].decode("utf-8", errors="ignore") + self.MARKER
        self._text = text

    def text(self) -> str:
        return self._text

    def __repr__(self) -> str:
        return "ProviderDiagnostic([redacted])"

    __str__ = __repr__


class ProviderError(EngineError):
    """A model provider failed. Display: ``provider failed: {message}``.

    The message must already be sanitized by the adapter: no keys, headers, query secrets or raw
    response bodies. The optional diagnostic is never part of the display text.
    """

    prefix = "provider failed: "

    def __init__(
        self,
        kind: ProviderErrorKind,
        message: str,
        retryability: Retryability = Retryability.PERMANENT,
        *,
        diagnostic: ProviderDiagnostic | None = None,
        retry_after: timedelta | None = None,
    ) -> None:
        self.kind = kind
        self.retryability = retryability
        self.diagnostic = diagnostic
        self.retry_after = retry_after
        super().__init__(message)

    @classmethod
    def interrupted(cls, message: str) -> ProviderError:
        return cls(ProviderErrorKind.INTERRUPTED, message, Retryability.PERMANENT)

    def is_retryable(self) -> bool:
        return self.retryability is Retryability.RETRYABLE

    def __repr__(self) -> str:
        return (
            f"ProviderError(kind={self.kind.value}, message={self.message!r}, "
            f"retryability={self.retryability.value}, "
            f"diagnostic={'present' if self.diagnostic else 'absent'}, "
            f"retry_after={self.retry_after!r})"
        )


def format_retry_after(delay: timedelta) -> str:
    """Upstream's human form of a retry delay: ``now``, ``1s``, ``42s``, ``3m 5s``, ``2h 10m``."""
    total = delay.total_seconds()
    if total <= 0:
        return "now"
    if total < 1:
        return "1s"
    seconds = int(total)
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        minutes, rest = divmod(seconds, 60)
        return f"{minutes}m" if rest == 0 else f"{minutes}m {rest}s"
    hours, rest = divmod(seconds, 3600)
    minutes = rest // 60
    return f"{hours}h" if minutes == 0 else f"{hours}h {minutes}m"


def error_text(exc: BaseException) -> str:
    """The words a person sees for ``exc``, one line where possible.

    * a cancellation (:class:`Cancelled`, ``asyncio.CancelledError``): ``"cancelled"``;
    * any other :class:`KnownError` (bad input, the disk, credentials, the engine): its
      :meth:`text`, which names the file, line and reason;
    * anything else is a bug in rho-desk: ``"rho-desk hit a bug (Type: first line)"`` (the
      traceback belongs in a bug report, not in the sentence).
    """
    # asyncio's cancellation can only exist once asyncio is loaded: commands that never load it
    # (``show``, ``snapshot``, ``check``) do not pay its import for this test
    aio = sys.modules.get("asyncio")
    if isinstance(exc, Cancelled) or (aio is not None and isinstance(exc, aio.CancelledError)):
        return "cancelled"
    if isinstance(exc, KnownError):
        return exc.text()
    message = str(exc).strip()
    summary = f"{type(exc).__name__}: {message.splitlines()[0]}" if message else type(exc).__name__
    if len(summary) > 160:
        summary = summary[:159] + "…"
    return f"rho-desk hit a bug ({summary})"
