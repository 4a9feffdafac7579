/*
 * counter.c - named counters: the counters one protocol has and the others
 * do not. A protocol registers each at its init; users read them by name
 * (tsr_counter_get), so the public tsr_stats struct, and with it the ABI,
 * does not grow with every protocol. They are reset with tsr_stats and
 * follow its fields in the TSR_STATS table and the TSR_STATS_JSON objects.
 */
#include "stats/stats.h"

#include <string.h>

#include "util/log.h"

/* Enough for every protocol built in; stats_register says when it is not. */
#define MAX_COUNTERS 96

static stats_counter *counters[MAX_COUNTERS];
static int ncounters;

void stats_register(stats_counter *c)
{
    for (int i = 0; i < ncounters; i++)
        if (!strcmp(counters[i]->name, c->name))
            log_die("counter %s is registered twice", c->name);
    if (ncounters == MAX_COUNTERS)
        log_die("cannot register counter %s: all %d slots are taken (raise MAX_COUNTERS in %s)",
                c->name, MAX_COUNTERS, __FILE__);
    counters[ncounters++] = c;
}

const stats_counter *stats_counter_at(int i)
{
    return i >= 0 && i < ncounters ? counters[i] : NULL;
}

void stats_counters_reset(void)
{
    for (int i = 0; i < ncounters; i++)
        atomic_store(&counters[i]->value, 0);
}

int tsr_counter_count(void) { return ncounters; }

const char *tsr_counter_name(int i)
{
    const stats_counter *c = stats_counter_at(i);
    return c ? c->name : NULL;
}

int tsr_counter_get(const char *name, uint64_t *value)
{
    for (int i = 0; name && i < ncounters; i++)
        if (!strcmp(counters[i]->name, name)) {
            *value = atomic_load(&counters[i]->value);
            return 0;
        }
    return -1;
}
