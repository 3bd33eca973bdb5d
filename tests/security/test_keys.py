"""Keys the way ssh treats them: what another local user could change is refused before a key is
read or made, with exit status 2 naming the folder or file and the fix (docs/security.md,
"Threat model: other local users").

Another user is simulated as root: folders handed to uid 65534 with ``os.chown``, modes that let
group or world write, a FIFO planted where a key file belongs, a ``keys.lock`` symbolic link
pointing where that user wants a file created.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from .helpers import NOBODY, as_root, environment, one_line_error, rho


@pytest.fixture
def session(tmp_path: Path, rho_fixtures: Path) -> Path:
    path = tmp_path / "session-v1.jsonl"
    path.write_bytes((rho_fixtures / "session-v1.jsonl").read_bytes())
    return path


def _config(tmp_path: Path, mode: int = 0o700) -> Path:
    config = tmp_path / "config"
    config.mkdir(exist_ok=True)
    config.chmod(mode)
    return config


def _public_key(env: dict[str, str], cwd: Path, *extra: str) -> str:
    out = rho(env, cwd, "keys", *extra)
    assert out.returncode == 0, out.stderr
    return out.stdout.splitlines()[0]


@pytest.mark.parametrize(
    "mode", [0o777, 0o770, 0o702, 0o1777], ids=["world", "group", "others", "sticky-tmp"]
)
def test_a_config_folder_others_can_write_is_refused(tmp_path: Path, mode: int) -> None:
    config = _config(tmp_path, mode)
    err = one_line_error(rho(environment(tmp_path), tmp_path, "keys"))
    assert str(config) in err and f"chmod 700 {config}" in err and "writable by" in err
    assert not (config / "keys").exists()  # nothing made in it


@as_root
def test_a_config_folder_owned_by_someone_else_is_refused(tmp_path: Path, session: Path) -> None:
    env = environment(tmp_path)
    config = _config(tmp_path)
    _public_key(env, tmp_path)
    os.chown(config, NOBODY, NOBODY)
    # the other user renames the key file away: rho-desk must not quietly make a new signing key
    (config / "keys").rename(config / "keys.stolen")
    for args in (["keys"], ["export", str(session), "--include", "all", "-o", "out.json"]):
        err = one_line_error(rho(env, tmp_path, *args))
        assert str(config) in err and "belongs to" in err and "nobody" in err, err
    assert not (config / "keys").exists() and not (tmp_path / "out.json").exists()


@as_root
def test_a_symlinked_config_folder_is_judged_by_its_target(tmp_path: Path) -> None:
    theirs = tmp_path / "theirs"
    theirs.mkdir(mode=0o700)
    os.chown(theirs, NOBODY, NOBODY)
    (tmp_path / "config").symlink_to(theirs)
    err = one_line_error(rho(environment(tmp_path), tmp_path, "keys"))
    assert str(theirs) in err and "belongs to" in err
    # a link to a private folder of one's own is fine
    (tmp_path / "config").unlink()
    mine = tmp_path / "mine"
    mine.mkdir(mode=0o700)
    (tmp_path / "config").symlink_to(mine)
    _public_key(environment(tmp_path), tmp_path)
    assert (mine / "keys").is_file() and (tmp_path / "config").is_symlink()


def test_a_world_writable_link_target_is_refused(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    (tmp_path / "config").symlink_to(shared)
    err = one_line_error(rho(environment(tmp_path), tmp_path, "keys"))
    assert f"chmod 700 {shared}" in err


@pytest.mark.parametrize("where", ["key-file", "planted"])
def test_a_fifo_as_key_file_is_refused_at_once(tmp_path: Path, session: Path, where: str) -> None:
    config = _config(tmp_path)
    fifo = tmp_path / "fifo" if where == "key-file" else config / "keys"
    os.mkfifo(fifo, 0o600)
    extra = ["--key-file", str(fifo)] if where == "key-file" else []
    started = time.monotonic()
    for args in (
        ["keys", *extra],
        ["export", str(session), "--include", "all", "-o", "out.json", *extra],
    ):
        err = one_line_error(rho(environment(tmp_path), tmp_path, *args, timeout=30))
        assert str(fifo) in err and "named pipe (FIFO)" in err and "not a regular file" in err
    assert time.monotonic() - started < 30
    assert not (tmp_path / "out.json").exists()


def test_a_folder_planted_as_the_key_file_is_refused(tmp_path: Path) -> None:
    config = _config(tmp_path)
    (config / "keys").mkdir()
    err = one_line_error(rho(environment(tmp_path), tmp_path, "keys"))
    assert "is a folder, not a regular file" in err


def test_a_planted_lock_symlink_creates_nothing_where_it_points(tmp_path: Path) -> None:
    config = _config(tmp_path)
    target = tmp_path / "victim" / "created-by-rho-desk"
    target.parent.mkdir()
    (config / "keys.lock").symlink_to(target)
    err = one_line_error(rho(environment(tmp_path), tmp_path, "keys"))
    assert "keys.lock" in err and "symbolic link" in err
    assert not target.exists() and not (config / "keys").exists()


@as_root
def test_a_key_file_of_another_user_is_refused(tmp_path: Path) -> None:
    env = environment(tmp_path)
    config = _config(tmp_path)
    _public_key(env, tmp_path)
    os.chown(config / "keys", NOBODY, NOBODY)
    err = one_line_error(rho(env, tmp_path, "keys"))
    assert str(config / "keys") in err and "belongs to" in err


def test_key_file_option_gets_the_same_checks(tmp_path: Path) -> None:
    env = environment(tmp_path)
    _config(tmp_path)
    drop = tmp_path / "drop"
    drop.mkdir()
    drop.chmod(0o777)
    err = one_line_error(rho(env, tmp_path, "keys", "--key-file", str(drop / "keys")))
    assert f"chmod 700 {drop}" in err and not (drop / "keys").exists()
    # a link to a key file in a private folder is judged by its target, and works
    safe = tmp_path / "safe"
    safe.mkdir(mode=0o700)
    first = _public_key(env, tmp_path, "--key-file", str(safe / "keys"))
    (tmp_path / "link").symlink_to(safe / "keys")
    assert _public_key(env, tmp_path, "--key-file", str(tmp_path / "link")) == first
    # a link to a key file in a folder others can write is refused
    (drop / "keys").write_bytes((safe / "keys").read_bytes())
    (drop / "keys").chmod(0o600)
    (tmp_path / "link2").symlink_to(drop / "keys")
    err = one_line_error(rho(env, tmp_path, "keys", "--key-file", str(tmp_path / "link2")))
    assert f"chmod 700 {drop}" in err


def test_settings_folder_others_can_write_is_refused_for_profiles(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another user who could write providers.json could send a profile's key to their server."""
    from rho_desk.core.errors import InputError
    from rho_desk.providers.profiles import ProfileStore

    config = _config(tmp_path, 0o777)
    monkeypatch.setenv("RHO_DESK_CONFIG_DIR", str(config))
    with pytest.raises(InputError, match=r"chmod 700"):
        ProfileStore().load()
