# Integer radix sort (SPLASH-2 RADIX). Arguments: keys radix_bits key_bits.
APPS += radix
radix_SRCS        := apps/radix/radix.c
radix_SEQ_SRCS    := apps/radix/radix_seq.c
radix_TEST_ARGS   := 65536 8 32
radix_QUICK_ARGS  := 16777216 8 32
radix_BENCH_ARGS  := 134217728 8 32
