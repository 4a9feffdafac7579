#!/usr/bin/env bash
# Heartbeats (TSR_HEARTBEAT): a node that stops responding, its process
# stopped with SIGSTOP, is declared failed within TSR_HEARTBEAT + 2 s, and
# the job ends non-zero naming it, under each transport; a node that
# computes for several TSR_HEARTBEAT periods without calling Tessera is not,
# nor one stopped for less than TSR_HEARTBEAT and then continued, nor a
# whole job stopped for longer and continued.
. tests/lib.sh
H=1

stop_test() { # transport nodes victim (UCX_TLS from the caller's environment)
    local t=$1 n=$2 v=$3 name="heartbeat/$1${UCX_TLS:+ UCX_TLS=$UCX_TLS}${TSR_CONNECT:+ TSR_CONNECT=$TSR_CONNECT}: kill -STOP node $3 of $2"
    local job
    start "$LOG/out" "$LOG/err" env TSR_TRANSPORT=$t TSR_HEARTBEAT=$H $TSRUN -n "$n" $B/tests/mp/sleeper 60
    if ! wait_ready "$LOG/out" "$n"; then kill $job; bad "$name (never ready)" "$LOG/err"; return; fi
    local pid; pid=$(awk -v v="$v" '$1=="ready" && $2==v {print $3}' "$LOG/out")
    local t0; t0=$(date +%s.%N)
    kill -STOP "$pid"
    local waited=0
    while kill -0 $job 2>/dev/null && [ $waited -lt 100 ]; do sleep 0.05; waited=$((waited + 1)); done
    if kill -0 $job 2>/dev/null; then
        kill -9 $job "$pid"; bad "$name (tsrun still running after 5 s)" "$LOG/err"; return
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
stop_test tcp 3 1
stop_test shm 3 1
stop_test shm 2 0
stop_test udp 3 1
stop_test shm 8 5
stop_test udp 8 3
# Among 16, only a node's two watchers (the two before it on the ring,
# docs/ARCHITECTURE.md) hear its beats: the job still ends within the
# period, every node naming it, node 0 too (watched by nodes 15 and 14).
stop_test shm 16 9
stop_test shm 16 0
stop_test udp 16 15
# Over tcp the links to a node's watchers open in tsr_init
# (docs/ARCHITECTURE.md, "Connections on demand"): its beats reach them,
# as over the mesh built at start-up.
stop_test tcp 16 9
TSR_CONNECT=start stop_test tcp 16 9

# A job with WHO stopped for SECONDS under TSR_HEARTBEAT=HB and then
# continued must end with every node passing. One node stopped for less
# than a period is no failure: its peers wait for it in locks and barriers
# (sleeper), udp resending what the stop held up. The whole job stopped
# for longer, as Ctrl-Z and fg do, or Slurm's suspend and resume, is none
# either: every node finds its own clock tick late and forgives the
# silence, which was everyone's.
continue_test() { # transport HB SECONDS WHO (node1 | job) NAME
    local t=$1 hb=$2 s=$3 who=$4 name="heartbeat/$1: $5 stopped for $3 s under TSR_HEARTBEAT=$2 goes on"
    local job
    start "$LOG/out" "$LOG/err" env TSR_TRANSPORT=$t TSR_HEARTBEAT=$hb $TSRUN -n 3 $B/tests/mp/sleeper 3
    if ! wait_ready "$LOG/out" 3; then kill $job; bad "$name (never ready)" "$LOG/err"; return; fi
    local pids; pids=$(awk '$1=="ready" && ($2==1 || w=="job") {print $3}' w="$who" "$LOG/out")
    [ "$who" = job ] && pids="$job $pids"
    kill -STOP $pids
    sleep "$s"
    kill -CONT $pids
    wait $job; local rc=$?
    if [ $rc -eq 0 ] && [ "$(grep -c '^node [0-9]*: PASS$' "$LOG/out")" -eq 3 ]; then
        ok "$name"
    else
        bad "$name (exit $rc)" "$LOG/err"
    fi
}

# A period of 4 s for the 1 s stop: on a loaded machine the stop, as the
# peers see it, lasts the shell's sleep and its wake-up too.
for t in tcp shm udp; do
    continue_test $t 4 1 node1 "node 1 of 3"
    continue_test $t $H 2.5 job "the whole job"
    expect_ok "heartbeat/$t: 2.5 s of computation under TSR_HEARTBEAT=$H is not a failure" "node 1: PASS" \
        env TSR_TRANSPORT=$t TSR_HEARTBEAT=$H $TSRUN -n 2 $B/tests/mp/compute_gap 2.5
done
# Over UCX, with its peer failure handling (tcp) and without (posix).
UCX_TLS=tcp stop_test ucx 3 1
UCX_TLS=posix,self stop_test ucx 3 1
finish
