#!/usr/bin/env bash
# Builds a Docker image of coreset for real on a Debian 12 machine that has no Docker engine and
# cannot pull base images, and checks it. Usage: check_docker.sh [--static | --gpu [--save]]
#   (nothing)  the CPU-only image, docker/Dockerfile.cpu, tagged localhost/coreset:cpu;
#   --gpu      the GPU image, docker/Dockerfile.gpu, tagged localhost/coreset:gpu, on bases made
#              from this machine's CUDA toolkit (below), since NVIDIA's images cannot be pulled;
#   --save     with --gpu, also `podman save` the image as CACHE/coreset-gpu.docker.tar, which
#              `docker load -i` takes on a machine with a GPU (about 0.8 GB; not kept in git);
#   --static   only reads both Dockerfiles (seconds, no root, nothing installed): each builds
#              through scripts/build_release.sh and nothing else, with the same runtime layout
#              and smoke stage, on bases given as build arguments whose defaults are the public
#              images; what CI runs.
# The full check:
#   1. installs podman and debootstrap (apt) when missing;
#   2. makes a local Debian 12 base image, localhost/debian-base:bookworm, from this machine's own
#      apt sources: debootstrap --variant=minbase, trimmed like debian:bookworm-slim (no cached
#      packages, apt lists, docs, man pages or locales), then `podman import`. The root file
#      system is kept as a tarball under the cache folder and reused;
#   3. (--gpu) makes the two CUDA bases Dockerfile.gpu's BUILD_BASE and RUNTIME_BASE stand for,
#      on that Debian base, from the toolkit at $CORESET_CUDA_HOME (which must be the CUDA
#      major.minor of Dockerfile.gpu's CUDA_VERSION): localhost/cuda-devel:X.Y-bookworm with only
#      what building coreset needs (nvcc and the tools it runs, headers, cudart, cuBLAS, the
#      libcuda stub) and localhost/cuda-runtime:X.Y-bookworm with only the libraries the command
#      loads (cuda_runtime_libs below), plus the NVIDIA_* variables the NVIDIA Container Toolkit
#      reads, as NVIDIA's own images set them. Both are reused while they exist;
#   4. builds the image with `podman build --isolation chroot` (RUN steps work without a
#      container runtime), the bases passed as build arguments, so the Dockerfile is the one used
#      with `docker build` elsewhere. Its `smoke` stage runs `coreset info`, `coreset build` on
#      the built-in example and `coreset build --device gpu` (exit 7 without a GPU) inside the
#      image, as the image's user (docker/smoke.sh);
#   5. confirms, from the built image's files (`podman image mount`; `podman run` is not needed),
#      that the smoke test passed, and checks the entrypoint, user, working folder and size; for
#      the GPU image it also lists the layers (`podman history`) and the CUDA libraries carried,
#      and checks that no compiler (nvcc, cicc, ptxas, gcc, g++, cc, c++, clang) is in it.
# Otherwise needs root (re-runs itself through sudo). Environment:
#   CORESET_DOCKER_CACHE   cache folder, default build/docker (the log is build.log, or
#                          build-gpu.log, there)
#   CORESET_DEBIAN_MIRROR  Debian mirror for debootstrap, default: the first bookworm one in
#                          /etc/apt/sources.list{,.d/*}, else http://deb.debian.org/debian
#   CORESET_CUDA_HOME      the CUDA toolkit the GPU bases are made from, default /usr/local/cuda
#   CORESET_IMAGE          tag of the built image, default localhost/coreset:cpu (or :gpu)
# Delete the cache folder and `podman rmi localhost/debian-base:bookworm` (and, for the GPU image,
# localhost/cuda-devel:X.Y-bookworm and localhost/cuda-runtime:X.Y-bookworm) to start from scratch.
set -euo pipefail
self="$(readlink -f "$0")"
cd "$(dirname "$self")/.."
fail() { echo "check_docker: $*" >&2; exit 1; }

# A Dockerfile's runtime, smoke and final stages, less what differs by base (apt, users).
stage_lines() {
  sed -n '/^FROM .* AS runtime$/,$p' "$1" | grep -vE '^(#|FROM |$)' |
    grep -vE 'ubuntu|apt-get|useradd|--shell|mkdir -p /data'
}

