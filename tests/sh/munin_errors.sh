#!/usr/bin/env bash
# Munin's annotations are checked at run time: a write to read_only data, or
# an access outside a fixed producer_consumer pattern, stops the job with a
# message naming the variable's address and annotation.
. tests/lib.sh

for n in 1 2 4; do
    expect_fail "munin/write to read_only stops the job (-n $n)" "write to read-only shared variable at 0x[0-9a-f]* (annotation read_only" $TSRUN -n "$n" $B/tests/mp/munin_err_read_only
done
for n in 3 4; do
    expect_fail "munin/producer_consumer pattern broken stops the job (-n $n)" "access outside the stable sharing pattern (call tsr_hint_phase_change first) to shared variable at 0x[0-9a-f]* (annotation producer_consumer" $TSRUN -n "$n" $B/tests/mp/munin_err_pattern
done
finish
