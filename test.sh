#!/usr/bin/env bash
# Installs what the tests need, builds the node binaries (cached by content),
# and runs every test: unit, golden, and end-to-end against real btcd and lnd.
set -euo pipefail
cd "$(dirname "$0")"
source scripts/deps.sh
lnbench_need_go
pkgs=(r-base-core r-cran-ggplot2 librsvg2-bin)
if lnbench_docker_answers; then pkgs+=(debootstrap); fi
lnbench_apt "${pkgs[@]}"
# Static, so the same binary runs inside the containers (sampler sidecar, sample-loop.sh).
CGO_ENABLED=0 go build -o bin/lnbench ./cmd/lnbench
bin/lnbench build
go vet ./...
go test -count=1 -timeout 75m "$@" ./...
