/* Worksharing: for with static (chunked), dynamic, guided, runtime and
 * auto schedules, collapse, nowait, lastprivate, sections, loops counting
 * down and over 64-bit and unsigned variables, an orphaned for, a team's
 * loop after one the master ran in a nested region. Each loop
 * marks the iterations it ran; every one must run exactly once. */
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define N 1000

static int hits[N];
static int64_t big[N];

static void report(const char *what)
{
    int bad = 0;
    long sum = 0;
    for (int i = 0; i < N; i++) {
        bad += hits[i] != 1;
        sum += hits[i];
    }
    printf("%-22s ran %ld iterations, %d not exactly once\n", what, sum, bad);
    memset(hits, 0, sizeof hits);
}

/* An orphaned for: it binds to whichever team calls it. */
static void mark_all(void)
{
#pragma omp for schedule(dynamic, 7)
    for (int i = 0; i < N; i++)
        hits[i]++;
}

/* One loop over every iteration under the given clauses, then its report. */
#define PRAGMA(text) _Pragma(#text)
#define EVERY_ONCE(what, clauses)                \
    do {                                         \
        PRAGMA(omp parallel for clauses)         \
        for (int i = 0; i < N; i++)              \
            hits[i]++;                           \
        report(what);                            \
    } while (0)

int main(void)
{
    EVERY_ONCE("static,3", schedule(static, 3));
    EVERY_ONCE("dynamic", schedule(dynamic));
    EVERY_ONCE("dynamic,13", schedule(dynamic, 13));
    EVERY_ONCE("guided", schedule(guided));
    EVERY_ONCE("guided,5", schedule(guided, 5));
    EVERY_ONCE("runtime", schedule(runtime));
    EVERY_ONCE("auto", schedule(auto));
#pragma omp parallel for collapse(2) schedule(dynamic, 4)
    for (int i = 0; i < 40; i++)
        for (int j = 0; j < 25; j++)
            hits[i * 25 + j]++;
    report("collapse(2)");
#pragma omp parallel for
    for (int i = N - 1; i >= 0; i -= 1)
        hits[i]++;
    report("counting down");
#pragma omp parallel for schedule(dynamic, 9)
    for (int64_t i = 0; i < N; i++)
        big[i] = i * 3000000000LL, hits[i]++;
    report("int64_t");
    printf("big[%d] = %lld\n", N - 1, (long long)big[N - 1]);
#pragma omp parallel for schedule(static, 11)
    for (unsigned i = 0; i < N; i++)
        hits[i]++;
    report("unsigned");
#pragma omp parallel for schedule(guided)
    for (uint64_t i = 2; i < 2 * N + 2; i += 2)
        hits[(i - 2) / 2]++;
    report("uint64_t by 2");

    /* nowait: two loops, then a barrier; the second sees nothing of the first. */
#pragma omp parallel
    {
#pragma omp for nowait schedule(dynamic, 3)
        for (int i = 0; i < N / 2; i++)
            hits[i]++;
#pragma omp for nowait schedule(dynamic, 5)
        for (int i = N / 2; i < N; i++)
            hits[i]++;
#pragma omp barrier
    }
    report("nowait");
#pragma omp parallel
    mark_all();
    report("orphaned for");
    mark_all();
    report("orphaned, sequential");
    /* A dynamic loop that one thread runs alone in a nested region must not
     * put it out of step with its team's next dynamic loop. */
#pragma omp parallel
    {
#pragma omp master
        {
#pragma omp parallel for schedule(dynamic)
            for (int i = 0; i < 10; i++)
                big[i] = i;
        }
        mark_all();
    }
    report("after a nested loop");

    int last = -1, lastd = -1;
#pragma omp parallel for lastprivate(last)
    for (int i = 0; i < N; i++)
        last = i * 2;
#pragma omp parallel for lastprivate(lastd) schedule(static, 7)
    for (int i = 0; i < N; i++)
        lastd = i + 1;
    printf("lastprivate %d, chunked %d\n", last, lastd);

    int sec[4] = {0};
#pragma omp parallel sections
    {
#pragma omp section
        sec[0] += 1;
#pragma omp section
        sec[1] += 10;
#pragma omp section
        sec[2] += 100;
#pragma omp section
        sec[3] += 1000;
    }
    printf("sections %d %d %d %d\n", sec[0], sec[1], sec[2], sec[3]);
    return 0;
}
