/* sor_seq.c - red-black SOR on one processor (the baseline for speedups). */
#include "sor.h"

int main(int argc, char **argv)
{
    sor_params p;
    sor_parse(argc, argv, &p);
    double **red = sor_alloc_private(&p), **black = sor_alloc_private(&p);
    sor_init_rows(red, black, &p, 0, p.rows + 2);

    double start = app_now();
    sor_solve_sequential(red, black, &p);
    double seconds = app_now() - start;

    int ok = sor_plausible(red, black, &p);
    app_table_free(red);
    app_table_free(black);
    return app_report("sor", "seq", 1, p.size, seconds, ok);
}
