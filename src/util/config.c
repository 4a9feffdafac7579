#include "util/config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "util/aslr.h"
#include "util/io.h"
#include "util/log.h"

tsr_config cfg;

/* The unit letter's shift, or -1; "" has none (0). */
static int unit_shift(char c)
{
    switch (c) {
    case 'k': case 'K': return 10;
    case 'm': case 'M': return 20;
    case 'g': case 'G': return 30;
    case 't': case 'T': return 40;
    default: return -1;
    }
}

int config_parse_size(const char *s, size_t *out)
{
    /* Digits first: strtoull would take "-1" as 2^64-1 and " 8" as 8. */
    if (!isdigit((unsigned char)s[0]))
        return -1;
    int hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, hex ? 16 : 10);
    if (errno)
        return -1;
    int shift = 0;
    if (*end && (shift = unit_shift(*end++)) < 0)
        return -1;
    /* Optional "B" or "iB" after a unit: 16GB and 16GiB both mean 16G. */
    if (shift && *end == 'i')
        end++;
    if (shift && (*end == 'b' || *end == 'B'))
        end++;
    if (*end || v > (SIZE_MAX >> shift))
        return -1;
    *out = (size_t)v << shift;
    return 0;
}

static const char *env(const char *name) { return getenv(name); }

static long env_long(const char *name, long dflt, long lo, long hi)
{
    const char *s = env(name);
    if (!s || !*s)
        return dflt;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    /* Digits first: strtol takes a sign and leading spaces ("+5", " 5"). */
    if (!isdigit((unsigned char)s[0]) || errno || *end || v < lo || v > hi)
        log_die("%s='%s' is not an integer in [%ld, %ld] (decimal digits only)", name, s, lo,
                hi);
    return v;
}

/* A size in [lo, hi]; `range` says the bounds in words, for the message. */
static size_t env_size(const char *name, size_t dflt, size_t lo, size_t hi, const char *range)
{
    const char *s = env(name);
    size_t v;
    if (!s || !*s)
        return dflt;
    if (config_parse_size(s, &v))
        log_die("%s='%s' is not a size (examples: 4096, 64K, 512M, 16G, 0x100000)", name, s);
    if (v < lo || v > hi)
        log_die("%s='%s' is out of range: %s", name, s, range);
    return v;
}

static int env_choice(const char *name, const char *const *choices, int dflt)
{
    const char *s = env(name);
    if (!s || !*s)
        return dflt;
    for (int i = 0; choices[i]; i++)
        if (!strcmp(s, choices[i]))
            return i;
    log_die("%s='%s' is not one of the accepted values (see docs/CONFIG.md)", name, s);
}

/* TSR_RENDEZVOUS, or ~/.tessera-rendezvous: a home directory is the one a
 * cluster's hosts most often share. */
static const char *load_rendezvous_dir(void)
{
    static char dflt[4096];
    const char *dir = env("TSR_RENDEZVOUS"), *home = env("HOME");
    if (dir && *dir)
        return dir;
    if (!home || !*home)
        home = ".";
    snprintf(dflt, sizeof dflt, "%s/.tessera-rendezvous", home);
    return dflt;
}

static config_probe *launcher_probe;

void config_set_probe(config_probe *probe) { launcher_probe = probe; }

static void load_job(void)
{
    cfg.boot = env("TSR_BOOT");
    cfg.secret = env("TSR_SECRET");
    if (cfg.boot) {
        cfg.nodes = (int)env_long("TSR_NODES", 1, 1, TSR_MAX_NODES);
        cfg.node = (int)env_long("TSR_NODE", 0, 0, cfg.nodes - 1);
        if (!cfg.secret)
            log_die("TSR_BOOT is set but TSR_SECRET is not: start programs with tsrun");
    } else if (!launcher_probe ||
               !launcher_probe(&cfg.node, &cfg.nodes, cfg.job_key, sizeof cfg.job_key)) {
        cfg.nodes = 1;
        cfg.node = 0;
    }
    cfg.addr = env("TSR_ADDR");
    cfg.iface = env("TSR_IFACE");
    cfg.rendezvous = load_rendezvous_dir();
}

