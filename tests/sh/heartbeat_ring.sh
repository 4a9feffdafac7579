#!/usr/bin/env bash
# Heartbeats on a ring (docs/ARCHITECTURE.md, "A node that hangs"): each
# node beats only to its two watchers, so a node sends 8 heartbeats per
# TSR_HEARTBEAT period at 16 nodes as at 3 (4 at 2 nodes, one watcher),
# counted by the runtime (heartbeats_sent, heartbeat_rounds), not timed;
# and a node stopped with SIGSTOP among 16, seen by its watchers alone,
# still ends the whole job within TSR_HEARTBEAT + 2 s, every other node
# naming it, node 0 too (watched by the ring's last two nodes).
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

stop_test() { # transport nodes victim
    local t=$1 n=$2 v=$3 name="heartbeat_ring/$1: kill -STOP node $3 of $2"
    TSR_TRANSPORT=$t TSR_HEARTBEAT=$H $TSRUN -n "$n" $B/tests/mp/sleeper 60 >"$LOG/out" 2>"$LOG/err" &
    local job=$!
    if ! wait_ready "$LOG/out" "$n"; then kill $job; bad "$name (never ready)" "$LOG/err"; return; fi
    local pid; pid=$(awk -v v="$v" '$1=="ready" && $2==v {print $3}' "$LOG/out")
    local t0; t0=$(date +%s.%N)
    kill -STOP "$pid"
    local waited=0
    while kill -0 $job 2>/dev/null && [ $waited -lt 200 ]; do sleep 0.05; waited=$((waited + 1)); done
    if kill -0 $job 2>/dev/null; then
        kill -9 $job "$pid"; bad "$name (tsrun still running after 10 s)" "$LOG/err"; return
    fi
    wait $job; local rc=$?
    local dt; dt=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
    local named; named=$(grep -c "^tessera: node [0-9]*: stopping: node $v stopped responding" "$LOG/err")
    if [ $rc -ne 0 ] && [ "$named" -eq $((n - 1)) ] && grep -q "^tsrun: node $v " "$LOG/err" &&
        awk -v d="$dt" -v h=$H 'BEGIN { exit !(d <= h + 2) }'; then
        ok "$name (job ended in $dt s, exit $rc)"
    else
        bad "$name (exit $rc after $dt s, $named of $((n - 1)) nodes named node $v)" "$LOG/err"
    fi
}
stop_test shm 16 9
stop_test shm 16 0
stop_test udp 16 15
finish
