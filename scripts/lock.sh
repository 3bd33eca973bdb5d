#!/usr/bin/env bash
# Regenerate requirements.lock from a fresh venv resolved against pyproject's ranges.
# Run on Python 3.11 (the PySide6 6.11 line); the 3.12+ PySide6 pins are kept by hand below.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
python3 -m venv "$tmp/venv"
"$tmp/venv/bin/pip" install -q --upgrade pip
"$tmp/venv/bin/pip" install -q "$root[test]" setuptools wheel
{
    echo "# Exact versions for a reproducible install (pip install -r requirements.lock)."
    echo "# Regenerate: scripts/lock.sh. PySide6 6.12 crashes on Python 3.11 (shared/design/environment.md §0)."
    "$tmp/venv/bin/pip" freeze --all | grep -v -E "^(pip|rho-desk|PySide6_Essentials|PySide6_Addons|shiboken6|backports.tarfile|hyperscan)[= @]"
    echo "hyperscan==0.9.1; platform_machine == \"x86_64\" or (sys_platform == \"darwin\" and platform_machine == \"arm64\")"
    echo "backports.tarfile==1.2.0; python_version < '3.12'"
    echo "PySide6_Essentials==6.11.3; python_version < '3.12'"
    echo "PySide6_Addons==6.11.3; python_version < '3.12'"
    echo "shiboken6==6.11.3; python_version < '3.12'"
    echo "PySide6_Essentials==6.12.0; python_version >= '3.12'"
    echo "PySide6_Addons==6.12.0; python_version >= '3.12'"
    echo "shiboken6==6.12.0; python_version >= '3.12'"
} > "$root/requirements.lock"
