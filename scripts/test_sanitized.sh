#!/usr/bin/env bash
# Builds the library, the command and the CPU test suite with AddressSanitizer and
# UndefinedBehaviorSanitizer in ./build-asan (RelWithDebInfo, frame pointers kept, UBSan fatal),
# then runs the CPU tests there. Any sanitizer report fails the test that triggered it.
# Extra arguments go to ctest (e.g. -R cli). At -O2 -g it took 19 min on the 2-vCPU build VM
# (16 of them compiling, the suite 2.7 min; every test clean); hence -O1 -g1 below.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install_deps.sh
# MPI off: Open MPI's own allocations read as leaks to LeakSanitizer; the distributed solve runs
# here over threads instead (tests/pipeline/test_distributed_solve.cpp), through the same code.
# -O1 -g1: about half the compile time of -O2 -g (the build dominates this script's time), still
# fast enough to run the suite and with line tables for the reports' stack traces.
cmake -G Ninja -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
  -DCORESET_SANITIZE=address,undefined -DCORESET_ENABLE_CUDA=OFF -DCORESET_BUILD_BENCH=OFF \
  -DCORESET_CHECK_HEADERS=OFF -DCORESET_BUILD_PYTHON=OFF -DCORESET_ENABLE_MPI=OFF \
  >/dev/null
cmake --build build-asan --parallel "$(nproc)"
# halt_on_error: the first report fails the test. detect_leaks: leaks are reports too.
# print_stacktrace: UBSan reports say where. Tests labelled "slow" (none yet) are left out.
export ASAN_OPTIONS="halt_on_error=1:detect_leaks=1:abort_on_error=0:strict_string_checks=1:detect_stack_use_after_return=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
ctest --test-dir build-asan --output-on-failure --parallel "$(nproc)" -L cpu -LE slow "$@"
