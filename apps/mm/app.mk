# Matrix multiply C = A x B (Munin). Argument: n.
# Sequential times on the 2-core development machine: quick ~0.35 s, bench ~4 s.
APPS += mm
mm_SRCS       := apps/mm/mm.c apps/mm/mm_kernels.c
mm_SEQ_SRCS   := apps/mm/mm_seq.c apps/mm/mm_kernels.c
mm_MPI_SRCS   := apps/mm/mm_mpi.c apps/mm/mm_kernels.c
mm_OMP_SRCS   := apps/mm/mm_omp.c apps/mm/mm_kernels.c
mm_TEST_ARGS  := 64
mm_THREADED   := yes
mm_QUICK_ARGS := 1024
mm_BENCH_ARGS := 2048
