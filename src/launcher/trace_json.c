/*
 * trace_json.c - merging the nodes' parts into one Chrome trace event JSON
 * file (trace_json.h). Times are node 0's clock in microseconds from the
 * job's first event; a message is named by (sender, receiver, stamp), the
 * stamp being unique on its sender (trace_stamp), and its flow id is its
 * rank among the job's sends.
 */
#include "launcher/trace_json.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "transport/msg.h"

typedef struct msg_key {
    uint64_t stamp;
    uint16_t src, dst;
} msg_key;

static const char *const names[EV_KINDS] = {
    [EV_FAULT_READ] = "read fault",    [EV_FAULT_WRITE] = "write fault",
    [EV_FETCH] = "page fetch",         [EV_DIFF_MAKE] = "diff made",
    [EV_DIFF_APPLY] = "diff applied",  [EV_INVALIDATE] = "invalidation",
    [EV_LOCK_WAIT] = "lock wait",      [EV_LOCK_HOLD] = "lock held",
    [EV_BARRIER] = "barrier",          [EV_FORK] = "parallel region",
    [EV_REPLICATED] = "replicated section",
    [EV_RANGE] = "range check",        [EV_SEND] = "send",
    [EV_RECV] = "receive",             [EV_ALLOC] = "allocation",
};

/* What each kind's fields are called in a slice's args. */
static const char *const a_names[EV_KINDS] = {
    [EV_FAULT_READ] = "page",  [EV_FAULT_WRITE] = "page", [EV_FETCH] = "page",
    [EV_DIFF_MAKE] = "page",   [EV_DIFF_APPLY] = "page",  [EV_INVALIDATE] = "page",
    [EV_LOCK_WAIT] = "lock",   [EV_LOCK_HOLD] = "lock",   [EV_BARRIER] = "epoch",
    [EV_RANGE] = "page",       [EV_ALLOC] = "page",
};
static const char *const b_names[EV_KINDS] = {
    [EV_FETCH] = "pages",     [EV_DIFF_MAKE] = "bytes", [EV_DIFF_APPLY] = "bytes",
    [EV_BARRIER] = "parked",  [EV_RANGE] = "bytes",     [EV_ALLOC] = "bytes",
};

static int key_cmp(const void *x, const void *y)
{
    const msg_key *a = x, *b = y;
    return trace_order3(a->stamp, b->stamp, a->src, b->src, a->dst, b->dst);
}

typedef struct sends {
    msg_key *k;
    size_t n;
} sends;

/* Every send of the job, sorted, so that a receipt finds its rank. */
static int collect_sends(const trace_part *parts, int n, sends *out)
{
    size_t cap = 0;
    out->k = NULL;
    out->n = 0;
    for (int i = 0; i < n; i++)
        for (int s = 0; parts[i].head && s < TRACE_SLOTS; s++) {
            uint64_t m;
            const trace_event *e = trace_part_events(&parts[i], s, &m);
            for (uint64_t j = 0; j < m; j++) {
                if (e[j].kind != EV_SEND)
                    continue;
                if (out->n == cap) {
                    cap = cap ? 2 * cap : 1024;
                    msg_key *k = realloc(out->k, cap * sizeof *k);
                    if (!k)
                        return -1;
                    out->k = k;
                }
                out->k[out->n++] = (msg_key){e[j].b, (uint16_t)i, e[j].node};
            }
        }
    trace_sort(out->k, out->n, sizeof *out->k, key_cmp);
    return 0;
}

/* The flow id of a message (its rank + 1), or 0 if its send is not known. */
static size_t flow_id(const sends *s, msg_key k)
{
    msg_key *f = trace_find(&k, s->k, s->n, sizeof k, key_cmp);
    return f ? (size_t)(f - s->k) + 1 : 0;
}

static uint64_t first_time(const trace_part *parts, int n)
{
    uint64_t t = UINT64_MAX;
    for (int i = 0; i < n; i++)
        for (int s = 0; parts[i].head && s < TRACE_SLOTS; s++) {
            uint64_t m;
            const trace_event *e = trace_part_events(&parts[i], s, &m);
            for (uint64_t j = 0; j < m; j++)
                if (trace_part_time(&parts[i], e[j].ts) < t)
                    t = trace_part_time(&parts[i], e[j].ts);
        }
    return t == UINT64_MAX ? 0 : t;
}

typedef struct writer {
    FILE *f;
    const sends *sends;
    uint64_t t0;
    int first; /* no event written yet: no comma */
    size_t flows, unpaired;
} writer;

static void sep(writer *w)
{
    fputs(w->first ? "\n" : ",\n", w->f);
    w->first = 0;
}

static double us(const writer *w, uint64_t ns) { return (double)(int64_t)(ns - w->t0) / 1e3; }

static void write_meta(writer *w, const trace_part *p)
{
    sep(w);
    fprintf(w->f, "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%d,\"args\":{\"name\":\"node %d\"}}",
            p->node, p->node);
    sep(w);
    fprintf(w->f, "{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":%d,\"args\":{\"sort_index\":%d}}",
            p->node, p->node);
    for (int s = 0; s < TRACE_SLOTS; s++) {
        uint64_t m;
        if (!trace_part_events(p, s, &m))
            continue;
        char name[17] = {0};
        memcpy(name, p->slots[s].name, 16);
        for (char *c = name; *c; c++)
            if (*c == '"' || *c == '\\' || (unsigned char)*c < 32)
                *c = '_';
        sep(w);
        fprintf(w->f, "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%d,\"tid\":%u,\"args\":{\"name\":\"%s\"}}",
                p->node, p->slots[s].tid, name);
    }
}

