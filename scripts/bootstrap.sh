# shellcheck shell=bash
# Sourced by ./run-app and ./run-tests: installs what rho-desk needs on a fresh Debian machine
# (apt packages when running as root, a virtualenv, the locked Python dependencies) and does
# nothing when everything is already in place.
set -euo pipefail

RHO_DESK_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${RHO_DESK_VENV:-$RHO_DESK_ROOT/.venv}"

# Libraries Qt needs to run offscreen or on X11, plus fonts (environment.md §1).
APT_RUNTIME=(libglib2.0-0 libgl1 libegl1 libx11-6 libdbus-1-3 libfontconfig1 libfreetype6
    libxkbcommon0 fonts-dejavu-core libx11-xcb1 libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1
    libxcb-image0 libxcb-render-util0 libxcb-shape0 libxcb-xkb1 libxkbcommon-x11-0 libxcb-util1
    libxcb-randr0 libxcb-shm0 libxcb-sync1 libxcb-xfixes0 libxcb-render0)
# Only the test command needs these: a real SecretService keyring for the integration test; a
# PostgreSQL server (15 on Debian 12, with pg_trgm) the team-library tests run throwaway clusters
# of (rho_desk/team/cluster.py); an X server, the AT-SPI bus and its Python bindings for the
# screen-reader tree test (tests/qt/test_atspi.py reads the tree with Debian's /usr/bin/python3).
APT_TEST=(dbus-daemon gnome-keyring postgresql postgresql-contrib xvfb at-spi2-core gir1.2-atspi-2.0 python3-gi)

_log() { printf 'rho-desk setup: %s\n' "$*" >&2; }

_apt_install() {
    local missing=() pkg
    for pkg in "$@"; do
        dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null; then
        _log "missing system packages (install them as root): ${missing[*]}"
        return 0
    fi
    _log "installing system packages: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

_pick_python() {
    local candidate
    for candidate in "${RHO_DESK_PYTHON:-}" python3 python3.13 python3.12 python3.11; do
        [ -n "$candidate" ] && command -v "$candidate" >/dev/null || continue
        if "$candidate" -c 'import sys; sys.exit(not ((3, 11) <= sys.version_info[:2] <= (3, 13)))' 2>/dev/null; then
            echo "$candidate"; return 0
        fi
    done
    return 1
}

rho_desk_bootstrap() {
    local profile="${1:-runtime}"
    if command -v dpkg-query >/dev/null; then
        _apt_install "${APT_RUNTIME[@]}"
        [ "$profile" = test ] && _apt_install "${APT_TEST[@]}"
    fi
    local python
    if ! python="$(_pick_python)"; then
        _apt_install python3 python3-venv
        python="$(_pick_python)" || { _log "needs Python 3.11 to 3.13"; return 1; }
    fi
    if [ ! -x "$VENV/bin/python" ]; then
        if ! "$python" -m venv "$VENV" 2>/dev/null; then
            _apt_install python3-venv
            rm -rf "$VENV"; "$python" -m venv "$VENV"
        fi
    fi
    local stamp="$VENV/.rho-desk-installed" want
    want="$(cat "$RHO_DESK_ROOT/requirements.lock" "$RHO_DESK_ROOT/pyproject.toml" | sha256sum | cut -d' ' -f1)"
    if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
        _log "installing Python dependencies into $VENV"
        "$VENV/bin/python" -m pip install -q --disable-pip-version-check -r "$RHO_DESK_ROOT/requirements.lock"
        "$VENV/bin/python" -m pip install -q --disable-pip-version-check --no-deps --no-build-isolation -e "$RHO_DESK_ROOT"
        echo "$want" > "$stamp"
    fi
}
