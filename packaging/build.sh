#!/usr/bin/env bash
# Build the one-folder bundle dist/rho-desk/ with PyInstaller 6.22.3.
#
#   packaging/build.sh [--dist DIR] [--work DIR]
#
# PyInstaller lives in its own venv (build/pyinstaller-venv by default, created once), never in
# the project's lock. That venv sees the project's dependencies through a .pth file pointing at
# the project venv's site-packages, so the bundle holds exactly the tested versions and PySide6
# is not downloaded a second time. Needs the project venv (scripts/bootstrap.sh makes it).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PROJECT_PYTHON="${RHO_DESK_PYTHON:-$ROOT/.venv/bin/python}"
BUILD_VENV="${RHO_DESK_BUILD_VENV:-$ROOT/build/pyinstaller-venv}"
DIST="$ROOT/dist"
WORK="$ROOT/build/pyinstaller"
PYINSTALLER_VERSION="6.22.3"

while [ $# -gt 0 ]; do
  case "$1" in
    --dist) DIST="$2"; shift 2 ;;
    --work) WORK="$2"; shift 2 ;;
    *) echo "usage: $0 [--dist DIR] [--work DIR]" >&2; exit 2 ;;
  esac
done

if [ ! -x "$PROJECT_PYTHON" ]; then
  echo "build.sh: no project venv at $PROJECT_PYTHON (run scripts/bootstrap.sh first)" >&2
  exit 2
fi

# The build venv: same interpreter as the project (the bundle's Python), PyInstaller pinned.
if ! "$BUILD_VENV/bin/python" -c "import PyInstaller, sys; sys.exit(PyInstaller.__version__ != '$PYINSTALLER_VERSION')" 2>/dev/null; then
  base="$("$PROJECT_PYTHON" -c 'import sys; print(sys._base_executable)')"
  "$base" -m venv --clear "$BUILD_VENV"
  "$BUILD_VENV/bin/python" -m pip install --quiet --disable-pip-version-check "pyinstaller==$PYINSTALLER_VERSION"
fi
build_site="$("$BUILD_VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
project_site="$("$PROJECT_PYTHON" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
printf '%s\n' "$project_site" > "$build_site/rho-desk-project.pth"

"$BUILD_VENV/bin/python" -m PyInstaller --noconfirm --log-level WARN \
  --distpath "$DIST" --workpath "$WORK" "$ROOT/packaging/rho-desk.spec"

echo "built $DIST/rho-desk/rho-desk ($(du -sh "$DIST/rho-desk" | cut -f1))"
