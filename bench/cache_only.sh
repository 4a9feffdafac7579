#!/usr/bin/env bash
# bench/cache_only.sh - the counts of the Nautilus paper's Table 1 on this
# machine (docs/PERFORMANCE.md, "Cache-only write detection"): page
# requests, invalidations and faults of SOR, LU and Water, summed over the
# nodes, under TSR_WRITE_DETECT=all and cache-only (the default), at 4 and
# 8 nodes. Counts, not times: they do not depend on the machine's load.
#
# CACHE_ONLY_NODES: the node counts (default "4 8"); CACHE_ONLY_RUNS: runs
# of each, whose median is printed (default 5); SOR_ARGS, LU_ARGS,
# WATER_ARGS: the apps' arguments; CACHE_ONLY_ENV: more environment for
# every run (e.g. TSR_DETECT=uffd, exact tracking). Needs `make apps`.
set -euo pipefail
cd "$(dirname "$0")/.."
B=${B:-build}
NODES=${CACHE_ONLY_NODES:-4 8}
SOR_ARGS=${SOR_ARGS:-1024 1024 10}
LU_ARGS=${LU_ARGS:-1024 32}
WATER_ARGS=${WATER_ARGS:-512 3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# run APP N MODE ARGS...: CACHE_ONLY_RUNS runs; prints the median of each
# summed counter (LU's and Water's vary from run to run with the order in
# which nodes take locks and fetch pages).
run() {
    local app=$1 n=$2 mode=$3 i
    shift 3
    for i in $(seq "${CACHE_ONLY_RUNS:-5}"); do
        local json=$work/$app.$n.$mode.$i.json
        env ${CACHE_ONLY_ENV:-} TSR_WRITE_DETECT="$mode" TSR_STATS_JSON="$json" \
            timeout -k 5 900 "$B/bin/tsrun" -n "$n" "$B/apps/$app" "$@" >"$work/out" 2>&1 ||
            { cat "$work/out" >&2; echo "bench/cache_only.sh: $app -n $n ($mode) failed" >&2; exit 1; }
        python3 bench/stats_sum.py "$json" page_fetches invalidations read_faults+write_faults
    done | python3 -c 'import statistics, sys
rows = [list(map(int, l.split())) for l in sys.stdin]
print(*(int(statistics.median_low(c)) for c in zip(*rows)))'
}

printf '| app | nodes | detection | page requests | invalidations | faults |\n'
printf '|---|---|---|---|---|---|\n'
for n in $NODES; do
    for spec in "sor $SOR_ARGS" "lu $LU_ARGS" "water $WATER_ARGS"; do
        set -- $spec
        app=$1
        shift
        for mode in all cache-only; do
            read -r fetches inval faults < <(run "$app" "$n" "$mode" "$@")
            [ -n "${faults:-}" ] || exit 1
            printf '| %s %s | %s | %s | %s | %s | %s |\n' "$app" "$*" "$n" "$mode" "$fetches" \
                "$inval" "$faults"
        done
    done
done
