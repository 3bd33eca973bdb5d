"""Compaction: the Compactor protocol, the automatic policy, outcomes and the token estimate.

The names below load their module on first use (PEP 562, :mod:`rho_desk.core.lazy`): the session reader needs the token
estimate (``tokens``) and none of the compaction machinery behind ``api`` (providers'
cancellation modes, asyncio).
"""

from typing import TYPE_CHECKING

from ..lazy import attach

if TYPE_CHECKING:
    from .api import CompactionOutcome as CompactionOutcome
    from .api import CompactionOutput as CompactionOutput
    from .api import CompactionPolicy as CompactionPolicy
    from .api import CompactionRequest as CompactionRequest
    from .api import CompactionTrigger as CompactionTrigger
    from .api import Compactor as Compactor
    from .tokens import estimate_context_tokens as estimate_context_tokens
    from .tokens import estimate_messages_tokens as estimate_messages_tokens
    from .tokens import estimate_text_tokens as estimate_text_tokens
    from .tokens import json_tokens as json_tokens
    from .tokens import message_tokens as message_tokens

if not TYPE_CHECKING:
    __getattr__, __dir__ = attach(__name__, __file__)
