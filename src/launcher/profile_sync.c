/*
 * profile_sync.c - the locks and barriers of the sharing profile
 * (profile.h). A wait for a lock is charged to the node that held the lock
 * last before the wait ended: locks exclude each other, so that is the
 * hold the waiter waited behind. The last node to arrive at a barrier is
 * the one whose arrival is the latest on node 0's clock (the offsets come
 * from trace.h's start-up measure, good to half a round trip).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "launcher/profile.h"

#define TOP 5

typedef struct span {
    uint32_t id;   /* lock, or barrier epoch */
    uint16_t node;
    uint16_t kind;
    uint64_t start, end; /* node 0's clock */
} span;

typedef struct lock_cost {
    uint32_t lock;
    uint64_t acquires, wait_ns, hold_ns;
    int holder;           /* the node that made others wait the most */
    uint64_t holder_wait; /* how long */
} lock_cost;

typedef struct barrier_cost {
    uint32_t epoch;
    uint64_t wait_ns;
    int last; /* the node that arrived last */
} barrier_cost;

struct profile_sync {
    int nodes;
    lock_cost *locks;
    size_t nlocks;
    barrier_cost *bars;
    size_t nbars;
    uint32_t *lasts; /* per node, how many barriers it arrived at last */
};

static int span_cmp(const void *x, const void *y)
{
    const span *a = x, *b = y;
    return trace_order3(a->kind, b->kind, a->id, b->id, a->start, b->start);
}

static span *collect(const trace_part *parts, int n, size_t *ns)
{
    span *s = NULL;
    size_t cap = 0;
    *ns = 0;
    for (int i = 0; i < n; i++)
        for (int sl = 0; parts[i].head && sl < TRACE_SLOTS; sl++) {
            uint64_t m;
            const trace_event *e = trace_part_events(&parts[i], sl, &m);
            for (uint64_t j = 0; j < m; j++) {
                int k = e[j].kind;
                if (k != EV_LOCK_WAIT && k != EV_LOCK_HOLD && !(k == EV_BARRIER && !e[j].b))
                    continue;
                s = profile_push(s, ns, &cap, sizeof *s);
                uint64_t t = trace_part_time(&parts[i], e[j].ts);
                s[*ns - 1] = (span){e[j].a, (uint16_t)i, (uint16_t)k, t, t + e[j].dur};
            }
        }
    trace_sort(s, *ns, sizeof *s, span_cmp);
    return s;
}

