#!/usr/bin/env bash
# Builds a Release tree in build-bench (reused when present) and runs bench_iteration once,
# writing bench/results/cpu_iteration_<UTC date and time>.{json,log}. Extra arguments go to
# bench_iteration (e.g. --precision both, --sizes 1e4,1e5, --threads 1).
#
# The run needs ~5 GB of RAM (Phi is 4 GB at n = 1e6, S = 500 in double) and a few minutes; run it
# on an otherwise idle machine, since the floor and the iterations share the memory bus with
# everything else. The load average at start and end is recorded in the JSON.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
build="$root/build-bench"

# Tests are not needed for the benchmark; leaving them out keeps the build short.
if [[ ! -f "$build/build.ninja" ]]; then
  cmake -G Ninja -DCMAKE_BUILD_TYPE=Release -DCORESET_BUILD_TESTS=OFF -S . -B "$build"
fi
cmake --build "$build" --target bench_iteration

# A fresh repository has no HEAD yet: record "none" rather than failing. "+dirty" marks a tree
# whose library sources differ from the commit, so the number is not attributed to it alone.
commit="$(git rev-parse HEAD 2>/dev/null || echo none)"
if [[ -n "$(git status --porcelain -- src include CMakeLists.txt 2>/dev/null)" ]]; then
  commit="${commit}+dirty"
fi
stamp="$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p bench/results
json="bench/results/cpu_iteration_${stamp}.json"
log="bench/results/cpu_iteration_${stamp}.log"

echo "load before run: $(cat /proc/loadavg)" | tee "$log"
"$build/bench/bench_iteration" --json "$json" --commit "$commit" "$@" \
  2>&1 | tee -a "$log"
echo "results: $json, log: $log"
