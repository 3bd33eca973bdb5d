"""One logging configuration: level specs, per-area loggers, the CLI option and the scrubbing."""

from __future__ import annotations

import io
import logging
import os
import subprocess
import sys

import pytest

from rho_desk.logs import AREAS, LogSpecError, configure, parse_spec


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("", (logging.WARNING, {})),
        ("info", (logging.INFO, {})),
        ("DEBUG", (logging.DEBUG, {})),
        ("warning,providers=debug", (logging.WARNING, {"providers": logging.DEBUG})),
        ("core=info, qt=error", (logging.WARNING, {"core": logging.INFO, "qt": logging.ERROR})),
    ],
)
def test_specs(spec: str, expected: tuple[int, dict[str, int]]) -> None:
    assert parse_spec(spec) == expected


@pytest.mark.parametrize(
    ("spec", "says"),
    [("loud", "unknown log level 'loud'"), ("engine=debug", "unknown log area 'engine'")],
)
def test_bad_specs_say_what_is_accepted(spec: str, says: str) -> None:
    with pytest.raises(LogSpecError, match=says):
        parse_spec(spec)


def test_areas_get_their_own_levels() -> None:
    out = io.StringIO()
    configure("warning,providers=debug", stream=out)
    logging.getLogger("rho_desk.providers.transport").debug("provider detail")
    logging.getLogger("rho_desk.core.session").info("engine detail")
    logging.getLogger("rho_desk.core.session").warning("engine warning")
    logging.getLogger("httpx").debug("transport follows providers")
    lines = out.getvalue().splitlines()
    assert [line.split(": ", 1)[1] for line in lines] == [
        "provider detail",
        "engine warning",
        "transport follows providers",
    ]
    assert "DEBUG   rho_desk.providers.transport" in lines[0]
    configure("error", stream=out)  # configuring again replaces, never doubles
    assert sum(h.get_name() == "rho-desk" for h in logging.getLogger("rho_desk").handlers) == 1
    assert set(AREAS) >= {"core", "providers", "team", "qt", "cli"}


def test_every_line_is_scrubbed() -> None:
    out = io.StringIO()
    configure("debug", stream=out)
    token = "sk-live-" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4"
    logging.getLogger("rho_desk.providers").debug(
        "sent Authorization: Bearer %s to https://example.test/v1?api-key=%s", token, token
    )
    text = out.getvalue()
    assert token not in text and "api-key=" + token not in text
    assert "[REDACTED]" in text and "https://example.test/v1" in text


def _cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full = {k: v for k, v in os.environ.items() if k != "RHO_DESK_LOG"} | (env or {})
    return subprocess.run(
        [sys.executable, "-m", "rho_desk", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env=full,
    )


def test_cli_option_and_environment_variable(tmp_path: os.PathLike[str]) -> None:
    quiet = _cli("sessions", "--home", str(tmp_path), "--json")
    assert "rho_desk.cli" not in quiet.stderr
    loud = _cli("--log-level", "cli=debug", "sessions", "--home", str(tmp_path), "--json")
    assert "DEBUG   rho_desk.cli: rho-desk" in loud.stderr and ": sessions" in loud.stderr
    from_env = _cli("sessions", "--home", str(tmp_path), "--json", env={"RHO_DESK_LOG": "debug"})
    assert "rho_desk.cli: rho-desk" in from_env.stderr
    assert quiet.stdout == loud.stdout == from_env.stdout  # logs never reach stdout


def test_bad_spec_is_bad_usage() -> None:
    for args, env, names in (
        (("--log-level", "loud"), None, "--log-level"),
        ((), {"RHO_DESK_LOG": "engine=debug"}, "RHO_DESK_LOG"),
    ):
        result = _cli(*args, "sessions", "--home", "/nonexistent", env=env)
        assert result.returncode == 2
        assert result.stderr.startswith(f"rho-desk: {names}: unknown log")
        assert "Traceback" not in result.stderr and len(result.stderr.splitlines()) == 1


def test_a_team_database_that_is_down_does_not_print_each_retry(
    capfd: pytest.CaptureFixture[str],
) -> None:
    """psycopg's pool warns at every failed reconnect; the Team panel's banner already says the
    database is unreachable, so by default nothing reaches the terminal. ``team=info`` shows them."""
    out = io.StringIO()
    configure("warning", stream=out)
    pool = logging.getLogger("psycopg.pool")
    pool.warning("error connecting in 'rho-desk-team': connection refused")
    assert out.getvalue() == "" and capfd.readouterr().err == ""
    pool.error("the pool is broken")  # an error still shows
    assert "the pool is broken" in out.getvalue()
    configure("warning,team=info", stream=out)
    pool.warning("error connecting in 'rho-desk-team': connection refused")
    assert "error connecting in 'rho-desk-team'" in out.getvalue()
    configure("", stream=io.StringIO())
