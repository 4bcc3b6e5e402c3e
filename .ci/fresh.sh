#!/usr/bin/env bash
# Rehearse CI on a truly fresh system (issue 24): a clean clone of the committed HEAD runs `CI=true bash .ci/run`
# with the Docker stage off, inside a new Debian bookworm root (debootstrap --variant=minbase, run under bubblewrap) with only
# Debian's Essential set and python3 (plus ca-certificates for pip). Every other tool CI needs must come from the
# project's own scripts; a missing install step fails here as it would on a new machine.
#
#   bash .ci/fresh.sh            # rehearse HEAD; prints the tail of the run and its exit code
#   KEEP=1 bash .ci/fresh.sh     # keep the chroot afterwards (its path is printed) to look around
#
# Needs root. The minbase root file system is the one sandboxes/r/build.sh caches ($CAUSAL_SUITE_CACHE/docker,
# default ~/.cache/causal-suite/docker), so a second rehearsal skips debootstrap. The chroot shares this machine's
# network and pip configuration and the bookworm mirror of its apt sources (so it reaches the same package
# registries), and sees ../shared read-only when it exists. The full log goes to $LOG (default
# /tmp/causal-suite-fresh.log).
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
source "$repo/scripts/require.sh"
source "$repo/sandboxes/r/debian_mirror.sh"
[ "$(id -u)" -eq 0 ] || { echo "the fresh-system rehearsal needs root (debootstrap, chroot, mounts)" >&2; exit 1; }
require_commands bwrap:bubblewrap
CACHE="${CAUSAL_SUITE_CACHE:-$HOME/.cache/causal-suite}/docker"
TARBALL="$CACHE/debian-bookworm-minbase.tar"
LOG="${LOG:-/tmp/causal-suite-fresh.log}"
log() { echo "[fresh] $*"; }

start=$(date +%s)
minbase_tarball "$TARBALL"

root=$(mktemp -d /tmp/causal-suite-fresh.XXXXXX)
mounts=()
cleanup() {
  local m
  for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do umount -l "${mounts[$i]}" 2>/dev/null || true; done
  if [ -n "${KEEP:-}" ]; then log "chroot kept at $root"; else rm -rf --one-file-system "$root"; fi
}
trap cleanup EXIT
bind() {  # bind SRC DEST [ro]
  mkdir -p "$root$2"; mount --bind "$1" "$root$2"; mounts+=("$root$2")
  [ "${3:-}" != ro ] || mount -o remount,bind,ro "$root$2"
}

tar -C "$root" -xf "$TARBALL"
chmod 755 "$root"  # after extracting (the tarball's top entry sets it): 0700 hides the chroot from per-sample uids
cp /etc/resolv.conf "$root/etc/resolv.conf"
# apt: the bookworm mirror debootstrap wrote into the chroot's sources.list, and nothing of this machine's own
# sources (a trixie entry .ci/docker.sh added here would otherwise move the whole chroot to trixie)
# this machine's own certificate authorities (ca-certificates, installed below, adds them to the chroot's bundle)
mkdir -p "$root/usr/local/share/ca-certificates"
[ -d /usr/local/share/ca-certificates ] && cp -r /usr/local/share/ca-certificates/. "$root/usr/local/share/ca-certificates/"
# this machine's pip configuration (local wheel folders and indexes, the torch cap) travels with it
for f in /etc/pip.conf /etc/xdg/pip; do [ -e "$f" ] && { mkdir -p "$root$(dirname "$f")"; cp -r "$f" "$root$f"; }; done
for d in $(pip config list 2>/dev/null | grep -oE "(file://)?/opt/[^' ]+" | sed 's|^file://||' | sort -u) \
         ${PIP_FIND_LINKS:-}; do
  [ -d "$d" ] && bind "$d" "$d" ro
done
bind /proc /proc; bind /sys /sys; bind /dev /dev; bind /dev/pts /dev/pts
mkdir -p "$root/dev/shm" && mount -t tmpfs tmpfs "$root/dev/shm" && mounts+=("$root/dev/shm")

log "chroot $root ready; installing its python3 (what a new machine of this kind comes with)"
chroot "$root" /bin/sh -c 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
  apt-get install -y -qq --no-install-recommends python3 ca-certificates >/dev/null'

mkdir -p "$root/ci"
git clone -q "$repo" "$root/ci/main"
[ -d "$repo/../shared" ] && bind "$(cd "$repo/../shared" && pwd)" /ci/shared ro
log "running CI=true bash .ci/run (Docker stage off) in the chroot; log: $LOG"
set +e
# bubblewrap (as root: a mount namespace and pivot_root, no user namespace) rather than chroot for the run: the
# kernel refuses a user namespace to a chrooted process, so the confined sandbox's tests could not run in a chroot
bwrap --dev-bind "$root" / --die-with-parent /usr/bin/env -i HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  LANG=C.UTF-8 CI=true CAUSAL_SUITE_CI_DOCKER=0 \
  PIP_FIND_LINKS="${PIP_FIND_LINKS:-}" PIP_CERT="${PIP_CERT:-}" PIP_DEFAULT_TIMEOUT="${PIP_DEFAULT_TIMEOUT:-180}" \
  /bin/bash -c 'cd /ci/main && bash .ci/run </dev/null' >"$LOG" 2>&1
rc=$?
set -e
tail -n 25 "$LOG"
log "fresh-system CI exited $rc after $(( $(date +%s) - start )) s"
exit "$rc"
