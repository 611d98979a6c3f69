#!/usr/bin/env bash
# Strong and weak scaling of the distributed solve on this machine's CPU ranks (one thread each),
# and the latency of its collectives: mpirun -np R bench_distributed for R = 1 ... the core count.
# Writes bench/results/mpi_<date>_<commit>.jsonl (one line per run) and prints it.
# Usage: bench/run_mpi_bench.sh [BUILD_DIR]   (default build; needs a build with MPI)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build}"
bench="$build/bench/bench_distributed"
[ -x "$bench" ] || { echo "no $bench: build with MPI (libopenmpi-dev) first" >&2; exit 1; }
cores="$(nproc)"
mpirun=(mpirun --bind-to core)
[ "$(id -u)" -ne 0 ] || mpirun+=(--allow-run-as-root)
out="$root/bench/results/mpi_$(date -u +%Y%m%d)_$(git -C "$root" rev-parse --short HEAD).jsonl"
: > "$out"
for ranks in $(seq 1 "$cores"); do
  # Strong scaling: n = 400 000 in all. Weak: 200 000 per rank. S = 100, k = 1000.
  "${mpirun[@]}" -np "$ranks" "$bench" --n 400000 --samples 100 -k 1000 --iterations 40 \
    --json "$out" > /dev/null
  "${mpirun[@]}" -np "$ranks" "$bench" --n $((200000 * ranks)) --samples 100 -k 1000 \
    --iterations 40 --json "$out" > /dev/null
done
cat "$out"
echo "written: $out"
