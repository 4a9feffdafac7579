/*
 * omp_loop.c - worksharing loops (and sections, which clang turns into
 * one): which iterations each thread of the team runs.
 *
 * Static schedules need no message: each thread computes its own block (or
 * chunks) as libomp does, so consecutive thread numbers, that is
 * consecutive nodes, get consecutive blocks. Dynamic and guided loops take
 * their chunks from a counter in shared memory under a Tessera lock.
 *
 * Each entry point exists for four loop types (int32, uint32, int64,
 * uint64); the work is done on iteration numbers 0 .. trip-1 and mapped
 * back to the loop's type by LOOP_TYPES' wrappers.
 */
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "omp_rt.h"

/* libomp's schedule numbers (kmp.h). */
enum {
    SCH_STATIC_CHUNKED = 33,
    SCH_STATIC = 34,
    SCH_DYNAMIC = 35,
    SCH_GUIDED = 36,
    SCH_RUNTIME = 37,
    SCH_AUTO = 38,
    SCH_ORDERED_FIRST = 65,
    SCH_ORDERED_LAST = 74,
    SCH_MODIFIERS = (1 << 29) | (1 << 30), /* monotonic, nonmonotonic */
};

int omp_run_sched = SCH_STATIC, omp_run_chunk;

/* Iterations first .. last (inclusive) of one piece, or none. */
typedef struct piece {
    uint64_t first, last;
    int any, last_piece;
} piece;

/* iterations in lb .. ub by st, with lb, ub widened from the loop's type */
static uint64_t trip_count(uint64_t lb, uint64_t ub, int64_t st, int is_signed)
{
    int empty = st > 0 ? (is_signed ? (int64_t)ub < (int64_t)lb : ub < lb)
                       : (is_signed ? (int64_t)ub > (int64_t)lb : ub > lb);
    if (empty || st == 0)
        return 0;
    return st > 0 ? (ub - lb) / (uint64_t)st + 1 : (lb - ub) / (uint64_t)-st + 1;
}

/* A static schedule's k-th chunk for thread tid, or its one block. */
static piece static_piece(uint64_t trip, uint64_t chunk, uint64_t k, int tid, int nth)
{
    piece p = {0};
    if (chunk) {
        uint64_t c = k * (uint64_t)nth + (uint64_t)tid;
        if (c * chunk >= trip)
            return p;
        p.first = c * chunk;
        p.last = p.first + chunk - 1 < trip - 1 ? p.first + chunk - 1 : trip - 1;
    } else {
        /* libomp's balanced split: the first trip % nth threads get one more. */
        uint64_t small = trip / (uint64_t)nth, extra = trip % (uint64_t)nth, t = (uint64_t)tid;
        if (k || (small == 0 && t >= extra))
            return p;
        p.first = t * small + (t < extra ? t : extra);
        p.last = p.first + small - (t < extra ? 0 : 1);
    }
    p.any = 1;
    p.last_piece = p.last == trip - 1;
    return p;
}

static void static_init(const ident_t *loc, int32_t sched, uint64_t trip, int64_t chunk,
                        piece *p, uint64_t *stride_chunks)
{
    if (sched != SCH_STATIC && sched != SCH_STATIC_CHUNKED)
        omp_refuse(loc, sched >= SCH_ORDERED_FIRST && sched <= SCH_ORDERED_LAST ? "ordered" :
                   "distribute", "this schedule is not supported");
    uint64_t c = sched == SCH_STATIC_CHUNKED && chunk > 0 ? (uint64_t)chunk : 0;
    *p = trip ? static_piece(trip, c, 0, omp_me.tid, omp_me.nthreads) : (piece){0};
    *stride_chunks = c ? c * (uint64_t)omp_me.nthreads : trip;
    if (!p->any) /* an empty block: upper below lower */
        *p = (piece){.first = trip, .last = trip - 1};
    /* lastprivate: whether this thread runs the last iteration in any chunk */
    if (c && trip)
        p->last_piece = ((trip - 1) / c) % (uint64_t)omp_me.nthreads == (uint64_t)omp_me.tid;
}

/* The loop a thread is in: dispatch_init's, until dispatch_next says no;
 * in an ordered loop, the iteration it runs and whether that iteration has
 * had its ordered region. Each thread of a node has its own. */
static __thread struct {
    int32_t sched;
    uint64_t trip, chunk, k, seq;
    int done, ordered;
    uint64_t iter;
    int had_turn;
} cur;

