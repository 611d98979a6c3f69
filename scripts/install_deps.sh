#!/usr/bin/env bash
# Installs what building and testing coreset needs from Debian's packages. Idempotent.
# The CUDA toolkit is optional (found at /usr/local/cuda when present); it is not in Debian.
# CORESET_DEPS=build installs only what building the library and the command needs (no tests,
# benchmarks or format check): the Docker images' build stages use it (scripts/build_release.sh).
set -euo pipefail
packages=(build-essential cmake ninja-build libeigen3-dev libcli11-dev nlohmann-json3-dev pkgconf)
case "${CORESET_DEPS:-all}" in
  # scripts/fuzz.sh needs clang with libFuzzer and the sanitizer runtimes, and its OpenMP.
  # The Python package (python/, pip install .): Debian's Python headers, pybind11, NumPy,
  # pytest, venv and DLPack's header. Open MPI: the distributed solve and its tests (tests/mpi).
  # ccache: CI's second build of the library (the Python package's) comes from the cache.
  all) packages+=(ccache libopenmpi-dev openmpi-bin libgtest-dev libbenchmark-dev clang-format clang libclang-rt-14-dev libomp-dev
                  python3-dev pybind11-dev python3-pybind11 python3-numpy python3-pytest
                  python3-venv python3-setuptools python3-wheel python3-pip libdlpack-dev) ;;
  build) ;;
  *) echo "install_deps.sh: CORESET_DEPS must be 'all' or 'build'" >&2; exit 2 ;;
esac
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "installing: ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
