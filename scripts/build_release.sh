#!/usr/bin/env bash
# Builds what ships, the library and the `coreset` command, through scripts/build.sh (the build
# CI runs), without tests or benchmarks, and installs it, stripped, into PREFIX. The Docker images
# (docker/Dockerfile.cpu, docker/Dockerfile.gpu) build with this script, so they build the way CI
# does. Usage: scripts/build_release.sh PREFIX [cmake configure options...]
# The build folder is $CORESET_BUILD_DIR, default ./build-release (./build, the development build
# with tests, is left alone). Set CORESET_DEPS=build to install only the build dependencies.
set -euo pipefail
if [ $# -lt 1 ] || [ -z "$1" ]; then
  echo "usage: $0 PREFIX [cmake configure options...]" >&2
  exit 2
fi
prefix="$1"
shift
cd "$(dirname "$0")/.."
export CORESET_BUILD_DIR="${CORESET_BUILD_DIR:-build-release}"
bash scripts/build.sh -DCORESET_BUILD_TESTS=OFF -DCORESET_BUILD_BENCH=OFF -DCORESET_BUILD_PYTHON=OFF \
  -DCMAKE_INSTALL_PREFIX="$prefix" "$@"
cmake --install "$CORESET_BUILD_DIR" --prefix "$prefix" --strip >/dev/null
echo "build_release: installed into $prefix:"
(cd "$prefix" && find . -type f -o -type l | sort | sed 's|^\./|  |')
