#!/usr/bin/env bash
# Protocol counters are named counters (tsr_counter_*), and the statistics
# table (tsrun -s) and JSON (tsrun -j) still carry every key they carried
# when Munin's counters were fields of tsr_stats, in the same order, with
# their values. tests/mp/munin_counters.c checks the calls themselves.
. tests/lib.sh

N=3 ROUNDS=5
# The keys of the JSON objects before the named counters, in order.
KEYS="node nodes messages_sent bytes_sent messages_received bytes_received read_faults
write_faults page_fetches twins diffs_created diffs_applied diff_bytes invalidations
lock_acquires remote_lock_acquires barriers updates_sent updates_applied reductions
barrier_wait_s lock_wait_s fault_wait_s"

run "munin/named counters: tsr_counter_get, _count, _name, reset (-n $N)" \
    $TSRUN -s -j "$LOG/stats.json" -n $N $B/tests/mp/munin_counters

# Each node appends one line per run: the run above wrote N.
if python3 - "$LOG/stats.json" "$N" "$(((ROUNDS + 1) * N))" $KEYS >"$LOG/py" 2>&1 <<'PY'
import json, sys
path, nodes, performed, keys = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]
objs = [json.loads(line) for line in open(path)]
assert len(objs) == nodes, f"{len(objs)} JSON objects"
for o in objs:
    have = [k for k in o if k in keys]
    assert have == keys, f"node {o['node']}: keys {list(o)}"
    want = performed if o["node"] == 0 else 0
    assert o["reductions"] == want, f"node {o['node']}: reductions {o['reductions']}, not {want}"
PY
then
    ok "munin/JSON keeps every key, in order, with Munin's counts"
else
    bad "munin/JSON statistics" "$LOG/py"
fi

# The job's one table: node 0 performed every reduction, and no update was
# sent, a row of zeros the table leaves out.
if grep -Eq "^reductions +$(((ROUNDS + 1) * N)) +0 +0 +$(((ROUNDS + 1) * N))\$" "$LOG/out" &&
    [ "$(grep -c '^reductions ' "$LOG/out")" -eq 1 ] && ! grep -q '^updates_sent ' "$LOG/out"; then
    ok "munin/the statistics table lists the named counters"
else
    bad "munin/statistics table" "$LOG/out"
fi
finish
