/* lu_seq.c - blocked LU factorisation on one processor (the baseline). */
#include "lu.h"

int main(int argc, char **argv)
{
    lu_params p;
    lu_parse(argc, argv, &p);
    double **blk = lu_alloc_private(&p);
    lu_grid all = lu_make_grid(1, -1);
    lu_init_blocks(blk, &p, &all);

    double start = app_now();
    lu_factor_sequential(blk, &p);
    double seconds = app_now() - start;

    int ok = lu_factors_reproduce_input(blk, &p);
    app_table_free(blk);
    return app_report("lu", "seq", 1, p.size, seconds, ok);
}
