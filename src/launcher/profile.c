/*
 * profile.c - the pages and allocations that cost the most (profile.h).
 *
 * An interval is the time between two barriers: every node counts them
 * alike, so a barrier's epoch names the same interval on all nodes. A page
 * that several nodes wrote (a write fault or a diff) in one interval is
 * write-shared then; if the program never meant two nodes to write the
 * same words, that is false sharing, the cost the table is for.
 */
#include "launcher/profile.h"

#include <errno.h>
#include <inttypes.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define TOP 10
#define PAGE_BYTES 4096

typedef struct touch {
    uint32_t page, epoch;
    uint16_t node, kind;
    uint64_t b, dur;
} touch;

typedef struct page_cost {
    uint32_t page;
    uint64_t faults, fault_ns, fetches, invalidations, diffs, diff_bytes;
    uint32_t shared_intervals, max_writers;
    int alloc; /* index in the allocations, or -1 */
} page_cost;

typedef struct alloc_site {
    uint32_t page, node, module;
    uint64_t bytes, offset, ts;
    page_cost sum; /* over its pages; sum.page: its pages write-shared */
    char site[256];
} alloc_site;

extern char **environ;

void *profile_push(void *arr, size_t *n, size_t *cap, size_t size)
{
    if (*n == *cap) {
        *cap = *cap ? 2 * *cap : 256;
        arr = realloc(arr, *cap * size);
        if (!arr) {
            fprintf(stderr, "tsrun: out of memory for the profile\n");
            exit(1);
        }
    }
    (*n)++;
    return arr;
}

/* The epoch a node's event at `ts` falls in: one more than the last
 * barrier that node left before it. */
static uint32_t epoch_at(const trace_event *bars, size_t nb, uint64_t ts)
{
    size_t lo = 0, hi = nb;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (bars[mid].ts + bars[mid].dur <= ts)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo ? bars[lo - 1].a + 1 : 0;
}

static int is_page_kind(int k)
{
    return k == EV_FAULT_READ || k == EV_FAULT_WRITE || k == EV_FETCH || k == EV_DIFF_MAKE ||
           k == EV_DIFF_APPLY || k == EV_INVALIDATE;
}

/* The barriers of a node, all threads together, in time order. */
static trace_event *node_barriers(const trace_part *p, size_t *nb)
{
    trace_event *b = NULL;
    size_t cap = 0;
    *nb = 0;
    for (int s = 0; s < TRACE_SLOTS; s++) {
        uint64_t m;
        const trace_event *e = trace_part_events(p, s, &m);
        for (uint64_t j = 0; j < m; j++)
            if (e[j].kind == EV_BARRIER) {
                b = profile_push(b, nb, &cap, sizeof *b);
                b[*nb - 1] = e[j];
            }
    }
    for (size_t i = 1; i < *nb; i++) /* few, nearly sorted already */
        for (size_t j = i; j > 0 && b[j - 1].ts > b[j].ts; j--) {
            trace_event t = b[j];
            b[j] = b[j - 1];
            b[j - 1] = t;
        }
    return b;
}

static void gather(const trace_part *parts, int n, touch **t, size_t *nt, alloc_site **a,
                   size_t *na)
{
    size_t tcap = 0, acap = 0;
    for (int i = 0; i < n; i++) {
        if (!parts[i].head)
            continue;
        size_t nb;
        trace_event *bars = node_barriers(&parts[i], &nb);
        for (int s = 0; s < TRACE_SLOTS; s++) {
            uint64_t m;
            const trace_event *e = trace_part_events(&parts[i], s, &m);
            for (uint64_t j = 0; j < m; j++) {
                if (is_page_kind(e[j].kind)) {
                    *t = profile_push(*t, nt, &tcap, sizeof **t);
                    (*t)[*nt - 1] = (touch){e[j].a, epoch_at(bars, nb, e[j].ts), (uint16_t)i,
                                            e[j].kind, e[j].b, e[j].dur};
                } else if (e[j].kind == EV_ALLOC && e[j].node < parts[i].head->nmodules) {
                    *a = profile_push(*a, na, &acap, sizeof **a);
                    (*a)[*na - 1] = (alloc_site){.page = e[j].a, .node = (uint32_t)i,
                                                 .module = e[j].node, .bytes = e[j].b,
                                                 .offset = e[j].dur, .ts = e[j].ts};
                }
            }
        }
        free(bars);
    }
}

