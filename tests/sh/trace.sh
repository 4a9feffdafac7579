#!/usr/bin/env bash
# The job timeline and the sharing profile (docs/TRACE.md): a 4-node trace
# is valid Chrome trace JSON holding every node and thread, whose message
# flows pair each send with its receipt (as many as the counters say were
# received); a bounded buffer drops and says so; a job killed mid-run
# leaves a readable trace; the profile names the allocation two nodes
# write neighbouring words of, by file and line, and not its padded form.
. tests/lib.sh
command -v python3 >/dev/null || skip_all "python3 is missing"
CHECK="python3 tests/trace_check.py"
KINDS="read fault,write fault,page fetch,diff made,diff applied,invalidation,lock wait,lock held,barrier"

# check NAME CMD...: runs the check, reporting its last line.
check() {
    local name=$1; shift
    if "$@" >"$LOG/check" 2>&1; then ok "$name: $(tail -1 "$LOG/check")"
    else bad "$name" "$LOG/check"; fi
}

T=$LOG/lock.json
if timeout -k 2 120 $TSRUN -n 4 --trace "$T" -j "$LOG/stats.json" $B/tests/mp/lock_counter >"$LOG/out" 2>&1; then
    check "trace/4 nodes: valid, every node and thread, every flow paired" \
        $CHECK "$T" 4 --stats "$LOG/stats.json" --kinds "$KINDS"
    ls "$T".part* >/dev/null 2>&1 && bad "trace/the parts are removed once merged" /dev/null ||
        ok "trace/the parts are removed once merged"
else
    bad "trace/4-node lock_counter traced" "$LOG/out"
fi

T=$LOG/fork.json
if timeout -k 2 120 $TSRUN -n 3 --trace "$T" $B/tests/mp/fork_join >"$LOG/out" 2>&1; then
    check "trace/forks and joins: a parallel region on each node" $CHECK "$T" 3 --kinds "parallel region,barrier"
else
    bad "trace/3-node fork_join traced" "$LOG/out"
fi

T=$LOG/range.json
if timeout -k 2 120 $TSRUN -n 2 --trace "$T" $B/tests/mp/cas_range >"$LOG/out" 2>&1; then
    check "trace/range checks" $CHECK "$T" 2 --kinds "range check"
else
    bad "trace/2-node cas_range traced" "$LOG/out"
fi

T=$LOG/small.json
if TSR_TRACE_BYTES=64K timeout -k 2 120 $TSRUN -n 2 --trace "$T" $B/tests/mp/lock_counter >"$LOG/out" 2>&1 &&
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert sum(c["dropped_events"] for c in d["otherData"]["clock"]) > 0' "$T"; then
    check "trace/a full buffer drops events and says so" $CHECK "$T" 2 --killed
else
    bad "trace/a full buffer drops events and says so" "$LOG/out"
fi

# The clock offsets come down the barrier tree (transport/clock.c): at 12
# nodes nodes 4, 8 and 11 ask a child of node 0, not node 0. On one host the
# clocks are one, so each estimate must be within its stated error, half
# the round trips it was measured in, which a wrong sum along the path
# breaks.
T=$LOG/clock.json
if timeout -k 2 60 $TSRUN -n 12 --trace "$T" $B/tests/mp/startup >"$LOG/out" 2>&1; then
    check "trace/12 nodes: every clock offset within half its round trips" python3 -c '