static void dispatch_init(const ident_t *loc, int32_t sched, uint64_t trip, int64_t chunk)
{
    sched &= ~SCH_MODIFIERS;
    int ordered = sched >= SCH_ORDERED_FIRST && sched <= SCH_ORDERED_LAST;
    if (ordered) /* kmp_ord_static_chunked .. kmp_ord_auto mirror 33 .. 38 */
        sched -= SCH_ORDERED_FIRST - SCH_STATIC_CHUNKED;
    if (sched == SCH_RUNTIME) {
        sched = omp_run_sched;
        chunk = omp_run_chunk;
    }
    if (sched == SCH_AUTO)
        sched = SCH_STATIC;
    if (sched == SCH_STATIC && chunk > 0)
        sched = SCH_STATIC_CHUNKED;
    if (sched != SCH_STATIC && sched != SCH_STATIC_CHUNKED && sched != SCH_DYNAMIC &&
        sched != SCH_GUIDED)
        omp_refuse(loc, "schedule", "this schedule kind is not supported");
    cur.sched = sched;
    cur.trip = trip;
    cur.chunk = chunk > 0 ? (uint64_t)chunk : 1;
    cur.k = 0;
    cur.done = 0;
    cur.ordered = ordered;
    cur.had_turn = 0;
    /* Only a team's loops take a slot, and only they are counted: a loop
     * in a nested region one thread runs alone must not shift that
     * thread's count from its team's. */
    cur.seq = omp_me.nthreads > 1 ? ++omp_me.loops : 0;
}

/* This loop's slot, locked: the first thread there sets it up. */
static slot *claim_slot(const ident_t *loc)
{
    int i = (int)(cur.seq % SLOTS);
    slot *s = &omp_sh->slots[i];
    tsr_lock(LOCK_SLOTS + i);
    if (s->gen < omp_me.gen || (s->gen == omp_me.gen && s->seq < cur.seq))
        *s = (slot){.gen = omp_me.gen, .seq = cur.seq};
    else if (s->gen != omp_me.gen || s->seq != cur.seq) {
        tsr_unlock(LOCK_SLOTS + i);
        omp_refuse(loc, "for schedule(dynamic/guided) nowait",
                   "a thread ran 64 dynamic loops ahead of another");
    }
    return s;
}

static void release_slot(void) { tsr_unlock(LOCK_SLOTS + (int)(cur.seq % SLOTS)); }

/* The next chunk of a dynamic or guided loop, from the team's slot. */
static piece shared_piece(const ident_t *loc)
{
    slot *s = claim_slot(loc);
    uint64_t left = cur.trip - s->next, n = cur.chunk;
    if (cur.sched == SCH_GUIDED && left / (2 * (uint64_t)omp_me.nthreads) > n)
        n = left / (2 * (uint64_t)omp_me.nthreads);
    piece p = {0};
    if (left) {
        p = (piece){.first = s->next, .any = 1};
        p.last = p.first + (n < left ? n : left) - 1;
        p.last_piece = p.last == cur.trip - 1;
        s->next = p.last + 1;
    }
    release_slot();
    return p;
}

static piece dispatch_next(const ident_t *loc)
{
    piece p = {0};
    if (cur.done)
        return p;
    if (omp_me.nthreads == 1) {
        /* serialized: the whole loop at once */
        if (cur.trip)
            p = (piece){.first = 0, .last = cur.trip - 1, .any = 1, .last_piece = 1};
        cur.done = 1;
        return p;
    }
    if (cur.sched == SCH_STATIC || cur.sched == SCH_STATIC_CHUNKED)
        p = static_piece(cur.trip, cur.sched == SCH_STATIC ? 0 : cur.chunk, cur.k++, omp_me.tid,
                         omp_me.nthreads);
    else
        p = shared_piece(loc);
    cur.done = !p.any;
    cur.iter = p.first;
    return p;
}

/* ordered: the iterations' ordered regions run one at a time in iteration
 * order. The slot's `ordered` names the iteration whose turn it is; a
 * thread waits for its iteration's turn by looking under the slot's lock
 * (each acquire brings the last holder's writes) and passes the turn on
 * when its region ends, or at the iteration's end if it had none. */
static void wait_turn(const ident_t *loc)
{
    for (;;) {
        slot *s = claim_slot(loc);
        int mine = s->ordered == cur.iter;
        release_slot();
        if (mine)
            return;
        sched_yield();
    }
}

static void pass_turn(const ident_t *loc)
{
    slot *s = claim_slot(loc);
    s->ordered = cur.iter + 1;
    release_slot();
    cur.had_turn = 1;
}

OMP_API void __kmpc_ordered(const ident_t *loc, int32_t gtid)
{
    if (omp_me.nthreads == 1)
        return;
    if (!cur.ordered || cur.done)
        omp_refuse(loc, "ordered", "an ordered region outside a loop with the ordered clause");
    wait_turn(loc);
}