static int touch_cmp(const void *x, const void *y)
{
    const touch *a = x, *b = y;
    return trace_order3(a->page, b->page, a->epoch, b->epoch, a->node, b->node);
}

/* Collective allocations are recorded by every node, and tsr_alloc's
 * record follows tsr_alloc_attr's: the one kept for a page is the last of
 * the lowest node that made one. */
static int alloc_cmp(const void *x, const void *y)
{
    const alloc_site *a = x, *b = y;
    return trace_order3(a->page, b->page, a->node, b->node, b->ts, a->ts); /* latest first */
}

static size_t dedup_allocs(alloc_site *a, size_t n)
{
    trace_sort(a, n, sizeof *a, alloc_cmp);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (!k || a[k - 1].page != a[i].page)
            a[k++] = a[i];
    return k;
}

static int alloc_of(const alloc_site *a, size_t n, uint32_t page)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (a[mid].page <= page)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (!lo)
        return -1;
    const alloc_site *s = &a[lo - 1];
    uint64_t pages = (s->bytes + PAGE_BYTES - 1) / PAGE_BYTES;
    return page < s->page + (pages ? pages : 1) ? (int)(lo - 1) : -1;
}

/* One page's touches, t[0..m), sorted by epoch then node. */
static page_cost cost_of(const touch *t, size_t m)
{
    page_cost c = {.page = t[0].page, .alloc = -1};
    for (size_t i = 0; i < m;) {
        size_t j = i;
        uint32_t writers = 0;
        int last = -1;
        for (; j < m && t[j].epoch == t[i].epoch; j++) {
            const touch *x = &t[j];
            int wrote = x->kind == EV_FAULT_WRITE || x->kind == EV_DIFF_MAKE;
            if (wrote && x->node != last) {
                writers++;
                last = x->node;
            }
            c.faults += x->kind == EV_FAULT_READ || x->kind == EV_FAULT_WRITE;
            c.fault_ns += x->kind == EV_FAULT_READ || x->kind == EV_FAULT_WRITE ? x->dur : 0;
            c.fetches += x->kind == EV_FETCH;
            c.invalidations += x->kind == EV_INVALIDATE;
            c.diffs += x->kind == EV_DIFF_MAKE;
            c.diff_bytes += x->kind == EV_DIFF_MAKE ? x->b : 0;
        }
        c.shared_intervals += writers > 1;
        c.max_writers = writers > c.max_writers ? writers : c.max_writers;
        i = j;
    }
    return c;
}

/* file:line of the call that returned to `offset` in `module`, by
 * addr2line (binutils), run without a shell: the module's name comes from
 * a node's part. Falls back to module+offset. */
