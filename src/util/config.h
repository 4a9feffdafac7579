/*
 * config.h - every TSR_* environment variable is read here and nowhere else;
 * docs/CONFIG.md lists them with their meaning and defaults.
 */
#ifndef TSR_CONFIG_H
#define TSR_CONFIG_H

#include <stddef.h>
#include <stdint.h>

typedef enum { PROGRESS_HYBRID = 0, PROGRESS_SPIN, PROGRESS_BLOCK } progress_t;
typedef enum { DETECT_SEGV = 0, DETECT_UFFD, DETECT_AUTO } detect_t;

typedef struct tsr_config {
    int node, nodes;          /* TSR_NODE, TSR_NODES (set by tsrun) */
    const char *boot;         /* TSR_BOOT host:port of tsrun, NULL alone */
    const char *secret;       /* TSR_SECRET, hex */
    size_t memory;            /* TSR_MEMORY: size of the shared address space */
    uintptr_t base;           /* TSR_BASE: its address on every node */
    progress_t progress;      /* TSR_PROGRESS: hybrid | spin | block */
    unsigned spin_us;         /* TSR_SPIN_US: how long hybrid spins */
    int stats;                /* TSR_STATS=1: table at exit */
    const char *stats_json;   /* TSR_STATS_JSON: file to append JSON to */
    int cache_only;           /* TSR_WRITE_DETECT=cache-only (default) | all */
    detect_t detect;          /* TSR_DETECT: segv | uffd | auto */
    double connect_timeout_s; /* TSR_CONNECT_TIMEOUT */
    uint32_t fetch_ahead;     /* TSR_FETCH_AHEAD: most pages one fetch brings */
} tsr_config;

extern tsr_config cfg;

/* Reads the environment into cfg; exits with a message on a bad value. */
void config_load(void);
/* Parses "16G", "512M", "4096", "64k": returns 0 on success. */
int config_parse_size(const char *s, size_t *out);

#endif
