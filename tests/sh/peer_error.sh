#!/usr/bin/env bash
# A node that stops on its own error right after tsr_init: the job names
# that error, and the surviving node does not blame a failure to map the
# gone node's memory ("cannot map the memory of 1 node"), which it may be
# doing at that moment. The race is the job's own, so it runs 20 times.
. tests/lib.sh

misleading=0 named=0
for i in $(seq 20); do
    timeout -k 2 20 $TSRUN -n 2 $B/tests/mp/peer_error >"$LOG/out" 2>&1
    grep -q 'cannot map the memory' "$LOG/out" && misleading=$((misleading + 1))
    grep -q 'node 1: tsr_lock(-1): lock id out of range' "$LOG/out" && named=$((named + 1))
done
if [ $named -eq 20 ]; then ok "peer error/the job names node 1's error (20 runs)"
else bad "peer error/the job names node 1's error in $named of 20 runs" "$LOG/out"; fi
if [ $misleading -eq 0 ]; then ok "peer error/no 'cannot map' line for a node that stopped (20 runs)"
else bad "peer error/'cannot map' after node 1's own error in $misleading of 20 runs" "$LOG/out"; fi
finish
