#!/usr/bin/env bash
# Every way a node can end a job says why (issue 51): the last node of the
# job ends in each way the runtime knows (tests/mp/node_exit.c) while the
# others wait in a barrier. The node says why on its stderr (except under
# SIGKILL, which leaves a process no word), tsrun repeats it after the
# exit status or signal, and the other nodes stop naming that node. A
# reason longer than 115 bytes (`long`, which relays used to cut) is on
# tsrun's line whole, up to the "; stopping the job" that follows it.
. tests/lib.sh
P=$B/tests/mp/node_exit

# ends MODE N STATUS SAID HOW: `tsrun -n N node_exit MODE` exits with
# STATUS; the last node printed SAID (a grep pattern; none if empty);
# tsrun's line names that node, HOW it ended and, after it, SAID; and node
# 0 stops naming that node (unless STOPS=no: node 0 was done by then).
ends() {
    local mode=$1 n=$2 status=$3 said=$4 how=$5 last=$(($2 - 1)) rc stops=${STOPS:-yes}
    timeout -k 2 30 $TSRUN -n "$n" $P "$mode" >"$LOG/out" 2>&1
    rc=$?
    local want="^tsrun: node $last $how"
    [ -n "$said" ] && want="$want: $said"
    if [ $rc -eq "$status" ] &&
        { [ -z "$said" ] || grep -q "^tessera: node $last: $said" "$LOG/out"; } &&
        grep -q "$want; stopping the job" "$LOG/out" &&
        { [ "$stops" = no ] || grep -q "^tessera: node 0: stopping: node $last " "$LOG/out"; }; then
        ok "$mode -n $n: node $last says why, tsrun repeats it (exit $rc)"
    else
        bad "$mode -n $n: node $last says why, tsrun repeats it (exit $rc, want $status)" "$LOG/out"
    fi
}

ends die 2 1 "tsr_alloc_attr: attr->home_node 7 is not a node of this 2-node job" \
    "exited with status 1"
ends die 3 1 "tsr_alloc_attr: attr->home_node 8 is not a node of this 3-node job" \
    "exited with status 1"
ends long 2 1 "write to read-only shared variable at 0x[0-9a-f]* (annotation read_only, parameters 0x02; object at 0x[0-9a-f]*, 4096 bytes)" \
    "exited with status 1"
ends exit3 2 3 "the program ended with status 3 (exit, or a return from main) before calling tsr_finalize" \
    "exited with status 3"
ends kill 2 137 "" "was killed by signal 9 (Killed)"
ends segv 2 139 "invalid memory access at address 0x10 (signal 11)" \
    "was killed by signal 11 (Segmentation fault)"
ends abort 2 134 "aborted (abort(), or an assert that failed)" "was killed by signal 6 (Aborted)"
ends fpe 2 136 "arithmetic error (an integer division by zero?) at address 0x[0-9a-f]* (signal 8)" \
    "was killed by signal 8 (Floating point exception)"
# A program's own non-zero status after tsr_finalize: the node says that
# is what it was, rather than end silently with a status tsrun reports.
STOPS=no ends status1 2 1 "the program ended with status 1 (exit, or a return from main) after tsr_finalize, which had found nothing wrong" \
    "exited with status 1"
# A node that fails before it joins the job (here, a bad TSR_MEMORY) can
# tell tsrun nothing: it says why itself, and tsrun says where to look.
TSR_MEMORY=lots timeout -k 2 30 $TSRUN -n 2 $P die >"$LOG/out" 2>&1
rc=$?
if [ $rc -eq 1 ] && grep -q "^tessera: node [01]: TSR_MEMORY='lots' is not a size" "$LOG/out" &&
    grep -q "^tsrun: node [01] exited with status 1 before joining the job (its own output says why); stopping the job" "$LOG/out"; then
    ok "a node that fails before joining says why, and tsrun points to it"
else
    bad "a node that fails before joining says why, and tsrun points to it (exit $rc)" "$LOG/out"
fi
# Every node stops because of another, all before tsrun waited for any
# named node's own exit: tsrun still names one and ends non-zero.
expect_fail "every node blaming another: tsrun names one" \
    "^tsrun: node [0-2] was blamed by every other node (reported by node [0-2]); stopping the job$" \
    $TSRUN -n 3 $B/tests/mp/blame_each_other
# A job the runtime stops as a whole (a collective mismatch) is repeated
# by tsrun, its reason whole (more than 115 bytes here).
expect_fail "a whole-job stop repeated by tsrun, whole" \
    "^tsrun: the job stops: collective mismatch at call #2: tsr_alloc_attr(4096): attr->home is \\(TSR_HOME_CYCLIC at node 2, TSR_HOME_BLOCK at node [01]\\|TSR_HOME_BLOCK at node [01], TSR_HOME_CYCLIC at node 2\\) (reported by node [0-2])$" \
    $TSRUN -n 3 $B/tests/mp/misuse alloc_attr
finish
