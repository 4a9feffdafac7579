#!/usr/bin/env bash
# A connection to a node's peer port without the job secret is refused and
# logged, and the job carries on unharmed.
. tests/lib.sh

start "$LOG/sout" "$LOG/serr" env TSR_VERBOSE=1 $TSRUN -n 2 $B/tests/mp/sleeper 3
wait_ready "$LOG/sout" 2
port=$(sed -n 's/^tessera: node 0: listening for peers on port \([0-9]*\)$/\1/p' "$LOG/serr")
python3 tests/intruder.py "$port" >"$LOG/intruder" 2>&1
wait $job; rc=$?
if [ $rc -eq 0 ] && grep -q "refused connection from 127.0.0.1:[0-9]*: bad job secret" "$LOG/serr" \
    && [ "$(grep -c PASS "$LOG/sout")" -eq 2 ]; then
    ok "security/connection with a wrong secret refused, job unharmed"
else
    cat "$LOG/intruder" >>"$LOG/serr"; bad "security/secret (exit $rc)" "$LOG/serr"
fi
finish
