/*
 * holdup.c - how long a message waits before its handler runs: CAS-DSM's
 * holdup time (cas-dsm-compiler-assisted.md, Section 2.3 and Figure 11).
 *
 * Every message carries its sender's CLOCK_REALTIME at sending (the
 * header's stamp). At dispatch the receiver counts now - stamp: the send
 * latency and the holdup, the time the message waited to be read because
 * no thread of this node was reading (the comm thread asleep, or waiting
 * for a core). On one host both ends read one clock and the send latency
 * is microseconds; between hosts the measure is as good as their clocks'
 * agreement (NTP). The stamp serves nothing else, so it needs no rule of
 * its own: a value ahead of this node's clock or older than HOLDUP_MAX_NS
 * is simply not counted.
 *
 * Only a sample of the messages is stamped, one in HOLDUP_SAMPLE drawn at
 * random by each sending thread; the others carry 0 and are not measured.
 * Two clock reads per message (one at each end) and the counters cost
 * about a sixth of a small message's round trip over shared memory; the
 * sample keeps the average and the histogram's shape at a sixteenth of
 * that. Drawn at random, not every n-th, so that a protocol's fixed
 * rhythm of message types does not bias it.
 */
#include "transport/holdup.h"

#include <time.h>

#include "stats/stats.h"

#define HOLDUP_MAX_NS 60000000000ull
#define HOLDUP_SAMPLE 16 /* a power of two */

STATS_COUNTER(holdup_msgs, "messages from peers whose holdup was measured");
STATS_COUNTER(holdup_us, "their holdup, summed, in microseconds (send latency included)");
STATS_COUNTER(holdup_lt_10us, "messages held up less than 10 us");
STATS_COUNTER(holdup_lt_100us, "messages held up 10 to 100 us");
STATS_COUNTER(holdup_lt_1ms, "messages held up 100 us to 1 ms");
STATS_COUNTER(holdup_lt_10ms, "messages held up 1 to 10 ms");
STATS_COUNTER(holdup_ge_10ms, "messages held up 10 ms or more");

static stats_counter *const decades[] = {&holdup_lt_10us, &holdup_lt_100us, &holdup_lt_1ms,
                                         &holdup_lt_10ms, &holdup_ge_10ms};

/* One draw of the sending thread's xorshift generator: 1 one time in
 * HOLDUP_SAMPLE. The seed only needs to differ from zero. */
static int sampled(void)
{
    static __thread uint32_t x = 2463534242u;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return (x & (HOLDUP_SAMPLE - 1)) == 0;
}

static uint64_t clock_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t holdup_stamp(void) { return sampled() ? clock_ns() : 0; }

void holdup_note(uint64_t stamp)
{
    if (!stamp)
        return;
    uint64_t now = clock_ns();
    if (stamp > now || now - stamp > HOLDUP_MAX_NS)
        return;
    uint64_t us = (now - stamp) / 1000;
    unsigned d = 0;
    for (uint64_t bound = 10; d < 4 && us >= bound; bound *= 10)
        d++;
    COUNTER_ADD(holdup_msgs, 1);
    COUNTER_ADD(holdup_us, us);
    COUNTER_ADD(*decades[d], 1);
}

void holdup_init(void)
{
    stats_register(&holdup_msgs);
    stats_register(&holdup_us);
    for (unsigned d = 0; d < sizeof decades / sizeof *decades; d++)
        stats_register(decades[d]);
}
