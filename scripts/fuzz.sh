#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, AddressSanitizer + UndefinedBehaviorSanitizer) in
# build-fuzz and runs each for a bounded time, starting from the seed corpus under fuzz/corpus.
# New corpus entries go to build-fuzz/corpus (the seeds are not modified); a crash, a hang
# (-timeout), a leak or a sanitizer report stops that target and leaves the input in
# build-fuzz/artifacts. Exits non-zero if any target found something.
#
# Usage: scripts/fuzz.sh [SECONDS_PER_TARGET (default 20)] [TARGET...]
#   targets: dataset_csv matrix_csv libsvm npy coreset_csv (default: all)
set -euo pipefail
seconds="${1:-20}"
shift || true
targets=("$@")
if [[ ${#targets[@]} -eq 0 ]]; then
  targets=(dataset_csv matrix_csv libsvm npy coreset_csv)
fi
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$root/build-fuzz"
jobs="${FUZZ_BUILD_JOBS:-2}"

if [[ ! -f "$build/build.ninja" ]]; then
  CXX=clang++ cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCORESET_BUILD_FUZZERS=ON -DCORESET_BUILD_TESTS=OFF -DCORESET_BUILD_BENCH=OFF \
    -DCORESET_ENABLE_CUDA=OFF -DCORESET_ENABLE_MPI=OFF >/dev/null
fi
cmake --build "$build" -j "$jobs" --target fuzzers

mkdir -p "$build/artifacts"
failed=()
for target in "${targets[@]}"; do
  corpus="$build/corpus/$target"
  mkdir -p "$corpus"
  echo "== fuzz_$target: ${seconds}s"
  # -max_len 4096 keeps inputs (and so the readers' allocations) small; -timeout flags any input
  # taking over 10 s as a hang; -rss_limit_mb bounds memory.
  if ! "$build/fuzz/fuzz_$target" "$corpus" "$root/fuzz/corpus/$target" \
      -max_total_time="$seconds" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
      -artifact_prefix="$build/artifacts/${target}-" -print_final_stats=1 \
      >"$build/fuzz_$target.log" 2>&1; then
    failed+=("$target")
    tail -n 40 "$build/fuzz_$target.log"
  fi
  grep -E "^stat::number_of_executed_units|^#[0-9]+.*DONE" "$build/fuzz_$target.log" | tail -n 2 || true
done
if [[ ${#failed[@]} -gt 0 ]]; then
  echo "fuzz.sh: findings in: ${failed[*]} (inputs in $build/artifacts)"
  exit 1
fi
echo "fuzz.sh: no findings"
