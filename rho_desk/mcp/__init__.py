"""``rho-desk mcp``: the session library as read-only memory for any agent, over the Model Context
Protocol, every answer redacted by the export pipeline and accounted in a log.

Layers: this package uses :mod:`rho_desk.core` and :mod:`rho_desk.keys`; it never imports Qt,
the providers or the team library, and core never imports it (import-linter contracts in
``pyproject.toml``). The command line (``rho_desk.cli.mcp``) is a thin presenter over it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.lazy import attach

# the tools load the library and the export pipeline: only when asked for (``_stdio`` answers the
# handshake before they are imported)
if TYPE_CHECKING:
    from ._memory import Memory as Memory
    from ._memory import ToolError as ToolError
    from ._scope import Scope as Scope

if not TYPE_CHECKING:
    __getattr__, __dir__ = attach(__name__, __file__)


def open_memory(
    scope: Scope,
    *,
    fingerprint_key: bytes,
    known_secrets: tuple[str, ...],
    key_id: str,
    log: bool = True,
    cache_dir: object = None,
) -> Memory:
    """A :class:`Memory` over ``scope`` whose gate redacts ``known_secrets`` and fingerprints
    with ``fingerprint_key``; the memory index is rebuilt whenever the rule set, the key or the
    known secrets change. ``log``: record served answers in the served log."""
    import hashlib
    from pathlib import Path

    from ..core.export import RULESET_VERSION
    from ._gate import Gate
    from ._log import ServedLog, default_log_path
    from ._memory import Memory

    digest = hashlib.sha256()
    for part in (str(RULESET_VERSION), key_id, *sorted(known_secrets)):
        digest.update(part.encode("utf-8", "surrogatepass") + b"\0")
    return Memory(
        scope,
        Gate(fingerprint_key, known_secrets),
        gate_id=digest.hexdigest(),
        log=ServedLog(default_log_path()) if log else None,
        cache_dir=Path(cache_dir) if isinstance(cache_dir, str | Path) else None,
    )
