/* Code run before main (a constructor): no job yet, so its region is a
 * team of one on the node, and its shared locals and heap are private. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

static int before = -1;

__attribute__((constructor)) static void early(void)
{
    int n = 0;
    int *p = malloc(sizeof *p);
#pragma omp parallel shared(n)
    n = omp_get_num_threads();
    *p = n;
    before = *p;
    free(p);
}

int main(void)
{
    int n = 0;
#pragma omp parallel
#pragma omp master
    n = omp_get_num_threads();
    printf("before main %d, main %d\n", before, n);
    return 0;
}
