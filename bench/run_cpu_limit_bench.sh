#!/usr/bin/env bash
# README's example on the CPU inside a control group with a CPU quota, as `docker run --cpus=Q`
# runs a container: the library's default threads (the quota rounded to the nearest whole CPU,
# support/cgroup_limits.hpp) against fixed thread counts, by default every core the machine has
# (what the default was before: OpenMP sizes its team by the cores, not the quota).
#
#   bash bench/run_cpu_limit_bench.sh [CORESET_BINARY] [QUOTAS] [REPEATS] [SETTINGS]
#
# CORESET_BINARY defaults to build/coreset, QUOTAS to "0.5 1 1.5" (CPUs), REPEATS to 3, SETTINGS
# to "default N" with N the core count: "default" is `--threads 0`, a number is `--threads` that
# number. The runs of each quota go round the settings REPEATS times. Prints one JSON line per
# run, then a table of medians. Needs root and a writable cgroup file system: the v1 `cpu`
# hierarchy at /sys/fs/cgroup/cpu or a v2 one at /sys/fs/cgroup with the cpu controller; the
# group it makes is removed on exit. Run it on an otherwise idle machine.
set -euo pipefail
binary=${1:-build/coreset}
quotas=${2:-0.5 1 1.5}
repeats=${3:-3}
settings=${4:-default $(nproc)}
period=100000

if [[ -w /sys/fs/cgroup/cpu/cgroup.procs ]]; then
  group=/sys/fs/cgroup/cpu/coreset_bench_$$
  set_quota() { echo "$1" >"$group/cpu.cfs_quota_us"; echo "$period" >"$group/cpu.cfs_period_us"; }
elif [[ -w /sys/fs/cgroup/cgroup.subtree_control ]] && grep -qw cpu /sys/fs/cgroup/cgroup.controllers; then
  # A child has cpu.max only where its parent hands the controller down.
  grep -qw cpu /sys/fs/cgroup/cgroup.subtree_control || echo +cpu >/sys/fs/cgroup/cgroup.subtree_control
  group=/sys/fs/cgroup/coreset_bench_$$
  set_quota() { echo "$1 $period" >"$group/cpu.max"; }
else
  echo "run_cpu_limit_bench.sh: needs root and a writable cgroup cpu controller" >&2
  exit 2
fi
mkdir "$group"
out=$(mktemp -d)
trap 'rmdir "$group" 2>/dev/null || true; rm -rf "$out"' EXIT

# Runs its arguments inside the group.
in_group() { bash -c 'echo $$ >"$0/cgroup.procs"; exec "$@"' "$group" "$@"; }

# One run: its solve seconds, as the command prints them.
solve_seconds() {
  in_group "$binary" build --model logistic -k 100 --max-iter 1000 --device cpu --threads "$1" \
    --out "$out/coreset.csv" --report "$out/report.json" |
    sed -n 's/.*solve \([0-9.]*\),.*/\1/p'
}

declare -A times
declare -A team
for quota in $quotas; do
  set_quota "$(awk -v q="$quota" -v p="$period" 'BEGIN { printf "%d", q * p }')"
  team[$quota]=$(in_group "$binary" info | sed -n 's/.*OpenMP: *yes (\([0-9]*\) threads.*/\1/p')
  for ((r = 0; r < repeats; r++)); do
    for setting in $settings; do
      threads=$setting
      [[ $setting == default ]] && threads=0
      seconds=$(solve_seconds "$threads")
      times[$quota,$setting]+="$seconds "
      used=$threads
      [[ $setting == default ]] && used=${team[$quota]}
      printf '{"quota_cpus": %s, "setting": "%s", "threads": %s, "solve_seconds": %s}\n' \
        "$quota" "$setting" "$used" "$seconds"
    done
  done
done

median() { tr ' ' '\n' | sed '/^$/d' | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
echo
header="| quota (CPUs) | default threads |"
rule="| --- | --- |"
for setting in $settings; do
  [[ $setting == default ]] && header+=" solve, default (median s) |" || header+=" solve, $setting threads (median s) |"
  rule+=" --- |"
done
echo "$header"
echo "$rule"
for quota in $quotas; do
  row="| $quota | ${team[$quota]} |"
  for setting in $settings; do
    row+=" $(echo "${times[$quota,$setting]}" | median) |"
  done
  echo "$row"
done
