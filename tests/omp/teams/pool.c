/* A node's threads of a team are started once and reused: every thread
 * number runs on the same kernel thread in the first region and in the
 * 200th, and its threadprivate counter has seen every region. Prints "pool
 * reused" or what differs (tests/sh/omp_teams.sh). */
#include <omp.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MAX 64
#define REGIONS 200

static int calls;
#pragma omp threadprivate(calls)

int main(void)
{
    long first[MAX] = {0}, last[MAX] = {0};
    int seen[MAX] = {0}, team = 0;
    for (int r = 0; r < REGIONS; r++) {
#pragma omp parallel
        {
            int me = omp_get_thread_num();
            long tid = syscall(SYS_gettid);
            calls++;
            if (me < MAX) {
                if (r == 0)
                    first[me] = tid;
                last[me] = tid;
                seen[me] = calls;
            }
            if (me == 0)
                team = omp_get_num_threads();
        }
    }
    int bad = 0;
    for (int t = 0; t < team && t < MAX; t++)
        if (first[t] != last[t] || seen[t] != REGIONS) {
            printf("thread %d: kernel thread %ld then %ld, %d regions seen\n", t, first[t],
                   last[t], seen[t]);
            bad = 1;
        }
    printf("team %d: %s\n", team, bad ? "pool not reused" : "pool reused");
    return bad;
}
