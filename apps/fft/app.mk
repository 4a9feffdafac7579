# Six-step 1-D complex FFT (SPLASH-2 FFT), forward then inverse. Argument: log2 n (even).
APPS += fft
fft_SRCS        := apps/fft/fft.c
fft_SEQ_SRCS    := apps/fft/fft_seq.c
fft_TEST_ARGS   := 12
fft_QUICK_ARGS  := 22
fft_BENCH_ARGS  := 24
