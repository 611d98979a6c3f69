# Sourced by the tests/mpi checks, which set coreset (the binary), subcommand (build or solve),
# ranks and mpiexec first: a work folder removed at exit, the launcher for $ranks ranks, and the
# comparisons of an mpirun job with one process.
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"
mpirun=("$mpiexec" --oversubscribe -np "$ranks")
[ "$(id -u)" -ne 0 ] || mpirun=("$mpiexec" --allow-run-as-root --oversubscribe -np "$ranks")
fail() { echo "FAIL: $*" >&2; exit 1; }

# The quality block of a report (KLs, relative error, posterior method) as one line; a solve
# report has none.
quality() { tr -d ' \n' < "$1" | grep -o '"quality":{[^}]*}' || true; }

# compare NAME ARGS...: `coreset $subcommand ARGS` alone and under mpirun, both on the CPU (the
# bit-for-bit promise is the CPU's), must write the same coreset byte for byte and report the
# same quality; the report must name the ranks.
compare() {
  local name="$1"
  shift
  "$coreset" -q "$subcommand" "$@" --device cpu --out "one_$name.csv" --report "one_$name.json"
  "${mpirun[@]}" "$coreset" -q "$subcommand" "$@" --device cpu --out "many_$name.csv" \
    --report "many_$name.json" || fail "$name: mpirun exited with $?"
  cmp "one_$name.csv" "many_$name.csv" || fail "$name: $ranks ranks differ from one process"
  [ "$(quality "one_$name.json")" = "$(quality "many_$name.json")" ] ||
    fail "$name: the quality differs: $(quality "one_$name.json") vs $(quality "many_$name.json")"
  grep -q "\"ranks\": $ranks" "many_$name.json" || fail "$name: the report does not name $ranks ranks"
  [ "$(wc -l < "one_$name.csv")" -gt 2 ] || fail "$name: an empty coreset proves nothing"
}

# expect_one_failure NAME STATUS EXPECTED ERRORS [PATTERN]: the mpirun job that just ran exited
# with STATUS, which must be EXPECTED, and wrote exactly one message (to the file ERRORS),
# matching PATTERN when one is given.
expect_one_failure() {
  local name="$1" status="$2" expected="$3" errors="$4" pattern="${5:-}"
  [ "$status" -eq "$expected" ] || { cat "$errors" >&2; fail "$name: exit $status, not $expected"; }
  [ "$(grep -c '^coreset: ' "$errors")" -eq 1 ] || { cat "$errors" >&2; fail "$name: not one message"; }
  [ -z "$pattern" ] || grep -q "$pattern" "$errors" ||
    { cat "$errors" >&2; fail "$name: the message does not name the file, line and rank"; }
}
