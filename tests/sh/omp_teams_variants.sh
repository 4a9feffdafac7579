#!/usr/bin/env bash
# OpenMP teams larger than the node count under other settings than
# tests/sh/omp_teams.sh's (the same programs, compared with libomp in the
# same way): 6 threads at 4 nodes (2, 2, 1, 1), the lazy protocol, UDP with
# faults, and replicated sequential code.
. tests/lib.sh
. tests/lib_omp.sh
[ -n "$(omp_sanitizer)" ] && skip_all "tests/sh/omp_teams.sh runs the sanitizer builds"

udp='TSR_TRANSPORT=udp TSR_FAULTS=loss=0.02,dup=0.02,reorder=0.4,delay=200us,seed=46'
variants() {
    compare "$1" "$2" 4 6 OMP_NUM_THREADS=6
    compare "$1" "$2" 2 4 TSR_THREADS=2 TSR_PROTO=lrc
    compare "$1" "$2" 3 6 TSR_THREADS=2 $udp
    compare "$1" "$2" 2 4 TSR_THREADS=2 TSR_OMP_SEQUENTIAL=replicate
}
for_each_omp O2 variants
finish
