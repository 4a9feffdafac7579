#!/usr/bin/env bash
# OpenMP teams larger than the node count (docs/OPENMP.md, "The team"):
# each program of tests/omp/, built by tsrcc -fopenmp, runs with several
# threads per node, from TSR_THREADS and from an OMP_NUM_THREADS that is
# not a multiple of the node count, and must print what libomp prints with
# the same team on one machine. Regions and barriers still cost 2(N-1)
# messages with two threads per node, and the node's threads are started
# once (tests/omp/teams/pool.c). Under a ThreadSanitizer build (make
# check-tsan T=sh/omp_teams), the Tessera programs are built with
# -fsanitize=thread too and run at fewer sizes: the node's threads share the
# OpenMP runtime's state.
. tests/lib.sh
. tests/lib_omp.sh

san=() tsan=
if nm "$B/lib/libtessera.a" 2>/dev/null | grep -q ' U __tsan_init'; then
    san=(-fsanitize=thread) tsan=yes
elif nm "$B/lib/libtessera.a" 2>/dev/null | grep -q ' U __asan_init'; then
    skip_all "the OpenMP programs are not built under AddressSanitizer (clang's runtime against GCC's objects)"
fi

udp='TSR_TRANSPORT=udp TSR_FAULTS=loss=0.02,dup=0.02,reorder=0.4,delay=200us,seed=46'
for src in tests/omp/*.c; do
    name=$(basename "$src" .c)
    build_omp "$name" "$src" O2 "${san[@]}" || continue
    # TSR_THREADS=2 at 1, 2 and 4 nodes; 3 threads at 2 nodes (2 + 1).
    compare "$name" "$name-O2" 2 4 TSR_THREADS=2
    compare "$name" "$name-O2" 2 3 OMP_NUM_THREADS=3
    [ -n "$tsan" ] && continue
    compare "$name" "$name-O2" 1 2 TSR_THREADS=2
    compare "$name" "$name-O2" 4 8 TSR_THREADS=2
    # 6 threads at 4 nodes (2, 2, 1, 1); the lazy protocol; UDP with faults;
    # replicated sequential code.
    compare "$name" "$name-O2" 4 6 OMP_NUM_THREADS=6
    compare "$name" "$name-O2" 2 4 TSR_THREADS=2 TSR_PROTO=lrc
    compare "$name" "$name-O2" 3 6 TSR_THREADS=2 $udp
    compare "$name" "$name-O2" 2 4 TSR_THREADS=2 TSR_OMP_SEQUENTIAL=replicate
done

# The node's threads are started once: the same kernel thread and the same
# threadprivate counter for each thread number over 200 regions.
if "$tsrcc" -fopenmp -O2 "${san[@]}" -o "$LOG/pool" tests/omp/teams/pool.c >"$LOG/cc" 2>&1; then
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
if [ -n "$tsan" ]; then
    skip "omp/cost with 2 threads a node: counted in the ordinary build"
elif "$tsrcc" -fopenmp -O0 -o "$LOG/regions" tests/omp/cost/regions.c >"$LOG/cc" 2>&1; then
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
