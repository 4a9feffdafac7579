/*
 * sor_mpi.c - red-black SOR with MPI message passing.
 *
 * Each rank keeps its band of rows (sor_band) plus one ghost row above and
 * below for each colour. After updating a colour it sends its first and last
 * rows of that colour to its neighbours, which is exactly the data the
 * Tessera version's neighbours fault in after each barrier.
 */
#include <mpi.h>

#include "sor.h"

/* Rows lo-1 .. hi of one colour in a local array; the other row pointers
 * stay NULL because this rank never touches those rows. */
static double **sor_alloc_band(const sor_params *p, long lo, long hi)
{
    double **row = app_calloc((size_t)(p->rows + 2), sizeof *row);
    double *data = app_calloc((size_t)(hi - lo + 2) * (size_t)p->width, sizeof *data);
    for (long i = lo - 1; i <= hi; i++)
        row[i] = data + (i - lo + 1) * p->width;
    return row;
}

/* Sends this band's edge rows of one colour to the neighbouring ranks and
 * receives theirs into the ghost rows. */
static void sor_exchange(double *const *m, const sor_params *p, long lo, long hi, int rank,
                         int ranks)
{
    int above = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    int below = rank < ranks - 1 ? rank + 1 : MPI_PROC_NULL;
    int n = (int)p->width;
    MPI_Sendrecv(m[lo], n, MPI_DOUBLE, above, 0, m[hi], n, MPI_DOUBLE, below, 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    MPI_Sendrecv(m[hi - 1], n, MPI_DOUBLE, below, 1, m[lo - 1], n, MPI_DOUBLE, above, 1,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

/* Rank 0 collects every rank's band of one colour into `whole`. */
static void sor_gather(double *const *whole, double *const *band, const sor_params *p, long lo,
                       long hi, int rank, int ranks)
{
    int *counts = malloc((size_t)ranks * sizeof *counts);
    int *offsets = malloc((size_t)ranks * sizeof *offsets);
    for (int r = 0; r < ranks; r++) {
        long rlo, rhi;
        sor_band(p, ranks, r, &rlo, &rhi);
        counts[r] = (int)((rhi - rlo) * p->width);
        offsets[r] = (int)(rlo * p->width);
    }
    MPI_Gatherv(band[lo], (int)((hi - lo) * p->width), MPI_DOUBLE, rank == 0 ? whole[0] : NULL,
                counts, offsets, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    free(counts);
    free(offsets);
}

/* Rank 0: assembles the distributed result and checks it. */
static int sor_verify_gathered(double *const *red, double *const *black, const sor_params *p,
                               long lo, long hi, int rank, int ranks)
{
    double **all_red = NULL, **all_black = NULL;
    if (rank == 0) {
        all_red = sor_alloc_private(p);
        all_black = sor_alloc_private(p);
        sor_init_rows(all_red, all_black, p, 0, p->rows + 2); /* the boundary */
    }
    sor_gather(all_red, red, p, lo, hi, rank, ranks);
    sor_gather(all_black, black, p, lo, hi, rank, ranks);
    if (rank != 0)
        return 1;
    int ok = sor_verify_parallel(all_red, all_black, p);
    app_table_free(all_red);
    app_table_free(all_black);
    return ok;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, ranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    sor_params p;
    sor_parse(argc, argv, &p);
    if (p.rows < ranks) {
        fprintf(stderr, "%s: need at least one row per rank (%ld rows, %d ranks)\n", argv[0],
                p.rows, ranks);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    long lo, hi;
    sor_band(&p, ranks, rank, &lo, &hi);
    double **red = sor_alloc_band(&p, lo, hi), **black = sor_alloc_band(&p, lo, hi);
    /* Ghost rows start at their initial values too, so no exchange is
     * needed before the first sweep. */
    sor_init_rows(red, black, &p, lo - 1, hi + 1);
    MPI_Barrier(MPI_COMM_WORLD);

    double start = MPI_Wtime();
    for (long it = 0; it < p.iterations; it++) {
        sor_sweep(red, black, SOR_RED, &p, lo, hi);
        sor_exchange(red, &p, lo, hi, rank, ranks);
        sor_sweep(black, red, SOR_BLACK, &p, lo, hi);
        sor_exchange(black, &p, lo, hi, rank, ranks);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    double seconds = MPI_Wtime() - start;

    int ok = sor_verify_gathered(red, black, &p, lo, hi, rank, ranks);
    int status = 0;
    if (rank == 0)
        status = app_report("sor", "mpi", ranks, p.size, seconds, ok);
    MPI_Finalize();
    return status;
}