# The static checks, run in both modes.
static_checks() {
  local f line
  for f in docker/Dockerfile.cpu docker/Dockerfile.gpu; do
    [ -f "$f" ] || fail "$f is missing"
    for line in 'RUN CORESET_DEPS=build bash scripts/install_deps.sh' \
                'RUN CORESET_DEPS=build bash scripts/build_release.sh /opt/coreset' \
                'FROM runtime AS smoke' 'RUN bash /opt/coreset-smoke/smoke.sh /tmp/smoke' \
                'COPY --from=smoke /tmp/smoke/smoke.log' 'USER coreset' 'WORKDIR /data' \
                'VOLUME ["/data"]' 'ENTRYPOINT ["coreset"]'; do
      grep -qF "$line" "$f" || fail "$f lacks '$line'"
    done
    # Compiling happens in scripts/build_release.sh only, so the images cannot drift from CI.
    if grep -nE '^RUN .*\b(cmake|ninja|make|c\+\+|g\+\+|nvcc)\b' "$f"; then
      fail "$f compiles by itself (above) instead of through scripts/build_release.sh"
    fi
    [ "$(grep -c '^FROM ' "$f")" -eq 4 ] || fail "$f should have 4 stages (build, runtime, smoke, final)"
    [ "$(grep '^FROM ' "$f" | tail -n 1)" = "FROM runtime" ] || fail "$f's last stage is not runtime"
  done
  grep -qF -- '-DCORESET_ENABLE_CUDA=OFF' docker/Dockerfile.cpu || fail "Dockerfile.cpu: CUDA not off"
  grep -qF -- '-DCORESET_ENABLE_CUDA=ON' docker/Dockerfile.gpu || fail "Dockerfile.gpu: CUDA not on"
  # The bases are build arguments (so a machine that cannot pull builds the same file on local
  # equivalents) whose defaults are what users get: Debian 12 slim; NVIDIA's devel image of
  # CUDA_VERSION to build on and the same version's runtime image to run on.
  for line in 'ARG BASE_IMAGE=debian:bookworm-slim' 'FROM ${BASE_IMAGE} AS build' \
              'FROM ${BASE_IMAGE} AS runtime'; do
    grep -qxF "$line" docker/Dockerfile.cpu || fail "Dockerfile.cpu lacks the line '$line'"
  done
  for line in 'FROM ${BUILD_BASE} AS build' 'FROM ${RUNTIME_BASE} AS runtime' 'ARG CUDA_ARCH' \
              '      -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCH}"'; do
    grep -qxF "$line" docker/Dockerfile.gpu || fail "Dockerfile.gpu lacks the line '$line'"
  done
  if ! { grep -qE '^ARG CUDA_VERSION=[0-9]+\.[0-9]+\.[0-9]+$' docker/Dockerfile.gpu &&
         grep -qxF 'ARG BUILD_BASE=nvidia/cuda:${CUDA_VERSION}-devel-ubuntu${UBUNTU_VERSION}' \
           docker/Dockerfile.gpu &&
         grep -qxF 'ARG RUNTIME_BASE=nvidia/cuda:${CUDA_VERSION}-runtime-ubuntu${UBUNTU_VERSION}' \
           docker/Dockerfile.gpu; }; then
    fail "Dockerfile.gpu: by default not built on CUDA_VERSION's devel image and run on its runtime image"
  fi
  # Global ARGs (before the first FROM) are the only ones a FROM line can use.
  for f in docker/Dockerfile.cpu docker/Dockerfile.gpu; do
    for arg in $(sed -n 's/^FROM \${\([A-Z_]*\)}.*/\1/p' "$f" | sort -u); do
      sed -n '1,/^FROM /p' "$f" | grep -qE "^ARG ${arg}=" ||
        fail "$f: FROM uses \${$arg}, which no ARG with a default declares before the first FROM"
    done
  done
  # The runtime, smoke and final stages are the same in both files.
  diff <(stage_lines docker/Dockerfile.cpu) <(stage_lines docker/Dockerfile.gpu) >/dev/null ||
    fail "the runtime and smoke stages of Dockerfile.cpu and .gpu differ"
  for line in .git 'build*'; do
    grep -qxF "$line" .dockerignore || fail ".dockerignore lacks '$line'"
  done
  bash -n docker/smoke.sh
  echo "check_docker: static checks of docker/Dockerfile.cpu and .gpu passed"
}
usage="usage: check_docker.sh [--static | --gpu [--save]]"
mode=cpu save=0
for arg in "$@"; do
  case "$arg" in
    --static) mode=static ;;
    --gpu) mode=gpu ;;
    --save) save=1 ;;
    -h|--help) echo "$usage"; exit 0 ;;
    *) echo "check_docker: unknown argument '$arg'; $usage" >&2; exit 2 ;;
  esac
