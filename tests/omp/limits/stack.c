/* A shared local larger than the frame stack (TSR_OMP_STACK=1 in
 * tests/sh/omp.sh): stopped, naming the variable to raise. */
#include <stdio.h>

int main(void)
{
    double big[300000];
#pragma omp parallel for
    for (int i = 0; i < 300000; i++)
        big[i] = i;
    printf("%f\n", big[299999]);
    return 0;
}
