/* Configuration parsing (util/config.c): sizes with and without units,
 * malformed and overflowing sizes refused, every variable's default, good
 * values taken, and each bad value ending the process with status 1 and a
 * message that names the variable. */
#include <sys/resource.h>

#include "check.h"
#include "util/config.h"

static void sizes(void)
{
    static const struct { const char *s; size_t v; } good[] = {
        {"4096", 4096},           {"0x1000", 4096},     {"64K", 64 << 10},
        {"64k", 64 << 10},        {"512M", 512 << 20},  {"4G", (size_t)4 << 30},
        {"16GiB", (size_t)16 << 30}, {"16GB", (size_t)16 << 30}, {"1T", (size_t)1 << 40}};
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
        size_t v = 0;
        int rc = config_parse_size(good[i].s, &v);
        CHECK(rc == 0 && v == good[i].v, "'%s' gave rc %d, %zu (want %zu)", good[i].s, rc, v,
              good[i].v);
    }
    static const char *const bad[] = {"", "lots", "4X", "4GG", "4Gx", "G", "-",
                                      "99999999999999999999", "17179869184T"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        size_t v = 0;
        CHECK(config_parse_size(bad[i], &v) == -1, "'%s' accepted as %zu", bad[i], v);
    }
}

/* Whether reservations are free here: no RLIMIT_AS, no strict overcommit. */
static int memory_unlimited(void)
{
    struct rlimit as;
    FILE *f = fopen("/proc/sys/vm/overcommit_memory", "r");
    int mode = 0;
    if (f) {
        if (fscanf(f, "%d", &mode) != 1)
            mode = 0;
        fclose(f);
    }
    return !getrlimit(RLIMIT_AS, &as) && as.rlim_cur == RLIM_INFINITY && mode != 2;
}

/* In a child: under an 8G RLIMIT_AS, the default TSR_MEMORY is a quarter
 * of it; reported as the child's dying words. */
static void load_limited(const void *unused)
{
    struct rlimit as = {(rlim_t)8 << 30, (rlim_t)8 << 30};
    clearenv();
    setrlimit(RLIMIT_AS, &as);
    config_load();
    fprintf(stderr, "default TSR_MEMORY %zu\n", cfg.memory);
    exit(1);
}

static void defaults_and_values(void)
{
    clearenv();
    config_load();
    CHECK(cfg.nodes == 1 && cfg.node == 0 && !cfg.boot, "alone: node %d of %d", cfg.node, cfg.nodes);
    CHECK(cfg.memory == (size_t)64 << 30 || !memory_unlimited(), "default TSR_MEMORY %zu",
          cfg.memory);
    CHECK(cfg.aslr_keep == 0 && cfg.share_globals == 0, "default TSR_ASLR or TSR_SHARE_GLOBALS");
    CHECK(cfg.base == 0x100000000000, "default TSR_BASE %#lx", (unsigned long)cfg.base);
    CHECK(cfg.progress == PROGRESS_HYBRID && cfg.spin_us == 50, "default progress");
    CHECK(cfg.cache_only == 1 && cfg.fetch_ahead == 16, "default write detection or fetch-ahead");
    setenv("TSR_MEMORY", "4G", 1);
    setenv("TSR_BASE", "0x200000000000", 1);
    setenv("TSR_PROGRESS", "block", 1);
    setenv("TSR_WRITE_DETECT", "all", 1);
    setenv("TSR_FETCH_AHEAD", "1", 1);
    setenv("TSR_BOOT", "127.0.0.1:4000", 1);
    setenv("TSR_SECRET", "0123456789abcdef0123456789abcdef", 1);
    setenv("TSR_NODES", "4", 1);
    setenv("TSR_NODE", "3", 1);
    config_load();
    CHECK(cfg.memory == (size_t)4 << 30, "TSR_MEMORY=4G gave %zu", cfg.memory);
    CHECK(cfg.base == 0x200000000000, "TSR_BASE gave %#lx", (unsigned long)cfg.base);
    CHECK(cfg.progress == PROGRESS_BLOCK, "TSR_PROGRESS=block gave %d", cfg.progress);
    CHECK(cfg.cache_only == 0, "TSR_WRITE_DETECT=all kept cache-only");
    CHECK(cfg.fetch_ahead == 1, "TSR_FETCH_AHEAD=1 gave %u", cfg.fetch_ahead);
    CHECK(cfg.node == 3 && cfg.nodes == 4, "node %d of %d, want 3 of 4", cfg.node, cfg.nodes);
    CHECK(!cfg.faults.on, "TSR_FAULTS on by default");
    setenv("TSR_TRANSPORT", "udp", 1);
    setenv("TSR_FAULTS", "loss=0.02,dup=0.01,reorder=0.05,delay=200us,seed=7", 1);
    config_load();
    const tsr_faults *f = &cfg.faults;
    CHECK(cfg.transport == TRANSPORT_UDP && f->on && f->loss == 0.02 && f->dup == 0.01 &&
              f->reorder == 0.05 && f->delay_us == 200 && f->seed == 7,
          "TSR_FAULTS gave %g %g %g %u %llu", f->loss, f->dup, f->reorder, f->delay_us,
          (unsigned long long)f->seed);
    setenv("TSR_FAULTS", "delay=1ms", 1);
    config_load();
    CHECK(f->delay_us == 1000 && f->loss == 0 && f->seed == 1, "TSR_FAULTS=delay=1ms gave %u",
          f->delay_us);
}

