#!/usr/bin/env bash
# Unmodified OpenMP C through tsrcc -fopenmp (docs/OPENMP.md). Each program
# of tests/omp/ is built from the same source by clang-16 -fopenmp (libomp,
# one machine) and by tsrcc -fopenmp, at -O2 and -O0; the Tessera build, run
# by tsrun at 1-4 nodes and 8, must print what libomp prints with OMP_NUM_THREADS
# set to the node count. Some runs use the lazy protocol, replicated
# sequential code (TSR_OMP_SEQUENTIAL=replicate), and UDP with
# loss, duplicates and reordering. Teams of several threads per node are
# tests/sh/omp_teams.sh; the refusals, costs, limits and applications are in
# tests/sh/omp_apps.sh.
. tests/lib.sh
. tests/lib_omp.sh

udp='TSR_TRANSPORT=udp TSR_FAULTS=loss=0.02,dup=0.02,reorder=0.4,delay=200us,seed=45'
for src in tests/omp/*.c; do
    name=$(basename "$src" .c)
    build_omp "$name" "$src" O2 && build_omp "$name" "$src" O0 || continue
    for n in 1 2 3 4; do
        compare "$name" "$name-O2" $n $n
    done
    compare "$name" "$name-O2" 2 2 TSR_PROTO=lrc
    compare "$name" "$name-O2" 4 4 TSR_PROTO=lrc
    compare "$name" "$name-O2" 3 3 $udp
    compare "$name" "$name-O0" 3 3
    compare "$name" "$name-O2" 8 8
    compare "$name" "$name-O2" 3 3 TSR_OMP_SEQUENTIAL=replicate
    compare "$name" "$name-O2" 2 2 TSR_OMP_SEQUENTIAL=replicate TSR_PROTO=lrc
done
finish
