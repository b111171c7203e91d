#!/usr/bin/env bash
# Run the test suite (bootstraps the environment first). Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")"
source scripts/bootstrap.sh
set +e
"$PY" -m pytest "$@"
code=$?
set -e
if [ "$code" -eq 5 ]; then echo "error: pytest collected no tests" >&2; exit 1; fi
exit "$code"