done
if [ "$save" = 1 ] && [ "$mode" != gpu ]; then
  echo "check_docker: --save goes with --gpu only; $usage" >&2
  exit 2
fi
static_checks
if [ "$mode" = static ]; then
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  exec sudo --preserve-env=CORESET_DOCKER_CACHE,CORESET_DEBIAN_MIRROR,CORESET_CUDA_HOME,CORESET_IMAGE \
    bash "$self" "$@"
fi
cache="${CORESET_DOCKER_CACHE:-build/docker}"
base="localhost/debian-base:bookworm"
image="${CORESET_IMAGE:-localhost/coreset:$mode}"
rootfs_tar="$cache/debian-bookworm-minbase.tar"
stamp() { echo "== [$(date -u +%T)] $*"; }
start=$SECONDS

# The first Debian bookworm mirror in this machine's apt sources (deb822 or one-line format).
host_mirror() {
  local f
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    awk 'BEGIN { RS = ""; FS = "\n" }
      /(^|\n)Suites:[^\n]*[ \t]bookworm([ \t]|\n|$)/ && !/(^|\n)Enabled: *no/ {
        for (i = 1; i <= NF; i++) if ($i ~ /^URIs:/) { split($i, u, /[ \t]+/); print u[2]; exit } }' "$f"
  done
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$f" ] || continue
    awk '$1 == "deb" { sub(/\[[^]]*\]/, ""); if ($3 == "bookworm") { print $2; exit } }' "$f"
  done
}

stamp "tools: podman, debootstrap"
missing=()
for p in podman debootstrap; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
podman --version
mkdir -p "$cache"

if podman image exists "$base"; then
  stamp "base image $base: present"
