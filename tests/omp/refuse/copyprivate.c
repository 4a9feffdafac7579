/* single copyprivate: refused. */
#include <stdio.h>

int main(void)
{
#pragma omp parallel
    {
        int v = 0;
#pragma omp single copyprivate(v) /* refused: single copyprivate */
        v = 5;
        if (v != 5)
            printf("wrong\n");
    }
    return 0;
}
