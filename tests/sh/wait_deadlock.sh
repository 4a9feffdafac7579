#!/usr/bin/env bash
# A job whose every node waits for a message that will never come
# (jia_recv, jia_wait, Tmk_lock_cond_wait) stops within 10 s naming each
# wait, as a deadlock of locks does (sync/deadlock.c); a wait that a late
# message or signal ends is no deadlock.
. tests/lib.sh
P=$B/tests/mp/wait_deadlock

within "jia_recv in a ring, 2 hosts" fail \
    "stopping: deadlock between nodes 0 and 1: node 0 waits in jia_recv for node 1; node 1 waits in jia_recv for node 0" \
    $TSRUN -n 2 $P recv_ring
within "jia_recv in a ring, 3 hosts" fail \
    "stopping: deadlock between nodes 0, 1 and 2: node 0 waits in jia_recv for node 1; node 1 waits in jia_recv for node 2; node 2 waits in jia_recv for node 0" \
    $TSRUN -n 3 $P recv_ring
within "jia_recv in a ring over udp" fail "stopping: deadlock between nodes 0, 1 and 2" \
    env TSR_TRANSPORT=udp $TSRUN -n 3 $P recv_ring
for n in 2 3; do
    within "jia_recv from any host, $n hosts" fail \
        "stopping: deadlock between nodes 0 and 1: node 0 waits in jia_recv for any node" \
        $TSRUN -n $n $P recv_any
    within "jia_wait against jia_recv, $n hosts" fail \
        "stopping: deadlock between nodes 0 and 1: node 0 waits in jia_wait for any node (node 1 and all others wait); node 1 waits in jia_recv for node 0" \
        $TSRUN -n $n $P wait_recv
    within "Tmk_lock_cond_wait everywhere, $n processes" fail \
        "stopping: deadlock between nodes 0 and 1: node 0 waits in Tmk_lock_cond_wait for any node" \
        $TSRUN -n $n $P cond
done
for mode in late_send late_signal; do
    within "$mode after 3 s is no deadlock" 0 "^done" $TSRUN -n 3 $P $mode
    if [ "$(grep -c '^done' "$LOG/out")" = 3 ] && ! grep -q deadlock "$LOG/out"; then
        ok "$mode: every node done, no deadlock reported"
    else bad "$mode: every node done, no deadlock reported" "$LOG/out"; fi
done
finish
