#!/usr/bin/env bash
# host_bytes_sent counts the bytes a node sends to nodes of other hosts,
# and one node per host with two threads brings each page across between
# hosts no more often than one thread does: MM (apps/mm, its workers
# tsr_app.h's) on one host and on two loopback "hosts" (TSR_HOSTS). Each
# node of a host reads the other host's half of B once; node 0 then reads
# all of C to check it. Prefetching is off: a barrier may bring a page a
# later notice invalidates before any thread reads it (tests/sh/threads_env.sh).
. tests/lib.sh
P=$B/apps/mm
HOSTS1=127.0.0.2:1,127.0.0.3:1
HOSTS2=127.0.0.2:2,127.0.0.3:2
export TSR_SSH=tests/loopback_ssh TSR_PREFETCH=off

# sums NAME ENV... -- NODES: runs MM 256 on NODES nodes under ENV; sets
# host, sent and across (pages fetched that no direct copy on the host
# gave), summed over the nodes, or fails the check NAME.
sums() {
    local name=$1 env=()
    shift
    while [ "$1" != -- ]; do env+=("$1"); shift; done
    rm -f "$LOG/json"
    if timeout -k 2 120 env "${env[@]}" $TSRUN -n "$2" -j "$LOG/json" $P 256 >"$LOG/out" 2>&1 &&
        grep -q '^mm: PASS$' "$LOG/out" &&
        read -r host sent fetched direct < <(python3 bench/stats_sum.py "$LOG/json" \
            host_bytes_sent bytes_sent page_fetches pages_copied_direct); then
        across=$((fetched - direct))
        return 0
    fi
    bad "$name" "$LOG/out"
    return 1
}

if sums "one host" TSR_THREADS=1 -- 2; then
    [ "$host" -eq 0 ] && [ "$sent" -gt 0 ] && ok "one host: no byte between hosts ($sent sent)" ||
        bad "one host: $host bytes between hosts of $sent" "$LOG/out"
fi
if sums "2 hosts x 1 node" TSR_THREADS=1 TSR_HOSTS=$HOSTS1 -- 2; then
    alone=$across
    [ "$host" -eq "$sent" ] && ok "2 hosts x 1 node: every byte between hosts ($sent)" ||
        bad "2 hosts x 1 node: $host bytes between hosts of $sent" "$LOG/out"
fi
if sums "2 hosts x 2 nodes" TSR_THREADS=1 TSR_HOSTS=$HOSTS2 -- 4; then
    percore=$across
    [ "$host" -gt 0 ] && [ "$host" -lt "$sent" ] &&
        ok "2 hosts x 2 nodes: some bytes between hosts ($host of $sent)" ||
        bad "2 hosts x 2 nodes: $host bytes between hosts of $sent" "$LOG/out"
fi
if sums "2 hosts x 1 node x 2 threads" TSR_THREADS=2 TSR_HOSTS=$HOSTS1 -- 2; then
    [ "$across" -eq "${alone:-0}" ] && [ "$across" -lt "${percore:-0}" ] &&
        ok "2 threads per host: $across pages across hosts, as 1 thread ($alone), fewer than 2 nodes per host (${percore:-?})" ||
        bad "2 threads per host: $across pages across hosts, 1 thread ${alone:-?}, 2 nodes ${percore:-?}" "$LOG/out"
fi
finish
