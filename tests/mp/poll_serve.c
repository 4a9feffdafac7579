/* tsr_poll serves a node's peers from its application thread while its
 * comm thread sleeps. Node 1 homes P pages and writes them; then every
 * other node reads them, one page request each (TSR_FETCH_AHEAD=1, and
 * TSR_FETCH=message, since a node that copied the pages from its host's
 * home would send it nothing to serve), while
 * node 1 only calls tsr_poll until it has answered them all. The pages
 * read back right (the handlers ran on node 1's application thread as they
 * would on its comm thread), and, unless the comm thread never sleeps
 * (TSR_PROGRESS=spin), node 1's polls delivered some of the requests: its
 * comm thread has to wake for each, its polls do not. On a loaded machine
 * node 1 may get no core while a round lasts, and with two jobs on two
 * cores a round where a poll delivers anything can be one in six or more,
 * so rounds repeat, up to ROUNDS, until a poll has delivered something. */
/* tsr-test: hlrc */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "tessera.h"
#include "test_env.h"
#include "util/config.h"

#define PAGE 4096
#define P 256
#define ROUNDS 50
#define WAIT_S 20.0

static char value(size_t page, int round) { return (char)(page * 7 + (size_t)round + 1); }

/* Node 1 polls until it has sent every reader every page: what it sent
 * since `base` (bytes_sent before the barrier, which adds a few headers). */
static void serve_by_polling(int readers, uint64_t base)
{
    tsr_stats s;
    double give_up = tsr_wtime() + WAIT_S;
    do {
        tsr_poll();
        tsr_stats_get(&s);
    } while (s.bytes_sent - base < (uint64_t)readers * P * PAGE && tsr_wtime() < give_up);
}

static int read_pages(const char *a, int round)
{
    int bad = 0;
    for (size_t i = 0; i < P; i++)
        bad += a[i * PAGE + 5] != value(i, round);
    return bad;
}

int main(int argc, char **argv)
{
    test_setenv("TSR_FETCH_AHEAD", "1");
    test_setenv("TSR_FETCH", "message");
    test_setenv("TSR_POLL_US", "0");
    tsr_init(&argc, &argv);
    int me = tsr_node(), n = tsr_nodes(), home = n > 1, bad = 0, round;
    tsr_attr at = TSR_ATTR_DEFAULT;
    at.home = TSR_HOME_NODE;
    at.home_node = home;
    char *a = tsr_alloc_attr((size_t)P * PAGE, &at);
    volatile int *done = tsr_alloc_attr(sizeof *done, &at);
    uint64_t polled = 0;
    for (round = 0; round < ROUNDS; round++) {
        if (me == home)
            for (size_t i = 0; i < P; i++)
                a[i * PAGE + 5] = value(i, round);
        tsr_stats before;
        tsr_stats_get(&before);
        tsr_barrier();
        if (me == home && n > 1)
            serve_by_polling(n - 1, before.bytes_sent);
        else
            bad += read_pages(a, round);
        tsr_counter_get("polled_messages", &polled);
        if (me == home)
            *done = polled > 0 || n == 1 || cfg.progress == PROGRESS_SPIN;
        tsr_barrier();
        if (*done)
            break;
    }
    if (bad)
        printf("node %d: %d pages read wrong\n", me, bad);
    if (me == home && n > 1 && cfg.progress != PROGRESS_SPIN && polled == 0) {
        printf("node 1: no request was delivered by a poll in %d rounds\n", ROUNDS);
        bad++;
    }
    tsr_finalize();
    if (!bad && me == home)
        printf("poll_serve: ok (%llu messages delivered by polls in %d rounds)\n",
               (unsigned long long)polled, round + (round < ROUNDS));
    return bad != 0;
}
