/* A doacross loop (ordered(n) with depend(sink/source)): refused, naming
 * the construct and line. */
#include <stdio.h>

int main(void)
{
    int a[16] = {0};
#pragma omp parallel for ordered(1) /* refused: ordered(n) */
    for (int i = 1; i < 16; i++) {
#pragma omp ordered depend(sink : i - 1)
        a[i] = a[i - 1] + 1;
#pragma omp ordered depend(source)
    }
    printf("%d\n", a[15]);
    return 0;
}
