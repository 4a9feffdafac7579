# Blocked LU without pivoting (SPLASH-2, contiguous blocks). Arguments: n b.
# Sequential times on the 2-core development machine: quick ~0.3 s, bench ~4 s.
APPS += lu
lu_SRCS       := apps/lu/lu.c apps/lu/lu_kernels.c
lu_SEQ_SRCS   := apps/lu/lu_seq.c apps/lu/lu_kernels.c
lu_MPI_SRCS   := apps/lu/lu_mpi.c apps/lu/lu_kernels.c
lu_OMP_SRCS   := apps/lu/lu_omp.c apps/lu/lu_kernels.c
lu_TEST_ARGS  := 64 16
lu_THREADED   := yes
lu_QUICK_ARGS := 1280 32
lu_BENCH_ARGS := 3072 32
