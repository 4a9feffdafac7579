/*
 * ga_micro_shmem.c - ga_micro's accesses written with OpenSHMEM, as today's
 * anchor: the same streams (../ga_pattern.h), reads with shmem_*_g and
 * writes with shmem_*_p, a shmem_barrier_all after each run. Built with
 * Open MPI's oshcc and run with oshrun by bench/themis.sh.
 *
 * Open MPI 4.1.4 (Debian 12) crashes in shmem_finalize's exit handlers
 * after a correct run (open-mpi/ompi#11604): the results are printed and
 * flushed before it, and themis.sh keeps them.
 */
#include <shmem.h>
#include <stdio.h>
#include <time.h>

#include "../ga_pattern.h"

static uint32_t array[ELEMS];
static double times[1024];

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void run(int pattern, unsigned width, int me, int n)
{
    stream s = stream_start(pattern, n, me);
    uint64_t len = stream_length(n), v = (uint64_t)me << 8;
    char *a8 = (char *)array;
    short *a16 = (short *)array;
    int *a32 = (int *)array;
    for (uint64_t i = 0; i < len; i++) {
        access a = stream_next(&s);
        if (a.write) {
            v++;
            if (width == 1)
                shmem_char_p(a8 + a.elem, (char)v, a.node);
            else if (width == 2)
                shmem_short_p(a16 + a.elem, (short)v, a.node);
            else
                shmem_int_p(a32 + a.elem, (int)v, a.node);
        } else if (width == 1) {
            v += (uint64_t)shmem_char_g(a8 + a.elem, a.node);
        } else if (width == 2) {
            v += (uint64_t)shmem_short_g(a16 + a.elem, a.node);
        } else {
            v += (uint64_t)shmem_int_g(a32 + a.elem, a.node);
        }
    }
    shmem_barrier_all();
}

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    for (unsigned width = 1; width <= 4; width *= 2)
        for (int p = 0; p < PAT_COUNT; p++) {
            shmem_barrier_all();
            double t0 = now();
            run(p, width, me, n);
            shmem_double_p(&times[me], now() - t0, 0);
            shmem_barrier_all();
            if (me != 0)
                continue;
            double worst = 0;
            for (int i = 0; i < n; i++)
                worst = times[i] > worst ? times[i] : worst;
            printf("%-13s %-10s %4u %5d %9.2f %9s %9s %9s %8s %8s\n", "OpenSHMEM",
                   pattern_names[p], width * 8, n, worst * 1e3, "-", "-", "-", "-", "-");
            fflush(stdout);
        }
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
