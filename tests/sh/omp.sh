#!/usr/bin/env bash
# Unmodified OpenMP C through tsrcc -fopenmp (docs/OPENMP.md). Each program
# of tests/omp/ is built from the same source by clang-16 -fopenmp (libomp,
# one machine) and by tsrcc -fopenmp, at -O2 and -O0; the Tessera build, run
# by tsrun at 1-4 nodes and 8, must print what libomp prints with OMP_NUM_THREADS
# set to the node count. Some runs use the lazy protocol, replicated
# sequential code (TSR_OMP_SEQUENTIAL=replicate), and UDP with
# loss, duplicates and reordering (stdout is compared; stderr may hold the
# runtime's notes). The refusals, costs, limits and applications are in
# tests/sh/omp_apps.sh.
. tests/lib.sh
tsrcc=$B/bin/tsrcc
[ -x "$tsrcc" ] || missing_all "tsrcc is missing (clang-16, llvm-16-dev: make deps)"
[ -f /usr/lib/llvm-16/lib/libomp.so ] || missing_all "libomp-16-dev is missing (make deps)"

# Some schedule(runtime) loops, under the same OMP_SCHEDULE on both sides.
export OMP_SCHEDULE=guided,3
udp='TSR_TRANSPORT=udp TSR_FAULTS=loss=0.02,dup=0.02,reorder=0.4,delay=200us,seed=45'
# compare NAME BUILD N [VAR=VALUE...]: BUILD at N nodes against libomp.
compare() {
    local name=$1 build=$2 n=$3
    shift 3
    local what="omp/$name ${build#"$name"} -n $n $*"
    OMP_NUM_THREADS=$n "$LOG/$build.ref" >"$LOG/ref" 2>&1
    if ! env "$@" timeout -k 2 120 "$TSRUN" -n "$n" "$LOG/$build" >"$LOG/out" 2>"$LOG/err"; then
        bad "$what (exit $?)" "$LOG/err"
    elif diff "$LOG/ref" "$LOG/out" >"$LOG/diff"; then
        ok "$what prints what libomp prints with $n threads"
    else
        bad "$what differs from libomp ('<' libomp, '>' tessera)" "$LOG/diff"
    fi
}

for src in tests/omp/*.c; do
    name=$(basename "$src" .c)
    built=yes
    for opt in O2 O0; do
        if ! clang-16 -fopenmp -$opt -o "$LOG/$name-$opt.ref" "$src" >"$LOG/cc" 2>&1 ||
            ! "$tsrcc" -fopenmp -$opt -o "$LOG/$name-$opt" "$src" >"$LOG/cc" 2>&1; then
            bad "omp/$name builds with clang-16 -fopenmp -$opt and tsrcc -fopenmp -$opt" "$LOG/cc"
            built=
        fi
    done
    [ -n "$built" ] || continue
    for n in 1 2 3 4; do
        compare "$name" "$name-O2" $n
    done
    compare "$name" "$name-O2" 2 TSR_PROTO=lrc
    compare "$name" "$name-O2" 4 TSR_PROTO=lrc
    compare "$name" "$name-O2" 3 $udp
    compare "$name" "$name-O0" 3
    compare "$name" "$name-O2" 8
    compare "$name" "$name-O2" 3 TSR_OMP_SEQUENTIAL=replicate
    compare "$name" "$name-O2" 2 TSR_OMP_SEQUENTIAL=replicate TSR_PROTO=lrc
done
finish
