/*
 * config_match.c - the list of TSR_* variables compared across nodes
 * (config_match.h). Left out are those that differ by design (a node's
 * own address and interface, what a launcher gives each node: TSR_NODE,
 * TSR_NODES, TSR_BOOT, TSR_SECRET, TSR_SHM_FD), those only tsrun reads (TSR_HOSTS,
 * TSR_SSH), those that must already agree for the job to start at all
 * (TSR_RENDEZVOUS, TSR_JOB_ID), and the shared settings, compared as
 * numbers (config.h).
 */
#include "util/config_match.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const names[CONFIG_MATCH] = {
    "TSR_PROGRESS",      "TSR_SPIN_US",          "TSR_POLL_US",
    "TSR_WRITE_DETECT",  "TSR_DETECT",           "TSR_FETCH_AHEAD",
    "TSR_FETCH",         "TSR_GA_ENGINE",        "TSR_GA_CACHE_NODE_BITS",
    "TSR_GA_CACHE_ADDR_BITS", "TSR_SEND_QUEUE",  "TSR_LOCK_HANDOFF",
    "TSR_LRC_GC_BYTES",  "TSR_STATS",            "TSR_STATS_JSON",
    "TSR_STALL_WARN",    "TSR_STALL_ABORT",      "TSR_VERBOSE",
    "TSR_TRANSPORT",     "TSR_FAULTS",           "TSR_ASLR",
    "TSR_CONNECT_TIMEOUT", "TSR_TRACE",          "TSR_TRACE_BYTES",
    "TSR_CONNECT",       "TSR_HOME_MIGRATE",
};

void config_match(config_value value[CONFIG_MATCH])
{
    for (int i = 0; i < CONFIG_MATCH; i++) {
        const char *s = getenv(names[i]);
        uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */
        for (const char *c = s ? s : ""; *c; c++)
            h = (h ^ (unsigned char)*c) * 0x100000001b3ull;
        value[i].hash = h;
        snprintf(value[i].text, sizeof value[i].text, "%s", s ? s : "");
    }
}

const char *config_match_name(int i) { return names[i]; }
