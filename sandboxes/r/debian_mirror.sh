# Sourced by sandboxes/r/build.sh, .ci/docker.sh and .ci/fresh.sh. debian_mirror prints the Debian archive URI of
# this machine's bookworm apt entry (deb822 .sources or one-line .list), so no script names a host;
# minbase_tarball makes the cached bookworm minbase root file system both the R image and the rehearsal start from.
debian_mirror() {
  local uri
  uri=$(awk '/^URIs:/ {u=$2} /^Suites:/ && / bookworm( |$)/ {print u; exit}' /etc/apt/sources.list.d/*.sources \
        2>/dev/null || true)
  [ -n "$uri" ] || uri=$(grep -hE '^deb +(\[[^]]*\] +)?[a-z]+://[^ ]+ +bookworm +' /etc/apt/sources.list \
                          /etc/apt/sources.list.d/*.list 2>/dev/null | head -n1 | sed -E 's/^deb +(\[[^]]*\] +)?//' \
                          | awk '{print $1}' || true)
  [ -n "$uri" ] || { echo "no Debian bookworm entry in /etc/apt/sources.list*; set CV_DEBIAN_MIRROR" >&2; return 1; }
  echo "$uri"
}

minbase_tarball() {  # minbase_tarball TARBALL: debootstrap --variant=minbase bookworm into TARBALL unless it exists
  local tarball="$1" root
  [ -s "$tarball" ] && return 0
  [ "$(id -u)" -eq 0 ] || { echo "debootstrap needs root" >&2; return 1; }
  require_commands debootstrap:debootstrap
  root=$(mktemp -d)
  chmod 755 "$root"  # the tarball's top entry: the root of every file system made from it
  echo "[minbase] debootstrap --variant=minbase bookworm (mirror from this machine's apt sources)" >&2
  debootstrap --variant=minbase bookworm "$root" "${CV_DEBIAN_MIRROR:-$(debian_mirror)}" >"$root.log" 2>&1 \
    || { tail -n 20 "$root.log" >&2; rm -rf "$root" "$root.log"; return 1; }
  rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
  mkdir -p "$(dirname "$tarball")"
  tar --numeric-owner -C "$root" -cf "$tarball.part" . && mv "$tarball.part" "$tarball"
  rm -rf "$root" "$root.log"
}