static void name_site(const char *module, uint64_t offset, char *out, size_t len)
{
    char addr[32];
    snprintf(addr, sizeof addr, "0x%" PRIx64, offset ? offset - 1 : 0); /* the call itself */
    snprintf(out, len, "%s+%s", module, addr);
    int fd[2];
    if (pipe(fd))
        return;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fd[1], 1);
    posix_spawn_file_actions_addclose(&fa, fd[0]);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", 1, 0);
    char *argv[] = {"addr2line", "-e", (char *)module, addr, NULL};
    pid_t pid;
    int err = posix_spawnp(&pid, "addr2line", &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(fd[1]);
    char buf[512];
    ssize_t got = err ? -1 : read(fd[0], buf, sizeof buf - 1);
    close(fd[0]);
    if (!err)
        waitpid(pid, NULL, 0);
    if (got <= 0 || buf[0] == '?')
        return;
    buf[got] = 0;
    buf[strcspn(buf, " \n")] = 0; /* drops " (discriminator N)" */
    snprintf(out, len, "%.*s", (int)len - 1, buf);
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

static void add_cost(page_cost *sum, const page_cost *c)
{
    sum->faults += c->faults;
    sum->fault_ns += c->fault_ns;
    sum->fetches += c->fetches;
    sum->invalidations += c->invalidations;
    sum->diffs += c->diffs;
    sum->diff_bytes += c->diff_bytes;
    sum->shared_intervals += c->shared_intervals;
    sum->page += c->shared_intervals > 0;
    if (c->max_writers > sum->max_writers)
        sum->max_writers = c->max_writers;
}

/* Costlier first: the time faults took, then what moved. */
static int cost_cmp(const page_cost *a, const page_cost *b)
{
    if (a->fault_ns != b->fault_ns)
        return a->fault_ns < b->fault_ns ? 1 : -1;
    uint64_t x = a->faults + a->fetches + a->invalidations, y = b->faults + b->fetches + b->invalidations;
    return (x < y) - (x > y);
}
static int page_cmp(const void *x, const void *y) { return cost_cmp(x, y); }
static int site_cmp(const void *x, const void *y)
{
    return cost_cmp(&(*(alloc_site *const *)x)->sum, &(*(alloc_site *const *)y)->sum);
}

typedef struct profile {
    page_cost *pages;
    size_t npages;
    alloc_site *allocs; /* by page */
    size_t nallocs;
    alloc_site **ranked; /* costlier first */
} profile;

static void build(const trace_part *parts, int n, profile *pr)
{
    touch *t = NULL;
    size_t nt = 0, cap = 0;
    gather(parts, n, &t, &nt, &pr->allocs, &pr->nallocs);
    pr->nallocs = dedup_allocs(pr->allocs, pr->nallocs);
    trace_sort(t, nt, sizeof *t, touch_cmp);
    for (size_t i = 0; i < nt;) {
        size_t j = i;
        while (j < nt && t[j].page == t[i].page)
            j++;
        pr->pages = profile_push(pr->pages, &pr->npages, &cap, sizeof *pr->pages);
        page_cost *c = &pr->pages[pr->npages - 1];
        *c = cost_of(t + i, j - i);
        c->alloc = alloc_of(pr->allocs, pr->nallocs, c->page);
        if (c->alloc >= 0)
            add_cost(&pr->allocs[c->alloc].sum, c);
        i = j;
    }
    free(t);
    for (size_t i = 0; i < pr->nallocs; i++) {
        alloc_site *a = &pr->allocs[i];
        name_site(parts[a->node].head->modules[a->module], a->offset, a->site, sizeof a->site);
    }
    trace_sort(pr->pages, pr->npages, sizeof *pr->pages, page_cmp);
    pr->ranked = malloc((pr->nallocs + 1) * sizeof *pr->ranked);
    if (!pr->ranked) {
        fprintf(stderr, "tsrun: out of memory for the profile\n");
        exit(1);
    }
    for (size_t i = 0; i < pr->nallocs; i++)
        pr->ranked[i] = &pr->allocs[i];
    trace_sort(pr->ranked, pr->nallocs, sizeof *pr->ranked, site_cmp);
}

static void print_tables(const profile *pr, FILE *f)
{
    fprintf(f, "pages that cost the most (%zu touched; shared: intervals in which two or more "
               "nodes wrote the page, false sharing unless they wrote the same words):\n", pr->npages);
    fprintf(f, "  %9s %7s %9s %7s %6s %6s %9s %6s %7s  %s\n", "page", "faults", "fault ms",
            "fetches", "invals", "diffs", "diff B", "shared", "writers", "allocation");
    for (size_t i = 0; i < pr->npages && i < TOP; i++) {
        const page_cost *c = &pr->pages[i];
        fprintf(f, "  %9u %7" PRIu64 " %9.3f %7" PRIu64 " %6" PRIu64 " %6" PRIu64 " %9" PRIu64
                " %6u %7u  %s\n", c->page, c->faults, (double)c->fault_ns / 1e6, c->fetches,
                c->invalidations, c->diffs, c->diff_bytes, c->shared_intervals, c->max_writers,
                c->alloc >= 0 ? base_name(pr->allocs[c->alloc].site) : "-");
    }
    fprintf(f, "allocations that cost the most (%zu):\n", pr->nallocs);
    fprintf(f, "  %-32s %10s %7s %9s %7s %6s %9s %13s %7s\n", "call site", "bytes", "faults",
            "fault ms", "fetches", "invals", "diff B", "shared pages", "writers");
    for (size_t i = 0; i < pr->nallocs && i < TOP; i++) {
        const alloc_site *a = pr->ranked[i];
        fprintf(f, "  %-32s %10" PRIu64 " %7" PRIu64 " %9.3f %7" PRIu64 " %6" PRIu64 " %9" PRIu64
                " %13u %7u\n", base_name(a->site), a->bytes, a->sum.faults,
                (double)a->sum.fault_ns / 1e6, a->sum.fetches, a->sum.invalidations,
                a->sum.diff_bytes, a->sum.page, a->sum.max_writers);
    }
}

static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++)
        if (*s == '"' || *s == '\\')
            fprintf(f, "\\%c", *s);
        else if ((unsigned char)*s < 32)
            fprintf(f, "\\u%04x", *s);
        else
            fputc(*s, f);
    fputc('"', f);
}

