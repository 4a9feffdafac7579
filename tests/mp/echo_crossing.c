/* Replies crossing requests: every node echoes payloads off every other node
 * at once, so a thread waiting for its reply keeps finding a peer's request
 * in front of it on the link. Under shm the waiting thread takes its own
 * replies off the rings and must leave those requests to the comm thread
 * (and wake it): every byte must come back, no request may stay open, and
 * nothing may hang. A thread that never polls (TSR_PROGRESS=block) or a
 * backend without rings (tcp) must take no reply itself. */
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

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    tsr_barrier();
    int bad = echo_all();
    tsr_barrier();
    uint64_t taken = 0;
    tsr_counter_get("replies_taken", &taken);
    int never_polls = strcmp(transport_name(), "shm") || cfg.progress == PROGRESS_BLOCK;
    int stray = never_polls && taken != 0;
    int open = req_outstanding() != 0;
    printf("node %d: %d corrupted echoes, %u requests open, %llu replies taken by their waiter "
           "(%s, %s) %s\n",
           tsr_node(), bad, req_outstanding(), (unsigned long long)taken, transport_name(),
           never_polls ? "none allowed" : "any number", bad || stray || open ? "FAIL" : "PASS");
    tsr_finalize();
    return bad || stray || open;
}
