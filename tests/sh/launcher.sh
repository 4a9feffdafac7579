#!/usr/bin/env bash
# tsrun's options: -p prefixes output lines, -s prints statistics, -j writes
# one JSON object of counters per node.
. tests/lib.sh

expect_ok "tsrun/-p prefixes each node's lines" "^\[2\] node 2: a=30 b=60 want 30 PASS" $TSRUN -p -n 3 $B/tests/mp/lock_counter 10
expect_ok "tsrun/-s prints each node's statistics" "tessera statistics, node 1 of 2" $TSRUN -s -n 2 $B/tests/mp/lock_counter 10
if timeout 20 $TSRUN -j "$LOG/stats.json" -n 3 $B/tests/mp/lock_counter 10 >/dev/null 2>&1 &&
    python3 -c 'import json,sys; l=[json.loads(x) for x in open(sys.argv[1])]; assert sorted(x["node"] for x in l)==[0,1,2]; assert all(x["lock_acquires"]==20 for x in l)' "$LOG/stats.json"; then
    ok "tsrun/-j writes one JSON object per node with the counters"
else
    bad "tsrun/-j JSON statistics" "$LOG/stats.json"
fi
finish
