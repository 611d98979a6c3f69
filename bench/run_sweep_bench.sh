#!/usr/bin/env bash
# Issue 19's cost check: one `coreset sweep` over 8 budgets against one cold `coreset build` at
# the largest of them, both whole commands (reading or generating the data, pi-hat, samples,
# Phi, solves, evaluations, writing), wall time, the median of REPEATS runs each (default 3).
# Prints one line per dataset with the ratio sweep / build. Needs a built ./build/coreset (or
# $CORESET_BIN); uses the papers' phishing.csv too when ../shared/data has it. Nothing asserts:
# the number goes in README ("Choosing k").
#
#   bash bench/run_sweep_bench.sh [REPEATS]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bin="${CORESET_BIN:-./build/coreset}"
repeats="${1:-3}"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

# The median wall time of "$@", in seconds.
median_seconds() {
  local times=()
  for _ in $(seq "$repeats"); do
    local start end
    start=$(date +%s.%N)
    "$@" >/dev/null
    end=$(date +%s.%N)
    times+=("$(echo "$end - $start" | bc -l)")
  done
  printf '%s\n' "${times[@]}" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'
}

run_case() {
  local label="$1" budgets="$2" largest="$3"
  shift 3
  local build sweep
  build=$(median_seconds "$bin" build "$@" -k "$largest" --out "$out/c.csv" -q)
  sweep=$(median_seconds "$bin" sweep "$@" -k "$budgets" --out "$out/sweep" -q)
  printf '%-40s build -k %-5s %7.3f s   sweep -k %-28s %7.3f s   ratio %.2f\n' "$label" \
    "$largest" "$build" "$budgets" "$sweep" "$(echo "$sweep / $build" | bc -l)"
}

echo "machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) CPUs; $(git rev-parse --short HEAD)"
run_case "built-in logistic (n = 10000), a-iht-2" 10,20,50,100,200,300,500,1000 1000 \
  --model logistic --device cpu
run_case "built-in logistic (n = 10000), giga" 10,20,50,100,200,300,500,1000 1000 \
  --model logistic --device cpu --algorithm giga
if [ -f ../shared/data/phishing.csv ]; then
  run_case "phishing (n = 500), a-iht-2" 5,10,20,50,100,200,300,400 400 \
    --data ../shared/data/phishing.csv --model logistic --device cpu
fi
