/* A team of more than one thread but fewer than the job's nodes (each node
 * runs at least one thread of a team): refused at 3 nodes. */
#include <stdio.h>

int main(void)
{
    int n = 0;
#pragma omp parallel num_threads(2) /* refused: parallel num_threads */
    n = 1;
    printf("%d\n", n);
    return 0;
}
