# Sourced at the top of every shell script of the project (.ci/run, .ci/docker.sh, scripts/*.sh, sandboxes/r/*.sh):
# each names the tools it calls, and what is absent is installed from Debian before the script goes on, so a freshly
# provisioned Debian machine needs nothing installed by hand. Debian's Essential packages (coreutils, grep, sed,
# tar, findutils, mawk, util-linux, dpkg, apt) are taken as present; everything else is named.
#
#   require_commands CMD:PACKAGE ...   # install PACKAGE when CMD is not on PATH (CMD may be an absolute path)
#   require_packages PACKAGE ...       # install each Debian package dpkg does not list as installed
#
# Each call prints one line naming what it installs; nothing when all is there. `apt-get update` runs at most once
# per script run. Root or sudo is needed only when something is missing.
_require_updated=""

_require_install() {
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null 2>&1 \
      || { echo "[require] missing Debian packages $*, and not root (no sudo to install them)" >&2; return 1; }
    sudo="sudo"
  fi
  echo "[require] installing from Debian: $*" >&2
  if [ -z "$_require_updated" ]; then
    DEBIAN_FRONTEND=noninteractive $sudo apt-get update -qq
    _require_updated=1
  fi
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

require_commands() {
  local pair cmd missing=()
  for pair in "$@"; do
    cmd=${pair%%:*}
    if [ "${cmd#/}" != "$cmd" ]; then [ -x "$cmd" ] && continue; else command -v "$cmd" >/dev/null 2>&1 && continue; fi
    missing+=("${pair#*:}")
  done
  [ "${#missing[@]}" -eq 0 ] || _require_install $(printf '%s\n' "${missing[@]}" | sort -u)
}

require_packages() {
  local pkg missing=()
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
  done
  [ "${#missing[@]}" -eq 0 ] || _require_install "${missing[@]}"
}
