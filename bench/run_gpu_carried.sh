#!/usr/bin/env bash
# Run this on the device machine, from the repository root, with gpu-carry/ carried (see
# bench/prepare_gpu_run.sh). Everything the GPU must check runs in one call, first things first,
# each step bounded in time, so that a call of at most 10 minutes always returns what it measured.
#
# Steps:
#   1. ctest -L gpu: the GPU tests, with the pytest ones left out (their extension is built for
#      the build machine's Python).
#   2. bench_gpu: the per-iteration cases (issue 16's targets).
#   3. bench_gpu --end-to-end at N = 1e6 and 1e7 (issue 15's targets), README's example on the
#      GPU, `coreset build` on a CSV with and without the GPU warm-up while the file is read, and
#      with every kernel module loaded at once (cli_warm_up), then bench_gpu --primitives: each primitive of an A-IHT II iteration timed alone in a
#      CUDA graph, and bench_gpu_histogram: one histogram pass of the top-k by each way of adding
#      to a shared bin, and the selection whole; bench_gpu_link: the projection's link pass, its
#      values held in registers against stored over z.
#   4. compute-sanitizer memcheck on the newest device code (the compact sparse lists' steps,
#      arrays, column blocks, Laplace), then racecheck, initcheck and synccheck on the primitives.
#   5. The Python extension, compiled there with g++ against that machine's Python and pybind11,
#      then python/tests/test_gpu_arrays.py: arrays made with libcudart, CuPy and PyTorch.
#   6. bench_gpu --end-to-end at N = 1e8 (S = 100).
#   7. bench_build_stages on the host's CPUs: the Laplace fit against its passes over the design;
#      bench_row_blocks (one thread's costs per row block) and bench_parse at 1, 2, 4, 8 and
#      every thread (the CSV reader's scaling).
#   8. bench_gpu --end-to-end at N = 1e8 again with CORESET_HUGE_PAGES=0, its summary and the
#      first's as small_pages_1e8: lines in bench.log.
#
# Output, in $OUT (at most 8 files come back):
#   summary.json, ctest_gpu.log (the Python tests' output appended), bench_iterations.json,
#   bench_end_to_end.json, bench_primitives.json, bench_end_to_end_1e8.json, bench.log
#   (nvidia-smi first), sanitizer.log.
# GPU_RUN_SECONDS (default 540) bounds the whole run: a step that would not fit in what is left is
# recorded as skipped. Each step's bound is about twice what it took on the H100 and H200 runs of
# 2026-11-26 (ctest 43-50 s, iterations 37-41 s, end to end 8-9 s, primitives 7-8 s, memcheck
# 14-16 s, racecheck 91-104 s, Python 53-55 s, N = 1e8 18-25 s), racecheck's more, since its
# tiled-column test grew after those runs; bench_histogram gets 60 s for its host-made vectors of
# 1e8 floats. On the H200 at d8c69d2 (2026-11-28) the whole run took 501 s: ctest 62 s,
# iterations 62, end to end 9, primitives 8, histogram 9, memcheck 21, racecheck out of its 160
# (its filter narrower since), Python 46, N = 1e8 27 and 28, the host's fit 43; bench_parse,
# skipped there for time, took 23 s alone. GPU_RUN_STEPS (a comma-separated list of the step
# names of summary.json, spaces allowed) runs only those, for a short follow-up call; the others
# are recorded as not asked, and a name that is no step fails the run. PYTHON (default python3:
# there, the one with PyTorch and CuPy) runs step 5.
set -uo pipefail

root="$(pwd)"
out="${OUT:-$root/out}"
asked="${GPU_RUN_STEPS:-}"
asked="${asked// /}"
mkdir -p "$out"
budget="${GPU_RUN_SECONDS:-540}"
started=$SECONDS
stage="$root/gpu-carry"
if [[ ! -f "$stage/BUILT_AT" ]]; then
  echo "run_gpu_carried: no gpu-carry/ here (run bench/prepare_gpu_run.sh and carry it)" >&2
  exit 1
fi
built_at="$(cat "$stage/BUILT_AT")"
build_dir="$(cat "$stage/BUILD_DIR")"

# The carried build names files by the paths it was built at: link that path to this checkout,
# and the build folder to the carried copy.
if [[ ! -e "$built_at" ]]; then
  mkdir -p "$(dirname "$built_at")"
  ln -s "$root" "$built_at"
