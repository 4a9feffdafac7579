/* An ordered loop: refused, naming the construct and line. */
#include <stdio.h>

int main(void)
{
#pragma omp parallel for ordered schedule(dynamic) /* refused: ordered */
    for (int i = 0; i < 8; i++) {
#pragma omp ordered
        printf("%d\n", i);
    }
    return 0;
}
