#include "sync/collective.h"

#include <stdio.h>
#include <string.h>

#include "transport/transport.h"

/* FNV-1a over the fields, not the struct's bytes: padding is not data. */
static uint64_t hash_mix(uint64_t h, uint64_t v)
{
    for (int i = 0; i < 8; i++, v >>= 8)
        h = (h ^ (v & 0xff)) * 0x100000001b3ULL;
    return h;
}

static uint64_t attr_hash(const tsr_attr *a)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    h = hash_mix(h, (uint64_t)a->home);
    h = hash_mix(h, (uint64_t)a->block_pages);
    h = hash_mix(h, (uint64_t)a->home_node);
    h = hash_mix(h, (uint64_t)a->start_node);
    h = hash_mix(h, (uint64_t)a->proto);
    h = hash_mix(h, (uint64_t)a->annot);
    return hash_mix(h, (uint64_t)a->munin_params);
}

coll_sig coll_sig_of(coll_kind kind, uint64_t arg, const tsr_attr *attr)
{
    return (coll_sig){(uint64_t)kind, arg, attr ? attr_hash(attr) : 0};
}

const char *coll_describe(const coll_sig *s, char *buf, size_t len)
{
    static const tsr_attr dflt = TSR_ATTR_DEFAULT;
    unsigned long long arg = (unsigned long long)s->arg;
    switch (s->kind) {
    case COLL_INIT: snprintf(buf, len, "tsr_init()"); break;
    case COLL_BARRIER: snprintf(buf, len, "tsr_barrier()"); break;
    case COLL_FINALIZE: snprintf(buf, len, "tsr_finalize()"); break;
    case COLL_FREE: snprintf(buf, len, "tsr_free(0x%llx)", arg); break;
    case COLL_FORK:
        snprintf(buf, len, "tsr_fork() %s", arg ? "in a replicated section" : "from node 0");
        break;
    case COLL_JOIN: snprintf(buf, len, "tsr_join()"); break;
    case COLL_SERVE: snprintf(buf, len, "tsr_serve()"); break;
    case COLL_REPLICATE: snprintf(buf, len, "tsr_replicate_%s()", arg ? "begin" : "end"); break;
    case COLL_ALLOC:
        if (s->attr == attr_hash(&dflt))
            snprintf(buf, len, "tsr_alloc(%llu)", arg);
        else
            snprintf(buf, len, "tsr_alloc_attr(%llu, attributes with hash %016llx)", arg,
                     (unsigned long long)s->attr);
        break;
    case COLL_GA_ALLOC:
        snprintf(buf, len, "tsr_ga_alloc(%llu, engine %llu, cache bits %llu,%llu)", arg,
                 (unsigned long long)(s->attr & 0xff), (unsigned long long)(s->attr >> 8 & 0xff),
                 (unsigned long long)(s->attr >> 16 & 0xff));
        break;
    case COLL_GA_FREE: snprintf(buf, len, "tsr_ga_free(an allocation of %llu bytes)", arg); break;
    case COLL_GA_BARRIER: snprintf(buf, len, "tsr_ga_barrier()"); break;
    default: snprintf(buf, len, "an unknown collective call (kind %llu)",
                      (unsigned long long)s->kind);
    }
    return buf;
}

void coll_mismatch(uint64_t call, int a, const coll_sig *sa, int b, const coll_sig *sb)
{
    char da[96], db[96], cause[320];
    snprintf(cause, sizeof cause,
             "collective mismatch at call #%llu: node %d called %s where node %d called %s",
             (unsigned long long)call, b, coll_describe(sb, db, sizeof db), a,
             coll_describe(sa, da, sizeof da));
    am_abort(cause);
}
