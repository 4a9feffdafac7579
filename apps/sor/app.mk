# Red-black SOR (Rice/Munin). Arguments: rows cols iterations (cols even).
# Sequential times on the 2-core development machine: quick ~0.4 s, bench ~4.5 s.
APPS += sor
sor_SRCS       := apps/sor/sor.c apps/sor/sor_kernels.c
sor_SEQ_SRCS   := apps/sor/sor_seq.c apps/sor/sor_kernels.c
sor_MPI_SRCS   := apps/sor/sor_mpi.c apps/sor/sor_kernels.c
sor_OMP_SRCS   := apps/sor/sor_omp.c apps/sor/sor_kernels.c
sor_TEST_ARGS  := 64 64 10
sor_THREADED   := yes
sor_QUICK_ARGS := 2048 2048 100
sor_BENCH_ARGS := 4096 4096 250
sor_RUN_ARGS   := 2048 2048 200
