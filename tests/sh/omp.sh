#!/usr/bin/env bash
# Unmodified OpenMP C through tsrcc -fopenmp (docs/OPENMP.md). Each program
# of tests/omp/ is built twice from the same source: by clang-16 -fopenmp
# (libomp, one machine) and by tsrcc -fopenmp; the Tessera build, run by
# tsrun at 1-4 nodes, must print what libomp prints with OMP_NUM_THREADS
# set to the node count. Some runs use the lazy protocol, and UDP with
# loss, duplicates and reordering (stdout is compared; stderr may hold the
# runtime's notes). Each program of tests/omp/refuse/, run at 3 nodes, must
# stop, naming the construct its `refused:` comment names and that line.
. tests/lib.sh
tsrcc=$B/bin/tsrcc
[ -x "$tsrcc" ] || missing_all "tsrcc is missing (clang-16, llvm-16-dev: make deps)"
[ -f /usr/lib/llvm-16/lib/libomp.so ] || missing_all "libomp-16-dev is missing (make deps)"

# Some schedule(runtime) loops, under the same OMP_SCHEDULE on both sides.
export OMP_SCHEDULE=guided,3
udp='TSR_TRANSPORT=udp TSR_FAULTS=loss=0.02,dup=0.02,reorder=0.4,delay=200us,seed=45'
for src in tests/omp/*.c; do
    name=$(basename "$src" .c)
    if ! clang-16 -fopenmp -O2 -o "$LOG/$name.ref" "$src" >"$LOG/cc" 2>&1 ||
        ! "$tsrcc" -fopenmp -O2 -o "$LOG/$name" "$src" >"$LOG/cc" 2>&1; then
        bad "omp/$name builds with clang-16 -fopenmp and tsrcc -fopenmp" "$LOG/cc"
        continue
    fi
    for run in 1 2 3 4 "2 TSR_PROTO=lrc" "4 TSR_PROTO=lrc" "3 $udp"; do
        n=${run%% *}
        vars=${run#"$n"}
        OMP_NUM_THREADS=$n "$LOG/$name.ref" >"$LOG/ref" 2>&1
        if ! env $vars timeout -k 2 120 "$TSRUN" -n "$n" "$LOG/$name" >"$LOG/out" 2>"$LOG/err"; then
            bad "omp/$name -n $n$vars (exit $?)" "$LOG/err"
        elif diff "$LOG/ref" "$LOG/out" >"$LOG/diff"; then
            ok "omp/$name -n $n$vars prints what libomp prints with $n threads"
        else
            bad "omp/$name -n $n$vars differs from libomp ('<' libomp, '>' tessera)" "$LOG/diff"
        fi
    done
done

for src in tests/omp/refuse/*.c; do
    name=$(basename "$src" .c)
    line=$(grep -n 'refused: ' "$src" | cut -d: -f1)
    construct=$(sed -n 's|.*/\* refused: \(.*\) \*/.*|\1|p' "$src")
    if ! "$tsrcc" -fopenmp -O2 -o "$LOG/$name" "$src" >"$LOG/cc" 2>&1; then
        bad "omp/refuse/$name builds" "$LOG/cc"
        continue
    fi
    expect_fail "omp/refuse/$name: $construct at $src:$line is refused" \
        "tessera openmp: $construct at $src:$line " "$TSRUN" -n 3 "$LOG/$name"
done

# The team is one thread per node: another OMP_NUM_THREADS is refused.
expect_fail "OMP_NUM_THREADS=3 at 2 nodes is refused" "OMP_NUM_THREADS=3, but the job has 2 nodes" \
    env OMP_NUM_THREADS=3 "$TSRUN" -n 2 "$LOG/basic"
finish
