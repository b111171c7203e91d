#!/usr/bin/env bash
# Run the test suite on both cores (bootstraps the environment first). Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")"
source scripts/bootstrap.sh
set +e
# Both cores (pytest-xdist), three workers: the tests spend part of their time waiting on notebook
# kernels, panel servers and subprocesses, so a third worker keeps both cores busy (measured on a
# quiet 2-core machine: 241 s with two workers, 228 s with three, 1.96 cores in use). A test file
# per worker so module fixtures are built once, in collection order (tests/conftest.py starts the
# longest files first; xdist would otherwise put the files with most tests first and the one-test
# notebook runs last); "-n 0" after this script's name runs in one process (a later -n wins).
"$PY" -m pytest -n 3 --dist loadfile --no-loadscope-reorder "$@"
code=$?
set -e
if [ "$code" -eq 5 ]; then echo "error: pytest collected no tests" >&2; exit 1; fi
exit "$code"
