# Sourced by the tests/mpi checks, which set coreset (the binary), subcommand (build or solve),
# ranks and mpiexec first: a work folder removed at exit, the launcher for $ranks ranks, and the
# comparisons of an mpirun job with one process.
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"
# Open MPI's session directory in this check's own folder: ctest runs the checks side by side,
# and Open MPI 4 jobs that start together can race on one under /tmp (open-mpi/ompi#8510; a
# 1-rank check once failed at its first mpirun, in 0.6 s, beside another check).
export OMPI_MCA_orte_tmpdir_base="$work"
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

# check_devices NAME ARGS...: where the ranks run, after `compare NAME ARGS...`. Its CPU ranks'
# report names R CPU ranks. Without a GPU, --device auto puts every rank on the CPU with one
# notice (rank 0's) and the same coreset, and --device gpu stops every rank with one message and
# the device error's exit code (7), writing nothing. With one, every rank takes a GPU (ranks on
# one machine share it round-robin), and the relative error is one GPU's to rounding.
check_devices() {
  local name="$1"
  shift
  local devices cpu_list
  devices() { tr -d ' \n' < "$1" | grep -o '"device_per_rank":\[[^]]*\]'; }
  cpu_list="$(printf '"cpu",%.0s' $(seq "$ranks"))"
  [ "$(devices "many_$name.json")" = "\"device_per_rank\":[${cpu_list%,}]" ] ||
    fail "$name: the report does not name $ranks CPU ranks: $(devices "many_$name.json")"
  if "$coreset" info | grep -q '^  GPUs: *none'; then
    "${mpirun[@]}" "$coreset" "$subcommand" "$@" --device auto --out "auto_$name.csv" \
      2> "auto_$name.err" > /dev/null || fail "$name auto: mpirun exited with $?"
    [ "$(grep -c 'notice: rank 0 has no usable GPU' "auto_$name.err")" -eq 1 ] ||
      { cat "auto_$name.err" >&2; fail "$name auto: not one notice of the missing GPU"; }
    cmp "auto_$name.csv" "many_$name.csv" || fail "$name auto: the CPU ranks' coreset differs"
    set +e
    "${mpirun[@]}" "$coreset" -q "$subcommand" "$@" --device gpu --out "gpu_$name.csv" \
      2> "gpu_$name.err"
    local status=$?
    set -e
    expect_one_failure "$name no GPU" "$status" 7 "gpu_$name.err" "GPU.*(rank 0 of $ranks)"
    [ ! -e "gpu_$name.csv" ] || fail "$name no GPU: an output was written"
    return
  fi
  local precision
  for precision in double float; do
    "$coreset" -q "$subcommand" "$@" --device gpu --precision "$precision" \
      --report "one_gpu_$precision.json" --out "one_gpu_$precision.csv"
    "${mpirun[@]}" "$coreset" -q "$subcommand" "$@" --device gpu --precision "$precision" \
      --report "many_gpu_$precision.json" --out "many_gpu_$precision.csv" ||
      fail "$name gpu $precision: mpirun exited with $?"
    devices "many_gpu_$precision.json" | grep -q '^"device_per_rank":\["gpu' ||
      fail "$name gpu $precision: the ranks ran on $(devices "many_gpu_$precision.json")"
    /usr/bin/python3 - "$precision" "one_gpu_$precision.json" "many_gpu_$precision.json" <<'PY' ||
import json, sys
precision, one, many = sys.argv[1], json.load(open(sys.argv[2])), json.load(open(sys.argv[3]))
tolerance = 1e-6 if precision == "double" else 1e-3
a, b = one["relative_error"], many["relative_error"]
sys.exit(0 if abs(a - b) <= tolerance * max(a, b) + 1e-12 else f"relative error {a} vs {b}")
PY
      fail "$name gpu $precision: $ranks GPU ranks do not match one GPU"
  done
}
