#!/usr/bin/env bash
# Runs inside an image being built (the `smoke` stage of docker/Dockerfile.cpu and .gpu), as the
# image's non-root user, on the image's own files: every shared library the command needs is
# found, `coreset info` runs, and `coreset build` computes a coreset of the built-in example
# (README's Quick start) and writes it. Everything goes to DIR/smoke.log, whose last line is
# "coreset docker smoke test: OK" only when all of it passed; the final image keeps that log.
# Usage: smoke.sh DIR
set -euo pipefail
dir="${1:?usage: smoke.sh DIR}"
mkdir -p "$dir"
fail() { echo "coreset docker smoke test: FAILED: $*"; exit 1; }

smoke() {
  bin="$(command -v coreset)" || fail "coreset is not on PATH"
  echo "== $(id -un) (uid $(id -u)) runs $bin"
  echo "== ldd $bin"
  ldd "$bin"
  for lib in "$bin" "$(dirname "$bin")"/../lib/libcoreset.so*; do
    if ldd "$lib" | grep -q 'not found'; then
      fail "$lib: a shared library is missing"
    fi
  done
  echo "== coreset --version"
  coreset --version
  echo "== coreset info"
  coreset info
  echo "== coreset build (the built-in example)"
  coreset build --model logistic -k 100 --max-iter 1000 \
    --out "$dir/coreset.csv" --report "$dir/report.json"
  [ "$(head -n 1 "$dir/coreset.csv")" = "index,weight" ] || fail "coreset.csv has no header"
  rows=$(($(wc -l <"$dir/coreset.csv") - 1))
  { [ "$rows" -ge 1 ] && [ "$rows" -le 100 ]; } || fail "coreset.csv has $rows rows, not 1..100"
  [ -s "$dir/report.json" ] || fail "no report"
  echo "coreset.csv: $rows rows; report.json: $(wc -c <"$dir/report.json") bytes"
  echo "coreset docker smoke test: OK"
}
smoke 2>&1 | tee "$dir/smoke.log"
