#!/usr/bin/env bash
# A release examines and announces only what changed since the previous one
# (tests/mp/release_walk.c), under both home write detection modes.
. tests/lib.sh
for mode in cache-only all; do
    for n in 1 2 3 4; do
        run "release_walk -n $n TSR_WRITE_DETECT=$mode" env TSR_WRITE_DETECT=$mode $TSRUN -n $n $B/tests/mp/release_walk
    done
done
finish