elif [[ "$(cd "$built_at" && pwd -P)" != "$(pwd -P)" ]]; then
  echo "run_gpu_carried: $built_at exists here and is not this checkout; the carried build's" \
    "paths point there" >&2
  exit 1
fi
if [[ ! -e "$root/$build_dir" ]]; then
  ln -s "$stage/$build_dir" "$root/$build_dir"
fi
build="$root/$build_dir"
cuda_root="$(dirname "$(dirname "$(command -v nvcc 2>/dev/null || echo /usr/local/cuda/bin/nvcc)")")"
export LD_LIBRARY_PATH="$build/src:$cuda_root/lib64:$cuda_root/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

{
  echo "=== nvidia-smi"
  nvidia-smi 2>&1 || echo "nvidia-smi failed"
  # Host memory facts behind the set-up's first writes (src/support/huge_pages.hpp).
  echo "=== host memory"
  echo "THP: $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>&1)," \
    "defrag: $(cat /sys/kernel/mm/transparent_hugepage/defrag 2>&1)"
  echo "free page reporting (the kernel's page_reporting module, when it has one):"
  for parameter in /sys/module/page_reporting/parameters/*; do
    [[ -r "$parameter" ]] && echo "  $(basename "$parameter"): $(cat "$parameter" 2>&1)"
  done
  # A virtio balloon (device 0x0005) with feature bit 5 reports free pages to its host, which
  # turns the huge-page advice off by default.
  echo "virtio devices (id, feature bits from bit 0):"
  for device in /sys/bus/virtio/devices/*; do
    [[ -r "$device/device" ]] && echo "  $(basename "$device"): $(cat "$device/device")" \
      "$(cat "$device/features" 2>/dev/null)"
  done
  grep -E 'MemTotal|MemFree|MemAvailable' /proc/meminfo 2>&1
  # The host's CPUs behind the CPU steps: cores against hardware threads, caches.
  echo "=== host CPUs"
  lscpu 2>&1 | grep -E '^(Model name|CPU\(s\)|Thread|Core|Socket|NUMA node\(s\)|L[123])'
  echo "vector extensions: $(grep -o -w -E 'avx2|avx512f|avx512bw|avx512vl' /proc/cpuinfo | sort -u |
    tr '\n' ' ')"
} > "$out/bench.log"

declare -A result
order=()
# step NAME SECONDS LOG COMMAND...: runs COMMAND under `timeout SECONDS`, appending to LOG, unless
# fewer than SECONDS are left of the budget.
step() {
  local name="$1" seconds="$2" log="$3"
  shift 3
  order+=("$name")
  if [[ -n "$asked" && ",${asked}," != *",${name},"* ]]; then
    result[$name]="not asked (GPU_RUN_STEPS)"
    return
  fi
  local left=$((budget - (SECONDS - started)))
  if ((left < seconds)); then
    result[$name]="skipped: ${left} s left of the budget, the step may take ${seconds} s"
    return
  fi
  local began=$SECONDS
  echo "=== $name: $*" >> "$log"
  timeout "$seconds" "$@" >> "$log" 2>&1
  local rc=$?
  local took=$((SECONDS - began))
  case $rc in
    0) result[$name]="passed in ${took} s" ;;
    124) result[$name]="timed out after ${seconds} s" ;;
    *) result[$name]="failed (exit ${rc}) after ${took} s" ;;
  esac
}

step ctest_gpu 150 "$out/ctest_gpu.log" \
  ctest --test-dir "$build" -L gpu -E '^python\.' --timeout 120 --output-on-failure -j 1
# A GPU test skips only when the device is not usable: then nothing was validated.
skipped="$(grep -c '(Skipped)' "$out/ctest_gpu.log" 2>/dev/null)"
if [[ "${result[ctest_gpu]}" == passed* && "$skipped" -gt 0 ]]; then
  result[ctest_gpu]="${result[ctest_gpu]}, but ${skipped} tests skipped (no usable GPU?)"
fi

build_python_extension() {
  local package="$1/coreset"
  mkdir -p "$package"
  cp "$root"/python/coreset/*.py "$package/"
  local suffix
  suffix="$("$PYTHON" -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')"
  # shellcheck disable=SC2046  # the include flags are several words
  g++ -O2 -shared -fPIC -std=c++17 -fvisibility=hidden $("$PYTHON" -m pybind11 --includes) \
    -I"$root/include" -I"$stage/include" "$root"/python/src/*.cpp -L"$build/src" -lcoreset \
    -Wl,-rpath,"$build/src" -o "$package/_core$suffix"
}
python_gpu() {
  local site
  site="$(mktemp -d)"
  build_python_extension "$site" || return 1
  cd "$root/python/tests" &&
    PYTHONPATH="$site" CORESET_BINARY="$build/coreset" "$PYTHON" -m pytest -v -p no:cacheprovider \
      test_gpu_arrays.py test_solve.py
}
export -f build_python_extension python_gpu
PYTHON="${PYTHON:-python3}"
export root stage build PYTHON

# k = 250: the largest budget hinted by default is 256 (kernels/radix_select_logic.hpp).
step bench_iterations 120 "$out/bench.log" "$build/bench/bench_gpu" \
  --json "$out/bench_iterations.json" --sizes 1e5,1e6,1e7 --rows 100,500 \
  --budgets 100,250,1000,10000 --repeats 3
step bench_end_to_end 60 "$out/bench.log" "$build/bench/bench_gpu" \
  --json "$out/bench_end_to_end.json" --sizes 1e5 --rows 100 --budgets 100 --repeats 1 --no-cpu \
  --end-to-end --end-to-end-sizes 1e6,1e7

# README's example (scripts/example.sh) on the GPU, its summary into bench.log: the figures
# README quotes for the GPU backend.
example_gpu() {
  local folder
  folder="$(mktemp -d)"
  "$build/coreset" build --model logistic -k 100 --max-iter 1000 --device gpu \
    --out "$folder/coreset.csv" --report "$folder/report.json"
}
export -f example_gpu
step example_gpu 30 "$out/bench.log" bash -c example_gpu

# `coreset build --device gpu` on a CSV of 2e5 rows (10 covariates and a 0/1 label, about 40 MB,
# made by awk), with the GPU's context made while the file is read (coreset::GpuWarmUp, the
# default) and without (CORESET_GPU_WARM_UP=0), and with the context made so while CUDA loads
# every kernel's module at once (CUDA_MODULE_LOADING=EAGER) rather than each at its first launch,
# three times each, in turn: the wall seconds of each run and its report's stage times into
# bench.log. On the H200 at d8c69d2 README's example spent 0.071 s in pi-hat for 10000 rows on the
# GPU, and the first N = 1e6 build of bench_gpu --end-to-end 0.060 s in Laplace against 0.002 s
# timed again: first launches, which EAGER would move into the warm-up's thread.
cli_warm_up() {
  local folder
  folder="$(mktemp -d)"
  awk 'BEGIN { srand(1); printf "x1"; for (c = 2; c <= 10; ++c) printf ",x%d", c; print ",y";
    for (i = 0; i < 200000; ++i) { z = 0; for (c = 1; c <= 10; ++c) { x = 2 * rand() - 1;
      z += x; printf "%.6f,", x } print (rand() < 1 / (1 + exp(-z)) ? 1 : 0) } }' \
    > "$folder/data.csv"
  local run setting warm loading start
  for run in 1 2 3; do
    for setting in 1:LAZY 0:LAZY 1:EAGER; do
      warm="${setting%%:*}"
      loading="${setting##*:}"
      start=$(date +%s.%N)
      CORESET_GPU_WARM_UP=$warm CUDA_MODULE_LOADING=$loading "$build/coreset" build \
        --model logistic -k 100 --device gpu --data "$folder/data.csv" \
        --out "$folder/coreset.csv" > "$folder/report.txt" || return 1
      echo "cli_warm_up: CORESET_GPU_WARM_UP=$warm CUDA_MODULE_LOADING=$loading run $run:" \
        "$(awk -v from="$start" -v to="$(date +%s.%N)" 'BEGIN { printf "%.3f", to - from }') s;" \
        "$(grep -m1 'time:' "$folder/report.txt" | sed 's/^ *//')"
    done
  done
  rm -rf "$folder"
}
export -f cli_warm_up
step cli_warm_up 40 "$out/bench.log" bash -c cli_warm_up

