/* thr_sor_plain.c - the threaded SOR of tests/mp/thr_sor.c with pthreads
 * and no Tessera: private memory and a pthread barrier. bench/thr_sor.sh
 * times it beside one Tessera node of as many threads. Arguments: rows
 * cols iterations threads. Prints the seconds of the whole solve and PASS
 * when the grid matches one thread's sweeps. */
#include <pthread.h>
#include <stdio.h>
#include <time.h>

#include "../tests/mp/thr.h"
#include "../tests/mp/thr_sor.h"

static double *grid;
static pthread_barrier_t turn;

static void wait_turn(int n)
{
    (void)n;
    pthread_barrier_wait(&turn);
}

static void worker(int t, int n)
{
    long lo, hi;
    band(t, n, &lo, &hi);
    solve_band(grid, lo, hi, wait_turn, n);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: %s rows cols iterations threads\n", argv[0]);
        return 2;
    }
    rows = atol(argv[1]);
    cols = atol(argv[2]);
    iters = atol(argv[3]);
    int threads = atoi(argv[4]);
    if (rows < threads || cols < 2 || iters < 1 || threads < 1) {
        fprintf(stderr, "%s: need rows >= threads >= 1, cols >= 2, iterations >= 1\n", argv[0]);
        return 2;
    }
    grid = malloc((size_t)(rows + 2) * (size_t)(cols + 2) * sizeof *grid);
    if (!grid || pthread_barrier_init(&turn, NULL, (unsigned)threads)) {
        fprintf(stderr, "%s: out of memory\n", argv[0]);
        return 1;
    }
    double t0 = now();
    thr_team(threads, worker);
    double seconds = now() - t0;
    int ok = matches_sequential(grid);
    printf("plain: %d threads, %.3f s, %s\n", threads, seconds, ok ? "PASS" : "FAIL");
    return !ok;
}
