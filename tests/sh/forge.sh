#!/usr/bin/env bash
# Forged messages are rejected with a log line naming the sender, the type
# and the rule, at most five a second, and the rest are counted in a line of
# their own; the job goes on and its results are right (tests/mp/forge.c,
# which also runs in the matrix, checks the counters and the results).
. tests/lib.sh

timeout -k 2 20 $TSRUN -n 2 $B/tests/mp/forge >"$LOG/out" 2>&1
rc=$?
if [ $rc -eq 0 ] && [ "$(grep -c PASS "$LOG/out")" -eq 2 ]; then ok "forge: the job survives forgeries, results exact"
else bad "forge: the job survives forgeries, results exact (exit $rc)" "$LOG/out"; fi

# The first five forgeries, each of another kind, are logged as such.
for line in 'rejected MSG_UNKNOWN from node 1: unknown type 999' \
            'rejected MSG_LOCK_ACQ from node 1: argument 0 is a lock id out of range (50000)' \
            'rejected MSG_ADOPT_REQ from node 1: payload longer than its type allows (8 bytes)' \
            'rejected MSG_PAGE_REQ from node 1: a run of pages off the region' \
            'dropped MSG_PAGE_REP from node 1: request id not outstanding'; do
    if grep -qF -- "node 0: $line" "$LOG/out"; then ok "forge: logged: $line"
    else bad "forge: logged: $line" "$LOG/out"; fi
done

# A second arrival at one barrier is rejected by the root, and the grant of
# the lock node 1 forged a request for by node 1, which did not ask.
for line in 'node 0: rejected MSG_BARRIER_ARRIVE from node 1: a second arrival at one barrier' \
            'node 1: rejected MSG_LOCK_GRANT from node 0: a grant of a lock this node does not wait for'; do
    if grep -qF -- "$line" "$LOG/out"; then ok "forge: logged: $line"
    else bad "forge: logged: $line" "$LOG/out"; fi
done

# The rate limit held the others back and said how many.
n=$(grep -c 'node 0: \(rejected\|dropped\) MSG_' "$LOG/out")
if [ "$n" -le 11 ] && grep -q 'node 0: [0-9]* more rejected or dropped messages in the last second' "$LOG/out"
then ok "forge: at most five lines a second, the rest counted ($n lines)"
else bad "forge: at most five lines a second, the rest counted ($n lines)" "$LOG/out"; fi

# The forger drops the answer to the echo request it forged.
if grep -qF 'node 1: dropped MSG_ECHO_REP from node 0' "$LOG/out"; then ok "forge: a reply to no request is dropped"
else bad "forge: a reply to no request is dropped" "$LOG/out"; fi
finish
