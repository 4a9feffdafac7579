#!/usr/bin/env bash
# OpenMP teams larger than the node count (docs/OPENMP.md, "The team"),
# beyond the constructs of tests/sh/omp_teams.sh: the applications' OpenMP
# forms verify with several threads a node, and the node's threads are
# started once (tests/omp/teams/pool.c), and a reduction takes its lock
# once a node (tests/omp/cost/reduce.c). What a region and a barrier cost
# with two threads a node is counted in tests/sh/omp_apps.sh.
. tests/lib.sh
. tests/lib_omp.sh
[ -z "$(omp_sanitizer)" ] || skip_all "counts and applications: the ordinary build (sh/omp_teams runs under the sanitizer)"

# The applications' OpenMP forms (NAME_OMP_SRCS) verify their results with
# two threads a node, and with 5 threads at 3 nodes (2, 2, 1): their
# first-touch allocations run on every thread of the team.
for app in $(make -s --no-print-directory print-OMP_APPS); do
    build_omp_app "$app" || continue
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


# Reductions combine on the node first: with 4 threads a node at 2 nodes,
# 20 reductions take their lock 40 times (once a node each) and no thread
# hands it to another (each thread taking it: 100 acquires, 60 hand-offs).
if "$tsrcc" -fopenmp -O2 -o "$LOG/reduce" tests/omp/cost/reduce.c >"$LOG/cc" 2>&1; then
    rm -f "$LOG/stats.json"
    if TSR_THREADS=4 TSR_STATS_JSON=$LOG/stats.json timeout -k 2 60 "$TSRUN" -n 2 "$LOG/reduce" 20 \
        >"$LOG/out" 2>&1 && grep -q 'reductions 20, total 9990000' "$LOG/out"; then
        read -r acquires handoffs < <(python3 bench/stats_sum.py "$LOG/stats.json" \
            lock_acquires lock_local_handoffs)
        if [ "$acquires" = 40 ] && [ "$handoffs" = 0 ]; then
            ok "omp/cost/reduce TSR_THREADS=4 -n 2: 20 reductions, 40 lock acquires, no hand-off"
        else
            echo "lock_acquires $acquires (want 40), lock_local_handoffs $handoffs (want 0)" >"$LOG/why"
            bad "omp/cost/reduce TSR_THREADS=4 -n 2: a node's threads took the lock apart" "$LOG/why"
        fi
    else
        bad "omp/cost/reduce TSR_THREADS=4 -n 2 runs" "$LOG/out"
    fi
else
    bad "omp/cost/reduce builds" "$LOG/cc"
fi
finish
