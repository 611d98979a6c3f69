#!/usr/bin/env bash
# Builds the CPU-only Docker image (docker/Dockerfile.cpu) for real on a Debian 12 machine that has
# no Docker engine and cannot pull base images, and checks it:
#   1. installs podman and debootstrap (apt) when missing;
#   2. makes a local Debian 12 base image, localhost/debian-base:bookworm, from this machine's own
#      apt sources: debootstrap --variant=minbase, trimmed like debian:bookworm-slim (no cached
#      packages, apt lists, docs, man pages or locales), then `podman import`. The root file
#      system is kept as a tarball under the cache folder and reused;
#   3. builds the image with `podman build --isolation chroot` (RUN steps work without a
#      container runtime), the base passed as BASE_IMAGE, so the Dockerfile is the one used with
#      `docker build` elsewhere. Its `smoke` stage runs `coreset info` and `coreset build` on the
#      built-in example inside the image, as the image's user (docker/smoke.sh);
#   4. confirms, from the built image's files (`podman image mount`; `podman run` is not needed),
#      that the smoke test passed, and checks the entrypoint, user, working folder and size.
# `check_docker.sh --static` only reads both Dockerfiles (seconds, no root, nothing installed):
# each builds through scripts/build_release.sh and nothing else, with the same runtime layout
# and smoke stage; the only check the GPU image gets on machines that cannot build it.
# Otherwise needs root (re-runs itself through sudo). Environment:
#   CORESET_DOCKER_CACHE   cache folder, default build/docker (the log is build.log there)
#   CORESET_DEBIAN_MIRROR  Debian mirror for debootstrap, default: the first bookworm one in
#                          /etc/apt/sources.list{,.d/*}, else http://deb.debian.org/debian
#   CORESET_IMAGE          tag of the built image, default localhost/coreset:cpu
# Delete the cache folder and `podman rmi localhost/debian-base:bookworm` to start from scratch.
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
  if ! { grep -qE '^FROM nvidia/cuda:\$\{CUDA_VERSION\}-devel-' docker/Dockerfile.gpu &&
          grep -qE '^FROM nvidia/cuda:\$\{CUDA_VERSION\}-runtime-' docker/Dockerfile.gpu; }; then
    fail "Dockerfile.gpu: not built on CUDA devel and run on the same CUDA's runtime image"
  fi
  # The runtime, smoke and final stages are the same in both files.
  diff <(stage_lines docker/Dockerfile.cpu) <(stage_lines docker/Dockerfile.gpu) >/dev/null ||
    fail "the runtime and smoke stages of Dockerfile.cpu and .gpu differ"
  for line in .git 'build*'; do
    grep -qxF "$line" .dockerignore || fail ".dockerignore lacks '$line'"
  done
  bash -n docker/smoke.sh
  echo "check_docker: static checks of docker/Dockerfile.cpu and .gpu passed"
}
static_checks
if [ "${1:-}" = --static ]; then
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  exec sudo --preserve-env=CORESET_DOCKER_CACHE,CORESET_DEBIAN_MIRROR,CORESET_IMAGE bash "$self" "$@"
fi
cache="${CORESET_DOCKER_CACHE:-build/docker}"
base="localhost/debian-base:bookworm"
image="${CORESET_IMAGE:-localhost/coreset:cpu}"
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

stamp "podman build -f docker/Dockerfile.cpu -t $image (log: $cache/build.log)"
build_start=$SECONDS
podman build --isolation chroot --build-arg BASE_IMAGE="$base" -f docker/Dockerfile.cpu \
  -t "$image" . >"$cache/build.log" 2>&1 ||
  { tail -n 60 "$cache/build.log"; fail "podman build failed (log: $cache/build.log)"; }
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
size="$(podman image inspect "$image" --format '{{.Size}}')"
echo "image $image: $size bytes ($((size / 1000000)) MB), entrypoint coreset, user coreset, /data"
stamp "check_docker: OK in $((SECONDS - start)) s"
