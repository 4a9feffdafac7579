#!/usr/bin/env bash
# TSR_THREADS reaches the program as tsr_threads() on every node (default
# 1), and one node per host with threads fetches a page between hosts at
# most once per host per interval: the threaded SOR (tests/mp/thr_sor.c)
# on two loopback "hosts", where each node reads one boundary row (one
# page) of the other per half-sweep, whichever of its threads reads it.
. tests/lib.sh
P=$B/tests/mp/thr_sor
expect_ok "tsr_threads() is 1 without TSR_THREADS" "node 0: 1 threads" $TSRUN -n 1 $P 30 62 3
expect_ok "TSR_THREADS=2 reaches every node (-n 2)" "node 1: 2 threads" \
    env TSR_THREADS=2 $TSRUN -n 2 $P 30 62 3
expect_ok "TSR_THREADS=4 on one node" "node 0: 4 threads" env TSR_THREADS=4 $TSRUN -n 1 $P 30 62 3

# fetches_at_most NAME MAX CMD...: every node passes and the nodes' pages
# fetched sum to at most MAX.
fetches_at_most() {
    local name=$1 max=$2 sum; shift 2
    if timeout -k 2 60 "$@" >"$LOG/out" 2>&1 && [ "$(grep -c ': PASS$' "$LOG/out")" -eq 2 ] &&
        sum=$(awk '/ threads, / { s += $8 } END { print s + 0 }' "$LOG/out") &&
        [ "$sum" -le "$max" ]; then ok "$name ($sum pages)"
    else bad "$name" "$LOG/out"; fi
}
# 254 rows of 512 doubles, one page each, homed half on each node; 6
# iterations are 12 half-sweeps, each fetching at most one page per node.
# Prefetching is off: a barrier may bring a page that a later barrier's
# notice invalidates again before any thread reads it (26 pages once,
# under load), a cost of prefetching, not of the threads sharing a node.
fetches_at_most "2 hosts x 2 threads: at most one page per host per half-sweep" 24 \
    env TSR_PREFETCH=off TSR_THREADS=2 TSR_HOSTS=127.0.0.2:1,127.0.0.3:1 TSR_SSH=tests/loopback_ssh \
    $TSRUN -n 2 $P 254 510 6
finish
