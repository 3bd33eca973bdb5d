"""rho-desk's own folders on this machine: settings (config), data and cache.

Each has an environment override (tests, portable use) and otherwise the platform's folder for
"rho-desk" (``platformdirs``). Every module that needs one of them asks here, so the rules are
written once: the provider profiles, the key files, the trusted workspaces, the search cache, the
trash.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Final

__all__ = [
    "CACHE_DIR_ENV",
    "CONFIG_DIR_ENV",
    "TRASH_DIR_ENV",
    "cache_dir",
    "config_dir",
    "data_dir",
    "trash_dir",
]

APP: Final = "rho-desk"
CONFIG_DIR_ENV: Final = "RHO_DESK_CONFIG_DIR"
CACHE_DIR_ENV: Final = "RHO_DESK_CACHE_DIR"
TRASH_DIR_ENV: Final = "RHO_DESK_TRASH_DIR"


def config_dir() -> Path:
    """rho-desk's settings directory (``RHO_DESK_CONFIG_DIR`` overrides the platform's)."""
    override = os.environ.get(CONFIG_DIR_ENV)
    if override:
        return Path(override)
    import platformdirs

    return Path(platformdirs.user_config_dir(APP, appauthor=False))


def data_dir() -> Path:
    """The platform's user data folder for rho-desk."""
    import platformdirs

    return Path(platformdirs.user_data_dir(APP))


def cache_dir() -> Path:
    """``$RHO_DESK_CACHE_DIR`` if set, else the platform's user cache folder for rho-desk."""
    explicit = os.environ.get(CACHE_DIR_ENV, "")
    if explicit:
        return Path(explicit)
    import platformdirs

    return Path(platformdirs.user_cache_dir(APP))


def trash_dir() -> Path:
    """``$RHO_DESK_TRASH_DIR`` if set, else ``<user data dir>/trash``."""
    explicit = os.environ.get(TRASH_DIR_ENV, "")
    if explicit:
        return Path(explicit)
    return data_dir() / "trash"
