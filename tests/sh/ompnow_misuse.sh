#!/usr/bin/env bash
# Fork/join, replicated sections, pause flags and TSR_MULTICAST used wrongly:
# each stops the job with a message naming the call or the variable
# (tests/mp/ompnow_misuse.c; docs/OMPNOW.md).
. tests/lib.sh
P=$B/tests/mp/ompnow_misuse
expect_fail "tsr_fork on node 1 outside a replicated section" \
    "tsr_fork: called on node 1 outside a replicated section" $TSRUN -n 2 $P fork-elsewhere
expect_fail "tsr_join without a fork" "tsr_join: no tsr_fork to join" $TSRUN -n 2 $P join-alone
expect_fail "tsr_serve on node 0" "tsr_serve: called on node 0" $TSRUN -n 2 $P serve-master
expect_fail "tsr_malloc in a replicated section" \
    "tsr_malloc(64): called in a replicated section" $TSRUN -n 2 $P malloc-replicated
expect_fail "a section while Munin keeps pages" \
    "tsr_replicate_begin: protocol munin keeps allocated pages" $TSRUN -n 2 $P munin-replicated
for when in serving serving-joined; do
    expect_fail "tsr_barrier on node 0 while the others are in tsr_serve ($when)" \
        "node 0 called tsr_barrier() while other nodes wait in tsr_serve" \
        $TSRUN -n 3 $P barrier-$when
done
expect_fail "tsr_replicate_end outside a section" \
    "tsr_replicate_end: not in a replicated section" $TSRUN -n 2 $P end-alone
expect_fail "a pause flag out of range" "tsr_flag_set(4096): flag id out of range" \
    $TSRUN -n 2 $P flag-range
expect_fail "a fork inside a fork" "tsr_fork: called again before tsr_join" \
    $TSRUN -n 1 $P nested-fork
expect_fail "a fork of something that is not a function" \
    "tsr_fork(0x[0-9a-f]*): not a function of the program" $TSRUN -n 2 $P fork-data
expect_fail "TSR_MULTICAST=ip on a transport without multicast" \
    "TSR_MULTICAST=ip: the transport (TSR_TRANSPORT) has no multicast" \
    env TSR_MULTICAST=ip $TSRUN -n 2 $P
expect_fail "TSR_MULTICAST with a bad value" "TSR_MULTICAST='x' is not one of the accepted values" \
    env TSR_MULTICAST=x $TSRUN -n 2 $P
finish
