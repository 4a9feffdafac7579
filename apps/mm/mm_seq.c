/* mm_seq.c - matrix multiply on one processor (the baseline for speedups). */
#include "mm.h"

int main(int argc, char **argv)
{
    mm_params p;
    mm_parse(argc, argv, &p);
    double **a, **b, **c = mm_alloc_private(p.n);
    mm_make_inputs(&a, &b, p.n);

    double start = app_now();
    mm_multiply_rows(c, a, b, p.n, 0, p.n);
    double seconds = app_now() - start;

    int ok = mm_freivalds(c, a, b, p.n);
    app_table_free(a);
    app_table_free(b);
    app_table_free(c);
    return app_report("mm", "seq", 1, p.size, seconds, ok);
}