import json, sys
c = json.load(open(sys.argv[1]))["otherData"]["clock"]
bad = [x for x in c if x["node"] and not (0 < x["rtt_ns"] and 2 * abs(x["offset_ns"]) <= x["rtt_ns"] + 2)]
assert len(c) == 12 and not bad, bad
print("largest offset %d ns, largest bound %d ns" % (max(abs(x["offset_ns"]) for x in c), max(x["rtt_ns"] for x in c) // 2))' "$T"
else
    bad "trace/12 nodes traced" "$LOG/out"
fi

# Killed mid-run: node 1 dies by SIGKILL once every node is ready.
T=$LOG/killed.json
start "$LOG/kout" "$LOG/kerr" $TSRUN -n 3 --trace "$T" $B/tests/mp/sleeper 60
if wait_ready "$LOG/kout" 3; then
    kill -9 "$(awk '$1=="ready" && $2==1 {print $3}' "$LOG/kout")"
    wait $job
    rc=$?
    if [ $rc -ne 0 ] && grep -q '"pid":1,"tid":[0-9]*,"ts":[0-9.]*,"dur":[0-9.]*,"args":{"epoch"' "$T"; then
        check "trace/a job killed mid-run leaves a readable trace (exit $rc)" $CHECK "$T" 3 --killed
    else
        bad "trace/a job killed mid-run leaves a readable trace (exit $rc)" "$LOG/kerr"
    fi
else
    kill $job
    bad "trace/killed job (never ready)" "$LOG/kerr"
fi

# A node started without tsrun leaves its part; tsrun --merge-trace merges it.
T=$LOG/solo.json
if TSR_TRACE=$T timeout -k 2 60 $B/tests/mp/lock_counter >"$LOG/out" 2>&1 &&
    $TSRUN --merge-trace "$T" -n 1 >>"$LOG/out" 2>&1 && [ ! -e "$T.part0" ]; then
    check "trace/tsrun --merge-trace merges a job run without tsrun" $CHECK "$T" 1 --kinds "lock wait,barrier"
else
    bad "trace/tsrun --merge-trace merges a job run without tsrun" "$LOG/out"
fi
expect_fail "trace/--merge-trace names a missing part" "no part from node 1 ($LOG/solo.json.part1" \
    $TSRUN --merge-trace "$T" -n 2

# Parts tsrun must not misread: not a part at all, and another build's.
head -c 70000 /dev/zero >"$LOG/zero.json.part0"
expect_fail "trace/a file that is not a part is refused" "zero.json.part0: not a trace part" \
    $TSRUN --merge-trace "$LOG/zero.json" -n 1
python3 -c 'import struct,sys; open(sys.argv[1], "wb").write(b"TSRTRC1\0" + struct.pack("<4I", 99, 32, 0, 0) + bytes(70000))' "$LOG/other.json.part0"
expect_fail "trace/another build's part is refused" "other.json.part0: written by another build" \
    $TSRUN --merge-trace "$LOG/other.json" -n 1

expect_fail "trace/a part that cannot be created is named" "TSR_TRACE: cannot create $LOG/none/t.json.part0" \
    $TSRUN -n 1 --trace "$LOG/none/t.json" $B/tests/mp/lock_counter

# The profile: the counters' allocation is named by its line.
line=$(grep -n '/\* the counters \*/' tests/mp/profile_share.c | cut -d: -f1)
profile() { # packed|padded: prints the shared pages and most writers of that allocation
    TMPDIR=$LOG timeout -k 2 60 $TSRUN -n 2 --profile --profile-json "$LOG/$1.json" \
        $B/tests/mp/profile_share "$1" >"$LOG/$1.out" 2>&1 &&
        python3 -c 'import json,sys; a=[x for x in json.load(open(sys.argv[1]))["allocations"] if x["site"].endswith(sys.argv[2])]; print(a[0]["shared_pages"], a[0]["max_writers"]) if len(a) == 1 else sys.exit(1)' \
            "$LOG/$1.json" "profile_share.c:$line"
}
got=$(profile packed)
if [ "$got" = "1 2" ] && grep -q "profile_share.c:$line " "$LOG/packed.out"; then
    ok "profile/neighbouring words of two nodes: profile_share.c:$line named, 2 writers in one interval"
else
    bad "profile/neighbouring words (got '$got')" "$LOG/packed.out"
fi
got=$(profile padded)
if [ "$got" = "0 1" ]; then ok "profile/padded: profile_share.c:$line not write-shared"
else bad "profile/padded (got '$got')" "$LOG/padded.out"; fi
ls "$LOG"/tsrun-*.trace.part* >/dev/null 2>&1 && bad "profile/leaves no parts behind" /dev/null ||
    ok "profile/leaves no parts behind"
finish