else
  if [ ! -s "$rootfs_tar" ]; then
    mirror="${CORESET_DEBIAN_MIRROR:-$(host_mirror | head -n 1)}"
    mirror="${mirror:-http://deb.debian.org/debian}"
    stamp "base image: debootstrap --variant=minbase bookworm from $mirror"
    rootfs="$cache/rootfs"
    rm -rf "$rootfs"
    debootstrap --variant=minbase bookworm "$rootfs" "$mirror" >"$cache/debootstrap.log" 2>&1 ||
      { tail -n 30 "$cache/debootstrap.log"; fail "debootstrap failed (log: $cache/debootstrap.log)"; }
    # The image's apt reads this machine's Debian sources (mirror, updates, security).
    # debootstrap's sources.list names the main suite only.
    if [ -f /etc/apt/sources.list.d/debian.sources ]; then
      rm -f "$rootfs/etc/apt/sources.list"
      cp /etc/apt/sources.list.d/debian.sources "$rootfs/etc/apt/sources.list.d/"
    elif [ -f /etc/apt/sources.list ] &&
         grep -E '^deb [^#]*debian[^ ]* bookworm' /etc/apt/sources.list >"$cache/sources.list"; then
      mv "$cache/sources.list" "$rootfs/etc/apt/sources.list"
    fi
    rm -f "$cache/sources.list"
    # Trimmed as debian:bookworm-slim is: no docs, man pages or locales, now or from later installs.
    cat >"$rootfs/etc/dpkg/dpkg.cfg.d/docker-slim" <<'EOF'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/info/*
path-exclude /usr/share/locale/*
path-include /usr/share/locale/locale.alias
path-exclude /usr/share/lintian/*
EOF
    # ... and, like it, apt keeps no downloaded packages or package caches in image layers.
    cat >"$rootfs/etc/apt/apt.conf.d/docker-clean" <<'EOF'
DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/*.bin || true"; };
APT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/*.bin || true"; };
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
EOF
    find "$rootfs/usr/share/doc" -mindepth 1 -not -name copyright -not -type d -delete
    rm -rf "$rootfs"/usr/share/{man,info,lintian}/* "$rootfs"/var/cache/apt/archives/*.deb \
      "$rootfs"/var/cache/apt/*.bin "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/log/* \
      "$rootfs"/tmp/*
    find "$rootfs/usr/share/locale" -mindepth 1 -maxdepth 1 -not -name locale.alias -exec rm -rf {} +
    tar --numeric-owner -C "$rootfs" -cf "$rootfs_tar.tmp" .
    mv "$rootfs_tar.tmp" "$rootfs_tar"
    rm -rf "$rootfs"
  fi
  stamp "base image: podman import $rootfs_tar"
  podman import --quiet --change 'CMD ["bash"]' \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    "$rootfs_tar" "$base" >/dev/null
fi
echo "base: $base, $(podman image inspect "$base" --format '{{.Size}}') bytes"

# --- The GPU image's two bases, from this machine's CUDA toolkit -------------------------------
# What building coreset needs of the toolkit, relative to it: nvcc and the tools it runs (cudafe++,
# cicc with libdevice, ptxas, fatbinary, and nvlink with crt/link.stub, which nvcc's link of an
# executable runs even without -rdc, e.g. in CMake's compiler check), the
# headers but those of libraries coreset does not use (CCCL, NVTX and crt are among the kept),
# cudart (shared, and the static one and cudadevrt, which CMake's compiler check links), cuBLAS
# and cuBLASLt (libcublas.so.13 needs it to link) and the libcuda stub FindCUDAToolkit finds.
cuda_devel_files=(bin/nvcc bin/nvcc.profile bin/cudafe++ bin/ptxas bin/fatbinary bin/nvlink bin/crt
  nvvm/bin/cicc nvvm/libdevice include lib64 targets
  lib/libcudart.so lib/libcudart.so.13 lib/libcudart_static.a lib/libcudadevrt.a
  lib/libcublas.so lib/libcublas.so.13 lib/libcublasLt.so lib/libcublasLt.so.13 lib/stubs)
cuda_devel_excludes=('cudnn*' 'nccl*' 'cufft*' 'curand*' 'cusolver*' 'cusparse*' 'cupti*' 'nvperf*'
  nvJitLink.h nvblas.h nvrtc.h nvvm.h Openacc Openmp)
# What the command loads: `ldd` on the installed command lists libcudart.so.13 and
# libcublas.so.13, which needs libcublasLt.so.13; libcublasLt.so.13 dlopens libnvrtc.so.13 (its
# strings name it, and packagers of cuBLAS 13 declare NVRTC a dependency), which dlopens
# libnvrtc-builtins. libcuda.so.1, the driver, comes from the host with --gpus (NVIDIA
# Container Toolkit). The rest of the toolkit's libraries (cuFFT, cuSPARSE, ...) stay out.
cuda_runtime_libs=(libcudart.so.13 libcublas.so.13 libcublasLt.so.13 libnvrtc.so.13
  libnvrtc-builtins.so.13.0)

make_cuda_bases() {
  local cuda_home nvcc_version want ctx f
  cuda_home="$(readlink -f "${CORESET_CUDA_HOME:-/usr/local/cuda}")"
  [ -x "$cuda_home/bin/nvcc" ] ||
    fail "no CUDA toolkit at $cuda_home (no bin/nvcc); set CORESET_CUDA_HOME to one"
  nvcc_version="$("$cuda_home/bin/nvcc" --version | sed -n 's/.*release \([0-9]*\.[0-9]*\),.*/\1/p')"
  want="$(sed -n 's/^ARG CUDA_VERSION=\([0-9]*\.[0-9]*\)\..*/\1/p' docker/Dockerfile.gpu)"
  [ "$nvcc_version" = "$want" ] ||
    fail "$cuda_home is CUDA ${nvcc_version:-of unknown version}, Dockerfile.gpu's CUDA_VERSION is $want.x"
  # The file lists above follow this machine's toolkit, assembled from NVIDIA's wheels: real
  # lib/ and include/, with lib64 and targets/x86_64-linux/* as links to them. A runfile or
  # .deb install is the other way round; say so rather than fail on a missing file.
  if [ ! -d "$cuda_home/lib" ] || [ -L "$cuda_home/lib" ] || [ -L "$cuda_home/include" ]; then
    fail "$cuda_home keeps its libraries under targets/ (a runfile or .deb install?); this script's" \
      "file lists expect lib/ and include/ at the top, with lib64 and targets/ linking to them"
  fi
  cuda_devel="localhost/cuda-devel:$want-bookworm"
  cuda_runtime="localhost/cuda-runtime:$want-bookworm"
  # The variables NVIDIA's images set: the NVIDIA Container Toolkit mounts the driver's compute
  # libraries only when NVIDIA_DRIVER_CAPABILITIES asks for them, and refuses to start the
  # container on a driver older than NVIDIA_REQUIRE_CUDA.
  local nvidia_env="ENV NVIDIA_VISIBLE_DEVICES=all NVIDIA_DRIVER_CAPABILITIES=compute,utility \
NVIDIA_REQUIRE_CUDA=cuda>=$want CUDA_VERSION=$want"
  local layout="RUN ln -s cuda-$want /usr/local/cuda \
 && echo /usr/local/cuda-$want/lib > /etc/ld.so.conf.d/cuda-$want.conf && ldconfig"

  if podman image exists "$cuda_devel"; then
    stamp "build base $cuda_devel: present"
  else
    stamp "build base $cuda_devel: $base + the toolkit's build parts from $cuda_home"
    ctx="$cache/cuda-devel"
    rm -rf "$ctx" && mkdir -p "$ctx"
    for f in "${cuda_devel_files[@]}"; do
      [ -e "$cuda_home/$f" ] || fail "$cuda_home/$f is missing: not a complete CUDA $want toolkit"
    done
    # A tarball, which ADD unpacks with its symbolic links (lib64, targets/*) as they are.
    tar -C "$cuda_home" --transform "s|^\.|cuda-$want|S" \
      "${cuda_devel_excludes[@]/#/--exclude=./include/}" \
      -cf "$ctx/cuda.tar" "${cuda_devel_files[@]/#/./}"
    printf '%s\n' "FROM $base" "ADD cuda.tar /usr/local/" "$layout" \
      "ENV PATH=/usr/local/cuda/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" \
      "$nvidia_env" >"$ctx/Containerfile"
    podman build --isolation chroot -t "$cuda_devel" "$ctx" >"$cache/cuda-devel.log" 2>&1 ||
      { tail -n 30 "$cache/cuda-devel.log"; fail "building $cuda_devel failed (log: $cache/cuda-devel.log)"; }
    rm -rf "$ctx"
  fi
  echo "build base: $cuda_devel, $(podman image inspect "$cuda_devel" --format '{{.Size}}') bytes"

  if podman image exists "$cuda_runtime"; then
    stamp "runtime base $cuda_runtime: present"
  else
    stamp "runtime base $cuda_runtime: $base + ${cuda_runtime_libs[*]}"
    ctx="$cache/cuda-runtime"
    rm -rf "$ctx" && mkdir -p "$ctx/cuda-$want/lib"
    for f in "${cuda_runtime_libs[@]}"; do
      [ -f "$cuda_home/lib/$f" ] || fail "$cuda_home/lib/$f is missing: not a complete CUDA $want toolkit"
      cp "$cuda_home/lib/$f" "$ctx/cuda-$want/lib/"
    done
    # Redistributed under the CUDA EULA (its Attachment A lists these libraries); its text goes
    # with them. A toolkit from NVIDIA's wheels keeps it in dist-info, an installed one as EULA.txt.
    f="$(find "$cuda_home/" -maxdepth 4 \( -name EULA.txt -o -path '*cuda_runtime*/License.txt' \) \
      -type f | head -n 1)"
    [ -n "$f" ] || fail "no CUDA EULA text in $cuda_home to ship with its libraries"
    cp "$f" "$ctx/cuda-$want/EULA.txt"
    ln -s lib "$ctx/cuda-$want/lib64"
    tar -C "$ctx" -cf "$ctx/cuda.tar" "cuda-$want"
    printf '%s\n' "FROM $base" "ADD cuda.tar /usr/local/" "$layout" "$nvidia_env" \
      >"$ctx/Containerfile"
    podman build --isolation chroot -t "$cuda_runtime" "$ctx" >"$cache/cuda-runtime.log" 2>&1 ||
      { tail -n 30 "$cache/cuda-runtime.log"; fail "building $cuda_runtime failed (log: $cache/cuda-runtime.log)"; }
    rm -rf "$ctx"
  fi
  echo "runtime base: $cuda_runtime, $(podman image inspect "$cuda_runtime" --format '{{.Size}}') bytes"
}

