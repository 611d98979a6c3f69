#!/usr/bin/env bash
# Runs inside an image being built (the `smoke` stage of docker/Dockerfile.cpu and .gpu), as the
# image's non-root user, on the image's own files: every shared library the command needs is
# found, `coreset info` runs, `coreset build` computes a coreset of the built-in example
# (README's Quick start) and writes it, and `coreset build --device gpu` does what README's exit
# codes promise: without a usable GPU (any image build, and the CPU image always) it fails with
# exit 7 (device error, src/cli/exit_codes.hpp) and "no usable GPU", writing nothing; with one it
# computes. Everything goes to DIR/smoke.log, whose last line is "coreset docker smoke test: OK"
# only when all of it passed; the final image keeps that log.
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
  info="$(coreset info)"
  echo "$info"
  echo "== coreset build (the built-in example; --device auto, the default, takes the CPU without a GPU)"
  coreset build --model logistic -k 100 --max-iter 1000 \
    --out "$dir/coreset.csv" --report "$dir/report.json"
  [ "$(head -n 1 "$dir/coreset.csv")" = "index,weight" ] || fail "coreset.csv has no header"
  rows=$(($(wc -l <"$dir/coreset.csv") - 1))
  { [ "$rows" -ge 1 ] && [ "$rows" -le 100 ]; } || fail "coreset.csv has $rows rows, not 1..100"
  [ -s "$dir/report.json" ] || fail "no report"
  echo "coreset.csv: $rows rows; report.json: $(wc -c <"$dir/report.json") bytes," \
    "$(grep -o '"backend": *"[a-z]*"' "$dir/report.json" || echo 'no "backend"')"
  gpu_build
  echo "coreset docker smoke test: OK"
}

# `coreset build --device gpu`: exit 7 and the no-GPU message when `coreset info` lists no GPU
# (a build container never has one; the CPU image has no CUDA), else a coreset computed on it.
gpu_build() {
  local gpus out rc
  gpus="$(sed -n 's/^ *GPUs: *//p' <<<"$info")"
  [ -n "$gpus" ] || fail "coreset info has no 'GPUs:' line"
  echo "== coreset build --device gpu (GPUs: $gpus)"
  rc=0
  out="$(coreset build --device gpu --model logistic -k 10 --max-iter 100 \
    --out "$dir/gpu.csv" 2>&1)" || rc=$?
  echo "$out"
  echo "exit status $rc"
  case "$gpus" in
    none*)
      [ "$rc" -eq 7 ] || fail "--device gpu without a GPU exited $rc, not 7 (device error)"
      grep -qF -- '--device gpu: no usable GPU' <<<"$out" || fail "--device gpu: no 'no usable GPU' message"
      [ ! -e "$dir/gpu.csv" ] || fail "--device gpu failed but wrote $dir/gpu.csv"
      ;;
    *)
      [ "$rc" -eq 0 ] || fail "--device gpu with a GPU ($gpus) exited $rc"
      [ -s "$dir/gpu.csv" ] || fail "--device gpu wrote no coreset"
      ;;
  esac
}
smoke 2>&1 | tee "$dir/smoke.log"
