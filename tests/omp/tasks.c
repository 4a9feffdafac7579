/* Tasks, which Tessera runs undeferred: recursive tasks with taskwait,
 * tasks made in a worksharing loop, tasks with dependences, if(0) and
 * final tasks, taskgroup, taskyield. */
#include <omp.h>
#include <stdio.h>

static long fib(int n)
{
    if (n < 2)
        return n;
    long a, b;
#pragma omp task shared(a) firstprivate(n)
    a = fib(n - 1);
#pragma omp task shared(b) firstprivate(n)
    b = fib(n - 2);
#pragma omp taskwait
    return a + b;
}

int main(void)
{
    long r = 0;
#pragma omp parallel
#pragma omp single
    r = fib(18);
    printf("fib(18) = %ld\n", r);

    int hits[200] = {0}, per_thread = 0;
#pragma omp parallel
    {
#pragma omp for
        for (int i = 0; i < 200; i++) {
#pragma omp task firstprivate(i) shared(hits)
            hits[i] += i;
        }
#pragma omp taskgroup
        {
#pragma omp task if (0)
            {
#pragma omp atomic
                per_thread++;
            }
#pragma omp taskyield
        }
    }
    long s = 0;
    for (int i = 0; i < 200; i++)
        s += hits[i];
    printf("loop tasks %ld, one task per thread %d\n", s, per_thread);

    int x = 1, y = 0, z = 0;
#pragma omp parallel
#pragma omp single
    {
#pragma omp task depend(out : x) shared(x)
        x = 10;
#pragma omp task depend(in : x) depend(out : y) shared(x, y)
        y = x * 2;
#pragma omp task depend(in : y) shared(y, z) final(1)
        z = y + 1;
    }
    printf("dependences: x %d y %d z %d\n", x, y, z);
    return 0;
}