if [ "$mode" = gpu ]; then
  make_cuda_bases
  dockerfile=docker/Dockerfile.gpu
  build_args=(--build-arg BUILD_BASE="$cuda_devel" --build-arg RUNTIME_BASE="$cuda_runtime")
  build_log="$cache/build-gpu.log"
else
  dockerfile=docker/Dockerfile.cpu
  build_args=(--build-arg BASE_IMAGE="$base")
  build_log="$cache/build.log"
fi

stamp "podman build -f $dockerfile -t $image (log: $build_log)"
build_start=$SECONDS
podman build --isolation chroot "${build_args[@]}" -f "$dockerfile" -t "$image" . >"$build_log" 2>&1 ||
  { tail -n 60 "$build_log"; fail "podman build failed (log: $build_log)"; }
echo "built in $((SECONDS - build_start)) s"

stamp "check the image"
mnt="$(podman image mount "$image")"
trap 'podman image unmount "$image" >/dev/null' EXIT
log="$mnt/opt/coreset/share/doc/coreset/smoke-test.log"
[ -f "$log" ] || fail "the image has no smoke-test log"
sed 's/^/  | /' "$log"
[ "$(tail -n 1 "$log")" = "coreset docker smoke test: OK" ] || fail "the smoke test did not pass"
[ -x "$mnt/opt/coreset/bin/coreset" ] || fail "no /opt/coreset/bin/coreset in the image"
config="$(podman image inspect "$image" \
  --format '{{.Config.Entrypoint}} {{.Config.User}} {{.Config.WorkingDir}} {{.Config.Volumes}}')"
