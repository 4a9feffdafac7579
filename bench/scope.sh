#!/usr/bin/env bash
# bench/scope.sh - release against scope consistency on a lock-heavy
# program (docs/ARCHITECTURE.md, "Memory models"): Water, whose nodes add
# their forces group by group under one lock per group, under TSR_PROTO=hlrc
# and scope. Prints, summed over the nodes, lock acquires, invalidations
# and page requests, and both per acquire. Counts, not times.
#
# SCOPE_NODES: node counts (default "4 8"); WATER_ARGS: Water's arguments.
# Needs `make apps`.
set -euo pipefail
cd "$(dirname "$0")/.."
B=${B:-build}
WATER_ARGS=${WATER_ARGS:-512 3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

printf '| water %s | nodes | lock acquires | invalidations | page requests | invalidations per acquire | page requests per acquire |\n' "$WATER_ARGS"
printf '|---|---|---|---|---|---|---|\n'
for n in ${SCOPE_NODES:-4 8}; do
    for proto in hlrc scope; do
        json=$work/$proto.$n.json
        TSR_PROTO=$proto TSR_STATS_JSON=$json timeout -k 5 900 "$B/bin/tsrun" -n "$n" \
            "$B/apps/water" $WATER_ARGS >"$work/out" 2>&1 ||
            { cat "$work/out" >&2; echo "bench/scope.sh: water -n $n ($proto) failed" >&2; exit 1; }
        read -r acq inval fetches < <(python3 bench/stats_sum.py "$json" lock_acquires \
            invalidations page_fetches)
        awk -v p="$proto" -v n="$n" -v a="$acq" -v i="$inval" -v f="$fetches" 'BEGIN {
            printf "| %s | %s | %d | %d | %d | %.2f | %.2f |\n", p, n, a, i, f, i / a, f / a }'
    done
done
