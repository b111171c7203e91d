#!/usr/bin/env bash
# The interop tests (issue 26) against real server software, each server from its own environment:
#   scripts/interop/run.sh            LiteLLM's proxy in front of the embedded panel, and
#                                     `transformers serve` on a tiny random model
#   scripts/interop/run.sh all        and llama-cpp-python's server on the tiny GGUF (the first
#                                     setup builds it from source: about 22 min of 2 cores)
# A server that was asked for and cannot start fails its tests (COMPANION_REQUIRE_INTEROP), never
# skips them. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/../.."
servers=litellm,transformers
if [ "${1:-}" = all ]; then servers=litellm,transformers,llama; shift; fi
for s in ${servers//,/ }; do scripts/interop/setup.sh "$s" >/dev/null; done
COMPANION_REQUIRE_INTEROP="$servers" exec ./run_tests.sh tests/project/test_interop.py tests/project/test_interop_mixed.py "$@"
