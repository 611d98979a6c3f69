#!/usr/bin/env bash
# Installs what building and testing coreset needs from Debian's packages. Idempotent.
# The CUDA toolkit is optional (found at /usr/local/cuda when present); it is not in Debian.
set -euo pipefail
packages=(build-essential cmake ninja-build libeigen3-dev libgtest-dev libbenchmark-dev
          libcli11-dev nlohmann-json3-dev clang-format pkgconf
          # scripts/fuzz.sh: clang with libFuzzer and the sanitizer runtimes, and its OpenMP
          clang libclang-rt-14-dev libomp-dev)
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
