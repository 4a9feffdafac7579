/*
 * mm_mpi.c - matrix multiply with MPI message passing.
 *
 * Rank k holds band k of the rows of A and C and all of B. Each rank
 * generates its band of A and of B; the bands of B are then exchanged
 * (inside the timed region, as the Tessera version fetches B's pages while
 * it computes), and C is gathered on rank 0 only for the check.
 */
#include <mpi.h>

#include "mm.h"

/* Element counts and offsets of every rank's row band, for the v-collectives. */
static void mm_band_layout(long n, int ranks, int *counts, int *offsets)
{
    for (int r = 0; r < ranks; r++) {
        long lo, hi;
        mm_band(n, ranks, r, &lo, &hi);
        counts[r] = (int)((hi - lo) * n);
        offsets[r] = (int)(lo * n);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, ranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    mm_params p;
    mm_parse(argc, argv, &p);
    if (p.n < ranks) {
        fprintf(stderr, "%s: need at least one row per rank (n=%ld, %d ranks)\n", argv[0], p.n,
                ranks);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    long n = p.n, lo, hi;
    mm_band(n, ranks, rank, &lo, &hi);
    int *counts = malloc((size_t)ranks * sizeof *counts);
    int *offsets = malloc((size_t)ranks * sizeof *offsets);
    mm_band_layout(n, ranks, counts, offsets);

    /* Whole-size row tables keep the kernel's global row numbers; this rank
     * only fills its band of A and C. */
    double **a = mm_alloc_private(n), **b = mm_alloc_private(n), **c = mm_alloc_private(n);
    mm_init_rows(a, 0, n, lo, hi);
    mm_init_rows(b, 1, n, lo, hi);
    MPI_Barrier(MPI_COMM_WORLD);

    double start = MPI_Wtime();
    MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, b[0], counts, offsets, MPI_DOUBLE,
                   MPI_COMM_WORLD);
    mm_multiply_rows(c, a, b, n, lo, hi);
    MPI_Barrier(MPI_COMM_WORLD);
    double seconds = MPI_Wtime() - start;

    MPI_Gatherv(rank == 0 ? MPI_IN_PLACE : c[lo], counts[rank], MPI_DOUBLE, c[0], counts, offsets,
                MPI_DOUBLE, 0, MPI_COMM_WORLD);
    int status = 0;
    if (rank == 0)
        status = app_report("mm", "mpi", ranks, p.size, seconds, mm_verify_parallel(c, n));
    MPI_Finalize();
    return status;
}
