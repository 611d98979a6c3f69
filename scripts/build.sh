#!/usr/bin/env bash
# Configures and builds a Release build in ./build, or in $CORESET_BUILD_DIR (reused when
# present). Arguments are passed to cmake's configure step (e.g. -DCORESET_ENABLE_CUDA=OFF).
# $CORESET_BUILD_TARGETS (space-separated) builds only those targets; default: everything.
set -euo pipefail
cd "$(dirname "$0")/.."
build="${CORESET_BUILD_DIR:-build}"
bash scripts/install_deps.sh
cmake -G Ninja -S . -B "$build" -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
targets=()
for target in ${CORESET_BUILD_TARGETS:-}; do
  targets+=(--target "$target")
done
cmake --build "$build" --parallel "$(nproc)" "${targets[@]}"
