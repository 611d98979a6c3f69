#!/usr/bin/env bash
# On a machine with an NVIDIA GPU (H100/H200: sm_90): configures a Release tree for sm_90 in
# build-gpu (reused when present), builds everything, runs the GPU tests (`ctest -L gpu`), the
# whole suite, and bench_gpu, and writes into $OUT (default ./out):
#   gpu_report.json   the benchmark's JSON plus the test outcome, commit, date, nvidia-smi
#   configure.log build.log ctest_gpu.log ctest_all.log bench_gpu.log nvidia-smi.log
# Extra arguments go to bench_gpu (e.g. --sizes 1e5,1e6); without any, bench_gpu runs everything
# in this one call: the per-iteration cases, the CPU comparison and the end-to-end builds at
# N = 1e6, 1e7 (S = 500) and 1e8 (S = 100), each stage beside its floor.
# CUDA_ARCHITECTURES overrides the architectures (default 90-real;90-virtual).
# Exit status: 0 when the tests passed and the benchmark ran, 1 otherwise.
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${OUT:-$root/out}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
build="${BUILD_DIR:-$root/build-gpu}"
arch="${CUDA_ARCHITECTURES:-90-real;90-virtual}"
jobs="$(nproc 2>/dev/null || echo 4)"
cd "$root"

nvidia-smi > "$out/nvidia-smi.log" 2>&1 || echo "nvidia-smi failed" >> "$out/nvidia-smi.log"
commit="$(git rev-parse HEAD 2>/dev/null || echo none)"
if [[ -n "$(git status --porcelain -- src include kernels CMakeLists.txt 2>/dev/null)" ]]; then
  commit="${commit}+dirty"
fi

status=0
cmake -G Ninja -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCORESET_ENABLE_CUDA=ON \
  "-DCMAKE_CUDA_ARCHITECTURES=$arch" > "$out/configure.log" 2>&1 || status=1
if [[ $status -eq 0 ]]; then
  cmake --build "$build" -j "$jobs" > "$out/build.log" 2>&1 || status=1
fi

gpu_tests="not run"
all_tests="not run"
if [[ $status -eq 0 ]]; then
  if ctest --test-dir "$build" -L gpu --output-on-failure -j 1 > "$out/ctest_gpu.log" 2>&1; then
    gpu_tests="passed"
  else
    gpu_tests="failed"
    status=1
  fi
  if ctest --test-dir "$build" --output-on-failure -j "$jobs" > "$out/ctest_all.log" 2>&1; then
    all_tests="passed"
  else
    all_tests="failed"
    status=1
  fi
  # A GPU test that skipped means the device was not usable: that is not a validation.
  if grep -q "Skipped" "$out/ctest_gpu.log"; then
    gpu_tests="${gpu_tests} (some skipped: see ctest_gpu.log)"
  fi
fi

bench_json="$out/bench_gpu.json"
bench_args=("$@")
if [[ ${#bench_args[@]} -eq 0 ]]; then
  bench_args=(--end-to-end --end-to-end-sizes 1e6,1e7,1e8)
fi
if [[ -x "$build/bench/bench_gpu" ]]; then
  "$build/bench/bench_gpu" --json "$bench_json" "${bench_args[@]}" > "$out/bench_gpu.log" 2>&1 ||
    status=1
fi

python3 - "$out" "$commit" "$gpu_tests" "$all_tests" "$bench_json" <<'PY'
import json, os, sys, datetime
out, commit, gpu_tests, all_tests, bench_json = sys.argv[1:6]
report = {
    "date": datetime.datetime.now(datetime.timezone.utc).isoformat(),
    "commit": commit,
    "ctest_gpu": gpu_tests,
    "ctest_all": all_tests,
}
try:
    with open(bench_json) as f:
        report["bench"] = json.load(f)
except (OSError, ValueError) as error:
    report["bench"] = {"error": str(error)}
with open(os.path.join(out, "gpu_report.json"), "w") as f:
    json.dump(report, f, indent=2)
    f.write("\n")
summary = {k: report[k] for k in ("commit", "ctest_gpu", "ctest_all")}
# Each end-to-end build against its floor, as measured (nothing when the bench did not run).
for case in report["bench"].get("end_to_end_cases", []):
    summary["end_to_end N=%g S=%d" % (case["N"], case["S"])] = {
        "seconds_total": case["seconds_total"],
        "floor_seconds": case["floor_seconds"],
        "stages": {name: [stage["seconds"], stage["floor_seconds"]]
                   for name, stage in case["stages"].items()},
    }
print(json.dumps(summary))
PY
exit $status
