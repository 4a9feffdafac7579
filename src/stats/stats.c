#include "stats/stats.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "util/config.h"
#include "util/guard.h"
#include "util/io.h"
#include "util/log.h"

tsr_counters stats;

void tsr_stats_get(tsr_stats *out)
{
    guard_check("tsr_stats_get");
    memset(out, 0, sizeof *out);
#define STATS_GET(name, text) out->name = atomic_load(&stats.name);
    STATS_COUNTERS(STATS_GET)
#undef STATS_GET
#define STATS_GET_TIME(name, text) out->name = (double)atomic_load(&stats.name##_ns) * 1e-9;
    STATS_TIMES(STATS_GET_TIME)
#undef STATS_GET_TIME
}

void tsr_stats_reset(void)
{
    guard_check("tsr_stats_reset");
#define STATS_ZERO(name, text) atomic_store(&stats.name, 0);
    STATS_COUNTERS(STATS_ZERO)
#undef STATS_ZERO
#define STATS_ZERO_TIME(name, text) atomic_store(&stats.name##_ns, 0);
    STATS_TIMES(STATS_ZERO_TIME)
#undef STATS_ZERO_TIME
}

/* Each block of output goes out with one write(2) where the kernel allows,
 * so that the lines of several nodes sharing stderr or one JSON file do not
 * interleave. */
static void print_table(const tsr_stats *s)
{
    char buf[4096];
    int n = snprintf(buf, sizeof buf, "--- tessera statistics, node %d of %d ---\n", cfg.node,
                     cfg.nodes);
#define STATS_ROW(name, text) \
    n += snprintf(buf + n, sizeof buf - (size_t)n, "  %-22s %14llu  %s\n", #name, \
                  (unsigned long long)s->name, text);
    STATS_COUNTERS(STATS_ROW)
#undef STATS_ROW
#define STATS_ROW_TIME(name, text) \
    n += snprintf(buf + n, sizeof buf - (size_t)n, "  %-22s %14.6f  %s\n", #name, s->name, text);
    STATS_TIMES(STATS_ROW_TIME)
#undef STATS_ROW_TIME
    io_write_all(STDERR_FILENO, buf, (size_t)n);
}

/* Returns -1, having said why, when the line could not be written whole. */
static int append_json(const tsr_stats *s)
{
    char buf[4096];
    int n = snprintf(buf, sizeof buf, "{\"node\":%d,\"nodes\":%d", cfg.node, cfg.nodes);
#define STATS_JSON(name, text) \
    n += snprintf(buf + n, sizeof buf - (size_t)n, ",\"%s\":%llu", #name, (unsigned long long)s->name);
    STATS_COUNTERS(STATS_JSON)
#undef STATS_JSON
#define STATS_JSON_TIME(name, text) \
    n += snprintf(buf + n, sizeof buf - (size_t)n, ",\"%s\":%.9f", #name, s->name);
    STATS_TIMES(STATS_JSON_TIME)
#undef STATS_JSON_TIME
    n += snprintf(buf + n, sizeof buf - (size_t)n, "}\n");
    int fd = open(cfg.stats_json, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    int failed = fd < 0 || io_write_all(fd, buf, (size_t)n);
    if (fd >= 0 && close(fd))
        failed = 1;
    if (failed) {
        log_warn("cannot write statistics to TSR_STATS_JSON=%s: %m", cfg.stats_json);
        return -1;
    }
    return 0;
}

int stats_report(void)
{
    tsr_stats s;
    tsr_stats_get(&s);
    if (cfg.stats)
        print_table(&s);
    if (cfg.stats_json && *cfg.stats_json)
        return append_json(&s);
    return 0;
}
