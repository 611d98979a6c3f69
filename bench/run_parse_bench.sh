#!/usr/bin/env bash
# Builds a Release tree in build-bench (reused when present) and runs bench_parse once, writing
# bench/results/parse_<UTC date and time>.{json,log}. Extra arguments go to bench_parse (e.g.
# --megabytes 1000, --dir /some/disk).
#
# Needs the file's size free under --dir (default /tmp, 512 MB) and about as much RAM again for
# the parsed numbers; run it on an otherwise idle machine.
set -euo pipefail
exec "$(dirname "${BASH_SOURCE[0]}")/run_benchmark.sh" bench_parse parse "$@"
