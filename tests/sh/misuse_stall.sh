#!/usr/bin/env bash
# A node waiting in a collective call or for a lock longer than
# TSR_STALL_WARN seconds says whom it waits for and where they are;
# TSR_STALL_ABORT stops the job with that report instead of a hang.
. tests/lib.sh
P=$B/tests/mp/misuse

# stall NAME MODE WARNING STOP: WARNING printed, then the job stopped with STOP.
stall() {
    expect_fail "$1: stopped by TSR_STALL_ABORT" "node 1: stopping: $4" \
        env TSR_STALL_WARN=1 TSR_STALL_ABORT=2 $TSRUN -n 3 $P "$2"
    if grep -q -- "node 0: $3" "$LOG/out"; then ok "$1: TSR_STALL_WARN report"
    else bad "$1: TSR_STALL_WARN report" "$LOG/out"; fi
}
W="waiting for node 2 (last entered call #1 tsr_alloc(4096), returned from it)"
stall "barrier skipped by node 2" skip_barrier "stalled 1 s in call #2 tsr_barrier(); $W" \
    "stalled 2 s in call #2 tsr_barrier(); $W"
H="held by node 2 (last entered call #2 tsr_barrier(), returned from it)"
stall "lock kept by node 2" lock_stall "stalled 1 s in tsr_lock(1); $H" "stalled 2 s in tsr_lock(1); $H"
expect_fail "TSR_STALL_ABORT alone, warnings off" "stopping: stalled 1 s in call #2 tsr_barrier(); $W" \
    env TSR_STALL_WARN=0 TSR_STALL_ABORT=1 $TSRUN -n 3 $P skip_barrier
expect_fail "bad TSR_STALL_WARN" "TSR_STALL_WARN='soon' is not an integer" env TSR_STALL_WARN=soon $P none
expect_fail "bad TSR_STALL_ABORT" "TSR_STALL_ABORT='-1' is not an integer" env TSR_STALL_ABORT=-1 $P none
finish
