#!/usr/bin/env bash
# The barrier's departure down a tree (sync/tree.h), counted, not timed
# (departures_sent): at 2, 9 (one level), 12, 16 and 64 nodes the job
# sends N - 1 departures a barrier, node 0 only min(N - 1, 8) of them and
# no node more than 8, under each transport and protocol (their
# departures ride the tree); the tree's shape at every size to 1,024 is
# unit/barrier_tree's.
. tests/lib.sh

count_test() { # nodes VAR=VALUE...
    local n=$1; shift
    local name="barrier_tree: $n nodes${*:+ ($*)}"
    env "$@" timeout -k 2 120 $TSRUN -n "$n" $B/tests/mp/barrier_tree 10 >"$LOG/out" 2>&1
    local rc=$?
    if [ $rc -eq 0 ] && grep -q "^barrier_tree $n nodes: .*: PASS$" "$LOG/out"; then
        ok "$name: $(sed -n "s/^barrier_tree $n nodes: \(.*\): PASS$/\1/p" "$LOG/out")"
    else
        bad "$name (exit $rc)" "$LOG/out"
    fi
}
for n in 2 9 12 16 64; do count_test $n; done
count_test 16 TSR_TRANSPORT=tcp
count_test 16 TSR_TRANSPORT=udp
count_test 16 TSR_PROTO=lrc
count_test 16 TSR_PROTO=scope
finish
