#!/usr/bin/env bash
# Heartbeats on a ring (docs/ARCHITECTURE.md, "A node that hangs"): each
# node beats only to its two watchers, so a node sends 8 heartbeats per
# TSR_HEARTBEAT period at 16 nodes as at 3 (4 at 2 nodes, one watcher),
# counted by the runtime (heartbeats_sent, heartbeat_rounds), not timed.
# sh/heartbeat stops a node among 16, seen by its two watchers alone.
. tests/lib.sh
H=1

count_test() { # transport nodes
    local name="heartbeat_ring/$1: $2 nodes send min(N-1, 2) heartbeats a round"
    TSR_TRANSPORT=$1 TSR_HEARTBEAT=$H timeout -k 2 60 $TSRUN -n "$2" $B/tests/mp/heartbeat_count 8 \
        >"$LOG/out" 2>&1
    local rc=$? pass; pass=$(grep -c ': PASS$' "$LOG/out")
    if [ $rc -eq 0 ] && [ "$pass" -eq "$2" ]; then
        ok "$name ($(grep '^node 0:' "$LOG/out" | sed 's/: PASS$//'))"
    else
        bad "$name (exit $rc, $pass of $2 passed)" "$LOG/out"
    fi
}
count_test shm 2
count_test shm 3
count_test shm 16
count_test tcp 16
count_test udp 16
finish
