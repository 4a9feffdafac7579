/* Replicated sequential sections keep their writes local (OpenMP/NOW,
 * Section 5.3), counted. Every node runs the same read-modify-write over a
 * shared array whose pages are homed on every node and were written in a
 * parallel phase just before: a write applied twice (a fetch from a home,
 * or a diff, that already held it) or lost (a page reset to an older copy)
 * changes the values, and a write that travelled shows as a write notice
 * or an invalidation anywhere, and under the home-based protocol as a
 * diff. (The lazy protocol makes, at a section's first write to a page,
 * the diff of the writes from before: Section 5.3's remedy, not a leak.)
 * The sections are entered both ways: tsr_replicate_begin, and the join
 * of a fork made from inside a section. After the last section, a parallel
 * phase writes again, so the pages must be back in their normal states. */
/* tsr-test: ompnow */
/* tsr-test: lrc */
#include <stdio.h>

#include "tessera.h"
#include "util/config.h"

#define PAGES_PER_NODE 8
#define PER_PAGE (4096 / sizeof(long))

static long *a;
static size_t n;
static int bad;

typedef struct sample {
    uint64_t diffs, diff_bytes, notices, invalidations, replicated;
} sample;

static int lazy; /* TSR_PROTO=lrc */

static sample take(void)
{
    tsr_stats s;
    sample x = {0};
    tsr_stats_get(&s);
    x.diffs = s.diffs_created;
    x.diff_bytes = s.diff_bytes;
    x.invalidations = s.invalidations;
    if (tsr_counter_get("write_notices", &x.notices) ||
        tsr_counter_get("replicated_writes", &x.replicated))
        bad = 1;
    return x;
}

/* Nothing of the section travelled between `from` and now. */
static void check_local(const char *where, sample from)
{
    sample now = take();
    if ((!lazy && (now.diffs != from.diffs || now.diff_bytes != from.diff_bytes)) ||
        now.notices != from.notices || now.invalidations != from.invalidations) {
        printf("node %d, %s: %llu diffs (%llu bytes), %llu write notices, %llu invalidations\n",
               tsr_node(), where, (unsigned long long)(now.diffs - from.diffs),
               (unsigned long long)(now.diff_bytes - from.diff_bytes),
               (unsigned long long)(now.notices - from.notices),
               (unsigned long long)(now.invalidations - from.invalidations));
        bad = 1;
    }
    if (tsr_nodes() > 1 && now.replicated == from.replicated) {
        printf("node %d, %s: no page written in the section was counted\n", tsr_node(), where);
        bad = 1;
    }
}

static void check_values(const char *where, long add)
{
    for (size_t k = 0; k < n; k++)
        if (a[k] != 2 * (long)k + add) {
            printf("node %d, %s: a[%zu] = %ld, want %ld\n", tsr_node(), where, k, a[k],
                   2 * (long)k + add);
            bad = 1;
            return;
        }
}

/* Parallel: each node adds to a slice that starts one node over from the
 * slice it homes, so most writes are to other nodes' pages (twins, diffs). */
static void add_ten(void *unused)
{
    size_t slice = n / (size_t)tsr_nodes();
    size_t from = slice * (size_t)((tsr_node() + 1) % tsr_nodes());
    for (size_t k = from; k < from + slice; k++)
        a[k] += 10;
}

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    lazy = cfg.proto == PROTO_LRC;
    n = PER_PAGE * PAGES_PER_NODE * (size_t)tsr_nodes();
    a = tsr_alloc(n * sizeof *a);
    for (size_t k = (size_t)tsr_node(); k < n; k += (size_t)tsr_nodes())
        a[k] = (long)k; /* every page written by every node */
    tsr_barrier();

    tsr_replicate_begin();
    sample s = take();
    for (size_t k = 0; k < n; k++)
        a[k] = 2 * a[k] + 1;
    check_values("in the first section", 1);
    tsr_fork(add_ten, NULL);
    check_local("first section, up to the fork", s);
    tsr_join();
    s = take();
    check_values("after the fork", 11);
    for (size_t k = 0; k < n; k++)
        a[k] -= 1;
    tsr_replicate_end();
    check_local("second section, up to its end", s);

    check_values("after the sections", 10);
    tsr_barrier(); /* nobody writes while another still reads */
    add_ten(NULL);
    tsr_barrier();
    check_values("after a parallel phase", 20);
    printf("node %d: replicated sections at %d nodes %s\n", tsr_node(), tsr_nodes(),
           bad ? "FAIL" : "PASS");
    tsr_finalize();
    return bad;
}
