#!/usr/bin/env bash
# Checks the installed library as a consumer sees it: installs the build in ./build (or
# $CORESET_BUILD_DIR; configured and built first when absent) into a temporary prefix, checks the
# layout, the SONAME and that no private dependency (Eigen, OpenMP, CUDA) leaks into the headers,
# the CMake package or coreset.pc, then builds and runs examples/consumer with find_package(Coreset)
# and the same program with `pkg-config --cflags --libs coreset`. Removes the prefix afterwards.
set -euo pipefail
cd "$(dirname "$0")/.."
build="${CORESET_BUILD_DIR:-build}"
[ -f "$build/CMakeCache.txt" ] || bash scripts/build.sh
cmake --build "$build" --target coreset coreset_cli >/dev/null

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
prefix="$tmp/prefix"
fail() { echo "check_install: $*" >&2; exit 1; }

echo "== install into a temporary prefix"
cmake --install "$build" --prefix "$prefix" >/dev/null
pc="$(find "$prefix" -name coreset.pc)"
[ -n "$pc" ] || fail "coreset.pc not installed"
libdir="$(dirname "$(dirname "$pc")")"
for f in include/coreset/coreset.hpp bin/coreset; do
  [ -e "$prefix/$f" ] || fail "$f not installed"
done
for f in libcoreset.so cmake/Coreset/CoresetConfig.cmake cmake/Coreset/CoresetConfigVersion.cmake \
         cmake/Coreset/CoresetTargets.cmake; do
  [ -e "$libdir/$f" ] || fail "${libdir#"$prefix"/}/$f not installed"
done
soname="$(readelf -d "$libdir/libcoreset.so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')"
[ -e "$libdir/$soname" ] || fail "SONAME '$soname' has no file"
(cd "$prefix" && find . -type f -o -type l | sort | sed 's|^\./|  |')

echo "== no private dependency in the public interface"
if grep -HnE '#include *[<"](Eigen|omp\.h|cuda|cublas|thrust)' "$prefix"/include/coreset/*.hpp ||
   grep -HnE 'Eigen|OpenMP|CUDA|gomp|cudart' "$libdir"/cmake/Coreset/*.cmake "$pc" |
   grep -vE '^[^:]*:[0-9]+: *#'; then  # comments may name them
  fail "a private dependency appears above"
fi
for h in "$prefix"/include/coreset/*.hpp; do  # each header compiles alone, with no other -I
  echo "#include <coreset/$(basename "$h")>" |
    c++ -std=c++17 -fsyntax-only -Wall -Wextra -Werror -I"$prefix/include" -x c++ - ||
    fail "$(basename "$h") does not compile on its own"
done

echo "== examples/consumer with find_package(Coreset)"
cmake -G Ninja -S examples/consumer -B "$tmp/consumer" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF >"$tmp/configure.log" ||
  { cat "$tmp/configure.log"; fail "the consumer does not configure"; }
grep -qF "from $libdir/cmake/Coreset" "$tmp/configure.log" ||
  { cat "$tmp/configure.log"; fail "the consumer found another Coreset"; }
cmake --build "$tmp/consumer" >/dev/null
"$tmp/consumer/coreset_consumer"

echo "== the same program with pkg-config"
export PKG_CONFIG_PATH="$libdir/pkgconfig"
[ "$(pkg-config --modversion coreset)" = "$("$prefix/bin/coreset" --version | awk '{print $NF}')" ] ||
  fail "coreset.pc's version differs from the installed command's"
echo "pkg-config --cflags --libs coreset: $(pkg-config --cflags --libs coreset)"
# shellcheck disable=SC2046  # word splitting of the flags is intended
c++ -std=c++17 -O2 examples/consumer/main.cpp -o "$tmp/pc_consumer" \
  $(pkg-config --cflags --libs coreset) -Wl,-rpath,"$libdir"
"$tmp/pc_consumer"
echo "check_install: OK"
