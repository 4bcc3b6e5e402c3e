#!/usr/bin/env bash
# Build the CausalVerify R images (see README.md in this folder).
#
#   bash sandboxes/r/build.sh debian            # Debian-only image causalverify-r-debian:bookworm-1 (no registry)
#   bash sandboxes/r/build.sh cran [full|upstream]   # rocker/CRAN image (needs the image registry and CRAN)
#
# `debian` first makes the base image causalverify-debian-base:bookworm when it is missing: debootstrap (minbase)
# of Debian bookworm from the mirror this machine's apt sources name, imported with `docker import` (needs root and
# the debootstrap package). The root file system tarball is cached in $CAUSAL_SUITE_CACHE/docker (default
# ~/.cache/causal-suite/docker), so a second machine or a pruned engine skips debootstrap.
# Prints the build time of each step.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
CACHE="${CAUSAL_SUITE_CACHE:-$HOME/.cache/causal-suite}/docker"
BASE_IMAGE="causalverify-debian-base:bookworm"
log() { echo "[build] $*"; }

source "$here/../../scripts/require.sh"
source "$here/debian_mirror.sh"
command -v docker >/dev/null || { echo "no docker client: bash .ci/docker.sh up installs and starts the engine" >&2; exit 1; }

base_image() {
  if docker image inspect "$BASE_IMAGE" >/dev/null 2>&1; then log "base $BASE_IMAGE present"; return; fi
  local tarball="$CACHE/debian-bookworm-minbase.tar" t0; t0=$(date +%s)
  if [ ! -s "$tarball" ]; then
    minbase_tarball "$tarball" || exit 1
    log "debootstrap done in $(( $(date +%s) - t0 )) s"
  fi
  docker import --change 'CMD ["/bin/bash"]' "$tarball" "$BASE_IMAGE" >/dev/null
  log "base image $BASE_IMAGE imported ($(( $(date +%s) - t0 )) s in all)"
}

compose_build() {
  local file="$1" t0; t0=$(date +%s)
  docker compose -f "$here/$file" build
  log "image of $file built in $(( $(date +%s) - t0 )) s ($(docker compose -f "$here/$file" config --images))"
}

case "${1:-}" in
  debian) base_image; compose_build compose.debian.yaml ;;
  cran)
    case "${2:-full}" in
      full) compose_build compose.yaml ;;
      upstream) compose_build compose.upstream.yaml ;;
      *) echo "profile must be full or upstream" >&2; exit 2 ;;
    esac ;;
  *) echo "usage: $0 debian | cran [full|upstream]" >&2; exit 2 ;;
esac
