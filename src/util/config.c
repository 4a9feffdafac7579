#include "util/config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/log.h"

tsr_config cfg;

int config_parse_size(const char *s, size_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || end == s)
        return -1;
    unsigned shift = 0;
    switch (*end) {
    case 'k': case 'K': shift = 10; end++; break;
    case 'm': case 'M': shift = 20; end++; break;
    case 'g': case 'G': shift = 30; end++; break;
    case 't': case 'T': shift = 40; end++; break;
    case '\0': break;
    default: return -1;
    }
    if (*end == 'b' || *end == 'B' || *end == 'i')
        end += (*end == 'i' && (end[1] == 'B' || end[1] == 'b')) ? 2 : 1;
    if (*end || (shift && v > (~0ULL >> shift)))
        return -1;
    *out = (size_t)(v << shift);
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
    long v = strtol(s, &end, 0);
    if (errno || *end || v < lo || v > hi)
        log_die("%s='%s' is not an integer in [%ld, %ld]", name, s, lo, hi);
    return v;
}

static size_t env_size(const char *name, size_t dflt)
{
    const char *s = env(name);
    size_t v;
    if (!s || !*s)
        return dflt;
    if (config_parse_size(s, &v))
        log_die("%s='%s' is not a size (examples: 4096, 64K, 512M, 16G)", name, s);
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

void config_load(void)
{
    static const char *const progress[] = {"hybrid", "spin", "block", NULL};
    static const char *const detect[] = {"all", "cache-only", NULL};
    static const char *const access[] = {"segv", "uffd", "auto", NULL};

    cfg.boot = env("TSR_BOOT");
    cfg.secret = env("TSR_SECRET");
    if (cfg.boot) {
        cfg.nodes = (int)env_long("TSR_NODES", 1, 1, 4096);
        cfg.node = (int)env_long("TSR_NODE", 0, 0, cfg.nodes - 1);
        if (!cfg.secret)
            log_die("TSR_BOOT is set but TSR_SECRET is not: start programs with tsrun");
    } else {
        cfg.nodes = 1;
        cfg.node = 0;
    }
    log_set_node(cfg.node);
    log_verbose = (int)env_long("TSR_VERBOSE", 0, 0, 9);
    cfg.memory = env_size("TSR_MEMORY", (size_t)16 << 30);
    if (cfg.memory < ((size_t)1 << 20) || cfg.memory > ((size_t)1 << 44))
        log_die("TSR_MEMORY must be between 1M and 16T");
    cfg.base = (uintptr_t)env_size("TSR_BASE", (size_t)0x100000000000ULL);
    if (cfg.base & 0xfffff)
        log_die("TSR_BASE=0x%lx must be aligned to 1M", (unsigned long)cfg.base);
    cfg.progress = (progress_t)env_choice("TSR_PROGRESS", progress, PROGRESS_HYBRID);
    cfg.spin_us = (unsigned)env_long("TSR_SPIN_US", 50, 0, 10000000);
    cfg.stats = (int)env_long("TSR_STATS", 0, 0, 1);
    cfg.stats_json = env("TSR_STATS_JSON");
    cfg.cache_only = env_choice("TSR_WRITE_DETECT", detect, 1);
    cfg.detect = (detect_t)env_choice("TSR_DETECT", access, DETECT_SEGV);
    cfg.connect_timeout_s = (double)env_long("TSR_CONNECT_TIMEOUT", 30, 1, 3600);
    cfg.fetch_ahead = (uint32_t)env_long("TSR_FETCH_AHEAD", 16, 1, 256);
}
