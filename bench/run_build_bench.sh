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
exec "$(dirname "${BASH_SOURCE[0]}")/run_benchmark.sh" bench_build_stages build_stages "$@"
