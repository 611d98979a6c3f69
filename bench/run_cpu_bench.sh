#!/usr/bin/env bash
# Builds a Release tree in build-bench (reused when present) and runs bench_iteration once,
# writing bench/results/cpu_iteration_<UTC date and time>.{json,log}. Extra arguments go to
# bench_iteration (e.g. --precision both, --sizes 1e4,1e5, --threads 1).
#
# The run needs ~5 GB of RAM (Phi is 4 GB at n = 1e6, S = 500 in double) and a few minutes; run it
# on an otherwise idle machine, since the floor and the iterations share the memory bus with
# everything else. The load average at start and end is recorded in the JSON.
set -euo pipefail
exec "$(dirname "${BASH_SOURCE[0]}")/run_benchmark.sh" bench_iteration cpu_iteration "$@"
