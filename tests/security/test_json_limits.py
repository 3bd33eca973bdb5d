"""Limits everywhere JSON from elsewhere is read (issue 18, item 6): absurd nesting is a typed
error naming the file and the line (exit 2 or a finding, never a traceback), ``repair
--in-place`` repairs the file behind a symbolic link and keeps the link, and a document naming
one key twice is refused by ``audit`` and by receipt verification."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .helpers import environment, one_line_error, rho

DEPTH = 100_000


def _lines(rho_fixtures: Path) -> list[str]:
    return (rho_fixtures / "session-v3.jsonl").read_text().splitlines()


def _deep_arguments(tmp_path: Path, rho_fixtures: Path) -> Path:
    """A v3 session whose third line holds a tool call with arguments nested 100,000 deep."""
    header, snapshot, delta = _lines(rho_fixtures)
    deep = "[" * DEPTH + "]" * DEPTH
    line = delta.replace(
        '[{"Text":"delta answer"}]',
        '[{"ToolCall":{"id":"c1","name":"bash","arguments":{"x":' + deep + "}}}]",
    )
    assert line != delta
    path = tmp_path / "deep.jsonl"
    path.write_text("\n".join([header, snapshot, line]) + "\n")
    return path


def _no_crash(out_err: str) -> None:
    assert "Traceback" not in out_err and "RecursionError" not in out_err, out_err[-2000:]


@pytest.mark.parametrize("command", ["show", "snapshot"])
def test_reading_commands_name_the_file_and_line(
    tmp_path: Path, rho_fixtures: Path, command: str
) -> None:
    path = _deep_arguments(tmp_path, rho_fixtures)
    err = one_line_error(rho(environment(tmp_path), tmp_path, command, str(path)))
    assert f"{path}:3" in err and "nesting" in err


def test_check_reports_the_line_and_repair_drops_it(tmp_path: Path, rho_fixtures: Path) -> None:
    path = _deep_arguments(tmp_path, rho_fixtures)
    env = environment(tmp_path)
    out = rho(env, tmp_path, "check", str(path))
    _no_crash(out.stderr + out.stdout)
    assert (
        out.returncode == 1
        and f"{path}:3: error: JSON nesting is deeper than 512 levels" in out.stdout
    )
    out = rho(env, tmp_path, "repair", str(path), "-o", str(tmp_path / "fixed.jsonl"))
    _no_crash(out.stderr + out.stdout)
    assert out.returncode == 0 and "line 3: too-deep" in out.stdout
    assert rho(env, tmp_path, "check", str(tmp_path / "fixed.jsonl")).returncode == 0


@pytest.mark.parametrize("shape", ["jsonl", "document", "pretty"])
def test_audit_refuses_absurd_nesting(tmp_path: Path, rho_fixtures: Path, shape: str) -> None:
    if shape == "jsonl":
        path, where = _deep_arguments(tmp_path, rho_fixtures), "deep.jsonl:3"
    elif shape == "document":
        path, where = tmp_path / "deep.json", "deep.json:1"
        path.write_text('{"a":' + "[" * DEPTH + "]" * DEPTH + "}")
    else:  # one bracket per line: no single line is deep, the document is
        path, where = tmp_path / "deep.json", "deep.json"
        path.write_text("[\n" * DEPTH + "]\n" * DEPTH)
    err = one_line_error(rho(environment(tmp_path), tmp_path, "audit", str(path)))
    assert err.splitlines()[-1] == f"rho-desk: {where}: JSON nesting is deeper than 512 levels", err


def test_the_app_opens_up_to_the_deep_line_and_names_it(tmp_path: Path, rho_fixtures: Path) -> None:
    """What the window calls to open a file (``load_path``): the good revisions, read-only, and
    a damage note naming the line and the reason (the window shows it), no RecursionError."""
    from rho_desk.qt.services.document import load_path

    path = _deep_arguments(tmp_path, rho_fixtures)
    file, _snapshot_document = load_path(path)
    assert [(n.line, n.reason) for n in file.notes] == [(3, "JSON nesting is too deep")]
    assert file.tree.active_leaf is not None and file.tree.active_leaf.revision == 1


def test_repair_in_place_repairs_the_file_behind_a_symlink_and_keeps_the_link(
    tmp_path: Path, rho_fixtures: Path
) -> None:
    header, snapshot, delta = _lines(rho_fixtures)
    real = tmp_path / "elsewhere" / "real.jsonl"
    real.parent.mkdir()
    real.write_text("\n".join([header, snapshot, delta, '{"type":"snapshot_delta", torn']) + "\n")
    link = tmp_path / "session.jsonl"
    link.symlink_to(real)
    env = environment(tmp_path)
    out = rho(env, tmp_path, "repair", str(link), "--in-place")
    assert out.returncode == 0, out.stderr
    assert link.is_symlink() and link.resolve() == real
    assert rho(env, tmp_path, "check", str(real)).returncode == 0
    assert real.read_text().splitlines() == [header, snapshot, delta]
    [backup] = real.parent.glob("real.jsonl.*.bak")
    assert "torn" in backup.read_text()
    assert not any(p.name.endswith(".bak") for p in tmp_path.iterdir())


def test_audit_refuses_a_repeated_key(tmp_path: Path) -> None:
    path = tmp_path / "export.json"
    path.write_text('{"format": "rho-desk.display-export", "messages": [], "format": "other"}')
    err = one_line_error(rho(environment(tmp_path), tmp_path, "audit", str(path)))
    assert "the key 'format' appears twice" in err


def test_a_receipt_with_a_repeated_key_does_not_verify(tmp_path: Path, rho_fixtures: Path) -> None:
    """``"history": "model"`` before the real ``"display"``: the signature covers what a parser
    keeps (the last), a person reads the first."""
    legacy = tmp_path / "session-v1.jsonl"
    legacy.write_bytes((rho_fixtures / "session-v1.jsonl").read_bytes())
    env = environment(tmp_path)
    assert (
        rho(env, tmp_path, "export", str(legacy), "--include", "all", "-o", "shown.json").returncode
        == 0
    )
    public = rho(env, tmp_path, "keys").stdout.splitlines()[0]
    assert rho(env, tmp_path, "audit", "shown.json", "--verify-key", public).returncode == 0
    receipt = tmp_path / "shown.json.receipt.json"
    text = receipt.read_text()
    assert json.loads(text)["history"] == "display" and text.count('"history"') == 1
    receipt.write_text(text.replace("{", '{\n  "history": "model",', 1))
    err = one_line_error(rho(env, tmp_path, "audit", "shown.json", "--verify-key", public))
    assert "the key 'history' appears twice" in err

    from rho_desk.team.verify import verify_published

    verdict = verify_published(
        (tmp_path / "shown.json").read_bytes(),
        receipt.read_bytes(),
        key=bytes(32),
        known_secrets=[],
    )
    assert not verdict.ok and "appears twice" in verdict.summary


def test_nesting_depth_agrees_with_the_parsed_value() -> None:
    """The scanner (quotes, escaped quotes and backslashes, brackets inside strings and keys)
    against a walk of what ``json`` parsed, on random documents."""
    import random

    from rho_desk.core.wire.limits import nesting_depth

    def depth(value: object) -> int:
        best, stack = 0, [(value, 0)]
        while stack:
            item, above = stack.pop()
            if isinstance(item, dict | list):
                best = max(best, above + 1)
                stack.extend(
                    (child, above + 1)
                    for child in (item.values() if isinstance(item, dict) else item)
                )
        return best

    rng = random.Random(18)

    def build(level: int) -> object:
        roll = rng.random()
        if level > 6 or roll < 0.3:
            return rng.choice(["a[b{", 'q"uo\\te\\\\', "x\\\\", 1, None, "]]}}", "\\", ""])
        if roll < 0.6:
            return [build(level + 1) for _ in range(rng.randint(0, 3))]
        return {
            rng.choice(["k[", 'k"', "k\\\\", "{"]) + str(i): build(level + 1)
            for i in range(rng.randint(0, 3))
        }

    for _ in range(500):
        value = build(0)
        for text in (json.dumps(value), json.dumps(value, ensure_ascii=False, indent=1)):
            assert nesting_depth(text.encode()) == depth(value), text


def test_a_deep_profiles_file_is_a_profile_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rho_desk.providers.profiles import ProfileError, ProfileStore

    config = tmp_path / "config"
    config.mkdir(mode=0o700)
    (config / "providers.json").write_text(
        '{"version": 1, "profiles": [' + "[" * DEPTH + "]" * DEPTH + "]}"
    )
    monkeypatch.setenv("RHO_DESK_CONFIG_DIR", str(config))
    with pytest.raises(ProfileError, match="nesting is deeper than 512"):
        ProfileStore().load()
