#!/usr/bin/env bash
# OpenMP teams larger than the node count (docs/OPENMP.md, "The team"):
# each program of tests/omp/, built by tsrcc -fopenmp, runs with several
# threads per node, from TSR_THREADS and from an OMP_NUM_THREADS that is
# not a multiple of the node count, and must print what libomp prints with
# the same team on one machine (the applications, the pool and the costs
# with several threads a node are tests/sh/omp_teams_apps.sh). Under a
# ThreadSanitizer build (make check-tsan T=sh/omp_teams) the Tessera
# programs run at 2 nodes only: the node's threads share the OpenMP
# runtime's state, which GCC instrumented
# there; the programs are instrumented by clang at -O0 (at -O2 LLVM hoists
# loads of shared variables out of `sections` switches, races in TSan's
# eyes only) and linked with GCC's libtsan, whose runtime the library's
# objects need (clang's crashes on them), leaving the memory intrinsics to
# its interceptors (GCC 12's has no __tsan_memset).
. tests/lib.sh
. tests/lib_omp.sh

san=() tsan= opt=O2
case $(omp_sanitizer) in
tsan)
    san=(-fsanitize=thread -fno-sanitize-link-runtime -mllvm -tsan-instrument-memintrinsics=false
         "$(${CC:-cc} -print-file-name=libtsan.so)")
    tsan=yes opt=O0 ;;
asan) skip_all "the OpenMP programs are not built under AddressSanitizer (clang's runtime against GCC's objects)" ;;
esac

udp='TSR_TRANSPORT=udp TSR_FAULTS=loss=0.02,dup=0.02,reorder=0.4,delay=200us,seed=46'
for src in tests/omp/*.c; do
    name=$(basename "$src" .c)
    build_omp "$name" "$src" $opt "${san[@]}" || continue
    # TSR_THREADS=2 at 1, 2 and 4 nodes; 3 threads at 2 nodes (2 + 1).
    compare "$name" "$name-$opt" 2 4 TSR_THREADS=2
    compare "$name" "$name-$opt" 2 3 OMP_NUM_THREADS=3
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
finish
