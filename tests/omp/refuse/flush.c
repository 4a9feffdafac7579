/* A flush alone carries nothing between nodes: refused. */
#include <stdio.h>

int flag;

int main(void)
{
#pragma omp parallel
    {
        flag = 1;
#pragma omp flush /* refused: flush */
    }
    printf("%d\n", flag);
    return 0;
}
