#!/usr/bin/env bash
# Every exit explained: tsrun names the node that failed and exits with its
# status, whatever the other nodes report. A node that stops because
# another failed tells tsrun so before it exits (BOOT_STOP), so a program's
# own exit(3) is that node's failure, not "stopped because another failed".
# tsrun interrupted (Ctrl-C, scancel) takes every node with it.
. tests/lib.sh

# named NAME STATUS PATTERN CAUSE CMD...: tsrun exits STATUS printing PATTERN
# as its one line, and every node that says why it stops gives CAUSE
# (e.g. "node 2 ").
named() {
    local name=$1 status=$2 pat=$3 cause=$4; shift 4
    timeout -k 2 20 "$@" >"$LOG/out" 2>&1; local rc=$?
    local others; others=$(grep -c ": stopping: " "$LOG/out")
    local right; right=$(grep -c ": stopping: $cause" "$LOG/out")
    if [ $rc -eq "$status" ] && grep -q -- "$pat" "$LOG/out" && [ "$others" -eq "$right" ] &&
        [ "$(grep -c '^tsrun: ' "$LOG/out")" -eq 1 ]; then
        ok "$name (exit $rc)"
    else
        bad "$name (exit $rc)" "$LOG/out"
    fi
}
M=$B/tests/mp/misbehave
named "exit(3) on node 2 is reported as node 2's status 3" 3 \
    "^tsrun: node 2 exited with status 3: the program ended with status 3 (exit, or a return from main) before calling tsr_finalize; stopping the job" "node 2 " $TSRUN -n 4 $M exit 2 3
named "exit(3) on node 0 is reported as node 0's status 3" 3 \
    "^tsrun: node 0 exited with status 3: the program ended with status 3 (exit, or a return from main) before calling tsr_finalize; stopping the job" "node 0 " $TSRUN -n 3 $M exit 0 3
named "a node that exits before tsr_init is named" 1 \
    "^tsrun: node 2 exited without calling tsr_finalize (it never called tsr_init); stopping the job" \
    "node 2 " $TSRUN -n 4 $M quit 2
named "a node that never calls tsr_init is named at the start-up limit" 1 \
    "^tsrun: node 1 did not call tsr_init within 1 s (TSR_CONNECT_TIMEOUT); stopping the job" \
    "node 1 " env TSR_CONNECT_TIMEOUT=1 $TSRUN -n 3 $M hang 1
named "-t ends a job that is still starting" 124 \
    "^tsrun: the job exceeded --timeout; stopping the job" "the job exceeded --timeout" $TSRUN -n 3 -t 1 $M hang 2
expect_fail "bad TSR_CONNECT_TIMEOUT is named" \
    "^tsrun: TSR_CONNECT_TIMEOUT must be an integer in \[1, 3600\], got 'soon'" \
    env TSR_CONNECT_TIMEOUT=soon $TSRUN -n 2 $M quit 0

# A node's child that keeps the -p output pipe open cannot keep tsrun
# waiting: it drains the output for 1 s after the last node exited.
expect_fail "a grandchild holding -p's pipe does not keep tsrun alive" \
    "^tsrun: node 0 exited without calling tsr_finalize (it never called tsr_init)" \
    $TSRUN -p -n 1 bash -c "sleep 30 & echo \$! >$LOG/grandchild"
kill "$(cat "$LOG/grandchild")" 2>/dev/null

# Ctrl-C (SIGINT) or SIGTERM (scancel) to tsrun: every node, on tsrun's
# host or another, ends within a second, and tsrun dies by the signal.
# SIGKILL leaves tsrun no time to tell them: they find it gone.
interrupted() { # SIGNAL [VARIABLE=VALUE ...]
    local sig=$1; shift
    local name="tsrun killed by SIG$sig ends every node${1:+ ($*)}"
    local job
    start "$LOG/iout" "$LOG/ierr" env "$@" $TSRUN -n 4 $B/tests/mp/sleeper 60
    if ! wait_ready "$LOG/iout" 4; then kill $job; bad "$name (never ready)" "$LOG/ierr"; return; fi
    local pids; pids=$(awk '$1=="ready" {print $3}' "$LOG/iout")
    kill -s "$sig" $job
    wait $job; local rc=$? left
    for _ in $(seq 20); do
        left=0
        for p in $pids; do
            awk '$1 == "State:" && $2 != "Z" { alive = 1 } END { exit !alive }' \
                "/proc/$p/status" 2>/dev/null && left=$((left + 1))
        done
        [ $left -eq 0 ] && break
        sleep 0.05
    done
    if [ $rc -eq $((128 + $(kill -l "$sig"))) ] && [ $left -eq 0 ]; then
        ok "$name (exit $rc)"
    else
        kill -9 $pids 2>/dev/null
        bad "$name (exit $rc, $left node(s) still running after 1 s)" "$LOG/ierr"
    fi
}
interrupted INT
interrupted TERM
interrupted TERM TSR_SSH=tests/loopback_ssh TSR_HOSTS=127.0.0.2:2,127.0.0.3:2
interrupted KILL
interrupted KILL TSR_SSH=tests/loopback_ssh TSR_HOSTS=127.0.0.2:2,127.0.0.3:2
# Refused requests exit 2, a blank ssh command included (it used to fail
# at each host as "command not found", 127).
named "--ssh '' is refused with status 2" 2 "^tsrun: --ssh takes a command" "" \
    $TSRUN --ssh "" -H 127.0.0.2 -n 1 $M quit 0
named "a blank TSR_SSH is refused with status 2" 2 "^tsrun: TSR_SSH takes a command" "" \
    env TSR_SSH=" " $TSRUN -H 127.0.0.2 -n 1 $M quit 0
finish
