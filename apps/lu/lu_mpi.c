/*
 * lu_mpi.c - blocked LU factorisation with MPI message passing.
 *
 * Every rank keeps a whole-size block matrix so that block indices stay
 * global, but it initialises and updates only its own blocks (the 2-D
 * scatter of lu.h). The blocks others need are broadcast inside the process
 * row or column that needs them: the diagonal block to its row and column,
 * a perimeter column block (I,K) along process row I % pr, a perimeter row
 * block (K,J) down process column J % pc.
 */
#include <mpi.h>

#include "lu.h"

typedef struct lu_comms {
    MPI_Comm row, col; /* my process row (ranked by column) and column (ranked by row) */
    int my_row, my_col;
} lu_comms;

static lu_comms lu_split(const lu_grid *g, int rank)
{
    lu_comms c = {MPI_COMM_NULL, MPI_COMM_NULL, rank / g->pc, rank % g->pc};
    MPI_Comm_split(MPI_COMM_WORLD, c.my_row, c.my_col, &c.row);
    MPI_Comm_split(MPI_COMM_WORLD, c.my_col, c.my_row, &c.col);
    return c;
}

/* Broadcasts block (I,J) from its owner along process row I % pr. */
static void lu_share_along_row(double *const *blk, const lu_params *p, const lu_grid *g,
                               const lu_comms *c, long I, long J)
{
    if (c->my_row == I % g->pr)
        MPI_Bcast(lu_block(blk, p, I, J), (int)(p->b * p->b), MPI_DOUBLE, (int)(J % g->pc),
                  c->row);
}

/* Broadcasts block (I,J) from its owner down process column J % pc. */
static void lu_share_down_column(double *const *blk, const lu_params *p, const lu_grid *g,
                                 const lu_comms *c, long I, long J)
{
    if (c->my_col == J % g->pc)
        MPI_Bcast(lu_block(blk, p, I, J), (int)(p->b * p->b), MPI_DOUBLE, (int)(I % g->pr),
                  c->col);
}

static void lu_factor_distributed(double *const *blk, const lu_params *p, const lu_grid *g,
                                  const lu_comms *c)
{
    for (long K = 0; K < p->nb; K++) {
        lu_phase_diagonal(blk, p, g, K);
        lu_share_along_row(blk, p, g, c, K, K);
        lu_share_down_column(blk, p, g, c, K, K);
        lu_phase_perimeter(blk, p, g, K);
        /* All row broadcasts before all column ones, on every rank, so the
         * collectives on the two communicators cannot wait on each other. */
        for (long I = K + 1; I < p->nb; I++)
            lu_share_along_row(blk, p, g, c, I, K);
        for (long J = K + 1; J < p->nb; J++)
            lu_share_down_column(blk, p, g, c, K, J);
        lu_phase_interior(blk, p, g, K);
    }
}

/* Rank 0 receives every block it does not own from the block's owner. */
static void lu_gather(double *const *blk, const lu_params *p, const lu_grid *g, int rank)
{
    int count = (int)(p->b * p->b);
    for (long k = 0; k < p->nb * p->nb; k++) {
        int owner = lu_owner(g, k / p->nb, k % p->nb);
        if (owner == 0)
            continue;
        if (rank == owner)
            MPI_Send(blk[k], count, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
        else if (rank == 0)
            MPI_Recv(blk[k], count, MPI_DOUBLE, owner, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, ranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    lu_params p;
    lu_parse(argc, argv, &p);
    lu_grid g = lu_make_grid(ranks, rank);
    lu_comms c = lu_split(&g, rank);
    double **blk = lu_alloc_private(&p);
    lu_init_blocks(blk, &p, &g);
    MPI_Barrier(MPI_COMM_WORLD);

    double start = MPI_Wtime();
    lu_factor_distributed(blk, &p, &g, &c);
    MPI_Barrier(MPI_COMM_WORLD);
    double seconds = MPI_Wtime() - start;

    lu_gather(blk, &p, &g, rank);
    int status = 0;
    if (rank == 0)
        status = app_report("lu", "mpi", ranks, p.size, seconds, lu_verify_parallel(blk, &p));
    app_table_free(blk);
    MPI_Comm_free(&c.row);
    MPI_Comm_free(&c.col);
    MPI_Finalize();
    return status;
}
