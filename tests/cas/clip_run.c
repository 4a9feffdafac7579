/* Issue 51's program: a loop that clips negative values to 0 and sums,
 * over data that are never negative, so that it writes nothing. The pass
 * must not check its store for writing (a twin, an ownership transfer, or
 * a stop under read_only, for a write that never happens).
 * tests/sh/cas_clip.sh builds it with cc and with tsrcc at every level and
 * compares what they print.
 *
 *   clip_run KIND    KIND: hlrc, lrc, or a Munin annotation: read_only,
 *                    conventional, write_shared, producer_consumer, result
 *
 * Each node sums the whole array PASSES times through the clipping loop and
 * prints its sum and what the protocols counted meanwhile: no twin, no
 * diff, no write fault. Then, where the data may be written (hlrc, lrc,
 * conventional, write_shared), node 0 makes some values negative and the
 * last node clips them: the stores that do run still take effect, and
 * every node prints the new sum. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tessera.h"
#include "tessera_munin.h"

#define N 8192 /* doubles: 16 pages */
#define PASSES 10

static const struct kind {
    const char *name;
    tsr_proto_t proto;
    int annot; /* Munin's, once initialised as conventional memory */
    int writable;
} kinds[] = {
    {"hlrc", TSR_PROTO_HLRC, 0, 1},
    {"lrc", TSR_PROTO_LRC, 0, 1},
    {"read_only", TSR_PROTO_MUNIN, TSR_READ_ONLY, 0},
    {"conventional", TSR_PROTO_MUNIN, TSR_CONVENTIONAL, 1},
    {"write_shared", TSR_PROTO_MUNIN, TSR_WRITE_SHARED, 1},
    {"producer_consumer", TSR_PROTO_MUNIN, TSR_PRODUCER_CONSUMER, 0},
    {"result", TSR_PROTO_MUNIN, TSR_RESULT, 0},
};

/* Kept out of line so that tests/sh/cas_pass.sh can check its IR: at every
 * hoisting level, the read check of v and no write check. */
__attribute__((noinline)) static double clip_sum(double *v, long n)
{
    double s = 0;
    for (long i = 0; i < n; i++) {
        if (v[i] < 0)
            v[i] = 0;
        s += v[i];
    }
    return s;
}
// HOIST-LABEL: define {{.*}} @clip_sum(
// HOIST: call void @tsr_range_read(ptr %0, i64
// HOIST-NOT: call void @tsr_range
// HOIST: {{^}}}

static const struct kind *find_kind(const char *name)
{
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (strcmp(kinds[i].name, name) == 0)
            return &kinds[i];
    fprintf(stderr, "clip_run: unknown kind '%s'\n", name);
    exit(2);
}

/* The array, initialised by node 0 to values that are never negative, in
 * its protocol; Munin's annotation is set once it holds them, as
 * docs/MUNIN.md does for read_only data. */
static double *setup(const struct kind *k)
{
    tsr_attr a = TSR_ATTR_DEFAULT;
    a.proto = k->proto;
    double *v = tsr_alloc_attr(N * sizeof(double), &a);
    if (tsr_node() == 0)
        for (long i = 0; i < N; i++)
            v[i] = (double)(i % 97);
    tsr_barrier();
    if (k->proto == TSR_PROTO_MUNIN && k->annot != TSR_CONVENTIONAL)
        tsr_hint_change_annotation(v, (tsr_annotation)k->annot);
    return v;
}

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    if (argc != 2) {
        fprintf(stderr, "usage: clip_run KIND\n");
        return 2;
    }
    const struct kind *k = find_kind(argv[1]);
    double *v = setup(k);
    /* Every node reads each page once before the counters start: under the
     * lazy protocol node 0 makes the diffs of its initial writes only when
     * another node first needs them, and those are no write of the loop. */
    volatile double warm = 0;
    for (long i = 0; i < N; i += 4096 / sizeof *v)
        warm += v[i];
    tsr_barrier();
    tsr_stats_reset();
    double s = 0;
    for (int p = 0; p < PASSES; p++)
        s += clip_sum(v, N);
    tsr_stats st;
    tsr_stats_get(&st);
    printf("node %d: sum %.1f twins=%llu diffs=%llu write_faults=%llu\n", tsr_node(), s,
           (unsigned long long)st.twins, (unsigned long long)st.diffs_created,
           (unsigned long long)st.write_faults);
    tsr_barrier();
    if (k->writable) {
        if (tsr_node() == 0)
            for (long i = 0; i < N; i += 1000)
                v[i] = -1;
        tsr_barrier();
        if (tsr_node() == tsr_nodes() - 1)
            clip_sum(v, N);
        tsr_barrier();
        double neg = 0;
        for (long i = 0; i < N; i++)
            neg += v[i] < 0;
        printf("node %d: after clipping: sum %.1f negative %.0f\n", tsr_node(), clip_sum(v, N),
               neg);
    }
    tsr_finalize();
    return 0;
}
