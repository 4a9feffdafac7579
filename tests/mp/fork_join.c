/* Fork/join (tsr_fork, tsr_join, tsr_serve): node 0 forks ROUNDS times,
 * alternating two functions: one gets its argument through a struct node 0
 * allocated alone (tsr_malloc) and wrote before the fork, the other gets a
 * plain number; the last round goes through TreadMarks' names (tmk.h).
 * Each node writes its own slot of a collective array; after
 * each join node 0 checks every slot of the round, which shows that every
 * node ran the function once, with the argument node 0 gave, saw node 0's
 * writes made before the fork, and finished before the join returned. */
/* tsr-test: suite */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "tessera.h"
#include "tmk.h"

#define ROUNDS 6

typedef struct job {
    long *slots;
    long round, salt;
} job;

static long expected(long round, long salt, int node) { return round * 1000 + salt + node; }

static void by_struct(void *arg)
{
    job *j = arg;
    j->slots[j->round * tsr_nodes() + tsr_node()] = expected(j->round, j->salt, tsr_node());
}

static long *slots_of_number; /* the same on every node: set before tsr_serve */

static void by_number(void *arg)
{
    long round = (long)(intptr_t)arg;
    slots_of_number[round * tsr_nodes() + tsr_node()] = expected(round, 7, tsr_node());
}

static int check_round(const long *slots, long round, long salt)
{
    int bad = 0;
    for (int n = 0; n < tsr_nodes(); n++) {
        long got = slots[round * tsr_nodes() + n];
        if (got != expected(round, salt, n)) {
            printf("round %ld: node %d wrote %ld, want %ld\n", round, n, got,
                   expected(round, salt, n));
            bad = 1;
        }
    }
    return bad;
}

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    long *slots = tsr_alloc(sizeof(long) * ROUNDS * (size_t)tsr_nodes());
    slots_of_number = slots;
    if (tsr_node() != 0) {
        tsr_serve();
        tsr_finalize();
        return 0;
    }
    job *j = tsr_malloc(sizeof *j);
    int bad = 0;
    for (long r = 0; r < ROUNDS; r++) {
        if (r % 2 == 0) {
            *j = (job){slots, r, 100 + r};
            tsr_fork(by_struct, j);
        } else if (r < ROUNDS - 1) {
            tsr_fork(by_number, (void *)(intptr_t)r);
        } else {
            Tmk_fork(by_number, (void *)(intptr_t)r);
        }
        if (r < ROUNDS - 1)
            tsr_join();
        else
            Tmk_join();
        bad |= check_round(slots, r, r % 2 == 0 ? 100 + r : 7);
    }
    printf("node 0: %d rounds of fork/join at %d nodes %s\n", ROUNDS, tsr_nodes(),
           bad ? "FAIL" : "PASS");
    tsr_finalize();
    return bad;
}