[ "$config" = "[coreset] coreset /data map[/data:{}]" ] ||
  fail "image config is '$config', not entrypoint coreset, user coreset, /data"
if [ "$mode" = gpu ]; then
  # The runtime image runs the command, it does not build: no compiler, host or CUDA.
  # (Executables and links only: dpkg's records of gcc-12-base, whose libgcc the base needs, match.)
  compilers="$(find "$mnt" -xdev \( -name nvcc -o -name cicc -o -name ptxas -o -name gcc \
    -o -name 'gcc-[0-9]*' -o -name g++ -o -name 'g++-[0-9]*' -o -name cc -o -name c++ \
    -o -name clang -o -name 'clang-[0-9]*' -o -name cc1 -o -name cc1plus \) \
    \( -type f -perm /111 -o -type l \) -printf '/%P ')"
  [ -z "$compilers" ] || fail "the GPU image holds a compiler: $compilers"
  echo "no compiler in the image (nvcc, cicc, ptxas, gcc, g++, cc, c++, clang, cc1, cc1plus)"
  grep -q 'libcublas.so.13 => ' "$log" || fail "the smoke log's ldd does not list libcublas.so.13"
  echo "CUDA libraries in the image (bytes):"
  find "$mnt" -xdev -type f \( -path '*/cuda*' -o -name 'libcu*' -o -name 'libnv*' \) \
    -name 'lib*.so*' -printf '  %s\t/%P\n' | sort -k2
  echo "layers (podman history, newest first):"
  podman history --no-trunc --format '{{.Size}}	{{.CreatedBy}}' "$image" |
    sed -e 's|/bin/sh -c ||' -e 's/^/  /' | cut -c1-140
fi
size="$(podman image inspect "$image" --format '{{.Size}}')"
echo "image $image: $size bytes ($((size / 1000000)) MB), entrypoint coreset, user coreset, /data"
stamp "check_docker: OK in $((SECONDS - start)) s"
if [ "$save" = 1 ]; then
  saved="$cache/coreset-gpu.docker.tar"
  stamp "podman save $image -> $saved"
  rm -f "$saved"
  podman save --format docker-archive -o "$saved" "$image" >/dev/null
  echo "saved: $saved, $(stat -c %s "$saved") bytes; on a machine with a GPU:" \
    "docker load -i coreset-gpu.docker.tar && docker run --rm --gpus all $image info"
fi
