/* Request ids (transport/request.h), through their interface only: an id is
 * never issued twice, even when one slot is opened and closed over and
 * over, or by several threads at once; a closed id matches no reply; a
 * reply from another node or of another type than the one due does not
 * match; and a thread that closes every id it opened leaves none behind. */
#include <pthread.h>
#include <stdint.h>

#include "check.h"
#include "transport/msg.h"
#include "transport/request.h"

enum { REOPENS = 100000, THREADS = 4, EACH = 20000 };

static tsr_msg_hdr reply(int type, int src, uint64_t id)
{
    return (tsr_msg_hdr){0, (uint16_t)type, (uint16_t)src, {0, id, 0}, 0};
}

/* One slot reopened: the hint brings each opening back to the slot just
 * closed, so its generation alone keeps the ids apart. */
static void reopened(void)
{
    int ctx;
    uint64_t first = req_open(1, MSG_ECHO_REP, &ctx), last = first;
    req_close(first);
    int same_slot = 1, rising = 1;
    for (int i = 0; i < REOPENS; i++) {
        uint64_t id = req_open(1, MSG_ECHO_REP, &ctx);
        same_slot &= id % REQ_SLOTS == first % REQ_SLOTS;
        rising &= id > last;
        last = id;
        req_close(id);
    }
    CHECK(same_slot, "a free slot just closed was not the one reopened");
    CHECK(rising, "a reopened slot issued an id no newer than its last");
    CHECK(req_outstanding() == 0, "%u ids left open", req_outstanding());
}

static void matching(void)
{
    int ctx;
    uint64_t old = req_open(2, MSG_ECHO_REP, &ctx);
    req_close(old);
    uint64_t id = req_open(2, MSG_ECHO_REP, &ctx);
    tsr_msg_hdr stale = reply(MSG_ECHO_REP, 2, old), due = reply(MSG_ECHO_REP, 2, id);
    tsr_msg_hdr other_node = reply(MSG_ECHO_REP, 3, id), other_type = reply(MSG_ECHO_REQ, 2, id);
    CHECK(req_mismatch(2, &stale) != NULL, "a closed id matched a reply");
    CHECK(req_ctx(old) == NULL, "a closed id still has a context");
    CHECK(req_mismatch(2, &due) == NULL, "the id due did not match");
    CHECK(req_ctx(id) == &ctx, "the id due lost its context");
    CHECK(req_mismatch(3, &other_node) != NULL, "a reply from another node matched");
    CHECK(req_mismatch(2, &other_type) != NULL, "a reply of another type matched");
    req_close(id);
    tsr_msg_hdr zero = reply(MSG_ECHO_REP, 2, 0);
    CHECK(req_mismatch(2, &zero) != NULL, "id 0, no reply wanted, matched");
}

static uint64_t issued[THREADS][EACH];

/* Each thread keeps up to 8 ids open at once, so the threads contend for
 * the slots around the shared hint. */
static void *opener(void *arg)
{
    uint64_t *mine = arg;
    for (int i = 0; i < EACH; i++) {
        mine[i] = req_open(i % 5, MSG_ECHO_REP, mine);
        if (i >= 7)
            req_close(mine[i - 7]);
    }
    for (int i = EACH - 7; i < EACH; i++)
        req_close(mine[i]);
    return NULL;
}

static int by_value(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static void concurrent(void)
{
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, opener, issued[i]);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    uint64_t *all = &issued[0][0];
    qsort(all, (size_t)THREADS * EACH, sizeof *all, by_value);
    int twice = 0;
    for (size_t i = 1; i < (size_t)THREADS * EACH; i++)
        twice += all[i] == all[i - 1];
    CHECK(twice == 0, "%d ids issued twice by %d threads", twice, THREADS);
    CHECK(all[0] >= REQ_SLOTS, "id %llu has no generation", (unsigned long long)all[0]);
    CHECK(req_outstanding() == 0, "%u ids left open", req_outstanding());
}

int main(void)
{
    reopened();
    matching();
    concurrent();
    return check_done("request");
}
