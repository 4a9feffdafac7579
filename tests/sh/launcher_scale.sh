#!/usr/bin/env bash
# 64 nodes of the cheapest job start, meet in a barrier and stop. The
# start-up times of larger jobs are bench/scale_startup.sh's.
. tests/lib.sh

expect_ok "64 nodes start, pass a barrier and finish" "^startup 64 PASS" \
    $TSRUN -n 64 $B/tests/mp/startup
finish