/* The default TSR_MEMORY. The region is reserved, not committed, so a large
 * one costs nothing where reservations are not counted: 64G. Strict
 * overcommit (vm.overcommit_memory=2) counts them even with MAP_NORESERVE,
 * so there the default stays 16G; a finite RLIMIT_AS must hold the region's
 * three views and its page tables, so it gets a quarter of that limit. */
static size_t default_memory(void)
{
    size_t dflt = (size_t)64 << 30;
    struct rlimit as;
    if (!getrlimit(RLIMIT_AS, &as) && as.rlim_cur != RLIM_INFINITY && as.rlim_cur / 4 < dflt)
        dflt = as.rlim_cur / 4 > (1u << 20) ? (as.rlim_cur / 4) & ~(size_t)0xfffff : 1u << 20;
    unsigned long long mode;
    if (!io_read_number("/proc/sys/vm/overcommit_memory", &mode) && mode == 2 &&
        dflt > (size_t)16 << 30)
        dflt = (size_t)16 << 30;
    return dflt;
}

static void load_region(void)
{
    cfg.memory = env_size("TSR_MEMORY", default_memory(), (size_t)1 << 20, TSR_MEMORY_MAX,
                          "from 1M to 16T minus 4K (4294967295 pages of 4 KiB: page numbers "
                          "are 32-bit)");
    /* Not in the low 4 GiB: a null pointer plus an offset would land in
     * shared memory there and silently write it, instead of faulting. */
    cfg.base = (uintptr_t)env_size("TSR_BASE", (size_t)0x100000000000ULL, (size_t)1 << 32,
                                   SIZE_MAX, "at least 4G (0x100000000), away from address 0, "
                                   "where null pointer accesses would land in shared memory");
    if (cfg.base & 0xfffff)
        log_die("TSR_BASE=0x%lx must be aligned to 1M", (unsigned long)cfg.base);
    if (cfg.base > UINTPTR_MAX - cfg.memory)
        log_die("TSR_BASE=0x%lx plus TSR_MEMORY=%zu passes the end of the address space",
                (unsigned long)cfg.base, cfg.memory);
}

/* One key=value of TSR_FAULTS into cfg.faults; 0, or -1 if it is not one. */
static int fault_key(const char *key, const char *val)
{
    char *end;
    errno = 0;
    /* Digits first: strtoull and strtod take signs and leading spaces. */
    if (!isdigit((unsigned char)val[0]))
        return -1;
    if (!strcmp(key, "seed")) {
        cfg.faults.seed = strtoull(val, &end, 10);
        return errno || *end ? -1 : 0;
    }
    double v = strtod(val, &end);
    if (errno)
        return -1;
    if (!strcmp(key, "delay")) {
        double unit = !strcmp(end, "us") || !*end ? 1 : !strcmp(end, "ms") ? 1e3
                      : !strcmp(end, "s") ? 1e6 : -1;
        if (unit < 0 || v * unit > 1e6)
            return -1;
        cfg.faults.delay_us = (uint32_t)(v * unit);
        return 0;
    }
    double *p = !strcmp(key, "loss") ? &cfg.faults.loss : !strcmp(key, "dup") ? &cfg.faults.dup
              : !strcmp(key, "reorder") ? &cfg.faults.reorder : NULL;
    if (!p || *end || v > 0.5)
        return -1;
    *p = v;
    return 0;
}

/* TSR_FAULTS=loss=P,dup=P,reorder=P,delay=T,seed=N, each key optional.
 * They are injected below the udp backend's reliability, which tcp and
 * shm do not have: there they would only lose messages. */
