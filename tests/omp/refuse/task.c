/* A task: refused at its first execution, naming the construct and line. */
#include <stdio.h>

int main(void)
{
    int x = 0;
#pragma omp parallel
#pragma omp single
    {
#pragma omp task shared(x) /* refused: task */
        x = 1;
    }
    printf("%d\n", x);
    return 0;
}
