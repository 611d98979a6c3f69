#!/usr/bin/env bash
# Builds a Release tree in build-bench (reused when present) and runs bench_build_stages once,
# writing bench/results/build_stages_<UTC date and time>.{json,log}. Extra arguments go to
# bench_build_stages (e.g. --sizes 1e4,1e5, --max-iter 100, --no-end-to-end).
#
# The run needs ~9 GB of RAM at n = 1e6 (the library's Phi and the benchmark's own buffer, 4 GB
# each in double at S = 500) and about 10 minutes, most of it the two a-iht-2 solves at n = 1e6
# (the stage itself and the end-to-end build_coreset). Before every measurement the benchmark
# waits (up to --max-wait seconds) until other processes use at most 5% of the CPUs, and it
# measures again when they went above 5% during the measurement (up to --retries times); what is
# still disturbed is marked DISTURBED in the table and the JSON ("clean": false).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
build="$root/build-bench"

# Tests are not needed for the benchmark; leaving them out keeps the build short.
if [[ ! -f "$build/build.ninja" ]]; then
  cmake -G Ninja -DCMAKE_BUILD_TYPE=Release -DCORESET_BUILD_TESTS=OFF -S . -B "$build"
fi
cmake --build "$build" --target bench_build_stages

# A fresh repository has no HEAD yet: record "none" rather than failing. "+dirty" marks a tree
# whose library sources differ from the commit, so the number is not attributed to it alone.
commit="$(git rev-parse HEAD 2>/dev/null || echo none)"
if [[ -n "$(git status --porcelain -- src include CMakeLists.txt 2>/dev/null)" ]]; then
  commit="${commit}+dirty"
fi
stamp="$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p bench/results
json="bench/results/build_stages_${stamp}.json"
log="bench/results/build_stages_${stamp}.log"

echo "load before run: $(cat /proc/loadavg)" | tee "$log"
"$build/bench/bench_build_stages" --json "$json" --commit "$commit" "$@" \
  2>&1 | tee -a "$log"
echo "load after run: $(cat /proc/loadavg)" | tee -a "$log"
echo "results: $json, log: $log"
