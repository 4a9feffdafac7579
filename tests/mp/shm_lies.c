/* Over the shm backend the wire is memory both nodes write: node 1, once
 * both are idle after a barrier, writes a lie where node 0 reads, and node
 * 0 must stop the job naming node 1, not read past its ring or hang.
 *
 *   shm_lies head        the head of ring (1, 0) claims more bytes than
 *                        the ring holds
 *   shm_lies box-place   the fast box claims a place behind the tail
 *   shm_lies box-length  the box's message claims more than the box holds
 *
 * (A reader's lying tail stops the liar itself, whose own reads then find
 * the head behind the tail; a writer's handling of one is unit/ring's.)
 *
 * Run by sh/shm_lies at 2 nodes over shm, with heartbeats off so that
 * node 1's comm thread writes nothing to node 0 meanwhile. In no set: the
 * job is meant to fail. */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "tessera.h"
#include "transport/ring.h"
#include "transport/shm_read.h"

static void lie(const char *what)
{
    ring_hdr *to0 = shm_ring(1, 0);
    uint64_t tail = atomic_load(&to0->tail);
    if (!strcmp(what, "head")) {
        atomic_store(&to0->head, tail + ring_size() + 4096);
    } else if (!strcmp(what, "box-place") || !strcmp(what, "box-length")) {
        tsr_msg_hdr h = {.len = !strcmp(what, "box-length") ? RING_BOX_BYTES : 0,
                         .type = MSG_ECHO_REQ, .src = 1};
        memcpy(to0->box.msg, &h, sizeof h);
        to0->box.at_head = !strcmp(what, "box-place") ? tail - 64 : atomic_load(&to0->head);
        atomic_fetch_add(&to0->box.posted, 1);
    }
}

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    const char *what = argc > 1 ? argv[1] : "";
    if (tsr_nodes() != 2 ||
        (strcmp(what, "head") && strcmp(what, "box-place") && strcmp(what, "box-length"))) {
        printf("usage: shm_lies head|box-place|box-length, at 2 nodes over shm\n");
        tsr_finalize();
        return 2;
    }
    tsr_barrier();
    if (tsr_node() == 1)
        lie(what);
    /* Node 0 reads the lie at its next look at ring (1, 0). */
    for (int i = 0; i < 100; i++)
        tsr_barrier();
    printf("node %d: the job went on after the lie (%s)\n", tsr_node(), what);
    tsr_finalize();
    return 1;
}
