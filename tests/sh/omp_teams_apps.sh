#!/usr/bin/env bash
# OpenMP teams larger than the node count (docs/OPENMP.md, "The team"),
# beyond the constructs of tests/sh/omp_teams.sh: the applications' OpenMP
# forms verify with several threads a node, the node's threads are started
# once (tests/omp/teams/pool.c), and regions and barriers still cost 2(N-1)
# messages with two threads a node.
. tests/lib.sh
. tests/lib_omp.sh
[ -z "$(omp_sanitizer)" ] || skip_all "counts and applications: the ordinary build (sh/omp_teams runs under the sanitizer)"

# The applications' OpenMP forms (NAME_OMP_SRCS) verify their results with
# two threads a node, and with 5 threads at 3 nodes (2, 2, 1): their
# first-touch allocations run on every thread of the team.
for app in $(make -s --no-print-directory print-OMP_APPS); do
    srcs=$(make -s --no-print-directory print-${app}_OMP_SRCS)
    args=$(make -s --no-print-directory print-${app}_TEST_ARGS)
    if ! "$tsrcc" -fopenmp -O2 -D_GNU_SOURCE -Iapps/common -o "$LOG/$app" $srcs >"$LOG/cc" 2>&1; then
        bad "apps/$app OpenMP form builds" "$LOG/cc"
        continue
    fi
    expect_ok "apps/${app}_omp -n 2 TSR_THREADS=2 $args" "$app: PASS" \
        env TSR_THREADS=2 "$TSRUN" -n 2 "$LOG/$app" $args
    expect_ok "apps/${app}_omp -n 3 OMP_NUM_THREADS=5 $args" "$app: PASS" \
        env OMP_NUM_THREADS=5 "$TSRUN" -n 3 "$LOG/$app" $args
done

# The node's threads are started once: the same kernel thread and the same
# threadprivate counter for each thread number over 200 regions.
if "$tsrcc" -fopenmp -O2 -o "$LOG/pool" tests/omp/teams/pool.c >"$LOG/cc" 2>&1; then
    expect_ok "omp/teams/pool: 3 threads a node at 2 nodes, reused over 200 regions" \
        "team 6: pool reused" env TSR_THREADS=3 "$TSRUN" -n 2 "$LOG/pool"
    expect_ok "omp/teams/pool: 5 threads at 2 nodes, reused over 200 regions" \
        "team 5: pool reused" env OMP_NUM_THREADS=5 "$TSRUN" -n 2 "$LOG/pool"
else
    bad "omp/teams/pool builds" "$LOG/cc"
fi

# A region and a barrier cost what they cost with one thread per node: the
# node's threads meet on the node and it sends one arrival.
counter() { # N VAR=VALUE ARGS...: messages of regions.c's run at N nodes, summed
    local n=$1 var=$2
    shift 2
    rm -f "$LOG/stats.json"
    env "$var" TSR_STATS_JSON="$LOG/stats.json" timeout -k 2 60 "$TSRUN" -n "$n" \
        "$LOG/regions" "$@" >"$LOG/out" 2>&1 || { echo "exit $?"; return; }
    python3 bench/stats_sum.py "$LOG/stats.json" messages_sent
}
if "$tsrcc" -fopenmp -O0 -o "$LOG/regions" tests/omp/cost/regions.c >"$LOG/cc" 2>&1; then
    for n in 2 4; do
        base=$(counter $n TSR_THREADS=2 0 0) forks=$(counter $n TSR_THREADS=2 50 0)
        barriers=$(counter $n TSR_THREADS=2 0 50)
        want=$((50 * 2 * (n - 1)))
        if [ "$((forks - base))" = "$want" ] && [ "$((barriers - base))" = "$want" ]; then
            ok "omp/cost TSR_THREADS=2 -n $n: 50 regions and 50 barriers each send $want messages, 2(N-1) apiece"
        else
            echo "base $base, 50 regions $forks, 50 barriers $barriers; want +$want" >"$LOG/why"
            bad "omp/cost TSR_THREADS=2 -n $n: a region or a barrier is not 2(N-1) messages" "$LOG/why"
        fi
    done
else
    bad "omp/cost builds" "$LOG/cc"
fi
finish