# Each primitive of an A-IHT II iteration alone in a CUDA graph: where the iteration's time goes.
# A step of its own, so that a failure here leaves the results above whole.
step bench_primitives 45 "$out/bench.log" "$build/bench/bench_gpu" \
  --json "$out/bench_primitives.json" --sizes 1e5,1e6,1e7 --rows 100,500 \
  --budgets 100,1000,10000 --repeats 3 --no-cpu --primitives

# One histogram pass of the top-k by each way of adding to a shared bin, against a read (a few
# seconds): which of kernels/bin_add.cuh's ways the passes should take.
step bench_histogram 60 "$out/bench.log" "$build/bench/bench_gpu_histogram"
# The projection's fused link pass, its values held in registers (production) or stored over z.
step bench_link 30 "$out/bench.log" "$build/bench/bench_gpu_link"

sanitizer="$(command -v compute-sanitizer || echo "$cuda_root/bin/compute-sanitizer")"
# GpuPrimitives holds every sparse step of the compact lists against the CPU; then the device
# arrays, the device column blocks, and Laplace.
step memcheck 60 "$out/sanitizer.log" "$sanitizer" --tool memcheck --leak-check full \
  --error-exitcode 1 "$build/tests/test_cuda" \
  --gtest_filter='GpuPrimitives*:GpuDeviceArrays*:DeviceColumnBlock*:*Laplace*'
