# Sourced by sandboxes/r/build.sh and .ci/docker.sh: print the Debian archive URI of this machine's bookworm apt
# entry (deb822 .sources or one-line .list), so no script names a host.
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
