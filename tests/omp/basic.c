/* The team and the constructs around it: parallel (if, num_threads,
 * shared, private, firstprivate), single (with copyprivate), master, masked,
 * barrier, the omp_* routines, and which thread a static schedule gives
 * each iteration.
 * Prints what libomp prints with the same team size (tests/sh/omp.sh). */
#include <omp.h>
#include <stdio.h>

#define N 103

static int owner[N];

int main(void)
{
    int team = 0, in_par = -1, level = -1, ids[64] = {0};
    printf("sequential: thread %d of %d, in parallel %d, max %d\n", omp_get_thread_num(),
           omp_get_num_threads(), omp_in_parallel(), omp_get_max_threads());
#pragma omp parallel shared(team, in_par, level, ids)
    {
        int me = omp_get_thread_num();
        ids[me] = me + 100 + 1000 * omp_get_max_threads();
#pragma omp master
        {
            team = omp_get_num_threads();
            in_par = omp_in_parallel();
            level = omp_get_level();
        }
    }
    printf("team %d, in parallel %d, level %d\n", team, in_par, level);
    for (int t = 0; t < team; t++)
        printf("thread %d wrote %d\n", t, ids[t]);

    int x = 7, y = -1, seen[64] = {0};
#pragma omp parallel firstprivate(x) private(y)
    {
        y = x + omp_get_thread_num();
        x = 0;
        seen[omp_get_thread_num()] = y;
    }
    printf("firstprivate kept x = %d;", x);
    for (int t = 0; t < team; t++)
        printf(" %d", seen[t]);
    printf("\n");

    int serial = -1;
#pragma omp parallel if (team > 1000)
    serial = omp_get_num_threads();
    int one = -1;
#pragma omp parallel num_threads(1)
    one = omp_get_num_threads();
    printf("if(0) team %d, num_threads(1) team %d\n", serial, one);

    /* barrier: each thread's write is seen by all after it. */
    int marks[64] = {0}, sums[64] = {0};
#pragma omp parallel
    {
        int me = omp_get_thread_num(), n = omp_get_num_threads();
        marks[me] = me + 1;
#pragma omp barrier
        int s = 0;
        for (int t = 0; t < n; t++)
            s += marks[t];
        sums[me] = s;
    }
    for (int t = 0; t < team; t++)
        printf("after the barrier thread %d sums %d\n", t, sums[t]);

    int single_runs = 0, masked = -1;
#pragma omp parallel
    {
#pragma omp single
        single_runs++;
#pragma omp masked filter(0)
        masked = omp_get_thread_num();
    }
    printf("single ran %d time(s), masked by thread %d\n", single_runs, masked);

    /* copyprivate: the single's values reach every thread's private copies. */
    int got[64] = {0};
    double gotd[64] = {0};
#pragma omp parallel
    {
        int v = -1;
        double d = 0;
#pragma omp single copyprivate(v, d)
        {
            v = 4242;
            d = 0.125;
        }
        got[omp_get_thread_num()] = v;
        gotd[omp_get_thread_num()] = d;
    }
    for (int t = 0; t < team; t++)
        printf("copyprivate: thread %d got %d %.3f\n", t, got[t], gotd[t]);

#pragma omp parallel for schedule(static)
    for (int i = 0; i < N; i++)
        owner[i] = omp_get_thread_num();
    for (int i = 0; i < N; i++)
        if (i == 0 || owner[i] != owner[i - 1])
            printf("static: thread %d from iteration %d\n", owner[i], i);

    double t0 = omp_get_wtime(), t1 = omp_get_wtime();
    printf("wtime ordered %d, tick positive %d\n", t1 >= t0, omp_get_wtick() > 0);
    return 0;
}