/* The node whose hold of the lock, among holds[0..nh), began last before t. */
static int holder_at(const span *holds, size_t nh, uint64_t t)
{
    size_t lo = 0, hi = nh;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (holds[mid].start < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo ? holds[lo - 1].node : -1;
}

/* One lock: its waits w[0..nw) and holds h[0..nh), each sorted by start. */
static lock_cost lock_of(const span *w, size_t nw, const span *h, size_t nh, int nodes)
{
    lock_cost c = {.lock = nw ? w[0].id : h[0].id, .acquires = nw, .holder = -1};
    uint64_t *charged = calloc((size_t)nodes, sizeof *charged);
    for (size_t i = 0; i < nh; i++)
        c.hold_ns += h[i].end - h[i].start;
    for (size_t i = 0; i < nw; i++) {
        c.wait_ns += w[i].end - w[i].start;
        int by = holder_at(h, nh, w[i].end);
        if (charged && by >= 0 && by != w[i].node)
            charged[by] += w[i].end - w[i].start;
    }
    for (int i = 0; charged && i < nodes; i++)
        if (charged[i] > c.holder_wait) {
            c.holder_wait = charged[i];
            c.holder = i;
        }
    free(charged);
    return c;
}

static barrier_cost barrier_of(const span *b, size_t nb, uint32_t *lasts)
{
    barrier_cost c = {.epoch = b[0].id, .last = b[0].node};
    uint64_t latest = 0;
    for (size_t i = 0; i < nb; i++) {
        c.wait_ns += b[i].end - b[i].start;
        if (b[i].start >= latest) {
            latest = b[i].start;
            c.last = b[i].node;
        }
    }
    if (nb > 1)
        lasts[c.last]++;
    return c;
}

/* The run of spans from i with the kind and id of s[i]. */
static size_t run_end(const span *s, size_t ns, size_t i, int kind)
{
    size_t j = i;
    while (j < ns && s[j].kind == kind && s[j].id == s[i].id)
        j++;
    return j;
}

static void add_locks(profile_sync *p, const span *s, size_t ns)
{
    size_t cap = 0, hold0 = 0; /* the waits come first, then the holds (span_cmp) */
    while (hold0 < ns && s[hold0].kind == EV_LOCK_WAIT)
        hold0++;
    for (size_t i = 0; i < hold0;) { /* lock by lock */
        size_t j = run_end(s, ns, i, EV_LOCK_WAIT), h = hold0;
        while (h < ns && s[h].kind == EV_LOCK_HOLD && s[h].id < s[i].id)
            h++;
        size_t he = h < ns && s[h].kind == EV_LOCK_HOLD && s[h].id == s[i].id
                        ? run_end(s, ns, h, EV_LOCK_HOLD) : h;
        p->locks = profile_push(p->locks, &p->nlocks, &cap, sizeof *p->locks);
        p->locks[p->nlocks - 1] = lock_of(s + i, j - i, s + h, he - h, p->nodes);
        i = j;
    }
}

static void add_barriers(profile_sync *p, const span *s, size_t ns)
{
    size_t cap = 0;
    for (size_t i = 0; i < ns;) {
        if (s[i].kind != EV_BARRIER) {
            i++;
            continue;
        }
        size_t j = run_end(s, ns, i, EV_BARRIER);
        p->bars = profile_push(p->bars, &p->nbars, &cap, sizeof *p->bars);
        p->bars[p->nbars - 1] = barrier_of(s + i, j - i, p->lasts);
        i = j;
    }
}

static int lock_cmp(const void *x, const void *y)
{
    const lock_cost *a = x, *b = y;
    return (a->wait_ns < b->wait_ns) - (a->wait_ns > b->wait_ns);
}

static int barrier_cmp(const void *x, const void *y)
{
    const barrier_cost *a = x, *b = y;
    return (a->wait_ns < b->wait_ns) - (a->wait_ns > b->wait_ns);
}

profile_sync *profile_sync_gather(const trace_part *parts, int n)
{
    profile_sync *p = calloc(1, sizeof *p);
    uint32_t *lasts = calloc((size_t)n, sizeof *lasts);
    if (!p || !lasts) {
        fprintf(stderr, "tsrun: out of memory for the profile\n");
        exit(1);
    }
    p->nodes = n;
    p->lasts = lasts;
    size_t ns;
    span *s = collect(parts, n, &ns);
    add_locks(p, s, ns);
    add_barriers(p, s, ns);
    free(s);
    trace_sort(p->locks, p->nlocks, sizeof *p->locks, lock_cmp);
    trace_sort(p->bars, p->nbars, sizeof *p->bars, barrier_cmp);
    return p;
}

void profile_sync_print(const profile_sync *s, FILE *f)
{
    fprintf(f, "locks with the most wait (%zu):\n  %6s %8s %9s %9s  %s\n", s->nlocks, "lock",
            "acquires", "wait ms", "held ms", "held by, while the others waited");
    for (size_t i = 0; i < s->nlocks && i < TOP; i++) {
        const lock_cost *c = &s->locks[i];
        fprintf(f, "  %6u %8" PRIu64 " %9.3f %9.3f  ", c->lock, c->acquires,
                (double)c->wait_ns / 1e6, (double)c->hold_ns / 1e6);
        if (c->holder >= 0)
            fprintf(f, "node %d (%.3f ms of the wait)\n", c->holder, (double)c->holder_wait / 1e6);
        else
            fputs("-\n", f);
    }
    fprintf(f, "barriers with the most wait (%zu):\n  %6s %9s  %s\n", s->nbars, "epoch",
            "wait ms", "last to arrive");
    for (size_t i = 0; i < s->nbars && i < TOP; i++)
        fprintf(f, "  %6u %9.3f  node %d\n", s->bars[i].epoch, (double)s->bars[i].wait_ns / 1e6,
                s->bars[i].last);
    fputs("arrived last at a barrier:", f);
    for (int i = 0; i < s->nodes; i++)
        fprintf(f, " node %d: %u%s", i, s->lasts[i], i + 1 < s->nodes ? "," : "\n");
}

void profile_sync_json(const profile_sync *s, FILE *f)
{
    fputs("\"locks\":[", f);
    for (size_t i = 0; i < s->nlocks; i++) {
        const lock_cost *c = &s->locks[i];
        fprintf(f, "%s\n {\"lock\":%u,\"acquires\":%" PRIu64 ",\"wait_ns\":%" PRIu64
                ",\"hold_ns\":%" PRIu64 ",\"holder\":%d,\"holder_wait_ns\":%" PRIu64 "}",
                i ? "," : "", c->lock, c->acquires, c->wait_ns, c->hold_ns, c->holder,
                c->holder_wait);
    }
    fputs("],\n\"barriers\":[", f);
    for (size_t i = 0; i < s->nbars; i++)
        fprintf(f, "%s\n {\"epoch\":%u,\"wait_ns\":%" PRIu64 ",\"last\":%d}", i ? "," : "",
                s->bars[i].epoch, s->bars[i].wait_ns, s->bars[i].last);
    fputs("],\n\"last_arrivals\":[", f);
    for (int i = 0; i < s->nodes; i++)
        fprintf(f, "%s%u", i ? "," : "", s->lasts[i]);
    fputs("]", f);
}

void profile_sync_free(profile_sync *s)
{
    free(s->locks);
    free(s->bars);
    free(s->lasts);
    free(s);
}
