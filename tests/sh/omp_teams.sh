#!/usr/bin/env bash
# OpenMP teams larger than the node count (docs/OPENMP.md, "The team"):
# each program of tests/omp/, built by tsrcc -fopenmp, runs with several
# threads per node, from TSR_THREADS and from an OMP_NUM_THREADS that is
# not a multiple of the node count, and must print what libomp prints with
# the same team on one machine (other protocols, transports and team
# shapes are tests/sh/omp_teams_variants.sh; the applications, the pool and
# the costs with several threads a node tests/sh/omp_teams_apps.sh). Under a
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

# TSR_THREADS=2 at 1, 2 and 4 nodes; 3 threads at 2 nodes (2 + 1).
teams() {
    compare "$1" "$2" 2 4 TSR_THREADS=2
    compare "$1" "$2" 2 3 OMP_NUM_THREADS=3
    [ -n "$tsan" ] && return
    compare "$1" "$2" 1 2 TSR_THREADS=2
    compare "$1" "$2" 4 8 TSR_THREADS=2
}
for_each_omp $opt teams "${san[@]}"
finish
