#!/usr/bin/env bash
# A node killed with SIGKILL: every other node stops promptly, naming it,
# and tsrun reports the signal and fails, under the default transport and
# over UCX (its TCP, with UCX's peer failure handling, and its shared
# memory, without: the nodes' TCP mesh tells them), and over TCP, its
# connections on demand (a node with no link to the victim learns it from
# tsrun or a relay) or the mesh.
. tests/lib.sh

kill_test() { # nodes victim [VARIABLE=VALUE ...]
    local n=$1 v=$2 name="failure/kill -9 node $2 of $1${3:+ ${*:3}}"
    local job
    start "$LOG/kout" "$LOG/kerr" env "${@:3}" $TSRUN -n "$n" $B/tests/mp/sleeper 60
    if ! wait_ready "$LOG/kout" "$n"; then kill $job; bad "$name (never ready)" "$LOG/kerr"; return; fi
    local pid; pid=$(awk -v v="$v" '$1=="ready" && $2==v {print $3}' "$LOG/kout")
    local t0; t0=$(date +%s.%N)
    kill -9 "$pid"
    if ! wait_gone $job 10; then kill -9 $job; bad "$name (tsrun still running after 10 s)" "$LOG/kerr"; return; fi
    judge_stop "$name" "$LOG/kerr" "$n" "$v" "$t0" "" "was killed by signal 9"
}
kill_test 2 1
kill_test 3 1
kill_test 4 2
kill_test 3 0
kill_test 8 5
kill_test 8 5 TSR_TRANSPORT=tcp
kill_test 8 5 TSR_TRANSPORT=tcp TSR_CONNECT=start
kill_test 3 1 TSR_TRANSPORT=ucx UCX_TLS=tcp
kill_test 3 2 TSR_TRANSPORT=udp
kill_test 4 0 TSR_TRANSPORT=ucx UCX_TLS=posix,self
finish
