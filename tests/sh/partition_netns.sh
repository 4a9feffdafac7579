#!/usr/bin/env bash
# A host cut off the network in the middle of a job: four network
# namespaces on one bridge (tests/netns.sh), one node each, meeting through
# a rendezvous directory. Once every node is running, an iptables rule
# drops everything host 3 sends or receives. No socket closes and no
# process dies, so only the heartbeats (TSR_HEARTBEAT=1) can tell: every
# node must stop within TSR_HEARTBEAT + 2 s, nodes 0-2 naming node 3 as
# the one that stopped responding and node 3 one of them, under tcp and
# under udp.
. tests/lib.sh

. tests/netns.sh
netns_test_hosts "tsp$$" 4 netfilter
H=1

partition_test() { # transport
    local t=$1 name="partition/$1: host 3 cut off, each side names the other within TSR_HEARTBEAT + 2 s" k pids=()
    rm -f "$LOG"/out.*
    for k in 0 1 2 3; do
        netns_rank $k 4 "part-$t" env TSR_TRANSPORT=$t TSR_HEARTBEAT=$H \
            timeout -k 2 30 $B/tests/mp/sleeper 60 >"$LOG/out.$k" 2>&1 &
        pids+=($!)
    done
    if ! wait_ready "$LOG/out.[0-3]" 4; then
        kill "${pids[@]}" 2>/dev/null
        cat "$LOG"/out.[0-3] >"$LOG/out"
        bad "$name (never ready)" "$LOG/out"
        return
    fi
    local t0; t0=$(date +%s.%N)
    netns_exec 3 iptables -I INPUT ! -i lo -j DROP
    netns_exec 3 iptables -I OUTPUT ! -o lo -j DROP
    local rc=0 failed=0
    for k in 0 1 2 3; do wait "${pids[$k]}" || { rc=$?; failed=$((failed + 1)); }; done
    local dt; dt=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
    netns_exec 3 iptables -F INPUT
    netns_exec 3 iptables -F OUTPUT
    cat "$LOG"/out.[0-3] >"$LOG/out"
    local named; named=$(cat "$LOG"/out.[0-2] | grep -c "stopping: node 3 stopped responding")
    grep -q "node 3: stopping: node [012] stopped responding" "$LOG/out.3" && named=$((named + 1))
    if [ "$failed" -eq 4 ] && [ "$rc" -ne 124 ] && [ "$named" -eq 4 ] &&
        awk -v d="$dt" -v h=$H 'BEGIN { exit !(d <= h + 2) }'; then
        ok "$name (all stopped in $dt s)"
    else
        bad "$name ($failed of 4 failed, last exit $rc, after $dt s, $named of 4 named the other side)" "$LOG/out"
    fi
}
partition_test tcp
partition_test udp
finish
