#!/usr/bin/env bash
# Bad options, environment and calls: each stops with a message naming the
# culprit and a non-zero status.
. tests/lib.sh

expect_fail "input/-n 0" "-n must be an integer" $TSRUN -n 0 $B/tests/mp/sleeper
expect_fail "input/missing -n" "-n N is required" $TSRUN $B/tests/mp/sleeper
expect_fail "input/missing program" "cannot execute '/no/such/program'" $TSRUN -n 2 /no/such/program
expect_fail "input/bad TSR_MEMORY" "TSR_MEMORY='lots' is not a size" env TSR_MEMORY=lots $TSRUN -n 2 $B/tests/mp/sleeper 1
expect_fail "input/bad TSR_PROGRESS" "TSR_PROGRESS='fast' is not one of" env TSR_PROGRESS=fast $B/tests/mp/sleeper 1
expect_fail "input/lock id out of range" "tsr_lock(16384): lock id out of range" $B/tests/mp/lock_counter -1
expect_fail "input/allocation larger than TSR_MEMORY" "tsr_alloc(1610612736): .*(TSR_MEMORY=1024 MiB.*; raise it, e.g. TSR_MEMORY=[0-9]*G (or tsrun -m)" env TSR_MEMORY=1G $TSRUN -n 2 $B/tests/mp/sparse_big
finish
