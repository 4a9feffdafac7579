#!/usr/bin/env bash
# Nodes that make different collective calls stop at the call where they
# part ways, every node naming both calls, instead of allocating at
# different addresses or waiting forever.
. tests/lib.sh
P=$B/tests/mp/misuse

# mismatch CALL_A CALL_B: the message, whichever of the two arrived first.
mismatch() { printf 'collective mismatch at call #2: \\(%s where %s\\|%s where %s\\)' "$1" "$2" "$2" "$1"; }

expect_fail "tsr_alloc sizes differ (2 nodes)" "node 1: stopping: $(mismatch 'node 1 called tsr_alloc(8192)' 'node 0 called tsr_alloc(4096)')" $TSRUN -n 2 $P alloc_size
expect_fail "tsr_alloc sizes differ (4 nodes)" "node 2: stopping: $(mismatch 'node 3 called tsr_alloc(8192)' 'node [0-2] called tsr_alloc(4096)')" $TSRUN -n 4 $P alloc_size
# attr_mismatch FIELD VALUE_AT_LAST_NODE VALUE_ELSEWHERE: the field named, both values.
# The first node to arrive is named first: node 2, or node 0 or 1.
attr_mismatch() {
    printf 'collective mismatch at call #2: tsr_alloc_attr(%s): attr->%s is \\(%s at node 2, %s at node [01]\\|%s at node [01], %s at node 2\\)' \
        "$1" "$2" "$3" "$4" "$4" "$3"
}
expect_fail "tsr_alloc attributes differ: the field and both values named" "$(attr_mismatch 4096 home TSR_HOME_CYCLIC TSR_HOME_BLOCK)" $TSRUN -n 3 $P alloc_attr
expect_fail "Munin annotations differ" "$(attr_mismatch 4096 annot 3 4)" $TSRUN -n 3 $P alloc_annot
expect_fail "cyclic block lengths differ" "$(attr_mismatch 16384 block_pages 2 1)" $TSRUN -n 3 $P alloc_block
expect_ok "fields the placement ignores may differ (3 nodes)" "^done" $TSRUN -n 3 $P alloc_ignored
expect_fail "one more tsr_alloc on one node" "node 0: stopping: $(mismatch 'node 2 called tsr_alloc(4096)' 'node [01] called tsr_barrier()')" $TSRUN -n 3 $P alloc_count
expect_fail "a barrier skipped before tsr_finalize" "$(mismatch 'node 2 called tsr_finalize()' 'node [01] called tsr_barrier()')" $TSRUN -n 3 $P barrier_skipped
expect_ok "the same calls everywhere pass (4 nodes)" "^done" $TSRUN -n 4 $P none
finish
