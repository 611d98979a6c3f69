#!/usr/bin/env bash
# Run this on the build machine (toolchain and dependencies; no GPU needed). It prepares one call
# of the device machine, which has nvcc, CMake and ninja but not Eigen, GoogleTest, CLI11 or MPI,
# so nothing can be built there.
#
# What it does:
#   1. Builds a Release tree for sm_90 (H100/H200) in build-sm90: CUDA on, MPI off, since the
#      device machine has no libmpi.
#   2. Stages in gpu-carry/ what bench/run_gpu_carried.sh runs there: the executables, libcoreset,
#      ctest's files (their absolute paths are recreated there by a link), the Python package's
#      links, and DLPack's header (Debian's libdlpack-dev), for the Python extension, which is
#      compiled there against that machine's Python.
#   3. Prints the size of what will travel and the call to make.
#
# gpu-carry/ must be ignored by git. This script adds it to .git/info/exclude.
# The call to make:
#   run(command="bash bench/run_gpu_carried.sh", carry=["gpu-carry"], timeout_s=600)
# Environment: BUILD_DIR (default build-sm90), CUDA_ARCHITECTURES (default 90-real;90-virtual).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
build="${BUILD_DIR:-build-sm90}"
arch="${CUDA_ARCHITECTURES:-90-real;90-virtual}"
stage="gpu-carry"

CORESET_BUILD_DIR="$build" bash scripts/build.sh -DCORESET_ENABLE_CUDA=ON \
  "-DCMAKE_CUDA_ARCHITECTURES=$arch" -DCORESET_ENABLE_MPI=OFF
if [[ ! -x "$build/tests/test_cuda" || ! -x "$build/bench/bench_gpu" ]]; then
  echo "prepare_gpu_run: $build has no test_cuda or bench_gpu (was CUDA found?)" >&2
  exit 1
fi
if ldd "$build/coreset" | grep -q libmpi; then
  echo "prepare_gpu_run: $build links MPI, which the device machine lacks" >&2
  exit 1
fi

grep -qx "/$stage/" .git/info/exclude 2>/dev/null || echo "/$stage/" >> .git/info/exclude
rm -rf "$stage"
mkdir -p "$stage/$build" "$stage/include/dlpack"
(
  cd "$build"
  # Executables, the shared library (with its version links), ctest's files (the test lists that
  # gtest_discover_tests wrote included), and the Python package's links to python/coreset.
  {
    find . -maxdepth 1 -type f -name coreset
    find bench -maxdepth 1 -type f -perm -u+x
    # Of the test executables only those with tests labelled gpu, the only ones run there
    # (gtest_discover_tests' lists name the others, which ctest -L gpu never starts): the CPU
    # test executables would take about 30 MiB of the 64 MiB that may travel.
    find tests -maxdepth 1 -type f -perm -u+x | while read -r executable; do
      if grep -qs 'LABELS gpu' "${executable}[1]_tests.cmake"; then
        echo "$executable"
      fi
    done
    find src -maxdepth 1 -name 'libcoreset.so*'
    find . -name CTestTestfile.cmake -o -name '*_tests.cmake' -o -name '*_include.cmake'
    find python -maxdepth 2 -type l
  } | sed 's|^\./||' | sort -u | while read -r path; do
    mkdir -p "$root/$stage/$build/$(dirname "$path")"
    cp -P "$path" "$root/$stage/$build/$path"
  done
)
# Symbol tables are not needed there (the dynamic symbols stay): about 13% of what travels.
find "$stage/$build" -type f | while read -r path; do
  if [[ "$(head -c 4 "$path" | od -An -c | tr -d ' ')" == '177ELF' ]]; then
    strip --strip-unneeded "$path"
  fi
done
cp /usr/include/dlpack/dlpack.h "$stage/include/dlpack/"
echo "$root" > "$stage/BUILT_AT"
echo "$build" > "$stage/BUILD_DIR"
git rev-parse HEAD > "$stage/COMMIT" 2>/dev/null || echo none > "$stage/COMMIT"

# The working tree travels too: tracked files and untracked ones git does not ignore.
tree_bytes="$(git ls-files -z --cached --others --exclude-standard | xargs -0 du -cb 2>/dev/null |
  tail -1 | cut -f1)"
stage_bytes="$(du -sb "$stage" | cut -f1)"
total=$((tree_bytes + stage_bytes))
printf 'gpu-carry: %d MiB; working tree: %d MiB; together %d MiB (the limit is 64 MiB)\n' \
  $((stage_bytes >> 20)) $((tree_bytes >> 20)) $((total >> 20))
if ((total > 60 << 20)); then
  echo "prepare_gpu_run: too large to travel" >&2
  exit 1
fi
echo 'now: run(command="bash bench/run_gpu_carried.sh", carry=["gpu-carry"], timeout_s=600)'
