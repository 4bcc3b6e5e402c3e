# Sourced by .ci/fresh.sh and benchmarks/first_run.sh: a new Debian bookworm root (debootstrap --variant=minbase)
# with only Debian's Essential set, python3 and ca-certificates (what a new machine of this kind comes with), a
# clean clone of the committed HEAD at /ci/main and ../shared read-only at /ci/shared when it exists.
#
#   fresh_root REPO     # sets $root; the mounts are undone and the root removed on exit (KEEP=1 keeps it)
#   in_root CMD ...     # run CMD inside it under bubblewrap, with a clean environment (extra VAR=value first)
#
# Needs root. The minbase root file system is the one sandboxes/r/build.sh caches ($CAUSAL_SUITE_CACHE/docker,
# default ~/.cache/causal-suite/docker), so a second root skips debootstrap. The root shares this machine's
# network and pip configuration and the bookworm mirror of its apt sources (so it reaches the same package
# registries).
source "$(dirname "${BASH_SOURCE[0]}")/../scripts/require.sh"
source "$(dirname "${BASH_SOURCE[0]}")/../sandboxes/r/debian_mirror.sh"

_fresh_log() { echo "[fresh] $*" >&2; }
_fresh_mounts=()
_fresh_cleanup() {
  local i
  for ((i = ${#_fresh_mounts[@]} - 1; i >= 0; i--)); do umount -l "${_fresh_mounts[$i]}" 2>/dev/null || true; done
  if [ -n "${KEEP:-}" ]; then _fresh_log "chroot kept at $root"; else rm -rf --one-file-system "$root"; fi
}
_fresh_bind() {  # _fresh_bind SRC DEST [ro]
  mkdir -p "$root$2"; mount --bind "$1" "$root$2"; _fresh_mounts+=("$root$2")
  [ "${3:-}" != ro ] || mount -o remount,bind,ro "$root$2"
}

fresh_root() {
  local repo=$1 tarball f d
  [ "$(id -u)" -eq 0 ] || { echo "a fresh Debian root needs root (debootstrap, chroot, mounts)" >&2; exit 1; }
  require_commands bwrap:bubblewrap
  tarball="${CAUSAL_SUITE_CACHE:-$HOME/.cache/causal-suite}/docker/debian-bookworm-minbase.tar"
  minbase_tarball "$tarball"
  root=$(mktemp -d /tmp/causal-suite-fresh.XXXXXX)
  trap _fresh_cleanup EXIT
  tar -C "$root" -xf "$tarball"
  chmod 755 "$root"  # after extracting (the tarball's top entry sets it): 0700 hides the chroot from per-sample uids
  cp /etc/resolv.conf "$root/etc/resolv.conf"
  # apt: the bookworm mirror debootstrap wrote into the chroot's sources.list, and nothing of this machine's own
  # sources (a trixie entry .ci/docker.sh added here would otherwise move the whole chroot to trixie)
  # this machine's own certificate authorities (ca-certificates, installed below, adds them to the chroot's bundle)
  mkdir -p "$root/usr/local/share/ca-certificates"
  [ ! -d /usr/local/share/ca-certificates ] || cp -r /usr/local/share/ca-certificates/. "$root/usr/local/share/ca-certificates/"
  # this machine's pip configuration (local wheel folders and indexes, the torch cap) travels with it
  for f in /etc/pip.conf /etc/xdg/pip; do [ ! -e "$f" ] || { mkdir -p "$root$(dirname "$f")"; cp -r "$f" "$root$f"; }; done
  for d in $(pip config list 2>/dev/null | grep -oE "(file://)?/opt/[^' ]+" | sed 's|^file://||' | sort -u) \
           ${PIP_FIND_LINKS:-}; do
    [ ! -d "$d" ] || _fresh_bind "$d" "$d" ro
  done
  _fresh_bind /proc /proc; _fresh_bind /sys /sys; _fresh_bind /dev /dev; _fresh_bind /dev/pts /dev/pts
  mkdir -p "$root/dev/shm" && mount -t tmpfs tmpfs "$root/dev/shm" && _fresh_mounts+=("$root/dev/shm")

  _fresh_log "chroot $root ready; installing its python3 (what a new machine of this kind comes with)"
  chroot "$root" /bin/sh -c 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
    apt-get install -y -qq --no-install-recommends python3 ca-certificates >/dev/null'
  mkdir -p "$root/ci"
  git clone -q "$repo" "$root/ci/main"
  [ ! -d "$repo/../shared" ] || _fresh_bind "$(cd "$repo/../shared" && pwd)" /ci/shared ro
}

in_root() {
  # bubblewrap (as root: a mount namespace and pivot_root, no user namespace) rather than chroot for the run: the
  # kernel refuses a user namespace to a chrooted process, so the confined sandbox's tests could not run in a chroot
  bwrap --dev-bind "$root" / --die-with-parent /usr/bin/env -i HOME=/root \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 \
    PIP_FIND_LINKS="${PIP_FIND_LINKS:-}" PIP_CERT="${PIP_CERT:-}" PIP_DEFAULT_TIMEOUT="${PIP_DEFAULT_TIMEOUT:-180}" "$@"
}
