#!/usr/bin/env bash
# TCP connections on demand (TSR_CONNECT=demand, docs/ARCHITECTURE.md,
# "Connections on demand"), counted by the runtime (peer_connections,
# crossed_connections), not timed:
# - a stencil over ring neighbours at 16 and 32 nodes leaves every node,
#   node 0 too (the start-up's layout and clock go down the barrier tree),
#   linked only to its neighbours, watchers and barrier tree
#   (tests/mp/conn_neighbours), with every value read exact; the mesh
#   (TSR_CONNECT=start) has N - 1 each;
# - the same at 16 nodes while 15 nodes wait over a second in a barrier,
#   each asking every node where it is (the deadlock finder, over the
#   barrier tree): no more links;
# - every node reading every node's page at once: the pairs connect from
#   both sides, the crossings leave one connection per pair, values exact;
# - a node stopped before anyone connected to it: the first node to need
#   it ends the job naming it within TSR_CONNECT_TIMEOUT.
. tests/lib.sh

count_test() { # nodes mode TSR_CONNECT
    local name="connections: $1 nodes, $2, TSR_CONNECT=$3"
    TSR_TRANSPORT=tcp TSR_CONNECT=$3 timeout -k 2 120 $TSRUN -n "$1" $B/tests/mp/conn_neighbours "$2" \
        >"$LOG/out" 2>&1
    local rc=$? pass; pass=$(grep -c ': PASS$' "$LOG/out")
    local most; most=$(awk '/^node/ && $2 != "0:" {if ($3 > m) m = $3} END {print m + 0}' "$LOG/out")
    local zero; zero=$(awk '/^node 0:/ {print $3}' "$LOG/out")
    local crossed; crossed=$(sed -n 's/.*, \([0-9]*\) crossed,.*/\1/p' "$LOG/out" | awk '{s += $1} END {print s + 0}')
    local rounds; rounds=$(sed -n 's/.*, \([0-9]*\) stall rounds,.*/\1/p' "$LOG/out" | awk '{s += $1} END {print s + 0}')
    if [ $rc -eq 0 ] && [ "$pass" -eq "$1" ]; then
        ok "$name (node 0: $zero connections, nodes 1-$(($1 - 1)): at most $most; $crossed crossed; $rounds stall rounds)"
    else
        bad "$name (exit $rc, $pass of $1 passed)" "$LOG/out"
    fi
}
count_test 16 ring demand
count_test 32 ring demand
count_test 16 stall demand
count_test 16 ring start
count_test 12 all demand

# The last node stopped once every node is ready, then node 1 needs it.
unreachable_test() { # nodes
    local n=$1 v=$(($1 - 1)) name="connections: node $(($1 - 1)) of $1 stopped, unreachable"
    local go="$LOG/go" job
    rm -f "$go"
    start "$LOG/uout" "$LOG/uerr" env TSR_TRANSPORT=tcp TSR_CONNECT=demand TSR_HEARTBEAT=0 \
        TSR_CONNECT_TIMEOUT=3 $TSRUN -n "$n" $B/tests/mp/late_peer "$go"
    if ! wait_ready "$LOG/uout" "$n"; then kill $job; bad "$name (never ready)" "$LOG/uerr"; return; fi
    local pid; pid=$(awk -v v="$v" '$1=="ready" && $2==v {print $3}' "$LOG/uout")
    kill -STOP "$pid"
    local t0; t0=$(date +%s.%N)
    touch "$go"
    if ! wait_gone $job 15; then
        kill -CONT "$pid"; kill -9 $job; bad "$name (tsrun still running after 15 s)" "$LOG/uerr"; return
    fi
    judge_stop "$name" "$LOG/uerr" "$n" "$v" "$t0" "did not answer a connection within 3 s" \
        "did not answer"
}
unreachable_test 4
finish
