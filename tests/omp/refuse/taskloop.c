/* taskloop: refused, naming the construct and line. */
#include <stdio.h>

int main(void)
{
    int hits[16] = {0};
#pragma omp parallel
#pragma omp single
#pragma omp taskloop /* refused: taskloop */
    for (int i = 0; i < 16; i++)
        hits[i]++;
    printf("%d\n", hits[15]);
    return 0;
}
