"""The automatic compaction a continued conversation runs under: when, by which compactor, how
much recent history is kept. One value for the window (its Settings) and ``rho-desk continue``
(``--auto-compact``, ``--compactor``), so both compact a conversation the same way."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

import msgspec

from ..errors import InputError
from .api import CompactionPolicy

if TYPE_CHECKING:
    from .local import RecentBudget

__all__ = ["LOCAL_COMPACTOR", "POLICY_CHOICES", "AutoCompaction"]

POLICY_CHOICES: Final = ("off", "messages", "tokens")
LOCAL_COMPACTOR: Final = ""
"""The compactor choice meaning rho-desk's offline local compactor."""


class AutoCompaction(msgspec.Struct, frozen=True):
    """When a continued conversation compacts itself, and with what.

    Attributes:
        policy: the trigger (``None``: never automatically).
        compactor: ``""`` for the local compactor, else the provider profile that writes the summary.
        budget: the recent history kept verbatim (``None``: the compactors' default).
    """

    policy: CompactionPolicy | None = None
    compactor: str = LOCAL_COMPACTOR
    budget: RecentBudget | None = None

    @staticmethod
    def policy_of(kind: str, threshold: int) -> CompactionPolicy | None:
        """The policy ``kind`` (``off``, ``messages``, ``tokens``) at ``threshold`` names."""
        if kind == "messages":
            return CompactionPolicy.after_messages(threshold)
        if kind == "tokens":
            return CompactionPolicy.at_context_tokens(threshold)
        if kind == "off":
            return None
        raise InputError(f"unknown automatic compaction '{kind}' (choose off, messages or tokens)")

    @staticmethod
    def budget_of(keep_tokens: int, keep_messages: int) -> RecentBudget:
        """The recent budget for these limits (0: no limit; both 0 falls back to the defaults)."""
        from .local import RecentBudget

        if not keep_tokens and not keep_messages:
            return RecentBudget()
        return RecentBudget(max_tokens=keep_tokens or None, max_messages=keep_messages or None)

    @classmethod
    def parse(
        cls, spec: str, compactor: str = LOCAL_COMPACTOR, budget: RecentBudget | None = None
    ) -> AutoCompaction:
        """``off``, ``messages:N`` or ``tokens:N`` (the command line's ``--auto-compact``).

        Raises:
            InputError: anything else, or N not a positive whole number.
        """
        kind, _, count = spec.strip().partition(":")
        if kind == "off" and not count:
            return cls(None, compactor, budget)
        if kind not in POLICY_CHOICES[1:] or not count.isdigit() or int(count) < 1:
            raise InputError(
                f"--auto-compact {spec!r}: use off, messages:N or tokens:N (N a positive number)"
            )
        return cls(cls.policy_of(kind, int(count)), compactor, budget)

    def describe(self) -> str:
        if self.policy is None:
            return "off"
        if self.policy.trigger_messages is not None:
            return f"after {self.policy.trigger_messages:,} messages"
        return f"at {self.policy.trigger_tokens:,} estimated context tokens"
