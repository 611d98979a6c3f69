#!/usr/bin/env bash
# Shared by run_cpu_bench.sh and run_build_bench.sh: builds a Release tree in build-bench (reused
# when present), runs one benchmark target with the commit recorded, and writes
# bench/results/<prefix>_<UTC date and time>.{json,log}.
# Usage: run_benchmark.sh TARGET PREFIX [arguments for the benchmark...]
set -euo pipefail

target="$1"
prefix="$2"
shift 2
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
build="$root/build-bench"

# Tests are not needed for the benchmark; leaving them out keeps the build short.
if [[ ! -f "$build/build.ninja" ]]; then
  cmake -G Ninja -DCMAKE_BUILD_TYPE=Release -DCORESET_BUILD_TESTS=OFF -S . -B "$build"
fi
cmake --build "$build" --target "$target"

# A fresh repository has no HEAD yet: record "none" rather than failing. "+dirty" marks a tree
# whose library sources differ from the commit, so the number is not attributed to it alone.
commit="$(git rev-parse HEAD 2>/dev/null || echo none)"
if [[ -n "$(git status --porcelain -- src include CMakeLists.txt 2>/dev/null)" ]]; then
  commit="${commit}+dirty"
fi
stamp="$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p bench/results
json="bench/results/${prefix}_${stamp}.json"
log="bench/results/${prefix}_${stamp}.log"

echo "load before run: $(cat /proc/loadavg)" | tee "$log"
"$build/bench/$target" --json "$json" --commit "$commit" "$@" 2>&1 | tee -a "$log"
echo "load after run: $(cat /proc/loadavg)" | tee -a "$log"
echo "results: $json, log: $log"
