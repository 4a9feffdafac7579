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
 */
#include "transport/holdup.h"

#include <time.h>

#include "stats/stats.h"

#define HOLDUP_MAX_NS 60000000000ull

STATS_COUNTER(holdup_msgs, "messages from peers whose holdup was measured");
STATS_COUNTER(holdup_us, "their holdup, summed, in microseconds (send latency included)");
STATS_COUNTER(holdup_lt_10us, "messages held up less than 10 us");
STATS_COUNTER(holdup_lt_100us, "messages held up 10 to 100 us");
STATS_COUNTER(holdup_lt_1ms, "messages held up 100 us to 1 ms");
STATS_COUNTER(holdup_lt_10ms, "messages held up 1 to 10 ms");
STATS_COUNTER(holdup_ge_10ms, "messages held up 10 ms or more");

static stats_counter *const decades[] = {&holdup_lt_10us, &holdup_lt_100us, &holdup_lt_1ms,
                                         &holdup_lt_10ms, &holdup_ge_10ms};

uint64_t holdup_stamp(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void holdup_note(uint64_t stamp)
{
    uint64_t now = holdup_stamp();
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
