#!/usr/bin/env bash
# Statistics are taken at a common point (after tsr_finalize's barrier), so
# over the nodes of a job the messages and bytes sent equal those received,
# here at 8 nodes; a statistics file that cannot be written is an error.
. tests/lib.sh

# balanced PROGRAM ARGS...: tsrun -n 8 -j, then the sums compared.
balanced() {
    rm -f "$LOG/stats.json"
    timeout -k 2 20 $TSRUN -n 8 -j "$LOG/stats.json" "$@" >"$LOG/out" 2>&1; local rc=$?
    if [ $rc -eq 0 ] && python3 - "$LOG/stats.json" >>"$LOG/out" 2>&1 <<'PY'
import json, sys
nodes = [json.loads(line) for line in open(sys.argv[1])]
total = lambda key: sum(n[key] for n in nodes)
print("sent", total("messages_sent"), total("bytes_sent"),
      "received", total("messages_received"), total("bytes_received"))
assert sorted(n["node"] for n in nodes) == list(range(8))
assert total("messages_sent") > 0
assert total("messages_sent") == total("messages_received")
assert total("bytes_sent") == total("bytes_received")
PY
    then ok "8 nodes, $(basename "$1"): messages and bytes sent = received"
    else bad "8 nodes, $(basename "$1"): sums differ (exit $rc)" "$LOG/out"; fi
}
balanced $B/tests/mp/lock_counter 20
balanced $B/tests/mp/producer_consumer
balanced $B/tests/mp/munin_write_shared

for f in /nonexistent/dir/stats.json /dev/full; do
    expect_fail "TSR_STATS_JSON=$f, 2 nodes" "cannot write statistics to TSR_STATS_JSON=$f: " $TSRUN -n 2 -j $f $B/tests/mp/lock_counter 5
    expect_fail "TSR_STATS_JSON=$f, alone" "tsr_finalize: stopping with status 1: the statistics were not written" env TSR_STATS_JSON=$f $B/tests/mp/lock_counter 5
done
finish
