#!/usr/bin/env bash
# A SIGSEGV handler the program installs after tsr_init is chained behind
# the runtime's: shared memory stays coherent (the lock counter is right on
# every node) and the program's own handler still gets its own faults.
. tests/lib.sh
P=$B/tests/mp/user_segv

# chained NAME NODES CMD...: every node's counter right, every handler ran once.
chained() {
    local name=$1 n=$2; shift 2
    timeout -k 2 20 "$@" >"$LOG/out" 2>&1; local rc=$?
    if [ $rc -eq 0 ] && [ "$(grep -c 'PASS$' "$LOG/out")" -eq "$n" ] &&
        [ "$(grep -c 'own handler ran 1 time' "$LOG/out")" -eq "$n" ] && ! grep -q FAIL "$LOG/out"; then
        ok "$name"
    else
        bad "$name (exit $rc)" "$LOG/out"
    fi
}
chained "sigaction handler after tsr_init, 3 nodes" 3 $TSRUN -n 3 $P
chained "signal() handler after tsr_init, 2 nodes" 2 $TSRUN -n 2 $P signal
chained "sigaction handler after tsr_init, alone" 1 $P
finish