/* In a child: sets NAME=VALUE (a "NAME=VALUE" string) and loads. */
static void load_with(const void *assignment)
{
    clearenv();
    putenv((char *)assignment);
    config_load();
}

static void bad_values(void)
{
    static const struct { const char *assignment, *message; } bad[] = {
        {"TSR_MEMORY=lots", "TSR_MEMORY='lots' is not a size"},
        {"TSR_MEMORY=512K", "TSR_MEMORY='512K' is out of range: from 1M to 16T minus 4K"},
        {"TSR_MEMORY=32T", "TSR_MEMORY='32T' is out of range: from 1M to 16T minus 4K"},
        {"TSR_BASE=0x100000001000", "TSR_BASE=0x100000001000 must be aligned to 1M"},
        {"TSR_PROGRESS=fast", "TSR_PROGRESS='fast' is not one of"},
        {"TSR_WRITE_DETECT=some", "TSR_WRITE_DETECT='some' is not one of"},
        {"TSR_SPIN_US=-1", "TSR_SPIN_US='-1' is not an integer in [0, 10000000]"},
        {"TSR_SPIN_US=+5", "TSR_SPIN_US='+5' is not an integer in [0, 10000000]"},
        {"TSR_HEARTBEAT=+0", "TSR_HEARTBEAT='+0' is not an integer in [0, 3600]"},
        {"TSR_POLL_US= 5", "TSR_POLL_US=' 5' is not an integer in [0, 10000000]"},
        {"TSR_STALL_WARN=1e3", "TSR_STALL_WARN='1e3' is not an integer in [0, 86400]"},
        {"TSR_STATS=yes", "TSR_STATS='yes' is not one of"},
        {"TSR_FETCH_AHEAD=0", "TSR_FETCH_AHEAD='0' is not an integer in [1, 256]"},
        {"TSR_CONNECT_TIMEOUT=5s", "TSR_CONNECT_TIMEOUT='5s' is not an integer"},
        {"TSR_VERBOSE=10", "TSR_VERBOSE='10' is not an integer in [0, 9]"},
        {"TSR_BOOT=127.0.0.1:1", "TSR_BOOT is set but TSR_SECRET is not"},
        {"TSR_ASLR=on", "TSR_ASLR='on' is not one of: off, keep"},
        {"TSR_SHARE_GLOBALS=yes", "TSR_SHARE_GLOBALS='yes' is not an integer in [0, 1]"},
        {"TSR_TRANSPORT=quic", "TSR_TRANSPORT='quic' is not one of"},
        {"TSR_FAULTS=loss=0.02", "TSR_FAULTS is set but TSR_TRANSPORT is not udp"},
        {"TSR_FAULTS=loss=0.6", "TSR_FAULTS='loss=0.6': 'loss=0.6' is not one of"},
        {"TSR_FAULTS=delay=5min", "TSR_FAULTS='delay=5min': 'delay=5min' is not one of"},
        {"TSR_FAULTS=seed=-1", "TSR_FAULTS='seed=-1': 'seed=-1' is not one of"},
        {"TSR_FAULTS=seed=+1", "TSR_FAULTS='seed=+1': 'seed=+1' is not one of"},
        {"TSR_FAULTS=loss=+0.1", "TSR_FAULTS='loss=+0.1': 'loss=+0.1' is not one of"},
        {"TSR_FAULTS=delay= 1ms", "TSR_FAULTS='delay= 1ms': 'delay= 1ms' is not one of"},
        {"TSR_FAULTS=jitter", "TSR_FAULTS='jitter': 'jitter' is not one of"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        CHECK_DIES(bad[i].assignment, load_with, bad[i].assignment, 1, bad[i].message);
/* The sanitizers' own shadow memory and allocator need more than 8G. */
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
    CHECK_DIES("RLIMIT_AS=8G", load_limited, NULL, 1, "default TSR_MEMORY 2147483648");
#endif
}

int main(void)
{
    sizes();
    bad_values();
    defaults_and_values();
    return check_done("config");
}
