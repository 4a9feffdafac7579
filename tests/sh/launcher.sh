#!/usr/bin/env bash
# tsrun's options: -p prefixes output lines, -s prints the job's one
# statistics table, -j writes one JSON object of counters per node.
. tests/lib.sh

expect_ok "tsrun/-p prefixes each node's lines" "^\[2\] node 2: a=30 b=60 want 30 PASS" $TSRUN -p -n 3 $B/tests/mp/lock_counter 10
# One table, nodes as columns and their total, only the counters not zero,
# the waits first; TSR_STATS=all lists every counter.
if timeout 20 $TSRUN -s -n 3 $B/tests/mp/lock_counter 10 >"$LOG/out" 2>&1 &&
    [ "$(grep -c -- '--- tessera statistics: 3 nodes' "$LOG/out")" -eq 1 ] &&
    grep -Eq '^counter +node 0 +node 1 +node 2 +total$' "$LOG/out" &&
    grep -Eq '^lock_acquires +20 +20 +20 +60$' "$LOG/out" &&
    [ "$(sed -n '/^counter /{n;s/ .*//p}' "$LOG/out")" = barrier_wait_s ] &&
    ! grep -Eq '^[a-z_]+( +0)+$' "$LOG/out"; then
    ok "tsrun/-s prints one table of the job's counters that are not zero, waits first"
else
    bad "tsrun/-s statistics table" "$LOG/out"
fi
if TSR_STATS=all timeout 20 $TSRUN -s -n 2 $B/tests/mp/lock_counter 10 >"$LOG/out" 2>&1 &&
    grep -q -- '--- tessera statistics: 2 nodes, \([0-9]*\) of \1 counters ---' "$LOG/out" &&
    grep -Eq '^ga_queue_peak( +0)+$' "$LOG/out"; then
    ok "tsrun/TSR_STATS=all: every counter, zeros too"
else
    bad "tsrun/TSR_STATS=all statistics table" "$LOG/out"
fi
# The fault rows say which count hardware faults and which protocol actions
# (range checks' work too): lock_counter's 10 increments a node all fault.
if grep -Eq '^write_faults +[0-9]+ +[0-9]+ +[0-9]+  \(protocol actions, range checks. too\)$' "$LOG/out" &&
    grep -Eq '^faults_taken +[1-9][0-9]* +[1-9][0-9]* +[0-9]+  \(hardware faults that reached a protocol\)$' "$LOG/out" &&
    grep -Eq '^ga_queue_peak( +0)+$' "$LOG/out"; then
    ok "tsrun/statistics table labels hardware faults and protocol actions"
else
    bad "tsrun/fault rows of the statistics table" "$LOG/out"
fi
# Beyond 8 nodes the columns are the least and the most node, and the total.
if timeout 60 $TSRUN -s -n 9 $B/tests/mp/lock_counter 10 >"$LOG/out" 2>&1 &&
    grep -Eq '^counter +least +most +total$' "$LOG/out" &&
    grep -Eq '^lock_acquires +20 +20 +180$' "$LOG/out"; then
    ok "tsrun/-s -n 9: the least and the most node, and the total"
else
    bad "tsrun/-s -n 9 statistics table" "$LOG/out"
fi
# A node that no tsrun started prints its own table, one column.
if TSR_STATS=1 timeout 20 $B/tests/mp/lock_counter 10 >"$LOG/out" 2>&1 &&
    grep -Eq '^counter +node 0$' "$LOG/out" && grep -Eq '^lock_acquires +20$' "$LOG/out"; then
    ok "tsrun/TSR_STATS=1 without tsrun: the node's own table"
else
    bad "TSR_STATS=1 without tsrun" "$LOG/out"
fi
# tsrun checks the nodes' statistics notes: a malformed name is refused,
# naming the node, and never printed.
if timeout 20 $TSRUN -s -n 2 $B/tests/mp/stats_forged >"$LOG/out" 2>&1 &&
    grep -q "node 1 sent a statistics note with a bad kind (0) or name" "$LOG/out" &&
    grep -Eq '^forged_ok +0 +7 +7$' "$LOG/out" && ! grep -q "$(printf '\033')" "$LOG/out"; then
    ok "tsrun/a node's malformed statistics note is refused and named"
else
    bad "tsrun/malformed statistics note" "$LOG/out"
fi
if timeout 20 $TSRUN -j "$LOG/stats.json" -n 3 $B/tests/mp/lock_counter 10 >/dev/null 2>&1 &&
    python3 -c 'import json,sys; l=[json.loads(x) for x in open(sys.argv[1])]; assert sorted(x["node"] for x in l)==[0,1,2]; assert all(x["lock_acquires"]==20 for x in l)' "$LOG/stats.json"; then
    ok "tsrun/-j writes one JSON object per node with the counters"
else
    bad "tsrun/-j JSON statistics" "$LOG/stats.json"
fi
finish
