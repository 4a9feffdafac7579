#!/usr/bin/env bash
# A node that leaves without tsr_finalize, crashes, or outlives --timeout:
# the job stops with a message naming the node and the cause.
. tests/lib.sh

expect_fail "failure/exit without tsr_finalize" "node 2 exited without calling tsr_finalize" $TSRUN -n 3 $B/tests/mp/early_exit
expect_fail "failure/others name the departed node" "node 1: stopping: node 2 " $TSRUN -n 3 $B/tests/mp/early_exit
expect_fail "failure/access outside shared memory crashes (4 nodes)" "node 3 was killed by signal 11" $TSRUN -n 4 $B/tests/mp/wild_access
expect_fail "failure/access outside shared memory crashes (alone)" "writing to" $B/tests/mp/wild_access
expect_fail "failure/--timeout stops every node" "node 2: stopping: the job exceeded --timeout" $TSRUN -n 3 -t 2 $B/tests/mp/sleeper 30
expect_fail "failure/program that never joins" "exited without calling tsr_finalize" $TSRUN -n 2 /bin/true
finish
