/* Replies crossing requests: every node echoes payloads off every other node
 * at once, so a thread waiting for its reply keeps finding a peer's request
 * in front of it on the link. Under shm and tcp the waiting thread takes
 * its own replies off the rings or the socket and must leave those
 * requests to the comm thread (and wake it): every byte must come back, no
 * request may stay open, and nothing may hang. A thread that never polls
 * (TSR_PROGRESS=block) or a backend that cannot let it (udp) must take no
 * reply itself. Then node 0 alone echoes off node 1, whose link then
 * carries little but the replies: over tcp under TSR_PROGRESS=spin (the
 * tcp-spin line), where the comm thread does not read a socket that a
 * waiting thread polls and the waiter polls until its reply comes, node 0
 * must take some (a heartbeat ahead of a reply hands that one back). */
/* tsr-test: suite */
#include <stdio.h>
#include <string.h>

#include "tessera.h"
#include "transport/core.h"
#include "transport/request.h"
#include "transport/transport.h"
#include "util/config.h"

enum { ROUNDS = 1500 };

static const size_t sizes[] = {0, 8, 64, 200, 4096};

static int echo_all(void)
{
    static unsigned char out[4096], back[4096];
    int bad = 0;
    for (int i = 0; i < ROUNDS; i++)
        for (int k = 1; k < tsr_nodes(); k++) {
            int peer = (tsr_node() + k) % tsr_nodes();
            size_t len = sizes[(size_t)i % (sizeof sizes / sizeof *sizes)];
            for (size_t b = 0; b < len; b++)
                out[b] = (unsigned char)(b * 7 + (size_t)i + (size_t)tsr_node() * 31);
            memset(back, 0xee, len);
            am_echo(peer, out, len, back);
            bad += memcmp(out, back, len) != 0;
        }
    return bad;
}

/* Node 0's echoes off node 1 alone: how many replies node 0 took. */
static uint64_t echo_quiet(int *bad)
{
    static unsigned char out[64], back[64];
    uint64_t before = 0, after = 0;
    tsr_counter_get("replies_taken", &before);
    for (int i = 0; tsr_node() == 0 && tsr_nodes() > 1 && i < 200; i++) {
        memset(out, i, sizeof out);
        am_echo(1, out, sizeof out, back);
        *bad += memcmp(out, back, sizeof out) != 0;
    }
    tsr_counter_get("replies_taken", &after);
    return after - before;
}

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    tsr_barrier();
    int bad = echo_all();
    tsr_barrier();
    uint64_t taken = 0;
    tsr_counter_get("replies_taken", &taken);
    int may_take = (!strcmp(transport_name(), "shm") || !strcmp(transport_name(), "tcp")) &&
                   cfg.progress != PROGRESS_BLOCK;
    int never_polls = !may_take;
    int stray = never_polls && taken != 0;
    uint64_t quiet = echo_quiet(&bad);
    int must_take = !strcmp(transport_name(), "tcp") && cfg.progress == PROGRESS_SPIN &&
                    tsr_node() == 0 && tsr_nodes() > 1;
    stray |= must_take && quiet == 0;
    tsr_barrier();
    int open = req_outstanding() != 0;
    printf("node %d: %d corrupted echoes, %u requests open, %llu replies taken by their waiter "
           "(%s, %s), %llu of 200 alone (%s) %s\n",
           tsr_node(), bad, req_outstanding(), (unsigned long long)taken, transport_name(),
           never_polls ? "none allowed" : "any number", (unsigned long long)quiet,
           must_take ? "some needed" : "any number", bad || stray || open ? "FAIL" : "PASS");
    tsr_finalize();
    return bad || stray || open;
}
