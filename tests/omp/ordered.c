/* ordered: the ordered regions of a loop run in iteration order whatever
 * thread runs the iteration, under static, dynamic, guided and runtime
 * schedules, with iterations that skip their ordered region. Each region
 * appends its iteration to a shared log, and the log is printed. */
#include <omp.h>
#include <stdio.h>

#define N 60

static int log_[N], logged;

static void show(const char *what)
{
    int in_order = 1;
    for (int i = 1; i < logged; i++)
        in_order &= log_[i] > log_[i - 1];
    printf("%-9s %d regions, in order %d, first %d last %d\n", what, logged, in_order, log_[0],
           log_[logged - 1]);
    logged = 0;
}

int main(void)
{
#pragma omp parallel for ordered schedule(static)
    for (int i = 0; i < N; i++) {
#pragma omp ordered
        log_[logged++] = i;
    }
    show("static");
#pragma omp parallel for ordered schedule(static, 2)
    for (int i = 0; i < N; i++) {
#pragma omp ordered
        log_[logged++] = i;
    }
    show("static,2");
#pragma omp parallel for ordered schedule(dynamic, 3)
    for (int i = 0; i < N; i++) {
        if (i % 3 == 1)
            continue; /* no ordered region in this iteration */
#pragma omp ordered
        log_[logged++] = i;
    }
    show("dynamic,3");
#pragma omp parallel for ordered schedule(guided)
    for (int i = N; i > 0; i--) {
#pragma omp ordered
        log_[logged++] = N - i;
    }
    show("guided");
#pragma omp parallel for ordered schedule(runtime)
    for (long i = 0; i < N; i++) {
#pragma omp ordered
        log_[logged++] = (int)i;
    }
    show("runtime");
    return 0;
}
