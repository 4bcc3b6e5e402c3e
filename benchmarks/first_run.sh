#!/usr/bin/env bash
# Where a new user's first command spends its time (issue 29, item 1): the README's `bash scripts/demo.sh` (setup +
# demo) in a fresh Debian bookworm root (.ci/chroot.sh: Essential set, python3, a clean clone of the committed HEAD,
# ../shared beside it), run twice: the first run on the fresh system, then a second one with everything cached.
# Prints one table: each phase's wall and CPU seconds (CPU: user + system of all its processes) for both runs, the
# total, and the load average, since a loaded machine stretches the wall time but not the CPU time.
#
#   sudo bash benchmarks/first_run.sh             # both runs; the output of each goes to $LOG.1 / $LOG.2 and
#                                                 # its demo logs to $LOG.1.logs / $LOG.2.logs
#   RUNS=1 sudo bash benchmarks/first_run.sh      # the first run only
#
# Phases come from the rows scripts/setup.sh (scripts/phases.sh) and `causal-suite demo` append to
# $CAUSAL_SUITE_TIMES; a phase that did not run in a run (a cached install) shows "-".
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
source "$repo/.ci/chroot.sh"
LOG="${LOG:-/tmp/causal-suite-first-run.log}"
RUNS="${RUNS:-2}"

fresh_root "$repo"
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
for run in $(seq 1 "$RUNS"); do
  echo "[first-run] run $run of $RUNS: bash scripts/demo.sh in the fresh root; output in $LOG.$run" >&2
  rm -f "$root/ci/times.$run"
  # shellcheck disable=SC2016  # expanded inside the root
  in_root CAUSAL_SUITE_TIMES="/ci/times.$run" /bin/bash -c \
    'cd /ci/main && source scripts/phases.sh && phase "total (setup + demo)" bash scripts/demo.sh </dev/null' \
    >"$LOG.$run" 2>&1 || { tail -n 20 "$LOG.$run"; echo "[first-run] run $run failed (log: $LOG.$run)" >&2; exit 1; }
  cp "$root/ci/times.$run" "$LOG.$run.tsv"
  rm -rf "$LOG.$run.logs" && cp -r "$root/ci/main/logs/demo" "$LOG.$run.logs"  # the demo's inspect logs
done

# one row per phase name, in first-seen order; columns: wall and CPU of each run
awk -F'\t' -v runs="$RUNS" '
  FNR == 1 { run++ }
  { if (!($1 in seen)) { seen[$1] = 1; order[++n] = $1 }; wall[$1, run] = $2; cpu[$1, run] = $3 }
  END {
    printf "%-46s", "phase"; for (r = 1; r <= runs; r++) printf "  %14s %8s", (r == 1 ? "first wall s" : "cached wall s"), "CPU s"
    printf "\n"
    for (i = 1; i <= n; i++) {
      printf "%-46s", order[i]
      for (r = 1; r <= runs; r++) {
        if ((order[i], r) in wall) printf "  %14s %8s", wall[order[i], r], cpu[order[i], r]; else printf "  %14s %8s", "-", "-"
      }
      printf "\n"
    }
  }' $(for run in $(seq 1 "$RUNS"); do echo "$LOG.$run.tsv"; done)
echo "load average (1, 5, 15 min): before $load_before, after $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores"
