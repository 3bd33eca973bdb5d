"""A model's prices as the ledger records them: fitted to the costs its providers reported.

The ledger stores what each request cost (``cost_usd_micros``), not the price list behind it.
Providers bill linearly: cost = p_in·input + p_out·output + p_read·cache_read + p_write·cache_write.
:func:`fit_price` solves that for the four prices by least squares over every request of the
model that reports a cost (the normal equations, from sums the roll-up keeps per model), so
the prices are the ones the ledger's own costs imply, price changes blended over time. Token
kinds a model never reported drop out; if what is left cannot be told apart (say, cache reads
always proportional to input), the fit drops the later kinds until it can. A negative or
undetermined input price is ``None``: unknown, never zero.

Micro-dollars per token are numerically dollars per million tokens.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["KINDS", "ModelPrice", "fit_price"]

KINDS = ("input", "output", "cache_read", "cache_write")


@dataclass(frozen=True, slots=True)
class ModelPrice:
    """Fitted prices of one (provider, model), in micro-dollars per token (= $ per million)."""

    provider: str
    model: str
    requests: int
    """Requests with a reported cost that the fit used."""
    input: float | None
    output: float | None = None
    cache_read: float | None = None
    cache_write: float | None = None


def fit_price(provider: str, model: str, n: int, moments: Sequence[float | None]) -> ModelPrice:
    """Fit from the sums ``(ii, io, ir, iw, oo, or, ow, rr, rw, ww, ic, oc, rc, wc)``
    (products of the token kinds i, o, r, w and the cost c, over ``n`` costed requests)."""
    m = [float(v or 0.0) for v in moments]
    ii, io, ir, iw, oo, orr, ow, rr, rw, ww, ic, oc, rc, wc = m
    gram = [[ii, io, ir, iw], [io, oo, orr, ow], [ir, orr, rr, rw], [iw, ow, rw, ww]]
    rhs = [ic, oc, rc, wc]
    kinds = [k for k in range(4) if gram[k][k] > 0]
    while kinds:
        solution = _solve([[gram[a][b] for b in kinds] for a in kinds], [rhs[a] for a in kinds])
        if solution is not None:
            prices: list[float | None] = [None] * 4
            for kind, value in zip(kinds, solution, strict=True):
                prices[kind] = value
            p_in = prices[0]
            return ModelPrice(
                provider,
                model,
                n,
                p_in if p_in is not None and p_in >= 0 else None,
                prices[1],
                prices[2],
                prices[3],
            )
        kinds.pop()
    return ModelPrice(provider, model, n, None)


def _solve(a: list[list[float]], b: list[float]) -> list[float] | None:
    """Gaussian elimination on a Gram matrix; ``None`` when (nearly) singular."""
    n = len(b)
    rows = [[*row, b[i]] for i, row in enumerate(a)]
    diagonal = [abs(a[i][i]) for i in range(n)]
    for col in range(n):
        # a Gram matrix is symmetric positive semi-definite: no pivoting needed, and what is
        # left on the diagonal is this kind once the earlier ones are accounted for; (nearly)
        # nothing means it cannot be told apart from them
        if rows[col][col] <= diagonal[col] * 1e-9:
            return None
        for r in range(col + 1, n):
            f = rows[r][col] / rows[col][col]
            for c in range(col, n + 1):
                rows[r][c] -= f * rows[col][c]
    x = [0.0] * n
    for r in range(n - 1, -1, -1):
        x[r] = (rows[r][n] - sum(rows[r][c] * x[c] for c in range(r + 1, n))) / rows[r][r]
    return x
