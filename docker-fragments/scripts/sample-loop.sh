#!/usr/bin/env bash
# The original LightningBenchmarks profiling loop, for manual use:
#
#   docker exec <alice container> sample-loop.sh [EVERY_S] [WINDOW_S]
#
# samples this node's CPU for WINDOW_S seconds (default 60) every EVERY_S
# seconds (default 300) until stopped, writing each window as pprof, folded
# stacks and an SVG flame graph to <artifacts>/<Actor>_traces/, named by the
# seconds elapsed since the loop started. Sampling slows the node: start
# Alice's and Bob's loops staggered (e.g. two minutes apart).
# Go serves one CPU profile at a time: while the run samples too (a
# scenario with sampling on), overlapping windows fail and are retried at the
# next period.
set -euo pipefail
every=${1:-300}
window=${2:-60}
actor=${LNBENCH_ACTOR:?this container is not an lnbench actor}
if [ ! -x /usr/local/bin/lnbench ] || [ ! -d /artifacts ]; then
  echo "sample-loop.sh: needs the lnbench binary and /artifacts mounted (runs started by lnbench have both)" >&2
  exit 1
fi
echo "sampling ${actor} for ${window}s every ${every}s into /artifacts; stop with: docker exec <container> pkill -f \"lnbench sampler\"" >&2
exec lnbench sampler --mode periodic --target "${actor}=http://127.0.0.1:6060" --out /artifacts \
  --every "${every}s" --window "${window}s"
