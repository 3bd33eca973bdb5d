"""Workspace trust: the folders the model's tools may run in on this machine.

A session file records the folder it ran in (its header ``cwd``), and a session file may come
from anywhere. That folder is a claim, not a grant: the coding tools run only in a folder the
user has trusted for tools on this machine (as VS Code's workspace trust and ssh's known_hosts
remember an answer once given). The answers live in one small file in rho-desk's config folder
(``trusted-workspaces.json``, written atomically, mode 0600); the window's Settings lists and
revokes them, ``rho-desk continue --trust-workspace`` adds one.

Some folders are never trusted, even when asked (:func:`refusal` says why): ``/``, the user's
home itself, the system folders (``/etc``, ``/usr``, ``/bin``, ``/var``...), rho-desk's own
config, data and cache folders, Rho's home (``$RHO_HOME`` or ``~/.rho``) and the credential
folders of the home (``~/.ssh``, ``~/.gnupg``); and any folder that contains one of these. The
folders that hold secrets or the system's configuration (``/etc``, ``/proc``, ``/sys``, ``/dev``,
``/boot``, ``/root``, rho-desk's and Rho's folders, ``~/.ssh``, ``~/.gnupg``) are refused with
everything inside them too. Paths are compared as real paths (symlinks resolved), so a link to
``/`` is ``/``.

A trusted folder covers its subfolders (trusting ``~/src`` trusts ``~/src/app``), unless the
subfolder is refused by the rules above.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Final

import msgspec

from ..errors import InputError, StorageError

__all__ = [
    "TRUST_FILE",
    "TrustStore",
    "TrustedFolder",
    "WorkspaceRefused",
    "WorkspaceUntrusted",
    "protected_folders",
    "refusal",
]

TRUST_FILE: Final = "trusted-workspaces.json"
FORMAT_VERSION: Final = 1

# Refused themselves, and any folder containing them (reading around in them is harmless).
_SYSTEM_FOLDERS: Final = (
    "/usr",
    "/bin",
    "/sbin",
    "/lib",
    "/lib32",
    "/lib64",
    "/libx32",
    "/var",
    "/opt",
    "/tmp",
    "/srv",
    "/mnt",
    "/media",
    "/home",
    "/run",
    "/snap",
    "/Applications",
    "/System",
    "/Library",
    "/Users",
    "/private",
    "/Volumes",
)
# Refused themselves, any folder containing them, and every folder inside them.
_SECRET_FOLDERS: Final = ("/etc", "/proc", "/sys", "/dev", "/boot", "/root")
_HOME_SECRETS: Final = (".ssh", ".gnupg")


class WorkspaceUntrusted(InputError):
    """Tools would run in a folder the user has not trusted for tools on this machine.

    Attributes:
        folder: the folder's real path.
        session: the session file that asked for it, when known.
    """

    def __init__(self, folder: Path, *, session: str | None = None) -> None:
        self.folder = folder
        self.session = session
        super().__init__(
            f"the folder {folder} is not trusted for tools on this machine", source=session
        )


class WorkspaceRefused(InputError):
    """Tools can never run in this folder (``/``, the home folder, a system folder...).

    Attributes:
        folder: the folder's real path.
        why: the rule that refuses it, in a few words.
    """

    def __init__(self, folder: Path, why: str, *, session: str | None = None) -> None:
        self.folder = folder
        self.why = why
        self.session = session
        super().__init__(f"tools never run in {folder}: {why}", source=session)


def _real(path: str | os.PathLike[str]) -> Path:
    return Path(os.path.realpath(os.path.abspath(os.path.expanduser(os.fspath(path)))))


def _home(env: Mapping[str, str]) -> Path | None:
    home = env.get("HOME") or os.path.expanduser("~")
    return _real(home) if home and home != "~" else None


def protected_folders(env: Mapping[str, str] | None = None) -> list[tuple[Path, str, bool]]:
    """Every folder tools never run in: ``(real path, why, refused inside too)``."""
    from ..system.dirs import cache_dir, config_dir, data_dir, trash_dir

    env = os.environ if env is None else env
    folders: list[tuple[Path, str, bool]] = [(Path("/"), "the root of the file system", False)]
    home = _home(env)
    for name in _SYSTEM_FOLDERS:
        folders.append((_real(name), "a system folder", False))
    for name in _SECRET_FOLDERS:
        if home is None or _real(name) != home:  # /root is the home of root: refused as the home
            folders.append((_real(name), "a system folder", True))
    if home is not None:
        folders.append((home, "your home folder itself (choose a project folder inside it)", False))
        for name in _HOME_SECRETS:
            folders.append((home / name, "a folder of credentials", True))
    for folder, label in (
        (config_dir(), "rho-desk's settings and keys folder"),
        (data_dir(), "rho-desk's data folder"),
        (cache_dir(), "rho-desk's cache folder"),
        (trash_dir(), "rho-desk's trash"),
    ):
        folders.append((_real(folder), label, True))
    rho = env.get("RHO_HOME") or (str(Path(env["HOME"]) / ".rho") if env.get("HOME") else "")
    if rho:
        folders.append((_real(rho), "Rho's data folder (its sessions)", True))
    return folders


def refusal(folder: str | os.PathLike[str], env: Mapping[str, str] | None = None) -> str | None:
    """Why tools may never run in ``folder`` (its real path), or ``None`` when it may be trusted."""
    real = _real(folder)
    for protected, why, inside in protected_folders(env):
        if real == protected:
            return f"it is {why}"
        if protected.is_relative_to(real):
            return f"it contains {protected} ({why})"
        if inside and real.is_relative_to(protected):
            return f"it is inside {protected} ({why})"
    return None


class TrustedFolder(msgspec.Struct, frozen=True):
    """One remembered answer."""

    path: Path
    trusted_at: float
    """When it was trusted (seconds since the epoch)."""


class TrustStore:
    """The trusted folders of this user on this machine (``trusted-workspaces.json``).

    Args:
        directory: where the file lives (default: rho-desk's config folder, read at each call).
    """

    def __init__(self, directory: Path | None = None) -> None:
        self._directory = directory

    @property
    def path(self) -> Path:
        from ..system.dirs import config_dir

        return (self._directory or config_dir()) / TRUST_FILE

    def __repr__(self) -> str:
        return f"TrustStore({str(self.path)!r})"

    def folders(self) -> tuple[TrustedFolder, ...]:
        """The trusted folders, in the order they were trusted.

        Raises:
            InputError: the file is not a trust list (naming the file and the reason).
            StorageError: it cannot be read.
        """
        path = self.path
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            return ()
        except OSError as exc:
            raise StorageError(f"{path}: cannot read: {exc.strerror or exc}") from None
        try:
            document = json.loads(data)
            if not isinstance(document, dict) or not isinstance(document.get("folders"), list):
                raise ValueError("expected an object with a 'folders' list")
            if not isinstance(document.get("version"), int) or document["version"] > FORMAT_VERSION:
                raise ValueError(f"unsupported version {document.get('version')!r}")
            found = []
            for entry in document["folders"]:
                if (
                    not isinstance(entry, dict)
                    or not isinstance(entry.get("path"), str)
                    or not entry["path"].startswith("/")
                ):
                    raise ValueError("each folder needs an absolute 'path'")
                when = entry.get("trusted_at", 0)
                found.append(
                    TrustedFolder(
                        Path(entry["path"]), float(when) if isinstance(when, int | float) else 0.0
                    )
                )
        except (ValueError, RecursionError) as exc:
            raise InputError(f"not a list of trusted folders: {exc}", source=str(path)) from None
        return tuple(found)

    def _save(self, folders: Iterable[TrustedFolder]) -> None:
        from ..system.fsio import atomic_write

        document = {
            "version": FORMAT_VERSION,
            "folders": [
                {"path": str(f.path), "trusted_at": round(f.trusted_at, 3)} for f in folders
            ],
        }
        atomic_write(self.path, (json.dumps(document, indent=2) + "\n").encode("utf-8"), mode=0o600)

    def trusted_root(self, folder: str | os.PathLike[str]) -> Path | None:
        """The trusted folder that covers ``folder`` (itself or a parent), if any."""
        real = _real(folder)
        best: Path | None = None
        for entry in self.folders():
            if real.is_relative_to(entry.path) and (
                best is None or len(entry.path.parts) > len(best.parts)
            ):
                best = entry.path
        return best

    def is_trusted(self, folder: str | os.PathLike[str]) -> bool:
        """Whether tools may run in ``folder`` now (trusted, and not refused by the rules)."""
        return refusal(folder) is None and self.trusted_root(folder) is not None

    def check(self, folder: str | os.PathLike[str], *, session: str | None = None) -> Path:
        """The real path of ``folder`` when tools may run there.

        Raises:
            WorkspaceRefused: tools never run there (:func:`refusal`).
            WorkspaceUntrusted: it may be trusted, but has not been.
        """
        real = _real(folder)
        why = refusal(real)
        if why is not None:
            raise WorkspaceRefused(real, why, session=session)
        if self.trusted_root(real) is None:
            raise WorkspaceUntrusted(real, session=session)
        return real

    def trust(self, folder: str | os.PathLike[str]) -> Path:
        """Remember ``folder`` (its real path) as trusted for tools; returns that path.

        Raises:
            WorkspaceRefused: tools never run there; nothing is remembered.
            InputError: it is not an existing folder.
            StorageError: the file could not be written (nothing changed).
        """
        real = _real(folder)
        why = refusal(real)
        if why is not None:
            raise WorkspaceRefused(real, why)
        if not real.is_dir():
            raise InputError(f"{real} is not an existing folder; nothing was trusted")
        current = self.folders()
        if any(entry.path == real for entry in current):
            return real
        self._save([*current, TrustedFolder(real, time.time())])
        return real

    def revoke(self, folder: str | os.PathLike[str]) -> bool:
        """Forget ``folder`` (as given or as its real path); False when it was not trusted."""
        given, real = Path(os.path.abspath(os.fspath(folder))), _real(folder)
        current = self.folders()
        kept = [entry for entry in current if entry.path not in (given, real)]
        if len(kept) == len(current):
            return False
        self._save(kept)
        return True
