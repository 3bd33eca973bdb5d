"""Another agent's own token records as the Statistics tab shows Rho's usage ledger.

Claude Code, Codex, Gemini CLI, opencode and Pi record each model request's tokens (some their
cost) in the session log itself; the readers keep them as :class:`~.base.Request` objects on the
steps. :func:`agent_usage` turns them into the rows of a
:class:`~rho_desk.core.usage.overview.SessionUsage`, the same :class:`LedgerRequest` rows Rho's
ledger gives, with the subagents' requests (read from their own logs) marked ``subagent``.
Nothing here writes Rho's ledger: these requests were not Rho's.
"""

from __future__ import annotations

from ..errors import KnownError
from ..usage.ledger import LedgerRequest
from ..usage.overview import SessionUsage
from ..usage.report import UsageGroup
from .base import AGENT_LABELS, AgentLog

__all__ = ["agent_usage", "ledger_rows"]

_SUMS = (
    "input_tokens",
    "output_tokens",
    "cache_read_tokens",
    "cache_write_tokens",
    "tokens",
    "cost_usd_micros",
)


def ledger_rows(log: AgentLog, *, purpose: str | None = None) -> list[LedgerRequest]:
    """``log``'s recorded requests as usage-ledger rows (``purpose``: instead of each one's own)."""
    rows = []
    for number, request in enumerate(log.requests):
        u = request.usage
        rows.append(
            LedgerRequest(
                event_id=f"{log.agent}:{log.session_id}:{number}",
                occurred_at_ms=request.time_ms,
                session_id=log.session_id,
                parent_session_id=log.parent_session,
                run_id=None,
                step_index=number,
                attempt_index=None,
                workspace_path=log.cwd or None,
                provider=request.provider,
                model=request.model,
                purpose=purpose or request.purpose,
                outcome=request.outcome,
                input_tokens=u.input_tokens,
                output_tokens=u.output_tokens,
                cache_read_tokens=u.cache_read_tokens,
                cache_write_tokens=u.cache_write_tokens,
                total_tokens=u.total_tokens,
                cost_usd_micros=u.cost_usd_micros,
                rho_version=None,
            )
        )
    return rows


def agent_usage(log: AgentLog, *, subagents: bool = True) -> SessionUsage:
    """The requests ``log`` records, and (``subagents``) those its subagents' logs record, oldest
    first, with their sums (blocking: reads the subagents' logs). A subagent's log that cannot
    be read is left out and named in ``note``."""
    from .formats import read_log

    rows = ledger_rows(log)
    unread: list[str] = []
    if subagents:
        for ref in log.subagents:
            try:
                child = read_log(ref.path, agent=log.agent)
            except KnownError:
                unread.append(ref.session_id)
                continue
            rows += ledger_rows(child, purpose="subagent")
    rows.sort(key=lambda r: r.occurred_at_ms)
    label = AGENT_LABELS.get(log.agent, log.agent)
    note = f"recorded by {label} in its own log"
    if unread:
        note += f"; {len(unread)} subagent log(s) could not be read ({', '.join(unread[:3])})"
    total = None
    if rows:
        sums = [
            len(rows),
            *(sum(getattr(r, f) or 0 for r in rows) for f in _SUMS),
            sum(r.cost_usd_micros is None for r in rows),
        ]
        total = UsageGroup.of(log.session_id, sums)
    return SessionUsage(None, rows, total, None, note, recorded_by=log.agent)
