/* A node parked in tsr_serve applies two barriers' departures when node
 * 0's fork wakes it, while node 0, already running the forked function,
 * may send it a message that the barrier after those counts (a lock's
 * release to the lock's manager). That message must not be taken for one
 * the earlier barriers expect: with a count kept per epoch parity, the
 * parked node waited forever in about one run in seventy of TreadMarks'
 * loop scheduler under load (coherence.c keeps one per epoch modulo 4).
 * Many forks in a row make the window likely. */
/* tsr-test: hlrc -n 2,3,4 */
/* tsr-test: lrc -n 2,3,4 */
#include <stdio.h>

#include "tessera.h"

#define FORKS 300

static long *count;

static void work(void *arg)
{
    (void)arg;
    tsr_lock(1);
    (*count)++;
    tsr_unlock(1);
}

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    count = tsr_alloc(sizeof *count);
    int bad = 0;
    if (tsr_node() != 0) {
        tsr_serve();
    } else {
        for (int i = 0; i < FORKS; i++) {
            tsr_fork(work, NULL);
            tsr_join();
        }
        long want = (long)FORKS * tsr_nodes();
        bad = *count != want;
        printf("fork_counted: %ld increments (want %ld) %s\n", *count, want, bad ? "FAIL" : "PASS");
    }
    tsr_finalize();
    return bad;
}
