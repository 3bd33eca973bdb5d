"""The session engine: runtime, sessions, runs, events, steering and the history commit contract.

Public surface (documented in each module):

* ``Rho`` / ``RhoBuilder`` (``runtime``): configure a runtime, open sessions, shut down.
* ``Session`` / ``SessionOptions`` / ``SessionState`` (``session``, ``state``).
* ``Run`` (``run``): events, outcome, cancellation, steering.
* ``events``: the run events (import the module as a namespace), ``RunOutcome``, ``StopReason``.
* ``UserInput``, ``SteeringId``, ``SteeringRetraction``.
"""

from . import events
from .config import RuntimeConfig
from .events import RunEvent, RunOutcome, StopReason
from .run import Run, protocol_issue
from .runtime import Rho, RhoBuilder
from .session import Session, SessionOptions
from .state import SessionState
from .steering import SteeringId, SteeringRetraction
from .tool_batch import INTERRUPTED_RESULT
from .user_input import UserInput

__all__ = [
    "INTERRUPTED_RESULT",
    "Rho",
    "RhoBuilder",
    "Run",
    "RunEvent",
    "RunOutcome",
    "RuntimeConfig",
    "Session",
    "SessionOptions",
    "SessionState",
    "SteeringId",
    "SteeringRetraction",
    "StopReason",
    "UserInput",
    "events",
    "protocol_issue",
]
