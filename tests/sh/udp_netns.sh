#!/usr/bin/env bash
# The udp backend against real loss: four network namespaces on one bridge
# (tests/netns.sh), each dropping 5% of the UDP datagrams it receives with
# an iptables rule (the kernel here has no netem). The nodes meet through a
# rendezvous directory, as when another launcher starts them, each on its
# own host's address. Programs must verify their results, the rules must
# really have dropped datagrams, and udp must have sent some again; the
# job's IP multicast crosses the bridge.
. tests/lib.sh

. tests/netns.sh
netns_test_hosts "tsu$$" 4 netfilter
for k in 0 1 2 3; do
    netns_exec $k iptables -A INPUT -p udp -m statistic --mode random --probability 0.05 -j DROP \
        2>"$LOG/ipt" || skip_all "iptables cannot drop in a namespace: $(tail -1 "$LOG/ipt")"
done

job=0
# run_job NAME PATTERN LINES PROG ARGS...: one node per namespace; every node
# must exit 0, and PATTERN appear on LINES lines of their output.
run_job() {
    local name=$1 pat=$2 lines=$3 k pids=() rc=0; shift 3
    job=$((job + 1))
    for k in 0 1 2 3; do
        netns_rank $k 4 udp$job env TSR_TRANSPORT=udp TSR_STATS=1 \
            timeout -k 2 "${TSR_TEST_TIMEOUT:-120}" "$@" >"$LOG/out.$k" 2>&1 &
        pids+=($!)
    done
    for k in 0 1 2 3; do wait "${pids[$k]}" || rc=$?; done
    cat "$LOG"/out.[0-3] >"$LOG/out"
    if [ $rc -eq 0 ] && [ "$(grep -c -- "$pat" "$LOG/out")" -ge "$lines" ]; then ok "$name"
    else bad "$name (exit $rc)" "$LOG/out"; fi
}

run_job "udp/netns lock_counter, 5% of datagrams dropped" PASS 4 $B/tests/mp/lock_counter
run_job "udp/netns barrier_visibility" PASS 4 $B/tests/mp/barrier_visibility
run_job "udp/netns apps/sor" "verified=PASS" 1 $B/apps/sor 64 64 10
run_job "udp/netns unordered and multicast across the bridge" PASS 4 $B/tests/mp/udp_unordered
if grep -q "multicast (native 1): 0 not exactly once, [1-9][0-9]* group datagrams" "$LOG/out"; then
    ok "udp/netns ... multicast went to the IP group"
else bad "udp/netns ... multicast went to the IP group" "$LOG/out"; fi

dropped=0
for k in 0 1 2 3; do
    n=$(netns_exec $k iptables -L INPUT -v -n -x | awk '/statistic/ {print $1}')
    dropped=$((dropped + ${n:-0}))
done
resent=$(cat "$LOG"/out.[0-3] | awk '$1 == "udp_retransmits" {s += $2} END {print s + 0}')
if [ "$dropped" -gt 0 ] && [ "$resent" -gt 0 ]; then
    ok "udp/netns real loss: $dropped datagrams dropped by iptables, $resent sent again"
else bad "udp/netns real loss: $dropped dropped, $resent sent again" "$LOG/out"; fi
finish
