#!/usr/bin/env bash
# Installs what the tests need, builds the node binaries (cached by content),
# and runs every test: unit, golden, and end-to-end against real btcd and lnd.
# With Docker, the compose tests run twice: against Compose v2 (built from the
# Go module proxy, scripts/compose-v2.sh) and against Debian's docker-compose v1.
set -euo pipefail
cd "$(dirname "$0")"
source scripts/deps.sh
source scripts/compose-v2.sh
lnbench_need_go
# linux-perf: perf stat cross-checks the sync counters (usage/syncs tests).
pkgs=(r-base-core r-cran-ggplot2 librsvg2-bin linux-perf)
docker=false
if lnbench_docker_answers; then docker=true; pkgs+=(debootstrap docker-compose); fi
lnbench_apt "${pkgs[@]}"
# Static, so the same binary runs inside the containers (sampler sidecar, sample-loop.sh).
CGO_ENABLED=0 go build -o bin/lnbench ./cmd/lnbench
# Every release the e2e tests run (the default one and the older one they compare with).
bin/lnbench build --version lnd@v0.21.0-beta --version lnd@v0.20.2-beta
# `docker compose` for this run only (DOCKER_CONFIG); auto selection prefers it.
if $docker; then lnbench_compose_v2; fi
go vet ./...
go test -count=1 -timeout 75m "$@" ./...
if $docker; then
  echo "compose tests again, on docker-compose v1 (LNBENCH_COMPOSE=v1)" >&2
  LNBENCH_COMPOSE=v1 go test -count=1 -timeout 45m -run 'Compose|SampleLoop' "$@" ./backend/compose/ ./e2e/
fi