OMP_API void __kmpc_end_ordered(const ident_t *loc, int32_t gtid)
{
    if (omp_me.nthreads > 1)
        pass_turn(loc);
}

/* The end of an iteration of an ordered loop. */
static void dispatch_fini(const ident_t *loc)
{
    if (omp_me.nthreads > 1 && !cur.had_turn) {
        wait_turn(loc);
        pass_turn(loc);
    }
    cur.had_turn = 0;
    cur.iter++;
}

/* The four types' entry points. */
#define LOOP_TYPES(SUF, T, SIGNED)                                                             \
    OMP_API void __kmpc_for_static_init_##SUF(const ident_t *loc, int32_t gtid, int32_t sched, \
                                              int32_t *plast, T *plb, T *pub, T *pst, T incr,  \
                                              T chunk)                                         \
    {                                                                                          \
        uint64_t lb = (uint64_t)*plb, stride;                                                  \
        uint64_t trip = trip_count(lb, (uint64_t)*pub, (int64_t)incr, SIGNED);                 \
        piece p;                                                                               \
        static_init(loc, sched, trip, (int64_t)chunk, &p, &stride);                            \
        *plb = (T)(lb + p.first * (uint64_t)(int64_t)incr);                                    \
        *pub = (T)(lb + p.last * (uint64_t)(int64_t)incr);                                     \
        *pst = (T)(stride * (uint64_t)(int64_t)incr);                                          \
        if (plast)                                                                             \
            *plast = p.last_piece;                                                             \
    }                                                                                          \
    static __thread T base_##SUF;                                                              \
    static __thread T incr_##SUF;                                                              \
    OMP_API void __kmpc_dispatch_init_##SUF(const ident_t *loc, int32_t gtid, int32_t sched,   \
                                            T lb, T ub, T st, T chunk)                         \
    {                                                                                          \
        base_##SUF = lb;                                                                       \
        incr_##SUF = st;                                                                       \
        dispatch_init(loc, sched, trip_count((uint64_t)lb, (uint64_t)ub, (int64_t)st, SIGNED), \
                      (int64_t)chunk);                                                         \
    }                                                                                          \
    OMP_API int __kmpc_dispatch_next_##SUF(const ident_t *loc, int32_t gtid, int32_t *plast,   \
                                           T *plb, T *pub, T *pst)                             \
    {                                                                                          \
        piece p = dispatch_next(loc);                                                          \
        if (!p.any)                                                                            \
            return 0;                                                                          \
        uint64_t st = (uint64_t)(int64_t)incr_##SUF;                                           \
        *plb = (T)((uint64_t)base_##SUF + p.first * st);                                       \
        *pub = (T)((uint64_t)base_##SUF + p.last * st);                                        \
        if (pst)                                                                               \
            *pst = incr_##SUF;                                                                 \
        if (plast)                                                                             \
            *plast = p.last_piece;                                                             \
        return 1;                                                                              \
    }                                                                                          \
    OMP_API void __kmpc_dispatch_fini_##SUF(const ident_t *loc, int32_t gtid)                  \
    {                                                                                          \
        dispatch_fini(loc);                                                                    \
    }

LOOP_TYPES(4, int32_t, 1)
LOOP_TYPES(4u, uint32_t, 0)
LOOP_TYPES(8, int64_t, 1)
LOOP_TYPES(8u, uint64_t, 0)

OMP_API void __kmpc_for_static_fini(const ident_t *loc, int32_t gtid) {}

/* OMP_SCHEDULE="kind[,chunk]" for schedule(runtime). */
void omp_loop_init(void)
{
    const char *s = getenv("OMP_SCHEDULE");
    if (!s || !*s)
        return;
    static const struct {
        const char *name;
        int sched;
    } kinds[] = {{"static", SCH_STATIC}, {"dynamic", SCH_DYNAMIC}, {"guided", SCH_GUIDED},
                 {"auto", SCH_AUTO}};
    const char *k = strchr(s, ':') ? strchr(s, ':') + 1 : s; /* "monotonic:dynamic" */
    size_t len = strcspn(k, ",");
    omp_run_sched = 0;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (strlen(kinds[i].name) == len && !strncmp(k, kinds[i].name, len))
            omp_run_sched = kinds[i].sched;
    if (!omp_run_sched)
        omp_refuse(NULL, "OMP_SCHEDULE", "the kind must be static, dynamic, guided or auto");
    omp_run_chunk = k[len] == ',' ? atoi(k + len + 1) : 0;
}
