/* A SPLASH-style program through a PARMACS macro file (parmacs.h): its
 * shared state is in ordinary globals, as in FMM, Volrend or Water. The
 * master sets a global parameter struct from its arguments, a global
 * pointer to the GlobalMemory it G_MALLOCs, and a global function pointer
 * (the stencil); each process takes an id under a lock, relaxes its band of
 * rows between barriers, and adds its part of the checksum to a global
 * under a lock. The master checks the result against the same computation
 * in private memory. */
/* tsr-test: suite 48 6 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "parmacs.h"

MAIN_ENV

struct GlobalMemory {
    LOCKDEC(idlock)
    LOCKDEC(sumlock)
    BARDEC(start)
    int id;
    double sum;
    double grid[2][64][64];
};

struct {
    int n, iters, nprocs;
} Param;
struct GlobalMemory *Global;
double (*stencil)(double (*g)[64], int i, int j);
double Checksum;

static double average(double (*g)[64], int i, int j)
{
    return 0.25 * (g[i - 1][j] + g[i + 1][j] + g[i][j - 1] + g[i][j + 1]);
}

static void init_grid(double (*g)[64], int n)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            g[i][j] = i == 0 || j == 0 ? 100.0 + i + j : 0.0;
}

/* Relaxes rows [lo, hi) for one iteration from grid `from`. */
static void relax(double (*to)[64], double (*from)[64], int lo, int hi, int n)
{
    for (int i = lo; i < hi; i++)
        for (int j = 1; j < n - 1; j++)
            to[i][j] = stencil(from, i, j);
}

static double sum_rows(double (*g)[64], int lo, int hi, int n)
{
    double s = 0;
    for (int i = lo; i < hi; i++)
        for (int j = 0; j < n; j++)
            s += g[i][j] * (i + 1);
    return s;
}

static void SlaveStart(void)
{
    int me;
    LOCK(Global->idlock);
    me = Global->id++;
    UNLOCK(Global->idlock);
    int n = Param.n, rows = (n - 2 + Param.nprocs - 1) / Param.nprocs;
    int lo = 1 + me * rows, hi = lo + rows < n - 1 ? lo + rows : n - 1;
    BARRIER(Global->start, Param.nprocs);
    for (int it = 0; it < Param.iters; it++) {
        relax(Global->grid[(it + 1) % 2], Global->grid[it % 2], lo, hi, n);
        BARRIER(Global->start, Param.nprocs);
    }
    double part = sum_rows(Global->grid[Param.iters % 2], lo, hi, n);
    LOCK(Global->sumlock);
    Checksum += part;
    UNLOCK(Global->sumlock);
}

int main(int argc, char **argv)
{
    MAIN_INITENV();
    Param.n = argc > 1 ? atoi(argv[1]) : 48;
    Param.iters = argc > 2 ? atoi(argv[2]) : 6;
    Param.nprocs = tsr_nodes();
    if (Param.n < 3 || Param.n > 64 || Param.iters < 1) {
        fprintf(stderr, "usage: parmacs_jacobi [n 3-64] [iterations]\n");
        exit(2);
    }
    stencil = average;
    Global = G_MALLOC(sizeof *Global);
    memset(Global, 0, sizeof *Global);
    LOCKINIT(Global->idlock);
    LOCKINIT(Global->sumlock);
    BARINIT(Global->start);
    init_grid(Global->grid[0], Param.n);
    init_grid(Global->grid[1], Param.n);
    for (int i = 1; i < Param.nprocs; i++)
        CREATE(SlaveStart);
    SlaveStart();
    WAIT_FOR_END(Param.nprocs - 1);

    static double seq[2][64][64];
    init_grid(seq[0], Param.n);
    init_grid(seq[1], Param.n);
    for (int it = 0; it < Param.iters; it++)
        relax(seq[(it + 1) % 2], seq[it % 2], 1, Param.n - 1, Param.n);
    double want = sum_rows(seq[Param.iters % 2], 1, Param.n - 1, Param.n);
    int ok = fabs(Checksum - want) <= 1e-9 * fabs(want) && Global->id == Param.nprocs;
    printf("parmacs_jacobi: %d processes, checksum %.6f, want %.6f %s\n", Param.nprocs, Checksum,
           want, ok ? "PASS" : "FAIL");
    MAIN_END;
    return !ok;
}
