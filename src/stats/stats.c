#include "stats/stats.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stats/table.h"
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

/* The blocks claimed so far. */
static int nblocks(void)
{
    int n = atomic_load(&claimed);
    return n > STATS_BLOCKS ? STATS_BLOCKS + 1 : n;
}

/* The sums over every block. */
static void sum(tsr_counters *out)
{
    int n = nblocks();
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

uint64_t stats_posted(void)
{
    int n = nblocks();
    uint64_t v = 0;
    for (int i = 0; i < n; i++)
        v += atomic_load_explicit(&blocks[i].c.posted, memory_order_relaxed);
    return v;
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

void stats_each(stats_visit *fn, void *ctx)
{
    tsr_stats s;
    tsr_stats_get(&s);
#define STATS_EACH_TIME(name, text) fn(#name, (uint64_t)(s.name * 1e9 + 0.5), 1, ctx);
    STATS_TIMES(STATS_EACH_TIME)
#undef STATS_EACH_TIME
#define STATS_EACH(name, text) fn(#name, s.name, 0, ctx);
    STATS_COUNTERS(STATS_EACH)
#undef STATS_EACH
    const stats_counter *c;
    for (int i = 0; (c = stats_counter_at(i)); i++)
        fn(c->name, atomic_load(&c->value), 0, ctx);
}

static void table_row(const char *name, uint64_t value, int ns, void *t)
{
    stats_table_set(t, 0, name, value, ns);
}

/* This node's own table, for a node that no tsrun gathers the job's
 * table for; written with one write(2) where the kernel allows, so that
 * the tables of nodes sharing stderr do not interleave. */
static void print_table(void)
{
    stats_table *t = stats_table_new(1, cfg.node);
    char *text = NULL;
    if (t) {
        stats_each(table_row, t);
        text = stats_table_format(t, cfg.stats == STATS_ALL);
    }
    if (text)
        io_write_all(STDERR_FILENO, text, strlen(text));
    else
        log_warn("cannot print the statistics table: out of memory");
    free(text);
    stats_table_free(t);
}

/* The JSON line is built in one buffer and goes out with one write(2), so
 * that the lines of several nodes sharing one file do not interleave. */
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

/* The JSON object lists the shared counters, the named counters, then the
 * times: the order it always had, which readers may rely on. */
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

int stats_report(int table)
{
    static report r; /* 8 KiB: off the stack */
    if (cfg.stats && table)
        print_table();
    if (cfg.stats_json && *cfg.stats_json) {
        tsr_stats s;
        tsr_stats_get(&s);
        r.len = 0;
        put_json(&r, &s);
        return append_json(&r);
    }
    return 0;
}
