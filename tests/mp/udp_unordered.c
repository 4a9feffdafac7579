/* The unordered service class and multicast over the real transport.
 * Node 0 sends COUNT numbered messages to node 1 with am_send_unordered,
 * then COUNT to every node (itself included) with am_multicast. Each
 * receiver counts every number: each must arrive exactly once. Node 1 also
 * counts the unordered messages that came after a higher number (out of
 * order). Prints both, and how many datagrams went to the job's multicast
 * group (udp's IP multicast); tests/sh/udp_unordered.sh says what each transport
 * and fault setting must show. The messages borrow MSG_ECHO_REQ, whose
 * handler this program replaces (arg0: which stream, arg2: the number). */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "tessera.h"
#include "transport/transport.h"

#define COUNT 3000

enum { UNORDERED, MULTICAST };

static unsigned char seen[2][COUNT];
static _Atomic int arrived[2];
static int highest = -1, out_of_order, bad_number;

static void on_numbered(int src, const tsr_msg_hdr *h, void *payload)
{
    uint64_t stream = h->arg[0], n = h->arg[2];
    if (stream > MULTICAST || n >= COUNT) {
        bad_number++;
        return;
    }
    if (stream == UNORDERED) {
        if ((int)n < highest)
            out_of_order++;
        else
            highest = (int)n;
    }
    seen[stream][n]++;
    atomic_fetch_add(&arrived[stream], 1);
}

static int wait_for(int stream)
{
    double end = tsr_wtime() + 60;
    while (atomic_load(&arrived[stream]) < COUNT && tsr_wtime() < end)
        ;
    int wrong = 0;
    for (int i = 0; i < COUNT; i++)
        wrong += seen[stream][i] != 1;
    return wrong;
}

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    int me = tsr_node(), nodes = tsr_nodes(), wrong = 0;
    am_register(MSG_ECHO_REQ, on_numbered);
    tsr_barrier();
    if (me == 0 && nodes > 1)
        for (int i = 0; i < COUNT; i++)
            am_send_unordered(1, MSG_ECHO_REQ, UNORDERED, 0, (uint64_t)i, &i, sizeof i);
    if (me == 1) {
        wrong += wait_for(UNORDERED);
        printf("node 1: unordered: %d not exactly once, %d out of order\n", wrong, out_of_order);
    }
    int *all = malloc((size_t)nodes * sizeof *all);
    if (!all) {
        printf("node %d: out of memory for the multicast's list\n", me);
        return 1;
    }
    for (int j = 0; j < nodes; j++)
        all[j] = j;
    if (me == 0)
        for (int i = 0; i < COUNT; i++)
            am_multicast(all, nodes, MSG_ECHO_REQ, MULTICAST, 0, (uint64_t)i, &i, sizeof i);
    int mwrong = wait_for(MULTICAST);
    uint64_t datagrams = 0;
    tsr_counter_get("udp_multicasts", &datagrams);
    printf("node %d: multicast (native %d): %d not exactly once, %llu group datagrams\n", me,
           am_multicast_native(), mwrong, (unsigned long long)datagrams);
    wrong += mwrong + bad_number;
    tsr_barrier();
    free(all);
    tsr_finalize();
    printf("node %d: %s\n", me, wrong ? "FAIL" : "PASS");
    return wrong != 0;
}
