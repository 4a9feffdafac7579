# Water-Nsquared molecular dynamics (SPLASH-2), simplified physics. Arguments: molecules steps.
APPS += water
water_SRCS        := apps/water/water.c
water_SEQ_SRCS    := apps/water/water_seq.c
water_TEST_ARGS   := 216 3
water_THREADED    := yes
water_QUICK_ARGS  := 1000 10
water_BENCH_ARGS  := 2744 25
water_OMP_SRCS    := apps/water/water_omp.c
