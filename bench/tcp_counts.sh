#!/usr/bin/env bash
# bench/tcp_counts.sh BASE_BUILD [NODES...] - what SOR, LU and CG send over
# TCP per iteration, this build (build/) against another (BASE_BUILD, e.g.
# a checkout of main built with `make lib build/bin/tsrun build/apps/sor
# build/apps/lu build/apps/cg`): messages, blocking round trips and pages,
# summed over the nodes and divided by the program's iterations (SOR's and
# CG's iteration count, LU's block steps), quick inputs, TSR_TRANSPORT=tcp
# with pages asked of their homes (TSR_FETCH=message, as between hosts).
# Counts, unlike times, do not depend on the machine's load; one run each.
#
# Blocking round trips: a read fault that fetches (read_faults) waits for
# one reply, as does a remote lock acquire; a barrier, for its departure;
# the prefetch at a barrier (TSR_PREFETCH) once for all its requests
# (prefetch_waits).
set -eu
cd "$(dirname "$0")/.."
base=${1:?usage: bench/tcp_counts.sh BASE_BUILD [NODES...]}
shift
nodes=("${@:-2 4}")
read -ra nodes <<<"${nodes[*]}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# app, its quick arguments, iterations
apps=("sor|2048 2048 100|100" "lu|1280 32|40" "cg|640 100|100")

count() { # BUILD APP ARGS N -> one line of sums
    rm -f "$tmp/j"
    # shellcheck disable=SC2086
    TSR_TRANSPORT=tcp TSR_FETCH=message TSR_STATS_JSON="$tmp/j" \
        "$1/bin/tsrun" -n "$4" "$1/apps/$2" $3 >/dev/null
    python3 - "$tmp/j" <<'EOF'
import json, sys
tot = {}
for line in open(sys.argv[1]):
    for k, v in json.loads(line).items():
        if isinstance(v, (int, float)):
            tot[k] = tot.get(k, 0) + v
print(tot.get("messages_sent", 0), tot.get("read_faults", 0) + tot.get("remote_lock_acquires", 0)
      + tot.get("barriers", 0) + tot.get("prefetch_waits", 0), tot.get("page_fetches", 0),
      tot.get("pages_prefetched", 0))
EOF
}

echo "| app | nodes | build | messages/iter | blocking round trips/iter | pages/iter | of which prefetched |"
echo "|---|--:|---|--:|--:|--:|--:|"
for spec in "${apps[@]}"; do
    IFS='|' read -r app args iters <<<"$spec"
    for n in "${nodes[@]}"; do
        for build in "$base" build; do
            read -r msgs rts pages pre <<<"$(count "$build" "$app" "$args" "$n")"
            label=$([ "$build" = build ] && echo "this" || echo "base")
            awk -v a="$app" -v n="$n" -v b="$label" -v i="$iters" -v m="$msgs" -v r="$rts" \
                -v p="$pages" -v q="$pre" \
                'BEGIN { printf "| %s | %d | %s | %.1f | %.1f | %.1f | %.1f |\n", a, n, b, m / i, r / i, p / i, q / i }'
        done
    done
done