static void load_faults(void)
{
    const char *s = env("TSR_FAULTS");
    if (!s || !*s)
        return;
    char buf[256];
    if (strlen(s) >= sizeof buf)
        log_die("TSR_FAULTS is longer than %zu characters", sizeof buf - 1);
    strcpy(buf, s);
    cfg.faults = (tsr_faults){.on = 1, .seed = 1};
    for (char *save, *kv = strtok_r(buf, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(kv, '=');
        if (eq)
            *eq = 0;
        if (!eq || fault_key(kv, eq + 1))
            log_die("TSR_FAULTS='%s': '%s%s%s' is not one of loss=P, dup=P, reorder=P (P from 0 "
                    "to 0.5), delay=T (up to 1s, in us, ms or s), seed=N", s, kv, eq ? "=" : "",
                    eq ? eq + 1 : "");
    }
    if (cfg.transport != TRANSPORT_UDP)
        log_die("TSR_FAULTS is set but TSR_TRANSPORT is not udp: faults are injected below the "
                "udp backend's reliability; tcp and shm have none to recover from them");
}

static const char *const proto[] = {"hlrc", "lrc", "scope", NULL};
static const char *const multicast[] = {"tree", "ip", "off", NULL};

void config_load(void)
{
    static const char *const progress[] = {"hybrid", "spin", "block", NULL};
    static const char *const detect[] = {"all", "cache-only", NULL};
    static const char *const access[] = {"segv", "uffd", "auto", NULL};
    static const char *const transport[] = {"tcp", "shm", "auto", "udp", "ucx", NULL};
    static const char *const handoff[] = {"direct", "manager", NULL};
    static const char *const fetch[] = {"message", "direct", NULL};
    static const char *const ga_engine[] = {"ordercache", "ordernocache", "sequencer", NULL};
    static const char *const stats[] = {"0", "1", "all", NULL};

    load_job();
    log_set_node(cfg.node);
    log_verbose = (int)env_long("TSR_VERBOSE", 0, 0, 9);
    load_region();
    cfg.progress = (progress_t)env_choice("TSR_PROGRESS", progress, PROGRESS_HYBRID);
    cfg.spin_us = (unsigned)env_long("TSR_SPIN_US", 50, 0, 10000000);
    cfg.poll_us = (unsigned)env_long("TSR_POLL_US", 50, 0, 10000000);
    cfg.stats = env_choice("TSR_STATS", stats, STATS_OFF);
    cfg.stats_json = env("TSR_STATS_JSON");
    cfg.trace = env("TSR_TRACE") && *env("TSR_TRACE") ? env("TSR_TRACE") : NULL;
    cfg.trace_bytes = env_size("TSR_TRACE_BYTES", (size_t)8 << 20, (size_t)64 << 10,
                               (size_t)1 << 32, "64K to 4G");
    cfg.cache_only = env_choice("TSR_WRITE_DETECT", detect, 1);
    cfg.detect = (detect_t)env_choice("TSR_DETECT", access, DETECT_SEGV);
    cfg.connect_timeout_s = (double)env_long("TSR_CONNECT_TIMEOUT", 30, 1, 3600);
    static const char *const connect[] = {"start", "demand", NULL};
    cfg.connect_on_demand = env_choice("TSR_CONNECT", connect, 1);
    cfg.fetch_ahead = (uint32_t)env_long("TSR_FETCH_AHEAD", 16, 1, 256);
    cfg.fetch_direct = env_choice("TSR_FETCH", fetch, 1);
    static const char *const diff_put[] = {"message", "onesided", NULL};
    cfg.diff_put = env_choice("TSR_DIFF_PUT", diff_put, 1);
    static const char *const prefetch[] = {"off", "notices", NULL};
    cfg.prefetch = env_choice("TSR_PREFETCH", prefetch, 1);
    static const char *const onoff[] = {"off", "on", NULL};
    cfg.home_migrate = env_choice("TSR_HOME_MIGRATE", onoff, 1);
    cfg.stall_warn_s = (unsigned)env_long("TSR_STALL_WARN", 10, 0, 86400);
    cfg.stall_abort_s = (unsigned)env_long("TSR_STALL_ABORT", 0, 0, 86400);
    cfg.malloc_memory = env_size("TSR_MALLOC_MEMORY", cfg.memory / 4, 0, cfg.memory - 1,
                                 "below TSR_MEMORY");
    cfg.transport = (transport_t)env_choice("TSR_TRANSPORT", transport, TRANSPORT_AUTO);
    cfg.multicast = (multicast_t)env_choice("TSR_MULTICAST", multicast, MULTICAST_TREE);
    load_faults();
    cfg.heartbeat_s = (unsigned)env_long("TSR_HEARTBEAT", 5, 0, 3600);
    cfg.shm_fd = (int)env_long("TSR_SHM_FD", -1, 0, 1 << 20);
    cfg.proto = (job_proto_t)env_choice("TSR_PROTO", proto, PROTO_HLRC);
    cfg.handoff_via_manager = env_choice("TSR_LOCK_HANDOFF", handoff, 0);
    cfg.lrc_gc_bytes = env_size("TSR_LRC_GC_BYTES", (size_t)64 << 20, (size_t)64 << 10,
                                (size_t)1 << 40, "64K to 1T");
    cfg.send_queue = env_size("TSR_SEND_QUEUE", (size_t)64 << 20, (size_t)4 << 10,
                              (size_t)1 << 40, "4K to 1T");
    cfg.aslr_keep = aslr_keep();
    if (cfg.aslr_keep < 0)
        log_die("TSR_ASLR='%s' is not one of: off, keep", env("TSR_ASLR"));
    cfg.share_globals = (int)env_long("TSR_SHARE_GLOBALS", 0, 0, 1);
    cfg.threads = (int)env_long("TSR_THREADS", 1, 1, 4096);
    /* tessera_ga.h's enum numbers the engines from 1 (0 is "the job's"). */
    cfg.ga_engine = 1 + env_choice("TSR_GA_ENGINE", ga_engine, 0);
    cfg.ga_cache_node_bits = (int)env_long("TSR_GA_CACHE_NODE_BITS", 3, 0, 12);
    cfg.ga_cache_addr_bits = (int)env_long("TSR_GA_CACHE_ADDR_BITS", 6, 0, 24);
}

/* The shared settings (config.h), in its order: the variable, the names
 * of its values when it is a choice, and how a number is best spelt. */
static const struct {
    const char *name;
    const char *const *choices;
    enum { NUMBER, SIZE, ADDRESS } spelt;
} shared[CONFIG_SHARED] = {
    {"TSR_MEMORY", NULL, SIZE},       {"TSR_BASE", NULL, ADDRESS},
    {"TSR_MALLOC_MEMORY", NULL, SIZE}, {"TSR_PROTO", proto, NUMBER},
    {"TSR_SHARE_GLOBALS", NULL, NUMBER}, {"TSR_MULTICAST", multicast, NUMBER},
    {"TSR_HEARTBEAT", NULL, NUMBER},
};

void config_shared(uint64_t value[CONFIG_SHARED])
{
    value[SHARED_MEMORY] = cfg.memory;
    value[SHARED_BASE] = cfg.base;
    value[SHARED_MALLOC_MEMORY] = cfg.malloc_memory;
    value[SHARED_PROTO] = (uint64_t)cfg.proto;
    value[SHARED_SHARE_GLOBALS] = (uint64_t)cfg.share_globals;
    value[SHARED_MULTICAST] = (uint64_t)cfg.multicast;
    value[SHARED_HEARTBEAT] = cfg.heartbeat_s;
}

const char *config_shared_name(int i) { return shared[i].name; }

const char *config_shared_text(int i, uint64_t value, char *buf, size_t len)
{
    const char *const *c = shared[i].choices;
    uint64_t k = 0;
    while (c && c[k] && k < value)
        k++;
    int shift = 40;
    while (shared[i].spelt == SIZE && shift && value % ((uint64_t)1 << shift))
        shift -= 10;
    if (c && c[k])
        snprintf(buf, len, "%s", c[k]);
    else if (shared[i].spelt == ADDRESS)
        snprintf(buf, len, "0x%llx", (unsigned long long)value);
    else if (shared[i].spelt == SIZE && shift && value)
        snprintf(buf, len, "%llu%c", (unsigned long long)(value >> shift), "KMGT"[shift / 10 - 1]);
    else
        snprintf(buf, len, "%llu", (unsigned long long)value);
    return buf;
}
