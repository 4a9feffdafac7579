# Barnes-Hut 3-D N-body, tree built by node 0 each step. Arguments: bodies steps.
APPS += barnes
barnes_SRCS        := apps/barnes/barnes.c
barnes_SEQ_SRCS    := apps/barnes/barnes_seq.c
barnes_OMP_SRCS    := apps/barnes/barnes_omp.c
barnes_TEST_ARGS   := 2048 2
barnes_THREADED    := yes
barnes_QUICK_ARGS  := 8192 3
barnes_BENCH_ARGS  := 65536 3
