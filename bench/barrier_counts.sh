#!/usr/bin/env bash
# bench/barrier_counts.sh [NODES...] - a barrier's messages, counted, not
# timed: runs tests/mp/barrier_tree (10 barriers) at each job size
# (default 8 16 32 64 128) and prints a Markdown table of what the nodes'
# counters say a barrier costs: arrivals up the tree and departures down
# it, in all, at node 0 and at the busiest node. Then the table computed
# from the tree itself for 8 to 1,024 nodes (build/tests/unit/barrier_tree
# -v): rounds, and what node 0 read and sent before the arrivals climbed
# the tree. Run from the repository root after `make tests`;
# docs/PERFORMANCE.md, *Barrier messages and rounds*, holds its output.
set -u
cd "$(dirname "$0")/.."
B=${B:-build}
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(8 16 32 64 128)
echo "| nodes | transport | arrivals sent, in all | read by node 0 | most read by a node | departures sent, in all | sent by node 0 | most sent by a node |"
echo "|--:|--|--:|--:|--:|--:|--:|--:|"
for n in "${sizes[@]}"; do
    out=$(timeout -k 2 600 "$B/bin/tsrun" -n "$n" "$B/tests/mp/barrier_tree" 10 2>&1 |
          grep "^barrier_tree $n nodes: .*: PASS$")
    if [ -z "$out" ]; then
        echo "| $n | ${TSR_TRANSPORT:-auto} | failed | | | | | |"
        continue
    fi
    # "X departures_sent a barrier in all, node 0 Y, node J the most Z; ..."
    nums() { sed -n "s/.* \([0-9.]*\) $1 a barrier in all, node 0 \([0-9.]*\), node [0-9]* the most \([0-9.]*\).*/\1 \2 \3/p" <<<"$out"; }
    read -r as _ _ <<<"$(nums arrivals_sent)"
    read -r _ ar0 arm <<<"$(nums arrivals_received)"
    read -r ds ds0 dsm <<<"$(nums departures_sent)"
    echo "| $n | ${TSR_TRANSPORT:-auto} | $as | $ar0 | $arm | $ds | $ds0 | $dsm |"
done
echo
"$B/tests/unit/barrier_tree" -v | grep '^|'
