"""One logging configuration for rho-desk: per-area loggers, one format, one place to set levels.

Every module logs through ``logging.getLogger(__name__)``, so its logger sits under one of the
areas below; ``configure`` is called once, by the command line's ``main`` (which also starts
the app), and nowhere else. Library code never configures logging.

=============  ==========================================================================
area           what logs there
=============  ==========================================================================
``core``       the engine, the session files and indexes, export and tools
``providers``  model providers and their HTTP transport (``httpx`` and ``httpcore`` follow
               this area's level: their lines carry URLs and headers, filtered in
               ``rho_desk.providers.transport``)
``team``       the team library and PostgresSessionStore (``psycopg`` follows this area, from
               ``error`` unless the area asks for more: its pool warns at every reconnect)
``keys``       rho-desk's own key stores
``qt``         the desktop app
``cli``        the command line
=============  ==========================================================================

The level comes from ``--log-level`` (any command), else the ``RHO_DESK_LOG`` environment
variable, else ``warning``. A level spec is a default level and per-area overrides, separated
by commas: ``info``, ``warning,providers=debug``, ``core=debug``.

Records are written to standard error, one line each. The handler scrubs every line through
the providers' ``Scrubber`` (URL queries, bearer tokens, credential-looking tokens) as a last
line of defence: the messages themselves are already built from sanitized parts.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Final, TextIO

from .core.errors import InputError

if TYPE_CHECKING:
    from .core.secrets.scrub import Scrubber

__all__ = ["AREAS", "ENV_VAR", "LogSpecError", "configure", "parse_spec"]

ENV_VAR: Final = "RHO_DESK_LOG"
AREAS: Final = ("core", "providers", "team", "keys", "qt", "cli")
_ROOT: Final = "rho_desk"
# Third-party loggers that belong to an area.
_FOLLOWERS: Final[Mapping[str, tuple[str, ...]]] = {
    "providers": ("httpx", "httpcore"),
    "team": ("psycopg",),
}
_QUIET: Final[Mapping[str, int]] = {"psycopg": logging.ERROR}
"""Followers heard only from this level unless their area asks for more: psycopg's pool warns at
every failed reconnect, which the Team panel's banner already says (``team=info`` shows them)."""
_LEVELS: Final = {
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "warning": logging.WARNING,
    "error": logging.ERROR,
    "critical": logging.CRITICAL,
}
_FORMAT: Final = "%(asctime)s %(levelname)-7s %(name)s: %(message)s"


class LogSpecError(InputError, ValueError):
    """A ``--log-level`` or ``RHO_DESK_LOG`` value that is not a level spec."""


def parse_spec(spec: str) -> tuple[int, dict[str, int]]:
    """``"warning,providers=debug"`` -> ``(WARNING, {"providers": DEBUG})``.

    Raises:
        LogSpecError: an unknown level or area, naming it and what is accepted.
    """
    default = logging.WARNING
    areas: dict[str, int] = {}
    for part in (p.strip() for p in spec.split(",")):
        if not part:
            continue
        area, _, level_name = part.rpartition("=")
        level = _LEVELS.get(level_name.strip().lower())
        if level is None:
            raise LogSpecError(
                f"unknown log level {level_name.strip()!r} (use one of {', '.join(_LEVELS)})"
            )
        if not area:
            default = level
        elif area.strip() in AREAS:
            areas[area.strip()] = level
        else:
            raise LogSpecError(f"unknown log area {area.strip()!r} (use one of {', '.join(AREAS)})")
    return default, areas


class _ScrubbingFormatter(logging.Formatter):
    """Formats a record, then passes the whole line through the providers' ``Scrubber``.

    The scrubber is imported on the first record, so configuring logging costs nothing at start.
    """

    def __init__(self) -> None:
        super().__init__(_FORMAT)
        self._scrub: Scrubber | None = None

    def format(self, record: logging.LogRecord) -> str:
        if self._scrub is None:
            from .core.secrets.scrub import Scrubber

            self._scrub = Scrubber()
        return self._scrub(super().format(record))


_HANDLER_NAME: Final = "rho-desk"


def configure(spec: str | None = None, *, stream: TextIO | None = None) -> None:
    """Set up rho-desk's logging: levels per area, one scrubbing handler on standard error.

    ``spec`` wins over the ``RHO_DESK_LOG`` environment variable. Calling it again replaces the
    previous configuration (the handler is never installed twice).

    Raises:
        LogSpecError: ``spec`` or the environment variable is not a level spec.
    """
    if spec is None:
        spec = os.environ.get(ENV_VAR, "")
    default, areas = parse_spec(spec)
    root = logging.getLogger(_ROOT)
    for handler in [h for h in root.handlers if h.get_name() == _HANDLER_NAME]:
        root.removeHandler(handler)
    handler = logging.StreamHandler(stream if stream is not None else sys.stderr)
    handler.set_name(_HANDLER_NAME)
    handler.setFormatter(_ScrubbingFormatter())
    root.addHandler(handler)
    root.setLevel(default)
    for area in AREAS:
        level = areas.get(area, logging.NOTSET)
        logging.getLogger(f"{_ROOT}.{area}").setLevel(level)
        for name in _FOLLOWERS.get(area, ()):
            follower = logging.getLogger(name)
            for old in [h for h in follower.handlers if h.get_name() == _HANDLER_NAME]:
                follower.removeHandler(old)
            follower.addHandler(handler)
            chosen = default if level == logging.NOTSET else level
            follower.setLevel(
                max(chosen, _QUIET.get(name, logging.NOTSET)) if level == logging.NOTSET else chosen
            )