# racecheck tracks every shared-memory access, and the one-block selection holds up to 16384 keys
# there: on an H200 (816332d) the top-k test took 56 s for float and the suites 78 s (float) and
# 112 s (double), both clean; at d8c69d2, with the one-block selection slowed by its atomics
# (mended since), the float top-k test took 63 s and the paired selections' 31 s, and the step
# ran out of its 160 s. The top-k tests are left out of the routine run in both precisions
# (clean under racecheck at 816332d, 4a3fc22 and d8c69d2): the paired selections' float test
# runs the same one-block kernel and the histogram passes. The threshold reuse's drifting-vector
# test (128 more selections over 1e5 entries a precision) is left to memcheck: its kernels are
# the ones the paired selections' test runs, with hints at every k they serve. The paired
# selections' and the list products' double tests go the way of the double top-k test (their
# float twins run the same kernels' shared memory).
primitives_for_races='GpuPrimitives*:-*TopKReusesItsThreshold*'
doubles_left_out='GpuPrimitives/*.TopKMatches*:GpuPrimitives/1.BothSelections*:GpuPrimitives/1.ListProducts*'
step racecheck 160 "$out/sanitizer.log" "$sanitizer" --tool racecheck --error-exitcode 1 \
  "$build/tests/test_cuda" --gtest_filter="$primitives_for_races:$doubles_left_out"
step initcheck 30 "$out/sanitizer.log" "$sanitizer" --tool initcheck --error-exitcode 1 \
  "$build/tests/test_cuda" --gtest_filter="$primitives_for_races"
step synccheck 30 "$out/sanitizer.log" "$sanitizer" --tool synccheck --error-exitcode 1 \
  "$build/tests/test_cuda" --gtest_filter="$primitives_for_races"
# Last: the extension is compiled there (about a minute) and checks the Python boundary, which
# changes less often than the kernels.
step python_gpu 90 "$out/ctest_gpu.log" bash -c python_gpu

# Last: the N = 1e8 build (S = 100: Phi is 40 GB of floats), a step of its own. It needs about
# 60 GB of host memory and 60 GB of device memory, and should it fail or run long, every result
# above is whole.
step bench_end_to_end_1e8 90 "$out/bench.log" "$build/bench/bench_gpu" \
  --json "$out/bench_end_to_end_1e8.json" --sizes 1e5 --rows 100 --budgets 100 --repeats 1 \
  --no-cpu --end-to-end --end-to-end-sizes 1e8

# After the GPU's work: the CPU Laplace fit against its passes over the design (issue 15's CPU
# target) on this host's cores, which the build VM (2 vCPUs) cannot tell. S = 20 keeps the
# projection part of the benchmark small; the fit does not depend on S. It times the fit with and
# without the sums prefetching the next block (f4597e1: the "no prefetch" column), which the
# build VM measured faster with it but which was made for this host's 16 cores, where a block's
# reading and arithmetic added up. Text only, into bench.log (a ninth file would not come back).
step bench_cpu_fit 90 "$out/bench.log" "$build/bench/bench_build_stages" \
  --sizes 1e6,1e7 --samples 20 --solve-seconds 0 --no-end-to-end --rounds 1 --repeats 3 \
  --max-iter 1
