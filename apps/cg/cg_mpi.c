/*
 * cg_mpi.c - conjugate gradient with MPI message passing.
 *
 * Rank k owns band k of the unknowns (cg_band, as in the Tessera version).
 * Vectors are whole-length so that indices stay global; a rank touches its
 * band and, for p, the halo of one grid row on each side that its rows of
 * A reach, which it receives from its neighbours after each update of p.
 */
#include <mpi.h>

#include "cg.h"

typedef struct cg_ranks {
    const cg_params *p;
    int rank, ranks;
} cg_ranks;

static double cg_sum_allreduce(double partial, void *ctx)
{
    (void)ctx;
    double total;
    MPI_Allreduce(&partial, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return total;
}

/* Sends each neighbour the edge of this band it reads and receives this
 * band's halo. A band of at least one grid row (checked in main) means a
 * halo never reaches past the neighbouring band. */
static void cg_share_halo(double *p, void *ctx)
{
    const cg_ranks *c = ctx;
    long lo, hi, below, above, next_below = 0, prev_above = 0;
    cg_band(c->p->n, c->ranks, c->rank, &lo, &hi);
    cg_halo(c->p, c->ranks, c->rank, &below, &above);
    int prev = c->rank > 0 ? c->rank - 1 : MPI_PROC_NULL;
    int next = c->rank < c->ranks - 1 ? c->rank + 1 : MPI_PROC_NULL;
    long unused;
    if (next != MPI_PROC_NULL)
        cg_halo(c->p, c->ranks, next, &next_below, &unused);
    if (prev != MPI_PROC_NULL)
        cg_halo(c->p, c->ranks, prev, &unused, &prev_above);
    MPI_Sendrecv(p + hi - next_below, (int)next_below, MPI_DOUBLE, next, 0, p + hi, (int)above,
                 MPI_DOUBLE, next, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(p + lo, (int)prev_above, MPI_DOUBLE, prev, 1, p + lo - below, (int)below,
                 MPI_DOUBLE, prev, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

/* Rank 0 collects every band of x. */
static void cg_gather(double *x, const cg_params *p, int rank, int ranks)
{
    int *counts = app_calloc((size_t)ranks, sizeof *counts);
    int *offsets = app_calloc((size_t)ranks, sizeof *offsets);
    for (int r = 0; r < ranks; r++) {
        long lo, hi;
        cg_band(p->n, ranks, r, &lo, &hi);
        counts[r] = (int)(hi - lo);
        offsets[r] = (int)lo;
    }
    MPI_Gatherv(rank == 0 ? MPI_IN_PLACE : x + offsets[rank], counts[rank], MPI_DOUBLE, x, counts,
                offsets, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    free(counts);
    free(offsets);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, ranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    cg_params p;
    cg_parse(argc, argv, &p);
    if (cg_band_capacity(p.n, ranks) < p.grid) {
        fprintf(stderr, "%s: bands shorter than a grid row (grid %ld, %d ranks)\n", argv[0],
                p.grid, ranks);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    long lo, hi;
    cg_band(p.n, ranks, rank, &lo, &hi);
    cg_matrix a = cg_build_matrix(&p, lo, hi);
    cg_vectors v = cg_alloc_private(p.n);
    cg_ranks ctx = {&p, rank, ranks};
    cg_comm comm = {cg_sum_allreduce, cg_share_halo, &ctx};
    cg_init_band(&v, lo, hi);
    MPI_Barrier(MPI_COMM_WORLD);

    double start = MPI_Wtime();
    cg_solve(&a, &v, p.iterations, &comm);
    MPI_Barrier(MPI_COMM_WORLD);
    double seconds = MPI_Wtime() - start;

    cg_gather(v.x, &p, rank, ranks);
    int status = 0;
    if (rank == 0)
        status = app_report("cg", "mpi", ranks, p.size, seconds, cg_verify_parallel(&p, v.x));
    cg_free_private(&v);
    cg_free_matrix(&a);
    MPI_Finalize();
    return status;
}