static const char *type_name(uint32_t t) { return t < MSG_COUNT ? msg_name((int)t) : "?"; }

/* A send or receipt: a slice of no length, and its end of the flow. */
static void write_message(writer *w, const trace_part *p, uint32_t tid, const trace_event *e)
{
    int send = e->kind == EV_SEND;
    double ts = us(w, trace_part_time(p, e->ts));
    msg_key k = {e->b, send ? (uint16_t)p->node : e->node, send ? e->node : (uint16_t)p->node};
    size_t id = flow_id(w->sends, k);
    fprintf(w->f, "{\"ph\":\"X\",\"name\":\"%s %s\",\"cat\":\"message\",\"pid\":%d,\"tid\":%u,"
            "\"ts\":%.3f,\"dur\":0,\"args\":{\"%s\":%u}}",
            send ? "send" : "receive", type_name(e->a), p->node, tid, ts, send ? "to" : "from",
            e->node);
    if (!id) {
        w->unpaired++;
        return;
    }
    sep(w);
    if (send)
        fprintf(w->f, "{\"ph\":\"s\",\"name\":\"message\",\"cat\":\"message\",\"id\":%zu,"
                "\"pid\":%d,\"tid\":%u,\"ts\":%.3f}", id, p->node, tid, ts);
    else
        fprintf(w->f, "{\"ph\":\"f\",\"bp\":\"e\",\"name\":\"message\",\"cat\":\"message\","
                "\"id\":%zu,\"pid\":%d,\"tid\":%u,\"ts\":%.3f}", id, p->node, tid, ts);
    w->flows += !send;
}

static void write_event(writer *w, const trace_part *p, uint32_t tid, const trace_event *e)
{
    if (!e->kind || e->kind >= EV_KINDS || e->kind == EV_ALLOC)
        return;
    sep(w);
    if (e->kind == EV_SEND || e->kind == EV_RECV) {
        write_message(w, p, tid, e);
        return;
    }
    fprintf(w->f, "{\"ph\":\"%s\",\"name\":\"%s\",\"cat\":\"tessera\",\"pid\":%d,\"tid\":%u,"
            "\"ts\":%.3f,", e->dur || e->kind != EV_INVALIDATE ? "X" : "i", names[e->kind],
            p->node, tid, us(w, trace_part_time(p, e->ts)));
    if (e->kind == EV_INVALIDATE)
        fputs("\"s\":\"t\",", w->f);
    else
        fprintf(w->f, "\"dur\":%.3f,", (double)e->dur / 1e3);
    fputs("\"args\":{", w->f);
    if (a_names[e->kind])
        fprintf(w->f, "\"%s\":%u", a_names[e->kind], e->a);
    if (b_names[e->kind])
        fprintf(w->f, ",\"%s\":%" PRIu64, b_names[e->kind], e->b);
    if (e->kind == EV_FETCH || e->kind == EV_DIFF_APPLY)
        fprintf(w->f, ",\"%s\":%u", e->kind == EV_FETCH ? "home" : "from", e->node);
    fputs("}}", w->f);
}

/* What the file says of the job beside its events: the clock offsets and
 * the events lost. */
static void write_other(writer *w, const trace_part *parts, int n)
{
    fprintf(w->f, "\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":{\"nodes\":%d,"
            "\"sends\":%zu,\"flows\":%zu,\"receipts_unpaired\":%zu,\"t0_ns\":%" PRIu64
            ",\"clock\":[", n, w->sends->n, w->flows, w->unpaired, w->t0);
    for (int i = 0; i < n; i++) {
        const trace_part *p = &parts[i];
        uint64_t dropped = 0;
        for (int s = 0; p->head && s < TRACE_SLOTS; s++)
            dropped += p->slots[s].dropped;
        if (!p->head)
            fprintf(w->f, "%s\n {\"node\":%d,\"missing\":\"%s\"}", i ? "," : "", i, p->why);
        else
            fprintf(w->f, "%s\n {\"node\":%d,\"offset_ns\":%" PRId64 ",\"rtt_ns\":%" PRIu64
                    ",\"dropped_events\":%" PRIu64 ",\"untraced_threads\":%u}", i ? "," : "", i,
                    p->head->offset_ns, p->head->offset_rtt_ns, dropped,
                    p->head->untraced_threads);
    }
    fputs("]}}\n", w->f);
}

int trace_json_write(const char *file, const trace_part *parts, int n)
{
    sends s;
    FILE *f = fopen(file, "w");
    if (!f || collect_sends(parts, n, &s)) {
        fprintf(stderr, "tsrun: cannot write the trace %s: %s\n", file, strerror(errno));
        if (f)
            fclose(f);
        return -1;
    }
    writer w = {f, &s, first_time(parts, n), 1, 0, 0};
    fputs("{\"traceEvents\":[", f);
    for (int i = 0; i < n; i++) {
        if (!parts[i].head)
            continue;
        write_meta(&w, &parts[i]);
        for (int sl = 0; sl < TRACE_SLOTS; sl++) {
            uint64_t m;
            const trace_event *e = trace_part_events(&parts[i], sl, &m);
            for (uint64_t j = 0; j < m; j++)
                write_event(&w, &parts[i], parts[i].slots[sl].tid, &e[j]);
        }
    }
    write_other(&w, parts, n);
    free(s.k);
    if (fclose(f)) {
        fprintf(stderr, "tsrun: cannot write the trace %s: %s\n", file, strerror(errno));
        return -1;
    }
    return 0;
}
