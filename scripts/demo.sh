#!/usr/bin/env bash
# Set up (idempotent) and run the main job: every benchmark on its built-in data with the offline default
# model; logs go to logs/demo/ and a results table is printed. Extra arguments go to `causal-suite demo`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/causal-suite demo "$@"
