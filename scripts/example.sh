#!/usr/bin/env bash
# README's first command: set up, build, and compute a coreset for the built-in example
# (a Gaussian mean model with N = 5000 datapoints, S = 200 posterior samples).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
mkdir -p build/example
./build/gaussian_mean_phi build/example/phi.npy 5000 20 200 1
./build/coreset solve --phi build/example/phi.npy -k 30 \
  --out build/example/coreset.csv --report build/example/report.json
echo "coreset written to build/example/coreset.csv, report to build/example/report.json"
