#!/usr/bin/env bash
# README's first command: set up, build, and build a coreset for the built-in example (the
# papers' synthetic logistic-regression problem, N = 10,000; spec 3.6), with a quality report.
set -euo pipefail
cd "$(dirname "$0")/.."
# The command and its library only: the test suite and the benchmarks are scripts/test.sh's.
CORESET_BUILD_TARGETS=coreset_cli bash scripts/build.sh
mkdir -p build/example
./build/coreset build --model logistic -k 100 --max-iter 1000 \
  --out build/example/coreset.csv --report build/example/report.json
echo "coreset written to build/example/coreset.csv, report to build/example/report.json"
