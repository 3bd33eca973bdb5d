"""The session engine: a Python port of Rho's SDK core. No Qt, no network.

This package re-exports the public API of the engine and of Rho's wire types, so hosts write
``from rho_desk.core import Rho, Session, Message``. Two groups are namespaced instead, because
their names collide with other public names:

* run events: ``from rho_desk.core import events`` (``events.Started``, ``events.Cancelled``,
  ...); ``Cancelled`` at the top level is the error;
* provider stream events (``OutputDelta``, ``ReasoningDelta``, ...): import them from
  ``rho_desk.core.provider``, where provider authors find ``ModelProvider`` too.

Re-exports load lazily (PEP 562, :mod:`rho_desk.core.lazy`): ``import rho_desk.core.errors`` stays cheap for the command
line, and ``from rho_desk.core import X`` imports only what ``X`` needs.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from .lazy import attach


def _import_msgspec() -> None:
    """Import msgspec (every part of the engine uses it) without ``typing_extensions``.

    msgspec takes ``get_type_hints``, ``Required`` and ``NotRequired`` from ``typing_extensions``
    when it can, else from ``typing``, which has them as they are on every Python rho-desk runs
    on (3.11 and later). ``typing_extensions``, with the ``inspect`` and ``ast`` it loads, is
    about a tenth of what a command line spends starting; a process that has loaded it already
    (or loads it later, for another library) is left as it is.
    """
    if "msgspec" in sys.modules or "typing_extensions" in sys.modules:
        return
    sys.modules["typing_extensions"] = None  # type: ignore[assignment]  # importing it fails
    try:
        import msgspec  # noqa: F401
    finally:
        if sys.modules.get("typing_extensions", ...) is None:
            del sys.modules["typing_extensions"]


_import_msgspec()

if TYPE_CHECKING:
    from .cancellation import CancellationToken as CancellationToken
    from .cancellation import race as race
    from .compaction import CompactionOutcome as CompactionOutcome
    from .compaction import CompactionOutput as CompactionOutput
    from .compaction import CompactionPolicy as CompactionPolicy
    from .compaction import CompactionRequest as CompactionRequest
    from .compaction import CompactionTrigger as CompactionTrigger
    from .compaction import Compactor as Compactor
    from .compaction import estimate_context_tokens as estimate_context_tokens
    from .compaction import estimate_messages_tokens as estimate_messages_tokens
    from .compaction import estimate_text_tokens as estimate_text_tokens
    from .compaction import json_tokens as json_tokens
    from .compaction import message_tokens as message_tokens
    from .errors import AccessDenied as AccessDenied
    from .errors import AuthenticationError as AuthenticationError
    from .errors import BugError as BugError
    from .errors import Cancelled as Cancelled
    from .errors import ContextWindowExceeded as ContextWindowExceeded
    from .errors import CredentialsUnavailable as CredentialsUnavailable
    from .errors import DatabaseUnavailable as DatabaseUnavailable
    from .errors import EngineError as EngineError
    from .errors import InputError as InputError
    from .errors import Interrupted as Interrupted
    from .errors import InvalidConfiguration as InvalidConfiguration
    from .errors import InvalidHostResponse as InvalidHostResponse
    from .errors import KnownError as KnownError
    from .errors import MissingApiKey as MissingApiKey
    from .errors import PersistenceError as PersistenceError
    from .errors import PolicyDenied as PolicyDenied
    from .errors import ProviderDiagnostic as ProviderDiagnostic
    from .errors import ProviderError as ProviderError
    from .errors import ProviderErrorKind as ProviderErrorKind
    from .errors import Retryability as Retryability
    from .errors import RevisionConflict as RevisionConflict
    from .errors import RhoError as RhoError
    from .errors import RuntimeShutdown as RuntimeShutdown
    from .errors import SchemaTooNew as SchemaTooNew
    from .errors import SessionBusy as SessionBusy
    from .errors import StorageError as StorageError
    from .errors import ToolFailed as ToolFailed
    from .errors import WireFormatError as WireFormatError
    from .errors import error_text as error_text
    from .errors import format_retry_after as format_retry_after
    from .provider import CancellationMode as CancellationMode
    from .provider import EventSink as EventSink
    from .provider import ModelEvent as ModelEvent
    from .provider import ModelProvider as ModelProvider
    from .provider import ModelRequest as ModelRequest
    from .provider import ReasoningLevel as ReasoningLevel
    from .provider import ServiceTier as ServiceTier
    from .provider.handoff import HandoffReport as HandoffReport
    from .provider.handoff import PreparedAssistant as PreparedAssistant
    from .provider.handoff import prepare_assistant as prepare_assistant
    from .provider.handoff import report_message_omissions as report_message_omissions
    from .provider.handoff import report_omissions as report_omissions
    from .provider.handoff import strip_provider_context as strip_provider_context
    from .session import INTERRUPTED_RESULT as INTERRUPTED_RESULT
    from .session import Rho as Rho
    from .session import RhoBuilder as RhoBuilder
    from .session import Run as Run
    from .session import RunEvent as RunEvent
    from .session import RunOutcome as RunOutcome
    from .session import RuntimeConfig as RuntimeConfig
    from .session import Session as Session
    from .session import SessionOptions as SessionOptions
    from .session import SessionState as SessionState
    from .session import SteeringId as SteeringId
    from .session import SteeringRetraction as SteeringRetraction
    from .session import StopReason as StopReason
    from .session import UserInput as UserInput
    from .session import events as events
    from .session import protocol_issue as protocol_issue
    from .stores.base import SessionStore as SessionStore
    from .stores.memory import InMemorySessionStore as InMemorySessionStore
    from .tools import EXCLUSIVE_ACCESS as EXCLUSIVE_ACCESS
    from .tools import PreparedCall as PreparedCall
    from .tools import Tool as Tool
    from .tools import ToolAccess as ToolAccess
    from .tools import ToolContext as ToolContext
    from .tools import ToolError as ToolError
    from .tools import ToolErrorKind as ToolErrorKind
    from .tools import ToolInvocation as ToolInvocation
    from .tools import ToolOutput as ToolOutput
    from .tools import ToolProgress as ToolProgress
    from .wire import MIN_SNAPSHOT_SCHEMA as MIN_SNAPSHOT_SCHEMA
    from .wire import PORTABLE_FALLBACK_KIND as PORTABLE_FALLBACK_KIND
    from .wire import SNAPSHOT_SCHEMA as SNAPSHOT_SCHEMA
    from .wire import U64_MAX as U64_MAX
    from .wire import AbortedAssistant as AbortedAssistant
    from .wire import AssistantMessage as AssistantMessage
    from .wire import CompactionState as CompactionState
    from .wire import ContentBlock as ContentBlock
    from .wire import ImageContent as ImageContent
    from .wire import Message as Message
    from .wire import MessageKind as MessageKind
    from .wire import ModelIdentity as ModelIdentity
    from .wire import ModelUsage as ModelUsage
    from .wire import PartialToolCall as PartialToolCall
    from .wire import ProviderContextBlock as ProviderContextBlock
    from .wire import SessionSnapshot as SessionSnapshot
    from .wire import ToolCall as ToolCall
    from .wire import ToolResult as ToolResult
    from .wire import ToolSpec as ToolSpec
    from .wire import TruncatedJson as TruncatedJson
    from .wire import decode as decode
    from .wire import decode_history as decode_history
    from .wire import decode_message as decode_message
    from .wire import decode_snapshot as decode_snapshot
    from .wire import encode as encode
    from .wire import encode_pretty as encode_pretty
    from .wire import gc_paused as gc_paused
    from .wire import sanitize_history as sanitize_history
    from .wire import to_builtins as to_builtins
    from .wire.ids import INITIAL_REVISION as INITIAL_REVISION
    from .wire.ids import InvalidId as InvalidId
    from .wire.ids import Revision as Revision
    from .wire.ids import RunId as RunId
    from .wire.ids import SessionId as SessionId
    from .wire.ids import check_id as check_id
    from .wire.ids import new_id as new_id

if not TYPE_CHECKING:
    __getattr__, __dir__ = attach(__name__, __file__)
