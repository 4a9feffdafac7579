#!/usr/bin/env bash
# Munin's manager serves every request deferred behind an ownership
# transaction when it ends, also behind a returned copy (tests/mp/munin_deferred.c).
# Before the fix, node 3's read waited forever: -t turns that into a failure.
. tests/lib.sh

expect_ok "munin/deferred write, return and read are all served (-n 4)" \
    "node 3: munin_deferred: 0 failed checks PASS" $TSRUN -t 8 -n 4 $B/tests/mp/munin_deferred
finish
