# Sourced by scripts/setup.sh (and benchmarks/first_run.sh): `phase NAME CMD ...` runs CMD in this shell and,
# when $CAUSAL_SUITE_TIMES names a file, appends one row "NAME<TAB>wall s<TAB>CPU s" to it (CPU: user + system
# time of this shell and every child it waited for, the compilers pip starts included). Without that variable it
# only runs CMD. Either way its exit status is CMD's.
phase() {
  local name=$1 report status=0
  shift
  if [ -z "${CAUSAL_SUITE_TIMES:-}" ]; then
    "$@"
    return
  fi
  report=$(mktemp)
  local TIMEFORMAT="%R %U %S"
  { time "$@" 2>&3; } 3>&2 2>"$report" || status=$?
  awk -v name="$name" '{ printf "%s\t%.1f\t%.1f\n", name, $1, $2 + $3 }' "$report" >>"$CAUSAL_SUITE_TIMES"
  rm -f "$report"
  return "$status"
}
