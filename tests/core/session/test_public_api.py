"""``rho_desk.core``'s public surface: a sorted, complete ``__all__`` whose names all resolve."""

from __future__ import annotations

import importlib

import rho_desk.core as core

# Modules whose public names ``rho_desk.core`` re-exports.
MODULES = [
    "cancellation",
    "compaction",
    "errors",
    "provider.handoff",
    "wire.ids",
    "provider",
    "session",
    "stores.base",
    "stores.memory",
    "tools",
    "wire",
]
# Provider stream events stay in rho_desk.core.provider: several share names with run events.
NAMESPACED = {
    "OutputDelta",
    "OutputLimited",
    "ProviderContext",
    "ReasoningDelta",
    "ReasoningSummaryDelta",
    "RequestAttemptFailed",
    "ServedModel",
    "ToolCallDelta",
    "Usage",
    "WebSearch",
}


def _isort_style(name: str) -> tuple[int, str]:
    # ruff's RUF022 order (the project's lint): CONSTANTS, then Classes, then functions/modules.
    return (0 if name.isupper() else 1 if name[:1].isupper() else 2, name)


def test_all_is_sorted_and_unique() -> None:
    assert core.__all__ == sorted(core.__all__, key=_isort_style)
    assert len(set(core.__all__)) == len(core.__all__)


def test_all_is_complete() -> None:
    expected = {"events"}
    for name in MODULES:
        expected |= set(importlib.import_module(f"rho_desk.core.{name}").__all__)
    assert set(core.__all__) == expected - NAMESPACED


def test_every_name_resolves_to_its_definition() -> None:
    for name in core.__all__:
        value = getattr(core, name)
        assert value is not None, name
    assert core.Cancelled.__module__ == "rho_desk.core.errors"  # the error, not the run event
    assert core.events.Cancelled.__module__ == "rho_desk.core.session.events"


def test_unknown_names_raise_attribute_error() -> None:
    import pytest

    with pytest.raises(AttributeError):
        core.NotAThing  # noqa: B018
    assert "Rho" in dir(core)


def test_run_events_have_distinct_names_and_a_common_base() -> None:
    from rho_desk.core.session import events

    classes = [getattr(events, n) for n in events.__all__]
    run_events = [
        c
        for c in classes
        if isinstance(c, type) and issubclass(c, events.RunEvent) and c is not events.RunEvent
    ]
    assert len(run_events) == 29  # spec/engine.md §11
