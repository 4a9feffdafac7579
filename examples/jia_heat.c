/*
 * jia_heat.c - Jacobi relaxation of a plate's temperature, written the way
 * JIAJIA's applications are, using the rest of its API: host 0 reads the
 * parameters and jia_bcast's them; the grids' rows are homed in bands
 * (jia_alloc3), host 0's scratch at host 0 (jia_alloc2p), the counters
 * round robin (jia_alloc); host 0 sets the edges and raises a condition
 * variable the others wait on; jia_divtask shares the rows out, by each
 * host's measured speed once jia_config(LOADBAL, ON) and jia_loadcheck
 * have run; jia_reduce finds the largest change of each sweep; each host
 * reports the rows it relaxed to host 0 with jia_send.
 *
 *   tsrun -n 4 jia_heat [rows sweeps]
 *
 * Host 0 prints the largest change of the last sweep, a checksum of the
 * plate and the rows relaxed, the same for any number of hosts.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <jia.h>

#define COLS 512 /* doubles: one page a row */
#define EDGES_SET 1

int main(int argc, char **argv)
{
    int param[2] = {128, 40}; /* rows, sweeps */
    jia_init(argc, argv);
    jia_config(LOADBAL, ON);
    if (jiapid == 0 && argc > 2) {
        param[0] = atoi(argv[1]);
        param[1] = atoi(argv[2]);
        if (param[0] < 3 || param[1] < 1)
            jia_error("jia_heat: %d rows and %d sweeps: want 3 rows and 1 sweep at least",
                      param[0], param[1]);
    }
    jia_bcast((char *)param, sizeof param, 0);
    int rows = param[0], sweeps = param[1], row = COLS * sizeof(double);
    int band = (rows + jiahosts - 1) / jiahosts * row;
    double *grid[2] = {(double *)jia_alloc3(rows * row, band, 0),
                       (double *)jia_alloc3(rows * row, band, 0)};
    double *sums = (double *)jia_alloc2p(row, 0);
    int *sweeps_done = (int *)jia_alloc(sizeof(int));

    if (jiapid == 0) {
        for (int i = 0; i < rows; i++)
            for (int k = 0; k < 2; k++) {
                grid[k][i * COLS] = 100;              /* the hot left edge */
                grid[k][i * COLS + COLS - 1] = i % 7; /* a cool, uneven right edge */
            }
        jia_setcv(EDGES_SET);
    } else {
        jia_waitcv(EDGES_SET);
    }
    jia_barrier();

    jia_startstat();
    float start = jia_clock();
    int relaxed = 0;
    double change = 0;
    for (int s = 0; s < sweeps; s++) {
        double *from = grid[s % 2], *to = grid[1 - s % 2], mine = 0;
        int begin = 1, end = rows - 2;
        jia_divtask(&begin, &end);
        for (int i = begin; i <= end; i++, relaxed++)
            for (int j = 1; j < COLS - 1; j++) {
                double *t = &to[i * COLS + j], *f = &from[i * COLS + j];
                *t = (f[-COLS] + f[COLS] + f[-1] + f[1]) / 4;
                mine = fmax(mine, fabs(*t - *f));
            }
        jia_reduce((char *)&mine, (char *)&change, 1, MAX_DOUBLE, 0);
        if (s % 10 == 9)
            jia_loadcheck();
        jia_barrier();
    }
    float took = jia_clock() - start;
    jia_stopstat();
    jia_lock(0);
    *sweeps_done += jiapid == 0 ? sweeps : 0;
    jia_unlock(0);

    jia_send((char *)&relaxed, sizeof relaxed, 0, 1);
    if (jiapid == 0) {
        int total = 0, one;
        for (int h = 0; h < jiahosts; h++) {
            jia_recv((char *)&one, sizeof one, MSG_PROC_ALL, 1);
            total += one;
        }
        double sum = 0;
        for (int i = 0; i < rows; i++) {
            sums[i % COLS] = 0;
            for (int j = 0; j < COLS; j++)
                sums[i % COLS] += grid[sweeps % 2][i * COLS + j];
            sum += sums[i % COLS];
        }
        printf("largest change in the last sweep %.6g\n", change);
        printf("checksum %.6f\n", sum);
        printf("rows relaxed %d in %d sweeps\n", total, *sweeps_done);
        printf("time %.3f s\n", took);
    }
    jia_wait();
    jia_exit();
    return 0;
}
