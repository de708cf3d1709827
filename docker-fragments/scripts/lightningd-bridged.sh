#!/usr/bin/env bash
# Core Lightning's entrypoint in lnbench's containers: lightningd with
#  - its JSON-RPC socket bridged to TCP 9835 by socat (as the original
#    LightningBenchmarks did), for the harness outside the container; the
#    port is published on 127.0.0.1 only;
#  - perf samples of lightningd and its subdaemons served as pprof on 6060
#    inside the network (lnbench perfserve), for the sampler sidecar and
#    sample-loop.sh, when the lnbench binary is mounted.
# exec keeps lightningd at this PID, so perfserve follows it and its
# children. The helpers start from a subshell that exits at once, so they
# are init's children, not lightningd's: perf does not profile them (or
# itself) as part of the node.
# backlog: socat listens with a queue of 5 by default; the harness opens a
# connection per worker at once (80 and more), and the SYNs beyond the
# queue were dropped and retried with TCP's backoff (1, 3, 7 … 63 s): a
# CLN warm-up at Concurrency 80 took 107 s, and some calls were reset.
set -euo pipefail
(socat TCP-LISTEN:9835,fork,reuseaddr,backlog=1024 UNIX-CONNECT:/data/regtest/lightning-rpc &)
if [ -x /usr/local/bin/lnbench ]; then
  (lnbench perfserve --listen 0.0.0.0:6060 --pid $$ >/data/perfserve.log 2>&1 &)
fi
exec lightningd "$@"
