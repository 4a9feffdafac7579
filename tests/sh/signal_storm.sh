#!/usr/bin/env bash
# A program whose nodes take a signal every millisecond (an interval timer
# with a handler installed without SA_RESTART, as profilers do) starts, runs
# locks, barriers and page fetches, and finishes with exact results: every
# blocking call in the runtime retries on EINTR.
. tests/lib.sh

# storm NAME NODES [ARG] [ENV...]: tests/mp/itimer_lock on NODES nodes must
# pass at every node.
storm() {
    local name=$1 n=$2 arg=$3; shift 3
    timeout -k 2 30 env "$@" $TSRUN -n "$n" $B/tests/mp/itimer_lock $arg >"$LOG/out" 2>&1; local rc=$?
    if [ $rc -eq 0 ] && [ "$(grep -c ' PASS$' "$LOG/out")" -eq "$n" ]; then ok "$name"
    else bad "$name (exit $rc)" "$LOG/out"; fi
}

for n in 1 2 3 4; do
    storm "signal storm/1 ms ITIMER_REAL, start-up, locks, barriers (-n $n)" $n real
done
storm "signal storm/1 ms ITIMER_PROF (-n 2)" 2 prof
storm "signal storm/1 ms ITIMER_REAL, TSR_PROGRESS=block (-n 3)" 3 real TSR_PROGRESS=block
finish
