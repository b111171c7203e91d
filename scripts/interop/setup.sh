#!/usr/bin/env bash
# Separate environments for the interop servers (issue 26): real server software nobody here
# wrote, run as its own process, so its many dependencies never meet requirements.txt's pins.
#   scripts/interop/setup.sh litellm   LiteLLM's proxy (a minute from wheels)
#   scripts/interop/setup.sh llama     llama-cpp-python's server + gguf (built from source: about
#                                      22 min on 2 cores, nice'd and on one core here; pip caches
#                                      the built wheel, so a second setup takes seconds)
#   scripts/interop/setup.sh transformers   Hugging Face's `transformers serve` on CPU (wheels)
# Each prints the environment's python on its last line. Idempotent: a stamp names the pins.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
base_python="${PYTHON:-python3}"
what="${1:?usage: setup.sh litellm|llama|transformers}"
case "$what" in
  litellm) pins=("litellm[proxy]==1.108.7") ;;
  # numpy is gguf's only heavy need; llama-cpp-python's [server] extra brings uvicorn/fastapi.
  llama) pins=("llama-cpp-python[server]==0.3.36" "gguf==0.19.0") ;;
  # `transformers serve` (its [serving] extra), the CPU torch of requirements.txt; it reads GGUF
  transformers) pins=("transformers[serving]==5.24.0" "torch==2.13.0" "gguf==0.19.0") ;;
  *) echo "error: scripts/interop/setup.sh: unknown server '$what' (expected litellm, llama or transformers)" >&2; exit 2 ;;
esac
venv="$root/.cache/interop/$what-venv"
stamp="$(printf '%s\n' "${pins[@]}")"
if [ -x "$venv/bin/python" ] && [ "$(cat "$venv/.pins" 2>/dev/null)" = "$stamp" ]; then
  echo "$venv/bin/python"; exit 0
fi
echo "setting up $venv (${pins[*]}) ..." >&2
rm -rf "$venv"
"$base_python" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade pip >&2
if [ "$what" = llama ]; then
  # CPU only, generic ISA (the wheel is cached and may run on another CPU of this kind), no
  # OpenMP (no extra runtime), one compile job at the lowest priority: the machine is shared.
  export CMAKE_ARGS="${CMAKE_ARGS:--DGGML_NATIVE=OFF -DGGML_OPENMP=OFF -DLLAMA_CURL=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF}"
  export CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-1}"
  nice -n 19 "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "${pins[@]}" >&2
else
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "${pins[@]}" >&2
fi
echo "$stamp" > "$venv/.pins"
echo "$venv/bin/python"
