#!/usr/bin/env bash
# Public calls out of state stop the program with a message naming the call
# and a non-zero exit, alone and under tsrun: before tsr_init (no hang, no
# SIGFPE), after tsr_finalize, a collective call from a second thread, a
# second thread's fault on or lock beside Munin's memory (Munin serves one
# thread), threads of a node that pass tsr_barrier_threads different
# counts, and a shared region at address 0.
. tests/lib.sh
P=$B/tests/mp/misuse

for call in lock barrier; do
    expect_fail "tsr_$call before tsr_init, alone" "tsr_$call: called before tsr_init" $P ${call}_before_init
    expect_fail "tsr_$call before tsr_init, 2 nodes" "tsr_$call: called before tsr_init" $TSRUN -n 2 $P ${call}_before_init
    expect_fail "tsr_$call after tsr_finalize, alone" "node 0: tsr_$call: called after tsr_finalize" $P ${call}_after_finalize
    expect_fail "tsr_$call after tsr_finalize, 2 nodes" "tsr_$call: called after tsr_finalize" $TSRUN -n 2 $P ${call}_after_finalize
done
expect_fail "tsr_alloc from a second thread" "tsr_alloc: called from thread [0-9]*, not from thread [0-9]* that called tsr_init" $TSRUN -n 2 $P thread_call
expect_fail "second thread faulting on Munin's memory, 2 nodes" "a second thread accessed shared memory at 0x[0-9a-f]*, kept by protocol munin, which serves only the thread that called tsr_init" $TSRUN -n 2 $P thread_munin_fault
expect_fail "threads of a node disagreeing on the barrier's count" "tsr_barrier_threads([23]): another thread of this node passed [23] for the same barrier" $TSRUN -n 2 $P thread_count
expect_fail "tsr_lock from a second thread beside Munin's memory" "tsr_lock: called from a second thread while protocol munin keeps pages" $TSRUN -n 2 $P thread_munin_lock
expect_fail "TSR_BASE=0 refused" "TSR_BASE='0' is out of range: at least 4G (0x100000000), away from address 0" env TSR_BASE=0 $P none
expect_fail "TSR_BASE=1G refused" "TSR_BASE='1G' is out of range: at least 4G" env TSR_BASE=1G $TSRUN -n 2 $P none
expect_ok "the same program used correctly passes" "^done" $TSRUN -n 2 $P none
finish
