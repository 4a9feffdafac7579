#!/usr/bin/env bash
# OpenMP teams larger than the node count (docs/OPENMP.md, "The team"),
# beyond the constructs of tests/sh/omp_teams.sh: the applications' OpenMP
# forms verify with several threads a node, and the node's threads are
# started once (tests/omp/teams/pool.c). What a region and a barrier cost
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

finish
