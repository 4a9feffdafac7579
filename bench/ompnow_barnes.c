/*
 * ompnow_barnes.c - Barnes-Hut as OpenMP/NOW runs it (Section 6.1 of
 * openmp-now-replicated-sequential-sections.md), for the shape of its
 * Tables 1 and 2 (bench/ompnow_barnes.py runs it; docs/OMPNOW.md).
 *
 *   tsrun -n N ompnow_barnes MODE BODIES STEPS      MODE: master | replicated
 *
 * Each step builds the octree from every body (the sequential section),
 * then every node moves its own bodies after walking the tree (the
 * parallel section), with apps/barnes' code (barnes.h).
 *  - master: node 0 builds the tree while the others wait at a barrier; the
 *    tree is homed at node 0, and every node fetches the tree pages it
 *    walks from it after the barrier: the contention of Section 3.
 *  - replicated: every node builds the tree in a replicated section; each
 *    keeps its own copy (no tree page is fetched afterwards), and the body
 *    positions that all of them read are fetched once per page and
 *    multicast to the rest, as TSR_MULTICAST says.
 * Per section it sums over the nodes the requests (page fetches, or
 * under TSR_PROTO=lrc diff requests, as in the paper's TreadMarks), the
 * bytes received, and the time spent waiting for pages; node 0 prints one line
 * with them and a checksum of the final positions (the same in every mode:
 * the trees are built by the same code from the same bodies).
 */
#include <string.h>

#include "../apps/barnes/barnes_dsm.h"

enum { SEQ, PAR, PHASES };
enum { REQUESTS, BYTES, WAIT_US, SECONDS, FIELDS };

static double totals[PHASES][FIELDS];
static tsr_stats before;
static double t_before;

/* Page fetches (home-based protocol) and diff requests (lazy protocol). */
static double requests(const tsr_stats *s)
{
    uint64_t diff_requests = 0;
    tsr_counter_get("diff_requests", &diff_requests);
    return (double)s->page_fetches + (double)diff_requests;
}

static double requests_before;

static void phase_start(void)
{
    tsr_stats_get(&before);
    requests_before = requests(&before);
    t_before = tsr_wtime();
}

static void phase_end(int phase)
{
    tsr_stats now;
    tsr_stats_get(&now);
    totals[phase][REQUESTS] += requests(&now) - requests_before;
    totals[phase][BYTES] += (double)(now.bytes_received - before.bytes_received);
    totals[phase][WAIT_US] += (now.fault_wait_s - before.fault_wait_s) * 1e6;
    totals[phase][SECONDS] += tsr_wtime() - t_before;
}

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    int me = tsr_node(), nodes = tsr_nodes();
    int replicated = argc > 1 && !strcmp(argv[1], "replicated");
    if (argc < 2 || (!replicated && strcmp(argv[1], "master"))) {
        fprintf(stderr, "usage: ompnow_barnes master|replicated BODIES STEPS\n");
        return 2;
    }
    barnes_size size = barnes_parse(argc - 1, argv + 1);
    long n = size.bodies;
    barnes_sys sys = barnes_sys_shared(n);
    double *report = tsr_alloc((size_t)nodes * PHASES * FIELDS * sizeof(double));
    long lo = n * me / nodes, hi = n * (me + 1) / nodes;
    barnes_init(&sys, lo, hi);
    tsr_barrier();

    double start = tsr_wtime();
    for (long step = 0; step < size.steps; step++) {
        phase_start();
        if (replicated) {
            tsr_replicate_begin();
            barnes_build_tree(&sys);
            tsr_replicate_end();
        } else {
            if (me == 0)
                barnes_build_tree(&sys);
            tsr_barrier();
        }
        phase_end(SEQ);
        phase_start();
        barnes_advance(&sys, lo, hi);
        tsr_barrier();
        phase_end(PAR);
    }
    double seconds = tsr_wtime() - start;

    memcpy(report + (size_t)me * PHASES * FIELDS, totals, sizeof totals);
    tsr_barrier();
    if (me == 0) {
        double sum[PHASES][FIELDS] = {{0}};
        for (int k = 0; k < nodes; k++)
            for (int p = 0; p < PHASES; p++)
                for (int f = 0; f < FIELDS; f++)
                    sum[p][f] += report[((size_t)k * PHASES + p) * FIELDS + f];
        double check = 0;
        for (long i = 0; i < 3 * n; i++)
            check += sys.pos[i] * (double)(1 + i % 5);
        const char *mc = getenv("TSR_MULTICAST");
        printf("RESULT mode=%s multicast=%s nodes=%d bodies=%ld steps=%ld seconds=%.4f "
               "seq_s=%.4f par_s=%.4f seq_requests=%.0f seq_bytes=%.0f seq_wait_us=%.0f "
               "par_requests=%.0f par_bytes=%.0f par_wait_us=%.0f checksum=%.12e\n",
               argv[1], replicated ? (mc ? mc : "tree") : "-", nodes, n, size.steps, seconds,
               totals[SEQ][SECONDS], totals[PAR][SECONDS], sum[SEQ][REQUESTS], sum[SEQ][BYTES],
               sum[SEQ][WAIT_US], sum[PAR][REQUESTS], sum[PAR][BYTES], sum[PAR][WAIT_US], check);
    }
    tsr_finalize();
    return 0;
}
