#!/usr/bin/env bash
# Builds what is missing (node binaries, images), runs a benchmark scenario
# (default bench/scenario.yml) and prints the table and the artifacts folder.
# Arguments go to `lnbench run`, e.g. ./run.sh --quick or ./run.sh bench/scenarios/RunAlicesPayBob.yml
set -euo pipefail
cd "$(dirname "$0")"
source scripts/deps.sh
lnbench_need_go
pkgs=(r-base-core r-cran-ggplot2)
if lnbench_docker_answers; then pkgs+=(debootstrap); fi
lnbench_apt "${pkgs[@]}" || echo "lnbench: continuing without ${pkgs[*]} (plots or images may be skipped)" >&2
# Static, so the same binary runs inside the containers (sampler sidecar,
# sample-loop.sh); beside it CLN's bitcoin-cli, a process per chain call.
CGO_ENABLED=0 go build -o bin/ ./cmd/lnbench ./cmd/lnbench-bitcoin-cli
# lnbench run builds every node spec the scenario needs (each once).
exec bin/lnbench run "$@"
