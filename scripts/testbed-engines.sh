#!/usr/bin/env bash
# A multi-engine Docker Swarm on one machine, for testing lnbench's swarm
# backend without several hosts (facts in ../shared/notes/swarm.md).
#
#   scripts/testbed-engines.sh up N       start N engines and join them into one swarm
#   scripts/testbed-engines.sh status     list the engines and the swarm's nodes
#   scripts/testbed-engines.sh load IMG…  copy images to every engine that lacks them
#   scripts/testbed-engines.sh down       remove everything `up` created
#
# Each engine is a dockerd in its own network namespace, on a private bridge
# with addresses from 198.18.0.0/15 (RFC 2544, reserved for benchmarks): the
# bridge is 198.18.0.1/24, engine i is 198.18.0.(10+i); there is no default
# route, so nothing leaves the bridge. Swarm overlays draw from 198.19.0.0/17,
# each engine's local networks from 198.19.128.0/17. Everything created is
# named lnbe-… and lives under $LNBENCH_ENGINES_DIR (default
# /var/lib/lnbench-engines); `down` removes exactly that, and only that.
# Needs root, dockerd, nsenter, unshare, ip and iptables. Engine 1 is the
# swarm's manager; the others join as workers. Engine i's swarm node has
# hostname lnbe-i and node label lnbench.engine=lnbe-i, for placement.
# `up` prints, and $LNBENCH_ENGINES_DIR/engines keeps, one line per engine:
# name address socket.
#
# One up, down or load runs at a time on this machine (the bridge, the
# namespaces and the firewall rule are the host's): each holds the lock
# /run/lock/lnbench-testbed-engines.lock while it runs. The engines do not
# inherit it, nor any other descriptor above 2 of this script or its
# caller: the lock ends with the script, never with a dockerd.
set -euo pipefail

prefix=lnbe
state="${LNBENCH_ENGINES_DIR:-/var/lib/lnbench-engines}"
bridge="$prefix-br"
subnet_prefix=198.18.0
bridge_addr="$subnet_prefix.1/24"
swarm_pool=198.19.0.0/17
local_pool=198.19.128.0/17
ready_timeout=${LNBENCH_ENGINES_TIMEOUT:-90} # seconds per engine
max_engines=50

die() { echo "testbed-engines: $*" >&2; exit 1; }
say() { echo "testbed-engines: $*" >&2; }

lock_file=/run/lock/lnbench-testbed-engines.lock
lock_wait=300 # seconds

take_lock() {
  mkdir -p "$(dirname "$lock_file")"
  exec {lock_fd}>"$lock_file"
  if ! flock -n "$lock_fd"; then
    say "waiting for another testbed-engines.sh (lock $lock_file, up to ${lock_wait}s)"
    flock -w "$lock_wait" "$lock_fd" || die "another testbed-engines.sh still holds $lock_file after ${lock_wait}s"
  fi
}

# close_fds closes every descriptor above 2 of this (sub)shell: what a
# dockerd started from it would otherwise hold for its whole life (the
# lock's, the script file's, any of the caller's).
close_fds() {
  local fd
  for fd in /proc/$BASHPID/fd/*; do
    fd=${fd##*/}
    if [ "$fd" -gt 2 ]; then eval "exec $fd>&-" 2>/dev/null || true; fi
  done
}

engine_addr() { echo "$subnet_prefix.$((10 + $1))"; }
engine_dir() { echo "$state/$prefix-$1"; }
engine_sock() { echo "unix://$(engine_dir "$1")/docker.sock"; }
on_engine() { local i=$1; shift; docker -H "$(engine_sock "$i")" "$@"; }

# The engines file lists one engine per line: name address socket.
engines_file="$state/engines"

need_tools() {
  [ "$(id -u)" -eq 0 ] || die "must run as root (it creates network namespaces, a bridge and a firewall rule)"
  local t
  for t in dockerd docker nsenter unshare ip iptables findmnt flock; do
    command -v "$t" >/dev/null 2>&1 || die "$t is not installed"
  done
  docker info >/dev/null 2>&1 || die "the host's Docker engine does not answer (\`docker info\`); the DOCKER-USER chain it creates is needed"
  iptables -S DOCKER-USER >/dev/null 2>&1 || die "iptables has no DOCKER-USER chain (is the host engine running with iptables enabled?)"
}

