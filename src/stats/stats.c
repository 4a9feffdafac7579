#include "stats/stats.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "util/config.h"
#include "util/guard.h"
#include "util/io.h"
#include "util/log.h"

/* The threads' blocks, the last one shared by the threads past the others
 * (stats.h), each on lines of its own. */
typedef struct block {
    tsr_counters c;
} __attribute__((aligned(64))) block;

static block blocks[STATS_BLOCKS + 1];
static _Atomic int claimed;
/* The sums at the last tsr_stats_reset. A block belongs to its thread
 * alone, so a reset cannot zero it: a reading is the sums less these. */
static tsr_counters at_reset;

__thread stats_own stats_mine;

void stats_claim(void)
{
    int i = atomic_fetch_add(&claimed, 1);
    stats_mine.shared = i >= STATS_BLOCKS;
    stats_mine.block = &blocks[stats_mine.shared ? STATS_BLOCKS : i].c;
}

/* The sums over every block. */
static void sum(tsr_counters *out)
{
    int n = atomic_load(&claimed);
    n = n > STATS_BLOCKS ? STATS_BLOCKS + 1 : n;
#define STATS_SUM(name) \
    do { \
        uint64_t v = 0; \
        for (int i = 0; i < n; i++) \
            v += atomic_load_explicit(&blocks[i].c.name, memory_order_relaxed); \
        atomic_store_explicit(&out->name, v, memory_order_relaxed); \
    } while (0);
#define STATS_SUM_COUNT(name, text) STATS_SUM(name)
#define STATS_SUM_TIME(name, text) STATS_SUM(name##_ns)
    STATS_COUNTERS(STATS_SUM_COUNT)
    STATS_TIMES(STATS_SUM_TIME)
#undef STATS_SUM_TIME
#undef STATS_SUM_COUNT
#undef STATS_SUM
}

void tsr_stats_get(tsr_stats *out)
{
    tsr_counters now;
    sum(&now);
    memset(out, 0, sizeof *out);
#define STATS_GET(name, text) out->name = atomic_load(&now.name) - atomic_load(&at_reset.name);
    STATS_COUNTERS(STATS_GET)
#undef STATS_GET
#define STATS_GET_TIME(name, text) \
    out->name = (double)(atomic_load(&now.name##_ns) - atomic_load(&at_reset.name##_ns)) * 1e-9;
    STATS_TIMES(STATS_GET_TIME)
#undef STATS_GET_TIME
}

void tsr_stats_reset(void)
{
    guard_check("tsr_stats_reset");
    sum(&at_reset);
    stats_counters_reset();
}

/* Each report is built in one buffer and goes out with one write(2) where
 * the kernel allows, so that the lines of several nodes sharing stderr or
 * one JSON file do not interleave. */
typedef struct report {
    char buf[8192];
    size_t len;
} report;

static void put(report *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    size_t room = sizeof r->buf - r->len;
    int n = vsnprintf(r->buf + r->len, room, fmt, ap);
    va_end(ap);
    if (n > 0) /* a report too long for the buffer is cut, never overrun */
        r->len += (size_t)n < room ? (size_t)n : room - 1;
}

/* Both reports list the shared counters, the named counters, then the
 * times, in the same order. */
static void put_table(report *r, const tsr_stats *s)
{
    put(r, "--- tessera statistics, node %d of %d ---\n", cfg.node, cfg.nodes);
#define STATS_ROW(name, text) put(r, "  %-22s %14llu  %s\n", #name, (unsigned long long)s->name, text);
    STATS_COUNTERS(STATS_ROW)
#undef STATS_ROW
    const stats_counter *c;
    for (int i = 0; (c = stats_counter_at(i)); i++)
        put(r, "  %-22s %14llu  %s\n", c->name, (unsigned long long)atomic_load(&c->value),
            c->text);
#define STATS_ROW_TIME(name, text) put(r, "  %-22s %14.6f  %s\n", #name, s->name, text);
    STATS_TIMES(STATS_ROW_TIME)
#undef STATS_ROW_TIME
}

static void put_json(report *r, const tsr_stats *s)
{
    put(r, "{\"node\":%d,\"nodes\":%d", cfg.node, cfg.nodes);
#define STATS_JSON(name, text) put(r, ",\"%s\":%llu", #name, (unsigned long long)s->name);
    STATS_COUNTERS(STATS_JSON)
#undef STATS_JSON
    const stats_counter *c;
    for (int i = 0; (c = stats_counter_at(i)); i++)
        put(r, ",\"%s\":%llu", c->name, (unsigned long long)atomic_load(&c->value));
#define STATS_JSON_TIME(name, text) put(r, ",\"%s\":%.9f", #name, s->name);
    STATS_TIMES(STATS_JSON_TIME)
#undef STATS_JSON_TIME
    put(r, "}\n");
}

/* Returns -1, having said why, when the line could not be written whole. */
static int append_json(const report *r)
{
    int fd = open(cfg.stats_json, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    int failed = fd < 0 || io_write_all(fd, r->buf, r->len);
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
    static report r; /* 8 KiB: off the stack */
    tsr_stats s;
    tsr_stats_get(&s);
    if (cfg.stats) {
        r.len = 0;
        put_table(&r, &s);
        io_write_all(STDERR_FILENO, r.buf, r.len);
    }
    if (cfg.stats_json && *cfg.stats_json) {
        r.len = 0;
        put_json(&r, &s);
        return append_json(&r);
    }
    return 0;
}