# Where the fit's time goes per 256-row block on this host's CPU, one thread (the link, the exact
# additions, the sums, and the fit's own pass over the design with and without prefetching),
# beside what the build VM measured (bench/results/laplace_prefetch_batch_20261128/); then the
# same work on 1, 2, 4, 8 and 16 threads at once, per block and thread (a few seconds): whether
# one thread's arithmetic on a cached block slows as the others start (hyperthreads, clocks).
step bench_cpu_row_blocks 60 "$out/bench.log" "$build/bench/bench_row_blocks" --cols 10
# The CSV reader against std::from_chars alone per thread, and its scaling with the threads
# (issue 15's parse targets), at 1, 2, 4, 8 and every thread of this host, on one file: the
# build VM has 2.
step bench_cpu_parse 100 "$out/bench.log" "$build/bench/bench_parse" --megabytes 512 \
  --threads 2,4,8,0 --dir /tmp

# Last, after the CPU steps: the N = 1e8 build again with the huge-page advice off
# (CORESET_HUGE_PAGES=0). At 4a3fc22 its set-up took 2.35 s where make_model alone, after the
# build, took 0.83 s, on a host whose 115 GB free held only 3.3 GB in free blocks of 2 MiB or more
# (host_memory): is it the kernel compacting memory for the advised huge pages (THP in madvise
# mode, as bench.log's head records)? It runs after the CPU steps, not straight after the first
# N = 1e8 build and its 60 GB freed. Its JSON stays on the machine; a summary of the two builds'
# set-up parts and totals goes into bench.log (a ninth file would not come back).
small_pages_1e8() {
  local json=/tmp/bench_end_to_end_1e8_small_pages.json
  CORESET_HUGE_PAGES=0 "$build/bench/bench_gpu" --json "$json" --sizes 1e5 --rows 100 \
    --budgets 100 --repeats 1 --no-cpu --end-to-end --end-to-end-sizes 1e8
  local status=$?
  "$PYTHON" - "$out/bench_end_to_end_1e8.json" "$json" <<'PY'
import json, sys
for label, path in zip(("huge pages advised (the default)", "CORESET_HUGE_PAGES=0"), sys.argv[1:]):
    try:
        case = json.load(open(path))["end_to_end_cases"][-1]
    except (OSError, KeyError, IndexError, ValueError) as error:
        print(f"small_pages_1e8: {label}: no result ({error})")
        continue
    stages = {name: stage["seconds"] for name, stage in case["stages"].items()}
    print(f"small_pages_1e8: {label}: total {case['seconds_total']:.3f} s, setup "
          f"{stages['setup']:.3f} s, parts {json.dumps(case.get('setup_parts'))}, "
          f"model_alone {stages['model_alone']:.3f} s, upload_and_projection "
          f"{stages['upload_and_projection']:.3f} s, solve {stages['solve']:.3f} s, "
          f"process at the first stage {json.dumps(case['host_memory']['process_at_first_stage'])}")
PY
  return "$status"
}
export -f small_pages_1e8
export out
step bench_end_to_end_1e8_small_pages 60 "$out/bench.log" bash -c small_pages_1e8

{
  printf '{\n  "commit": "%s",\n  "date": "%s",\n  "seconds": %d' \
    "$(cat "$stage/COMMIT")" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" $((SECONDS - started))
  for name in "${order[@]}"; do
    printf ',\n  "%s": "%s"' "$name" "${result[$name]}"
  done
  printf '\n}\n'
} > "$out/summary.json"
cat "$out/summary.json"
# A misspelt GPU_RUN_STEPS name would otherwise pass having checked nothing.
if [[ -n "$asked" ]]; then
  IFS=',' read -r -a asked_names <<< "$asked"
  for name in "${asked_names[@]}"; do
    if [[ -z "${result[$name]+set}" ]]; then
      echo "run_gpu_carried: GPU_RUN_STEPS names no step \"$name\" (the steps: ${order[*]})" >&2
      exit 1
    fi
  done
fi
ran=0
for name in "${order[@]}"; do
  [[ "${result[$name]}" == "not asked"* ]] && continue
  ran=$((ran + 1))
  [[ "${result[$name]}" == passed* ]] || exit 1
done
((ran > 0)) || exit 1