now_ms() { date +%s%3N; }
secs_since() { local ms=$(($(now_ms) - $1)); printf '%d.%03d' $((ms / 1000)) $((ms % 1000)); }

print_engines() { cat "$engines_file"; }

count_engines() { if [ -f "$engines_file" ]; then wc -l <"$engines_file"; else echo 0; fi; }

# Bridge, veth pair and netns for engine i; eth0 inside carries its address.
make_netns() {
  local i=$1 ns="$prefix-$1"
  ip netns add "$ns"
  ip link add "$prefix-v$i" type veth peer name "$prefix-p$i"
  ip link set "$prefix-v$i" master "$bridge" up
  ip link set "$prefix-p$i" netns "$ns"
  ip -n "$ns" link set "$prefix-p$i" name eth0
  ip -n "$ns" addr add "$(engine_addr "$i")/24" dev eth0
  ip -n "$ns" link set eth0 up
  ip -n "$ns" link set lo up
}

start_engine() {
  local i=$1 dir ns="$prefix-$1"
  dir="$(engine_dir "$i")"
  mkdir -p "$dir/data" "$dir/exec"
  # An empty config file: the host's /etc/docker/daemon.json would conflict with the flags.
  echo '{}' >"$dir/daemon.json"
  # nsenter, not `ip netns exec`: that remounts /sys and hides the cgroup mounts.
  # Its own UTS namespace gives each swarm node its own hostname (lnbe-i).
  # The subshell drops every inherited descriptor above 2 first (close_fds).
  (
    close_fds
    exec setsid nsenter --net="/var/run/netns/$ns" unshare --uts \
      sh -c 'hostname "$0" && exec "$@"' "$ns" dockerd \
      --config-file "$dir/daemon.json" \
      --data-root "$dir/data" --exec-root "$dir/exec" \
      -H "$(engine_sock "$i")" --pidfile "$dir/docker.pid" \
      --storage-driver vfs --bridge none --iptables=false \
      --default-address-pool "base=$local_pool,size=24" \
      --containerd-namespace "$ns" --containerd-plugins-namespace "$ns-plugins" \
      --label "lnbench.testbed=$ns"
  ) </dev/null >"$dir/dockerd.log" 2>&1 &
}

wait_engine() {
  local i=$1 deadline=$((SECONDS + ready_timeout))
  until on_engine "$i" version --format '{{.Server.Version}}' >/dev/null 2>&1; do
    if [ $SECONDS -ge $deadline ]; then
      tail -n 15 "$(engine_dir "$i")/dockerd.log" >&2 || true
      die "engine $prefix-$i did not answer on $(engine_sock "$i") within ${ready_timeout}s (the tail of its log is above)"
    fi
    sleep 0.3
  done
}

cmd_up() {
  local n=${1:-}
  [[ "$n" =~ ^[0-9]+$ ]] && [ "$n" -ge 1 ] && [ "$n" -le $max_engines ] || die "up needs the number of engines, 1 to $max_engines (e.g. up 3)"
  need_tools
  local have
  have=$(count_engines)
  if [ "$have" -gt 0 ] || ip link show "$bridge" >/dev/null 2>&1; then
    if [ "$have" -eq "$n" ]; then
      say "already up with $n engines"
      print_engines
      return 0
    fi
    die "already up with $have engines (or a partial testbed is left); run \`$0 down\` first"
  fi
  # Any failure from here on (set -e, die) removes what was created so far.
  trap 'say "up failed; cleaning up"; cmd_down >/dev/null 2>&1 || true' EXIT
  local start i
  start=$(now_ms)
  mkdir -p "$state"
  ip link add "$bridge" type bridge
  ip addr add "$bridge_addr" dev "$bridge"
  ip link set "$bridge" up
  # The host's FORWARD policy is DROP and bridged frames pass iptables.
  iptables -I DOCKER-USER -i "$bridge" -o "$bridge" -j ACCEPT
  for i in $(seq 1 "$n"); do
    make_netns "$i"
    start_engine "$i"
  done
  : >"$engines_file.tmp"
  for i in $(seq 1 "$n"); do
    wait_engine "$i"
    echo "$prefix-$i $(engine_addr "$i") $(engine_sock "$i")" >>"$engines_file.tmp"
  done
  say "$n engines answer after $(secs_since "$start") s"
  on_engine 1 swarm init --advertise-addr "$(engine_addr 1)" \
    --default-addr-pool "$swarm_pool" --default-addr-pool-mask-length 24 >/dev/null
  local token
  token=$(on_engine 1 swarm join-token -q worker)
  for i in $(seq 2 "$n"); do
    on_engine "$i" swarm join --advertise-addr "$(engine_addr "$i")" --token "$token" "$(engine_addr 1):2377" >/dev/null
  done
  wait_nodes_ready "$n"
  # Node labels name the engines for placement (node.labels.lnbench.engine == lnbe-2).
  for i in $(seq 1 "$n"); do
    on_engine 1 node update --label-add "lnbench.engine=$prefix-$i" "$(on_engine "$i" info --format '{{.Swarm.NodeID}}')" >/dev/null
  done
  mv "$engines_file.tmp" "$engines_file"
  trap - EXIT
  say "swarm of $n engines ready in $(secs_since "$start") s"
  print_engines
}

