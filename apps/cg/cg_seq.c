/* cg_seq.c - conjugate gradient on one processor (the baseline). */
#include "cg.h"

int main(int argc, char **argv)
{
    cg_params p;
    cg_parse(argc, argv, &p);
    cg_matrix a = cg_build_matrix(&p, 0, p.n);
    cg_vectors v = cg_alloc_private(p.n);
    cg_comm alone = {cg_sum_alone, cg_share_nothing, NULL};
    cg_init_band(&v, 0, p.n);

    double start = app_now();
    cg_solve(&a, &v, p.iterations, &alone);
    double seconds = app_now() - start;

    int ok = cg_solves(&p, v.x);
    cg_free_private(&v);
    cg_free_matrix(&a);
    return app_report("cg", "seq", 1, p.size, seconds, ok);
}
