# Sourced by test.sh: builds the Compose v2 CLI plugin (`docker compose`) from
# the Go module proxy, cached by content like the node binaries, and makes it
# visible to the docker CLI for this shell only.
#
# Build module: scripts/compose-v2/ (go.mod pins the version and every
# dependency; go.sum makes the build reproducible). Not under images/, where
# `lnbench build` looks for node build modules.
# Cache: $LNBENCH_CACHE (else ~/.cache/lnbench)/bin/compose-v2-<version>-<key>/,
# key = sha256 of go.mod, go.sum, the Go toolchain and the platform.
# Install: DOCKER_CONFIG is exported pointing at <cache>/docker-config-compose-v2,
# holding cli-plugins/docker-compose and links to the user's config.json and
# contexts, so the user's ~/.docker and the system plugin dirs stay untouched.

lnbench_cache_dir() {
  if [ -n "${LNBENCH_CACHE:-}" ]; then echo "$LNBENCH_CACHE"; else echo "${XDG_CACHE_HOME:-$HOME/.cache}/lnbench"; fi
}

# lnbench_compose_v2_build: prints the path of the cached docker-compose
# plugin binary, building it first when the cache lacks a verified copy.
lnbench_compose_v2_build() {
  local here mod version key dir sum
  here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
  mod="$here/compose-v2"
  version="$(cd "$mod" && go list -m -f '{{.Version}}' github.com/docker/compose/v2)" || return 1
  key="$( (cat "$mod/go.mod" "$mod/go.sum"; go env GOVERSION GOOS GOARCH; echo cgo=0) | sha256sum | cut -c1-16)"
  dir="$(lnbench_cache_dir)/bin/compose-v2-$version-$key"
  if [ -f "$dir/docker-compose.sha256" ] && (cd "$dir" && sha256sum --quiet -c docker-compose.sha256 >/dev/null 2>&1); then
    echo "$dir/docker-compose"; return 0
  fi
  mkdir -p "$(dirname "$dir")"
  local tmp start
  tmp="$(mktemp -d "$(dirname "$dir")/.build-compose-XXXXXX")"
  start=$(date +%s)
  echo "building Compose v2 $version (static) into $dir" >&2
  if ! (cd "$mod" && CGO_ENABLED=0 go build -trimpath \
      -ldflags "-s -w -X github.com/docker/compose/v2/internal.Version=$version" \
      -o "$tmp/docker-compose" github.com/docker/compose/v2/cmd >&2); then
    rm -rf "$tmp"; echo "lnbench: building Compose v2 in $mod failed" >&2; return 1
  fi
  (cd "$tmp" && sha256sum docker-compose >docker-compose.sha256)
  rm -rf "$dir" # a corrupt previous build
  mv "$tmp" "$dir"
  echo "built Compose v2 $version in $(($(date +%s) - start)) s ($(du -h "$dir/docker-compose" | cut -f1))" >&2
  echo "$dir/docker-compose"
}

# lnbench_compose_v2_use BINARY: exports DOCKER_CONFIG so that `docker compose`
# runs BINARY in this shell and its children.
lnbench_compose_v2_use() {
  local bin="$1" user_config="${DOCKER_CONFIG:-$HOME/.docker}" cfg
  cfg="$(lnbench_cache_dir)/docker-config-compose-v2"
  mkdir -p "$cfg/cli-plugins"
  ln -sfn "$bin" "$cfg/cli-plugins/docker-compose"
  # Keep the user's settings (contexts, credentials helpers) without copying them.
  local f
  for f in config.json contexts; do
    if [ -e "$user_config/$f" ] && [ "$user_config" != "$cfg" ]; then ln -sfn "$user_config/$f" "$cfg/$f"; else rm -f "$cfg/$f"; fi
  done
  export DOCKER_CONFIG="$cfg"
}

# lnbench_compose_v2: builds (when needed) and installs the plugin for this
# shell; prints `docker compose version` as a check.
lnbench_compose_v2() {
  local bin
  bin="$(lnbench_compose_v2_build)" || return 1
  lnbench_compose_v2_use "$bin"
  docker compose version >&2
}
