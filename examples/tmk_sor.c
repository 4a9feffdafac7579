/*
 * tmk_sor.c - red-black successive over-relaxation, written the way the
 * TreadMarks distribution's examples are: process 0 allocates the grids
 * with Tmk_malloc and hands the pointers to the others with Tmk_distribute;
 * each process relaxes a band of rows, with barriers between the colours;
 * a lock protects a shared count of the rows relaxed.
 *
 *   tsrun -n 4 tmk_sor [rows cols iterations]
 *
 * Process 0 prints a checksum of the final grid, the same for any number
 * of processes (red-black ordering makes the result independent of the
 * bands), and the count of rows relaxed.
 */
#include <stdio.h>
#include <stdlib.h>

#include <tmk.h>

static int M = 200, N = 200, iterations = 20;
static float **red, **black; /* M rows of N floats each: the two colours */
static long *rows_done;      /* shared: rows relaxed, by every process */

static void init(void)
{
    red = (float **)Tmk_malloc(M * sizeof(float *));
    black = (float **)Tmk_malloc(M * sizeof(float *));
    rows_done = (long *)Tmk_malloc(sizeof(long));
    for (int i = 0; i < M; i++) {
        red[i] = (float *)Tmk_malloc(N * sizeof(float));
        black[i] = (float *)Tmk_malloc(N * sizeof(float));
        for (int j = 0; j < N; j++) {
            int edge = i == 0 || i == M - 1 || j == 0 || j == N - 1;
            red[i][j] = black[i][j] = edge ? (float)(i + j) : 0.0f;
        }
    }
    *rows_done = 0;
}

/* Relaxes the interior of rows [begin, end) of `to` from the other colour. */
static void relax(float **to, float **from, int begin, int end, int parity)
{
    for (int i = begin; i < end; i++)
        for (int j = 1 + (i + parity) % 2; j < N - 1; j += 2)
            to[i][j] = (from[i - 1][j] + from[i + 1][j] + from[i][j - 1] + from[i][j + 1]) / 4;
}

int main(int argc, char **argv)
{
    if (argc > 3) {
        M = atoi(argv[1]);
        N = atoi(argv[2]);
        iterations = atoi(argv[3]);
    }
    Tmk_startup(argc, argv);
    if (Tmk_proc_id == 0) {
        init();
        Tmk_distribute((char *)&red, sizeof red);
        Tmk_distribute((char *)&black, sizeof black);
        Tmk_distribute((char *)&rows_done, sizeof rows_done);
    }
    Tmk_barrier(0);

    int band = (M - 2 + Tmk_nprocs - 1) / Tmk_nprocs;
    int begin = 1 + Tmk_proc_id * band, end = begin + band < M - 1 ? begin + band : M - 1;
    for (int it = 0; it < iterations; it++) {
        relax(red, black, begin, end, 0);
        Tmk_barrier(1);
        relax(black, red, begin, end, 1);
        Tmk_barrier(2);
    }
    Tmk_lock_acquire(0);
    *rows_done += end > begin ? (long)(end - begin) * iterations : 0;
    Tmk_lock_release(0);
    Tmk_barrier(3);

    if (Tmk_proc_id == 0) {
        double sum = 0;
        for (int i = 0; i < M; i++)
            for (int j = 0; j < N; j++)
                sum += red[i][j] + black[i][j];
        printf("checksum %.6f\n", sum);
        printf("rows relaxed %ld of %ld\n", *rows_done, (long)(M - 2) * iterations);
    }
    Tmk_exit(0);
}
