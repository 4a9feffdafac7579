#include "sync/collective.h"

#include <stdio.h>
#include <string.h>

#include "memory/region.h"
#include "tessera_munin.h"
#include "transport/transport.h"

/* The attribute fields, in the order the packed form holds them (attr:
 * `width` bits each from bit 0; block_pages in the high half of kind). Only the fields that change placement or protocol are kept, the
 * others zero: two nodes that differ only in a field their placement
 * ignores make the same call. */
enum { F_HOME, F_PROTO, F_ANNOT, F_PARAMS, F_HOME_NODE, F_START_NODE, F_BLOCK, NFIELDS };
static const char *const field_name[NFIELDS] = {
    "home", "proto", "annot", "munin_params", "home_node", "start_node", "block_pages"};
static const unsigned width[F_BLOCK] = {8, 8, 8, 8, 16, 16};

static void attr_fields(const tsr_attr *a, uint64_t bytes, uint64_t f[NFIELDS])
{
    uint64_t pages = bytes / PAGE_SIZE + (bytes % PAGE_SIZE != 0);
    memset(f, 0, NFIELDS * sizeof *f);
    f[F_HOME] = (uint64_t)a->home;
    f[F_PROTO] = (uint64_t)a->proto;
    if (a->proto == TSR_PROTO_MUNIN) {
        f[F_ANNOT] = (uint64_t)a->annot;
        f[F_PARAMS] = a->annot == TSR_ANNOT_PARAMS ? a->munin_params : 0;
    }
    if (a->home == TSR_HOME_NODE)
        f[F_HOME_NODE] = (uint64_t)a->home_node;
    if (a->home == TSR_HOME_CYCLIC) {
        /* Blocks of 0 pages are blocks of 1; blocks of the allocation's
         * length or more all put it at start_node. */
        f[F_START_NODE] = (uint64_t)a->start_node;
        f[F_BLOCK] = a->block_pages ? a->block_pages : 1;
        if (f[F_BLOCK] > pages)
            f[F_BLOCK] = pages ? pages : 1;
    }
}

/* tsr_alloc_attr has checked the fields (and the protocol its Munin ones)
 * before the barrier: each fits its width (nodes are fewer than 2^16),
 * block_pages its 32 bits (pages are numbered in 32). */
static void pack(coll_sig *s, const uint64_t f[NFIELDS])
{
    for (unsigned i = 0, at = 0; i < F_BLOCK; at += width[i++])
        s->attr |= (f[i] & ((1ull << width[i]) - 1)) << at;
    s->kind |= f[F_BLOCK] << 32;
}

static void unpack(const coll_sig *s, uint64_t f[NFIELDS])
{
    for (unsigned i = 0, at = 0; i < F_BLOCK; at += width[i++])
        f[i] = s->attr >> at & ((1ull << width[i]) - 1);
    f[F_BLOCK] = s->kind >> 32;
}

coll_sig coll_sig_of(coll_kind kind, uint64_t arg, const tsr_attr *attr)
{
    coll_sig s = {(uint64_t)kind, arg, 0};
    if (attr) {
        uint64_t f[NFIELDS];
        attr_fields(attr, arg, f);
        pack(&s, f);
    }
    return s;
}

/* The call a signature names (its kind, without COLL_ALLOC's block_pages). */
static uint64_t kind_of(const coll_sig *s) { return s->kind & 0xffffffff; }

/* Whether a signature's attributes are tsr_alloc's defaults. */
static int default_attr(const coll_sig *s)
{
    static const tsr_attr dflt = TSR_ATTR_DEFAULT;
    coll_sig d = coll_sig_of(COLL_ALLOC, s->arg, &dflt);
    return d.attr == s->attr && d.kind == s->kind;
}

const char *coll_describe(const coll_sig *s, char *buf, size_t len)
{
    unsigned long long arg = (unsigned long long)s->arg;
    switch (kind_of(s)) {
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
        snprintf(buf, len, default_attr(s) ? "tsr_alloc(%llu)" : "tsr_alloc_attr(%llu)", arg);
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

/* A field's value as the caller wrote it: placements and protocols by name. */
static const char *field_value(int field, uint64_t v, char *buf, size_t len)
{
    static const char *const homes[] = {"TSR_HOME_BLOCK", "TSR_HOME_CYCLIC", "TSR_HOME_NODE"};
    static const char *const protos[] = {"TSR_PROTO_HLRC", "TSR_PROTO_MUNIN", "TSR_PROTO_LRC",
                                         "TSR_PROTO_SCOPE", "TSR_PROTO_JOB"};
    if (field == F_HOME && v < 3)
        return homes[v];
    if (field == F_PROTO && v < 5)
        return protos[v];
    snprintf(buf, len, field == F_PARAMS ? "0x%llx" : "%llu", (unsigned long long)v);
    return buf;
}

/* Two allocations of one size whose attributes differ: the first field
 * that differs, with both values. */
static void attr_mismatch(char *cause, size_t len, uint64_t call, int a, const coll_sig *sa,
                          int b, const coll_sig *sb)
{
    uint64_t fa[NFIELDS], fb[NFIELDS];
    char va[24], vb[24];
    int i = 0;
    unpack(sa, fa);
    unpack(sb, fb);
    while (i < NFIELDS - 1 && fa[i] == fb[i])
        i++;
    snprintf(cause, len, "collective mismatch at call #%llu: tsr_alloc_attr(%llu): attr->%s is "
             "%s at node %d, %s at node %d", (unsigned long long)call,
             (unsigned long long)sa->arg, field_name[i], field_value(i, fb[i], vb, sizeof vb), b,
             field_value(i, fa[i], va, sizeof va), a);
}

void coll_mismatch(uint64_t call, int a, const coll_sig *sa, int b, const coll_sig *sb)
{
    char da[96], db[96], cause[320];
    if (kind_of(sa) == COLL_ALLOC && kind_of(sb) == COLL_ALLOC && sa->arg == sb->arg)
        attr_mismatch(cause, sizeof cause, call, a, sa, b, sb);
    else
        snprintf(cause, sizeof cause,
                 "collective mismatch at call #%llu: node %d called %s where node %d called %s",
                 (unsigned long long)call, b, coll_describe(sb, db, sizeof db), a,
                 coll_describe(sa, da, sizeof da));
    am_abort(cause);
}
