# Conjugate gradient, shifted 2-D Laplacian in CSR. Arguments: grid iterations.
# Sequential times on the 2-core development machine: quick ~0.27 s, bench ~3.5 s.
APPS += cg
cg_SRCS       := apps/cg/cg.c apps/cg/cg_kernels.c
cg_SEQ_SRCS   := apps/cg/cg_seq.c apps/cg/cg_kernels.c
cg_MPI_SRCS   := apps/cg/cg_mpi.c apps/cg/cg_kernels.c
cg_OMP_SRCS   := apps/cg/cg_omp.c apps/cg/cg_kernels.c
cg_TEST_ARGS  := 64 100
cg_THREADED   := yes
cg_QUICK_ARGS := 640 100
cg_BENCH_ARGS := 2048 100
