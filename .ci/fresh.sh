#!/usr/bin/env bash
# Rehearse CI on a truly fresh system (issue 24): a clean clone of the committed HEAD runs `CI=true bash .ci/run`
# with the Docker stage off, inside a new Debian bookworm root (.ci/chroot.sh: debootstrap --variant=minbase, run
# under bubblewrap) with only Debian's Essential set and python3 (plus ca-certificates for pip). Every other tool CI
# needs must come from the project's own scripts; a missing install step fails here as it would on a new machine.
#
#   bash .ci/fresh.sh            # rehearse HEAD; prints the tail of the run and its exit code
#   KEEP=1 bash .ci/fresh.sh     # keep the chroot afterwards (its path is printed) to look around
#
# Needs root. The full log goes to $LOG (default /tmp/causal-suite-fresh.log).
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
source "$repo/.ci/chroot.sh"
LOG="${LOG:-/tmp/causal-suite-fresh.log}"

start=$(date +%s)
fresh_root "$repo"
echo "[fresh] running CI=true bash .ci/run (Docker stage off) in the chroot; log: $LOG"
set +e
in_root CI=true CAUSAL_SUITE_CI_DOCKER=0 /bin/bash -c 'cd /ci/main && bash .ci/run </dev/null' >"$LOG" 2>&1
rc=$?
set -e
tail -n 25 "$LOG"
echo "[fresh] fresh-system CI exited $rc after $(( $(date +%s) - start )) s"
exit "$rc"
