"""The options of the action dialogs, declared in the app's one settings registry.

Compaction defaults (which compactor, the recent budget, the automatic policy), the profile a
continued conversation runs on, and the last export choices. They are added to
:data:`rho_desk.qt.settings.REGISTRY` with :func:`~rho_desk.qt.settings.declare` at import
time, so the typed ``Settings`` object reads and checks them like every other option; none of
them names or holds a credential (API keys live in the keyring).

:func:`policy_from_settings` and :func:`budget_from_settings` turn the stored values into the
engine's ``CompactionPolicy`` and the compactors' ``RecentBudget``.
"""

from __future__ import annotations

from typing import Final

from ...core.compaction.api import CompactionPolicy
from ...core.compaction.auto import LOCAL_COMPACTOR, POLICY_CHOICES, AutoCompaction
from ...core.compaction.local import RecentBudget
from ..settings import Settings, declare

__all__ = [
    "LOCAL_COMPACTOR",
    "POLICY_CHOICES",
    "PREFS_COMPACTION_COMPACTOR",
    "PREFS_COMPACTION_KEEP_MESSAGES",
    "PREFS_COMPACTION_KEEP_TOKENS",
    "PREFS_COMPACTION_POLICY",
    "PREFS_COMPACTION_THRESHOLD",
    "PREFS_CONTINUE_PROFILE",
    "PREFS_EXPORT_FORMAT",
    "PREFS_EXPORT_INCLUDED",
    "auto_compaction_from_settings",
    "budget_from_settings",
    "policy_from_settings",
]


PREFS_COMPACTION_COMPACTOR: Final = declare(
    "prefs/compaction/compactor", str, LOCAL_COMPACTOR,
    "Compactor for manual and automatic compaction: empty for the local (offline) compactor, "
    "else the name of the provider profile that writes the summary.",
)  # fmt: skip
PREFS_COMPACTION_POLICY: Final = declare(
    "prefs/compaction/policy", str, "off",
    "Automatic compaction while continuing a conversation: off, after a number of messages, or "
    "at a context-token estimate.",
    choices=POLICY_CHOICES,
)  # fmt: skip
PREFS_COMPACTION_THRESHOLD: Final = declare(
    "prefs/compaction/threshold", int, 200,
    "Threshold of the automatic policy (messages, or estimated context tokens).",
    minimum=1,
)  # fmt: skip
PREFS_COMPACTION_KEEP_TOKENS: Final = declare(
    "prefs/compaction/recent_budget", int, 8000,
    "Largest token estimate of the recent messages a compaction keeps verbatim (0: no limit).",
    minimum=0,
)  # fmt: skip
PREFS_COMPACTION_KEEP_MESSAGES: Final = declare(
    "prefs/compaction/recent_messages", int, 24,
    "Most recent messages a compaction keeps verbatim (0: no limit).",
    minimum=0,
)  # fmt: skip
PREFS_CONTINUE_PROFILE: Final = declare(
    "prefs/continue/profile", str, "",
    "Provider profile a continued conversation runs on (empty: the default profile).",
)  # fmt: skip
PREFS_EXPORT_INCLUDED: Final = declare(
    "prefs/export/included", list,
    ["instructions", "user", "assistant", "tool_records", "images", "documents", "reasoning_summaries"],
    "Content classes the export dialog starts with (the last ones used).",
)  # fmt: skip
PREFS_EXPORT_FORMAT: Final = declare(
    "prefs/export/format", str, "json", "Export format the dialog starts with.",
    choices=("json", "markdown", "html"),
)  # fmt: skip


def budget_from_settings(settings: Settings) -> RecentBudget:
    """The recent budget the settings describe (both limits 0 falls back to the defaults)."""
    return AutoCompaction.budget_of(settings.get(PREFS_COMPACTION_KEEP_TOKENS), settings.get(PREFS_COMPACTION_KEEP_MESSAGES))


def policy_from_settings(settings: Settings) -> CompactionPolicy | None:
    """The automatic compaction policy the settings describe (``None`` when off)."""
    return AutoCompaction.policy_of(settings.get(PREFS_COMPACTION_POLICY), settings.get(PREFS_COMPACTION_THRESHOLD))


def auto_compaction_from_settings(settings: Settings) -> AutoCompaction:
    """The automatic compaction of a continued conversation, as the settings describe it."""
    return AutoCompaction(policy_from_settings(settings), settings.get(PREFS_COMPACTION_COMPACTOR),
                          budget_from_settings(settings))  # fmt: skip
