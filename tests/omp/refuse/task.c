/* An untied task (tasks run undeferred; an untied one would expect to be
 * resumed later): refused at its first execution, naming it and its line. */
#include <stdio.h>

int main(void)
{
    int x = 0;
#pragma omp parallel
#pragma omp single
    {
#pragma omp task untied shared(x) /* refused: task untied */
        x = 1;
    }
    printf("%d\n", x);
    return 0;
}