static void json_cost(FILE *f, const page_cost *c)
{
    fprintf(f, "\"faults\":%" PRIu64 ",\"fault_ns\":%" PRIu64 ",\"fetches\":%" PRIu64
            ",\"invalidations\":%" PRIu64 ",\"diffs\":%" PRIu64 ",\"diff_bytes\":%" PRIu64
            ",\"max_writers\":%u", c->faults, c->fault_ns, c->fetches, c->invalidations,
            c->diffs, c->diff_bytes, c->max_writers);
}

static void json_tables(const profile *pr, FILE *f)
{
    fputs("\"pages\":[", f);
    for (size_t i = 0; i < pr->npages; i++) {
        const page_cost *c = &pr->pages[i];
        fprintf(f, "%s\n {\"page\":%u,\"shared_intervals\":%u,", i ? "," : "", c->page,
                c->shared_intervals);
        json_cost(f, c);
        fputs(",\"allocation\":", f);
        if (c->alloc >= 0)
            json_string(f, pr->allocs[c->alloc].site);
        else
            fputs("null", f);
        fputc('}', f);
    }
    fputs("],\n\"allocations\":[", f);
    for (size_t i = 0; i < pr->nallocs; i++) {
        const alloc_site *a = pr->ranked[i];
        fprintf(f, "%s\n {\"site\":", i ? "," : "");
        json_string(f, a->site);
        fprintf(f, ",\"first_page\":%u,\"bytes\":%" PRIu64 ",\"shared_pages\":%u,", a->page,
                a->bytes, a->sum.page);
        json_cost(f, &a->sum);
        fputc('}', f);
    }
    fputs("]", f);
}

int profile_report(const trace_part *parts, int n, const char *json)
{
    profile pr = {0};
    build(parts, n, &pr);
    profile_sync *sync = profile_sync_gather(parts, n);
    fprintf(stderr, "--- tessera profile: %d nodes (docs/TRACE.md) ---\n", n);
    print_tables(&pr, stderr);
    profile_sync_print(sync, stderr);
    int err = 0;
    if (json && *json) {
        FILE *f = fopen(json, "w");
        if (f) {
            fprintf(f, "{\"nodes\":%d,\n", n);
            json_tables(&pr, f);
            fputs(",\n", f);
            profile_sync_json(sync, f);
            fputs("}\n", f);
        }
        if (!f || fclose(f)) {
            fprintf(stderr, "tsrun: cannot write the profile %s: %s\n", json, strerror(errno));
            err = -1;
        }
    }
    profile_sync_free(sync);
    free(pr.pages);
    free(pr.allocs);
    free(pr.ranked);
    return err;
}
