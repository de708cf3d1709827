#!/usr/bin/env bash
# Installs what the tests need, builds the node binaries (cached by content),
# runs go vet and staticcheck, and runs every test: unit, golden, and
# end-to-end against real btcd and lnd (the e2e tests build only with
# -tags e2e). With CI=true a test whose prerequisite is missing (Docker,
# root, the testbed tools, the node binaries) fails instead of skipping.
# The log shows failing tests' output and skipped tests' reasons; it ends
# with "N passed, N failed, N skipped" (internal/cmd/testsum).
# With Docker, the compose tests run twice: against Compose v2 (built from the
# Go module proxy, scripts/compose-v2.sh) and against Debian's docker-compose v1.
set -euo pipefail
cd "$(dirname "$0")"
source scripts/deps.sh
source scripts/compose-v2.sh
source scripts/cln-build.sh
lnbench_need_go
# linux-perf: perf stat cross-checks the sync counters (usage/syncs tests);
# postgresql: the server of db=postgres nodes (backend/local's TestPostgresNodes).
pkgs=(r-base-core r-cran-ggplot2 librsvg2-bin linux-perf postgresql)
docker=false
if lnbench_docker_answers; then docker=true; pkgs+=(debootstrap docker-compose); fi
# CI's Core Lightning tree (test data beside the repository, never committed).
cln_src=../shared/cln/lightning-v26.06.6-src.tar.xz
# The Debian packages install while Go builds lnbench and LND (neither
# needs them): on a cold 2-core VM apt took 4.5 minutes, and the builds
# are CPU-bound where apt mostly waits on downloads and dpkg. Nothing else
# may run apt meanwhile (one dpkg lock): the CLN build below does, so it
# waits for this one.
lnbench_apt "${pkgs[@]}" &
apt_pid=$!
# Static, so the same binary runs inside the containers (sampler sidecar,
# sample-loop.sh); beside it CLN's bitcoin-cli, a process per chain call.
CGO_ENABLED=0 go build -o bin/ ./cmd/lnbench ./cmd/lnbench-bitcoin-cli
# Every release the e2e tests run (the default one and the older one they compare with).
bin/lnbench build --version lnd@v0.21.0-beta --version lnd@v0.20.2-beta
wait "$apt_pid"
# The CLN tests' lightningd (LNBENCH_CLN_BIN); without the tree they skip
# with one line, and fail under CI=true.
if [ -f "$cln_src" ]; then LNBENCH_CLN_BIN=$(lnbench_cln_build "$cln_src"); export LNBENCH_CLN_BIN; fi
# `docker compose` for this run only (DOCKER_CONFIG); auto selection prefers it.
if $docker; then lnbench_compose_v2; fi
# The node images the compose tests run, built once here: the two test
# streams below both start compose runs, and two builds of one image at
# once would each debootstrap and tag it.
if $docker; then
  bin/lnbench images --version lnd@v0.21.0-beta --version lnd@v0.20.2-beta
  if [ -f "$cln_src" ]; then bin/lnbench images --node "cln@src:$(realpath "$cln_src")"; fi
fi
go vet -tags e2e ./...
# Pinned: staticcheck 2026.2.2 builds with Go 1.26.
go run honnef.co/go/tools/cmd/staticcheck@v0.8.2 -tags e2e ./...
go build -o bin/testsum ./internal/cmd/testsum
counts=$(mktemp)
local_json=$(mktemp)
trap 'rm -f "$counts" "$local_json"' EXIT
if [ $# -gt 0 ]; then
  # Arguments (e.g. -run TestX) pick the tests: one command, as asked.
  go test -json -tags e2e -count=1 -timeout 85m -parallel 2 "$@" ./... | bin/testsum -counts "$counts"
else
  # The e2e tests wait on nodes more than they compute (a cold CI run used
  # 105% of 2 cores over 73 minutes), so two streams run side by side:
  # every package with the e2e package's Docker tests one at a time, and
  # beside them the e2e tests whose first statement is t.Parallel (free
  # ports, own work and artifacts folders, unique compose projects: the
  # local-process tests and a few compose ones that balance the streams)
  # one at a time. Never more than two tests on nodes at once, as before,
  # in about 60% of the wall time.
  local_tests=$(awk '/^func Test[A-Za-z0-9_]*\(t \*testing\.T\) \{/ {name=$2; sub(/\(.*/, "", name); next}
    /^\tt\.Parallel\(\)/ && name != "" {print name; name=""} /^}/ {name=""}' e2e/*.go | paste -sd'|')
  go test -json -tags e2e -count=1 -timeout 85m -parallel 1 -run "^(${local_tests})\$" ./e2e/ >"$local_json" &
  local_pid=$!
  status=0
  go test -json -tags e2e -count=1 -timeout 85m -parallel 2 -skip "^(${local_tests})\$" ./... | bin/testsum -counts "$counts" || status=1
  wait "$local_pid" || true
  echo "the e2e local-process tests (run beside the above, one at a time)"
  bin/testsum -counts "$counts" <"$local_json" || status=1
  [ "$status" = 0 ] || exit 1
fi
if $docker; then
  # Again on docker-compose v1, only what depends on the compose command
  # line: its up/down/ps of a generated file through the backend (limits,
  # a node's exit, plain `docker-compose up` of the file), one full
  # `lnbench run` (AlicePaysBob: compose file check, nothing left), an
  # interrupt mid-measurement (down while up is live) and `lnbench up`/`down`.
  # The other compose tests exercise docker itself (cgroups, docker exec,
  # CPU limits, the sampler's port) the same way under either command line.
  echo "compose tests again, on docker-compose v1 (LNBENCH_COMPOSE=v1)" >&2
  # (The /^AlicePaysBob$ level keeps one topology and drops the interrupt
  # test's sample-loop.sh subtest; the backend tests have no subtests.)
  LNBENCH_COMPOSE=v1 go test -json -tags e2e -count=1 -timeout 30m "$@" \
    -run '^(TestComposeEndToEnd|TestComposeNodeExitIsReported|TestPlainComposeUp|TestComposeTopologies|TestComposeInterruptLeavesNothing|TestUpDown)$/^AlicePaysBob$' \
    ./backend/compose/ ./e2e/ | bin/testsum -counts "$counts"
fi
