/* A team smaller than the job (one thread per node): refused. */
#include <stdio.h>

int main(void)
{
    int n = 0;
#pragma omp parallel num_threads(2) /* refused: parallel num_threads */
    n = 1;
    printf("%d\n", n);
    return 0;
}
