#!/usr/bin/env bash
# Regenerate every table and figure of the three papers into outputs/.
#   ./run_all.sh                    quick profile (embedded synthetic default, minutes on 2 cores)
#   ./run_all.sh --profile paper    the papers' full design sizes
#   ./run_all.sh --profile params/real.yaml --only 03 --force
#   ./run_all.sh --help
set -euo pipefail
cd "$(dirname "$0")"
source scripts/bootstrap.sh
exec "$PY" -m lib.pipeline "$@"