wait_nodes_ready() {
  local n=$1 deadline=$((SECONDS + ready_timeout)) ready
  while :; do
    ready=$(on_engine 1 node ls --format '{{.Status}}' | grep -c '^Ready$' || true)
    [ "$ready" -eq "$n" ] && return 0
    [ $SECONDS -ge $deadline ] && die "only $ready of $n swarm nodes Ready after ${ready_timeout}s"
    sleep 0.3
  done
}

cmd_status() {
  if [ "$(count_engines)" -eq 0 ]; then
    echo "testbed-engines: down"
    return 0
  fi
  local name addr sock i=0
  while read -r name addr sock; do
    i=$((i + 1))
    if docker -H "$sock" version --format '{{.Server.Version}}' >/dev/null 2>&1; then
      echo "$name $addr $sock answers"
    else
      echo "$name $addr $sock NOT ANSWERING"
    fi
  done <"$engines_file"
  on_engine 1 node ls 2>&1 || true
}

# load IMAGE...: copies each image from the host engine to every engine
# whose copy is missing or differs (compared by image ID, a content hash).
# One `docker save` streams into every lacking engine's `docker load` at once.
cmd_load() {
  [ $# -ge 1 ] || die "load needs one or more image names"
  [ "$(count_engines)" -gt 0 ] || die "no engines are up; run \`$0 up N\` first"
  local img id name addr sock start all_start lacking fifos pids p failed entry
  all_start=$(now_ms)
  for img in "$@"; do
    id=$(docker image inspect --format '{{.Id}}' "$img" 2>/dev/null) || die "image $img is not on the host engine"
    lacking=()
    while read -r name addr sock; do
      if [ "$(docker -H "$sock" image inspect --format '{{.Id}}' "$img" 2>/dev/null)" = "$id" ]; then
        echo "$img: $name has it"
      else
        lacking+=("$name $sock")
      fi
    done <"$engines_file"
    [ ${#lacking[@]} -eq 0 ] && continue
    start=$(now_ms)
    fifos=() pids=()
    for entry in "${lacking[@]}"; do
      read -r name sock <<<"$entry"
      mkfifo "$state/.load-$$-$name"
      fifos+=("$state/.load-$$-$name")
      (
        docker -H "$sock" load -q -i "$state/.load-$$-$name" >/dev/null &&
          echo "$img: loaded into $name in $(secs_since "$start") s"
      ) &
      pids+=($!)
    done
    # -p: one failing engine does not stop the stream to the others.
    docker save "$img" | tee -p "${fifos[@]}" >/dev/null || true
    for p in "${pids[@]}"; do wait "$p" || true; done
    rm -f "${fifos[@]}"
    failed=()
    for entry in "${lacking[@]}"; do
      read -r name sock <<<"$entry"
      [ "$(docker -H "$sock" image inspect --format '{{.Id}}' "$img" 2>/dev/null)" = "$id" ] || failed+=("$name")
    done
    [ ${#failed[@]} -eq 0 ] || die "$img did not arrive on ${failed[*]}"
    echo "$img: copied to ${#lacking[@]} engine(s) in $(secs_since "$start") s"
  done
  echo "load done in $(secs_since "$all_start") s"
}

# leave_swarm DIR: the engine in DIR leaves the swarm and drops its containers.
leave_swarm() {
  local sock="unix://$1/docker.sock" ids
  docker -H "$sock" version >/dev/null 2>&1 || return 0
  docker -H "$sock" swarm leave --force >/dev/null 2>&1 || true
  ids=$(docker -H "$sock" ps -aq 2>/dev/null || true)
  [ -z "$ids" ] || docker -H "$sock" rm -f $ids >/dev/null 2>&1 || true
}

# our_dockerd DIR: prints the pid in DIR's pidfile if it is still our dockerd.
our_dockerd() {
  local pid
  pid=$(cat "$1/docker.pid" 2>/dev/null) || return 0
  [ -n "$pid" ] && tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "--data-root $1/data" && echo "$pid"
  return 0
}

cmd_down() {
  [ "$(id -u)" -eq 0 ] || die "must run as root"
  local dir ns mnt pid left dirs=() pids=() deadline
  for dir in "$state"/"$prefix"-*/; do [ -d "$dir" ] && dirs+=("${dir%/}"); done
  # Workers leave first, together (a worker leaving after its manager waits
  # for it in vain), then the manager.
  for dir in "${dirs[@]}"; do
    [ "$dir" = "$state/$prefix-1" ] || leave_swarm "$dir" &
  done
  wait
  [ -d "$state/$prefix-1" ] && leave_swarm "$state/$prefix-1"
  # Stop every dockerd (pidfile) together, then wait for each, bounded.
  for dir in "${dirs[@]}"; do
    pid=$(our_dockerd "$dir")
    [ -z "$pid" ] || { kill -TERM "$pid" 2>/dev/null || true; pids+=("$pid"); }
  done
  deadline=$((SECONDS + 60))
  for pid in "${pids[@]}"; do
    while kill -0 "$pid" 2>/dev/null; do
      if [ $SECONDS -ge $deadline ]; then
        say "dockerd $pid did not stop in 60 s; killing it"
        kill -KILL "$pid" 2>/dev/null || true
      fi
      sleep 0.2
    done
  done
  # Anything still running in our namespaces (shims, containerd) is ours.
  for ns in $(ip netns list | awk '{print $1}' | grep "^$prefix-" || true); do
    left=$(ip netns pids "$ns" 2>/dev/null || true)
    if [ -n "$left" ]; then
      kill -KILL $left 2>/dev/null || true
      sleep 0.5
    fi
    ip netns delete "$ns"
  done
  # `ip netns add` made /run/netns a mount point; drop it when no namespace is left.
  if [ -d /run/netns ] && [ -z "$(ls -A /run/netns)" ]; then
    umount /run/netns 2>/dev/null || true
    rmdir /run/netns 2>/dev/null || true
  fi
  # vfs layers, shm and network-namespace bind mounts under the data roots.
  if [ -d "$state" ]; then
    for mnt in $(findmnt -rn -o TARGET | grep "^$state/" | sort -r || true); do
      umount "$mnt" 2>/dev/null || umount -l "$mnt"
    done
  fi
  for l in $(ip -o link show | awk -F': ' '{print $2}' | cut -d@ -f1 | grep "^$prefix-" || true); do
    ip link delete "$l" 2>/dev/null || true
  done
  while iptables -C DOCKER-USER -i "$bridge" -o "$bridge" -j ACCEPT 2>/dev/null; do
    iptables -D DOCKER-USER -i "$bridge" -o "$bridge" -j ACCEPT
  done
  if [ -d "$state" ]; then
    rm -rf "$state"/"$prefix"-* "$engines_file" "$engines_file.tmp" "$state"/.load-*
    rmdir "$state" 2>/dev/null || true
  fi
  say "down: nothing left"
}

case "${1:-}" in
up) shift; take_lock; cmd_up "$@" ;;
down) take_lock; cmd_down ;;
status) cmd_status ;;
load) shift; take_lock; cmd_load "$@" ;;
*) die "usage: $0 up N | status | load IMAGE... | down" ;;
esac
