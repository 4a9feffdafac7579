/*
 * tsr_micro - Tessera's micro-benchmarks side by side with the transport
 * they rest on, in one run.
 *
 * Started by itself it is the driver: it runs itself under tsrun at 2 nodes
 * for each progress policy (hybrid, block, spin) and at 4 nodes for the
 * barrier, collects the figures each run prints ("M <name> <microseconds>")
 * and prints one table with the ratio of each Tessera figure to the raw
 * transport figure it rests on.
 *
 *   raw TCP round trip, 64 B and 4 KiB, blocking and busy-polling sockets
 *   raw UDP round trip, 64 B and 4 KiB, busy-polling connected datagram sockets
 *   raw shared-memory round trip, 64 B and 4 KiB: two processes copying
 *   into a shared buffer and busy-polling a sequence number; then the same
 *   through a byte ring (the shm backend's layout) and a slot ring, each
 *   message with Tessera's header, and at 64 B through the shm backend's
 *   fast box (rings.c): the floor each design puts under an AM round trip
 *   Tessera active-message round trip (to the peer's comm thread and back;
 *   under shm the waiting thread takes the reply off the ring itself)
 *   (round trips, raw or not: the fastest of 10 bursts of 200, since the
 *   machine is shared and a burst that other work interrupted measures it;
 *   the AM round trip after 40 untimed bursts, measure.c's warm_up; the
 *   64 B raw shared-memory, fast box and AM round trips, which the
 *   transport table divides by one another, the fastest of 40 bursts each,
 *   taken in turn so that the three see the same placement of the two
 *   cores, paired.c)
 *   remote page fetch (fault + request + 4 KiB reply + mprotect), one page
 *   at a time and sequentially (readahead batches the fetches), and after a
 *   range check of the pages (runs of TSR_FETCH_AHEAD, no faults); a node
 *   run turns the prefetch at barriers off (TSR_PREFETCH=off unless set),
 *   since it would fetch the pages each round rereads before they are timed
 *   remote lock acquire, contended lock hand-off (at 4 nodes also with the
 *   lock managed by a third node); barrier at 2 and 4 nodes
 *   diff encode / decode of one 4 KiB page (one word, all, every other)
 *
 * then, in a second table with one column per transport backend
 * (TSR_TRANSPORT=tcp, shm, udp) under the hybrid and spin policies, the AM
 * round trip beside the raw figure of its own medium (raw TCP, raw shared
 * memory or raw UDP, busy-polled) and what rests on the AM: page fetch (asked
 * of the home, TSR_FETCH=message, on every backend), lock hand-off and
 * barrier; Open MPI's own round trip between two ranks
 * (bench/mpi/pingpong.c, when mpirun is there) beside the raw shared-memory
 * figure, for reference; then, for shm, the sleeping comm threads woken per
 * 1,000 of each (a count, unlike the times, that the machine's load leaves
 * alone),
 *
 * and, in a third table with one column per access detection backend
 * (TSR_DETECT=segv, uffd; 2-node runs):
 *
 *   a read fault and a write fault with a callback that only grants the
 *   access: what detection itself costs, without any protocol work
 *   the first write to an exactly tracked home page after a release, and
 *   the release-time scan for written pages, per 1,000 home pages (uffd)
 *   a range check (tsr_range_read, docs/CAS.md) over 1 and 64 pages that
 *   are consistent already: the cost of a check that does nothing
 *
 * and, in a fourth table with one column per lock hand-off
 * (TSR_LOCK_HANDOFF=direct, manager: TreadMarks' direct hand-off and its
 * ablation), a contended lock at 2 nodes (the manager takes part) and at 4
 * (a third node manages it, two others loop on it): microseconds and the
 * messages the whole job sent per acquire,
 *
 * and, in a fifth table with one column per TSR_FETCH over shm (message:
 * the home's comm thread answers; direct: the faulting node copies from
 * the home's memory, memory/peers.h), the page fetch rows above and the
 * comm threads woken per 1,000 pages,
 *
 * and, in a sixth table with one column per UCX_TLS and TSR_FETCH under
 * TSR_TRANSPORT=ucx (message: request and reply as active messages;
 * direct: the page read one-sided from the home, ucp_get_nbx,
 * coherence/hlrc/hlrc_onesided.c), the same rows, the wake-ups apart;
 * each fetch row is followed by the pages the home served by message per
 * 1,000 fetched. Its columns are empty where UCX is not built in.
 * `tsr_micro ucx` prints that table alone.
 *
 * This file is the driver and the node runs' entry; the rows' measurements
 * are in raw.c, rings.c, ops.c, detect.c and handoff.c, their common parts
 * in measure.c (micro.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "micro.h"
#include "tessera.h"

static int node_run(int argc, char **argv)
{
    setenv("TSR_PREFETCH", "off", 0);
    tsr_init(&argc, &argv);
    wakeups_init();
    if (argc > 2 && !strcmp(argv[2], "detect")) {
        bench_faults();
        bench_tracking();
        bench_noop_checks();
        bench_trace_hook();
    } else if (argc > 2 && !strcmp(argv[2], "fetch")) {
        bench_page_fetch(101, 0, "page_fetch");
        bench_page_fetch(1, 0, "page_fetch_seq");
        bench_page_fetch(101, 1, "page_fetch_checked");
    } else if (argc > 2 && !strcmp(argv[2], "handoff")) {
        bench_handoff(tsr_nodes() == 2 ? "handoff_2" : "handoff_3rd", 2 % tsr_nodes());
    } else if (tsr_nodes() == 2) {
        bench_raw_tcp();
        bench_raw_udp();
        bench_raw_shm();
        bench_raw_rings();
        bench_shm_paired();
        bench_am_echo();
        bench_page_fetch(101, 0, "page_fetch");
        bench_page_fetch(1, 0, "page_fetch_seq");
        bench_page_fetch(101, 1, "page_fetch_checked");
        bench_lock();
        if (tsr_node() == 0) {
            bench_diff("one_word", 1, 1);
            bench_diff("every_other_word", 2, 512);
            bench_diff("all_words", 1, 1024);
        }
    }
    if (argc <= 2 && tsr_nodes() == 4)
        bench_lock_third();
    if (argc <= 2)
        bench_barrier();
    tsr_finalize();
    return 0;
}

/* ---- Driver ---------------------------------------------------------------- */

#define MAX_FIGURES 64
typedef struct run {
    const char *label;
    const char *raw; /* the raw medium under its AM: "tcp", "shm" or "udp" */
    char names[MAX_FIGURES][40];
    double us[MAX_FIGURES];
    int n;
} run;

/* Runs cmd and gathers the figures it prints. A failed run stops the
 * driver unless it is optional (a backend or a program this machine may
 * lack): its figures are then missing. */
static void gather(run *r, const char *cmd, int optional)
{
    FILE *p = popen(cmd, "r");
    char line[256], name[40];
    double v;
    while (p && fgets(line, sizeof line, p))
        if (sscanf(line, "M %39s %lf", name, &v) == 2 && r->n < MAX_FIGURES) {
            snprintf(r->names[r->n], sizeof r->names[0], "%s", name);
            r->us[r->n++] = v;
        }
    if (!p || pclose(p) != 0) {
        fprintf(stderr, "tsr_micro: '%s' failed%s\n", cmd, optional ? "; its column is empty" : "");
        if (!optional)
            exit(1);
        r->n = 0;
    }
}

/* Runs `self --node-run what` under tsrun with the environment `env`. */
static void collect(run *r, const char *self, const char *tsrun, int nodes, const char *env,
                    const char *what, int optional)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s %s -n %d %s --node-run %s%s", env, tsrun, nodes, self, what,
             optional ? " 2>/dev/null" : "");
    gather(r, cmd, optional);
}

/* MPI's own round trip (bench/mpi/pingpong.c, built beside this program
 * by `make bench-micro`), once, given to every transport column: a
 * reference for what a general message layer costs over the raw figure.
 * Optional: without Open MPI's mpirun its rows are empty. */
static void collect_mpi(run *cols, int ncols, const char *self)
{
    char dir[1024], cmd[1200];
    snprintf(dir, sizeof dir, "%s", self);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = 0;
    snprintf(cmd, sizeof cmd,
             "mpirun --allow-run-as-root --oversubscribe -np 2 %s/mpi_pingpong 2>/dev/null", dir);
    run mpi = {0};
    gather(&mpi, cmd, 1);
    for (int c = 0; c < ncols; c++)
        for (int i = 0; i < mpi.n && cols[c].n < MAX_FIGURES; i++) {
            memcpy(cols[c].names[cols[c].n], mpi.names[i], sizeof mpi.names[i]);
            cols[c].us[cols[c].n++] = mpi.us[i];
        }
}

static double get(const run *r, const char *name)
{
    for (int i = 0; i < r->n; i++)
        if (!strcmp(r->names[i], name))
            return r->us[i];
    return -1;
}

/* base "tcp:SIZE" means the raw TCP figure waited for the same way as the
 * column's policy: blocking for `block`, busy-polling for the others;
 * "raw:SIZE" the busy-polled figure of the column's own medium (TCP,
 * shared memory or UDP); "box:SIZE" the shm fast box's, in a column over
 * shm only (the row is empty elsewhere). */
static void row(const char *label, const char *name, const char *base, const run *runs,
                int nruns)
{
    printf("| %-40s |", label);
    for (int i = 0; i < nruns; i++) {
        char raw[40];
        const char *size = base ? strchr(base, ':') : NULL;
        int shm = runs[i].raw && !strcmp(runs[i].raw, "shm");
        if (size && !strncmp(base, "tcp:", 4))
            snprintf(raw, sizeof raw, "tcp_%s_%s", strcmp(runs[i].label, "block") ? "busy" : "block",
                     size + 1);
        else if (size && !strncmp(base, "raw:", 4))
            snprintf(raw, sizeof raw, "%s_busy_%s", runs[i].raw, size + 1);
        else if (size)
            snprintf(raw, sizeof raw, "shm_box_%s", size + 1);
        double v = size && !strncmp(base, "box:", 4) && !shm ? -1 : get(&runs[i], name);
        double b = base ? get(&runs[i], size ? raw : base) : -1;
        if (v < 0)
            printf(" %19s |", "-");
        else if (b > 0)
            printf(" %8.2f (%5.1fx) |", v, v / b);
        else
            printf(" %8.2f %10s |", v, "");
    }
    printf("\n");
}

static void header(const char *title, const run *runs, int nruns)
{
    printf("| %-40s |", title);
    for (int i = 0; i < nruns; i++)
        printf(" %19s |", runs[i].label);
    printf("\n|------------------------------------------|");
    for (int i = 0; i < nruns; i++)
        printf("---------------------|");
    printf("\n");
}

/* A row of a table: its label, its figure and what the figure is compared
 * with (row()). */
typedef struct row_spec {
    const char *label, *name, *base;
} row_spec;

static const row_spec policy_rows[] = {
    {"raw TCP round trip 64 B, blocking", "tcp_block_64", NULL},
    {"raw TCP round trip 64 B, busy-poll", "tcp_busy_64", NULL},
    {"raw TCP round trip 4 KiB, blocking", "tcp_block_4096", NULL},
    {"raw TCP round trip 4 KiB, busy-poll", "tcp_busy_4096", NULL},
    {"AM round trip 64 B (vs raw TCP)", "am_echo_64", "tcp:64"},
    {"AM round trip 4 KiB (vs raw TCP)", "am_echo_4096", "tcp:4096"},
    {"page fetch, one page (vs AM 4 KiB)", "page_fetch", "am_echo_4096"},
    {"page fetch, sequential, per page", "page_fetch_seq", "am_echo_4096"},
    {"page fetch after a range check, per page", "page_fetch_checked", "am_echo_4096"},
    {"remote lock acquire+release (vs AM 64 B)", "lock_remote", "am_echo_64"},
    {"contended lock hand-off (vs AM 64 B)", "lock_handoff", "am_echo_64"},
    {"hand-off, third-node manager, 4 nodes", "lock_handoff_3rd", "am_echo_64"},
    {"barrier, 2 nodes (vs AM 64 B)", "barrier_2", "am_echo_64"},
    {"barrier, 4 nodes (vs AM 64 B)", "barrier_4", "am_echo_64"},
    {"diff encode, one word changed", "diff_encode_one_word", NULL},
    {"diff encode, every other word", "diff_encode_every_other_word", NULL},
    {"diff encode, all words", "diff_encode_all_words", NULL},
    {"diff decode, one word changed", "diff_decode_one_word", NULL},
    {"diff decode, every other word", "diff_decode_every_other_word", NULL},
    {"diff decode, all words", "diff_decode_all_words", NULL},
};

static const row_spec transport_rows[] = {
    {"raw TCP round trip 64 B, busy-poll", "tcp_busy_64", NULL},
    {"raw UDP round trip 64 B, busy-poll", "udp_busy_64", NULL},
    {"raw UDP round trip 4 KiB, busy-poll", "udp_busy_4096", NULL},
    {"raw shm round trip 64 B, busy-poll", "shm_busy_64", NULL},
    {"raw shm round trip 4 KiB, busy-poll", "shm_busy_4096", NULL},
    {"shm byte ring 64 B (vs raw shm)", "shm_ring_64", "shm_busy_64"},
    {"shm byte ring 4 KiB (vs raw shm)", "shm_ring_4096", "shm_busy_4096"},
    {"shm slot ring 64 B (vs raw shm)", "shm_slots_64", "shm_busy_64"},
    {"shm slot ring 4 KiB (vs raw shm)", "shm_slots_4096", "shm_busy_4096"},
    {"shm fast box 64 B (vs raw shm)", "shm_box_64", "shm_busy_64"},
    {"AM round trip 64 B (vs raw same medium)", "am_echo_64", "raw:64"},
    {"AM round trip 4 KiB (vs raw same medium)", "am_echo_4096", "raw:4096"},
    {"AM round trip 64 B (vs shm fast box)", "am_echo_64", "box:64"},
    {"Open MPI round trip 64 B (vs raw shm)", "mpi_64", "shm_busy_64"},
    {"Open MPI round trip 4 KiB (vs raw shm)", "mpi_4096", "shm_busy_4096"},
    {"page fetch, one page (vs AM 4 KiB)", "page_fetch", "am_echo_4096"},
    {"remote lock acquire+release (vs AM 64 B)", "lock_remote", "am_echo_64"},
    {"contended lock hand-off (vs AM 64 B)", "lock_handoff", "am_echo_64"},
    {"barrier, 2 nodes (vs AM 64 B)", "barrier_2", "am_echo_64"},
    {"barrier, 4 nodes (vs AM 64 B)", "barrier_4", "am_echo_64"},
    {"wake-ups per 1,000 AM round trips 64 B", "wake_am_echo_64", NULL},
    {"wake-ups per 1,000 page fetches", "wake_page_fetch", NULL},
    {"wake-ups per 1,000 lock hand-offs", "wake_lock_handoff", NULL},
    {"wake-ups per 1,000 barriers, 2 nodes", "wake_barrier_2", NULL},
    {"wake-ups per 1,000 barriers, 4 nodes", "wake_barrier_4", NULL},
};

static const row_spec detect_rows[] = {
    {"read fault, detection only", "detect_read_fault", NULL},
    {"write fault, detection only", "detect_write_fault", NULL},
    {"first home write, exact tracking", "exact_first_write", NULL},
    {"release scan, per 1,000 home pages", "release_scan_1000", NULL},
    {"range check finding 1 page consistent", "check_noop_1", NULL},
    {"range check finding 64 pages consistent", "check_noop_64", NULL},
    {"timeline span hook, tracing off", "trace_hook", NULL},
};

static const row_spec handoff_rows[] = {
    {"contended, 2 nodes, us per acquire", "handoff_2", NULL},
    {"  messages per acquire, whole job", "handoff_2_msgs", NULL},
    {"  received by the manager (node 0)", "handoff_2_mgr", NULL},
    {"third-node manager, 4 nodes, us", "handoff_3rd", NULL},
    {"  messages per acquire, whole job", "handoff_3rd_msgs", NULL},
    {"  received by the manager (node 2)", "handoff_3rd_mgr", NULL},
};

static const row_spec fetch_rows[] = {
    {"page fetch, one page", "page_fetch", NULL},
    {"page fetch, sequential, per page", "page_fetch_seq", NULL},
    {"page fetch after a range check, per page", "page_fetch_checked", NULL},
    {"wake-ups per 1,000 pages, one at a time", "wake_page_fetch", NULL},
    {"wake-ups per 1,000 pages, sequential", "wake_page_fetch_seq", NULL},
};

static const row_spec ucx_fetch_rows[] = {
    {"page fetch, one page", "page_fetch", NULL},
    {"  served by the home, per 1,000 pages", "served_page_fetch", NULL},
    {"page fetch, sequential, per page", "page_fetch_seq", NULL},
    {"  served by the home, per 1,000 pages", "served_page_fetch_seq", NULL},
    {"page fetch after a range check, per page", "page_fetch_checked", NULL},
    {"  served by the home, per 1,000 pages", "served_page_fetch_checked", NULL},
};
/* UCX's transports here: TCP, shared memory as the test matrix runs it,
 * and shared memory with cross-memory attach, whose gets read the home's
 * memory with no help from its process (process_vm_readv). */
static const char *const ucx_tls[] = {"tcp", "posix,self", "posix,cma,self"};
#define UCX_COLUMNS (2 * (int)(sizeof ucx_tls / sizeof *ucx_tls))

static void table(const char *title, const run *runs, int nruns, const row_spec *rows,
                  size_t nrows)
{
    header(title, runs, nruns);
    for (size_t i = 0; i < nrows; i++)
        row(rows[i].label, rows[i].name, rows[i].base, runs, nruns);
}

/* The runs of each table: the columns. */
typedef struct columns {
    run policy[3];      /* TSR_PROGRESS over tcp */
    run shm[2], udp[2]; /* hybrid and spin over shm and over udp */
    run transport[6];   /* tcp, shm and udp under hybrid, then under spin */
    run detect[2];      /* TSR_DETECT */
    run handoff[2];     /* TSR_LOCK_HANDOFF */
    run fetch[2];       /* TSR_FETCH over shm */
    run ucx[UCX_COLUMNS]; /* TSR_FETCH under each of ucx_tls */
    char ucx_labels[UCX_COLUMNS][24];
} columns;

/* The sixth table's columns: "msg", request and reply; "get", one-sided. */
static void collect_ucx(columns *all, const char *self, const char *tsrun)
{
    static const char *fetches[] = {"message", "direct"};
    for (int i = 0; i < UCX_COLUMNS; i++) {
        char env[96];
        const char *tls = ucx_tls[i / 2];
        snprintf(all->ucx_labels[i], sizeof all->ucx_labels[i], "%s %s", tls,
                 i % 2 ? "get" : "msg");
        all->ucx[i].label = all->ucx_labels[i];
        snprintf(env, sizeof env, "TSR_TRANSPORT=ucx UCX_TLS=%s TSR_FETCH=%s", tls, fetches[i % 2]);
        collect(&all->ucx[i], self, tsrun, 2, env, "fetch", 1);
    }
}

static void print_ucx(const columns *all)
{
    table("page fetch over ucx (UCX_TLS, msg/get)", all->ucx, UCX_COLUMNS, ucx_fetch_rows,
          sizeof ucx_fetch_rows / sizeof *ucx_fetch_rows);
}

static void collect_all(columns *all, const char *self, const char *tsrun)
{
    static const char *policies[] = {"hybrid", "block", "spin"};
    static const char *backends[] = {"segv", "uffd"};
    static const char *handoffs[] = {"direct", "manager"};
    char env[64];
    for (int i = 0; i < 3; i++) {
        all->policy[i].label = policies[i];
        all->policy[i].raw = "tcp";
        snprintf(env, sizeof env, "TSR_TRANSPORT=tcp TSR_PROGRESS=%s", policies[i]);
        collect(&all->policy[i], self, tsrun, 2, env, "", 0);
        collect(&all->policy[i], self, tsrun, 4, env, "", 0);
    }
    /* The shm and udp backends under hybrid and spin; tcp's come from the
     * runs above. Pages are asked for over shm too, so that the page fetch
     * row rests on the AM beside it (the fifth table has direct copies). */
    static const char *labels[2][2] = {{"shm hybrid", "shm spin"}, {"udp hybrid", "udp spin"}};
    for (int b = 0; b < 2; b++)
        for (int i = 0; i < 2; i++) {
            run *r = b ? &all->udp[i] : &all->shm[i];
            r->label = labels[b][i];
            r->raw = b ? "udp" : "shm";
            snprintf(env, sizeof env, "TSR_TRANSPORT=%s TSR_PROGRESS=%s TSR_FETCH=message",
                     r->raw, i ? "spin" : "hybrid");
            collect(r, self, tsrun, 2, env, "", 0);
            collect(r, self, tsrun, 4, env, "", 0);
        }
    run *t = all->transport;
    t[0] = all->policy[0], t[1] = all->shm[0], t[2] = all->udp[0];
    t[3] = all->policy[2], t[4] = all->shm[1], t[5] = all->udp[1];
    t[0].label = "tcp hybrid";
    t[3].label = "tcp spin";
    collect_mpi(t, 6, self);
    for (int i = 0; i < 2; i++) {
        all->detect[i].label = backends[i];
        snprintf(env, sizeof env, "TSR_DETECT=%s", backends[i]);
        collect(&all->detect[i], self, tsrun, 2, env, "detect", i > 0);
    }
    for (int i = 0; i < 2; i++) {
        all->handoff[i].label = handoffs[i];
        snprintf(env, sizeof env, "TSR_LOCK_HANDOFF=%s", handoffs[i]);
        collect(&all->handoff[i], self, tsrun, 2, env, "handoff", 0);
        collect(&all->handoff[i], self, tsrun, 4, env, "handoff", 0);
    }
    static const char *fetches[] = {"message", "direct"};
    for (int i = 0; i < 2; i++) {
        all->fetch[i].label = fetches[i];
        snprintf(env, sizeof env, "TSR_TRANSPORT=shm TSR_FETCH=%s", fetches[i]);
        collect(&all->fetch[i], self, tsrun, 2, env, "fetch", 0);
    }
    collect_ucx(all, self, tsrun);
}

static void print_tables(const columns *all)
{
    printf("Tessera micro-benchmarks, microseconds per operation (ratio to the figure it rests on)\n");
    printf("%ld cores; 2-node runs except barrier_4 and the third-node hand-off; columns: "
           "TSR_PROGRESS policy, over TSR_TRANSPORT=tcp\n\n",
           sysconf(_SC_NPROCESSORS_ONLN));
    table("operation", all->policy, 3, policy_rows, sizeof policy_rows / sizeof *policy_rows);
    printf("\n");
    table("transport (columns: backend, policy)", all->transport, 6, transport_rows,
          sizeof transport_rows / sizeof *transport_rows);
    printf("\n");
    table("access detection (columns: TSR_DETECT)", all->detect, 2, detect_rows,
          sizeof detect_rows / sizeof *detect_rows);
    printf("\n");
    table("hand-off (columns: TSR_LOCK_HANDOFF)", all->handoff, 2, handoff_rows,
          sizeof handoff_rows / sizeof *handoff_rows);
    printf("\n");
    table("page fetch over shm (columns: TSR_FETCH)", all->fetch, 2, fetch_rows,
          sizeof fetch_rows / sizeof *fetch_rows);
    printf("\n");
    print_ucx(all);
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "--node-run"))
        return node_run(argc, argv);
    char self[1024], tsrun[1100];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return 1;
    self[n] = 0;
    snprintf(tsrun, sizeof tsrun, "%s", self);
    char *slash = strrchr(tsrun, '/');
    snprintf(slash, sizeof tsrun - (size_t)(slash - tsrun), "/../bin/tsrun");
    static columns all; /* zeroed: no figures yet */
    if (argc > 1 && !strcmp(argv[1], "ucx")) { /* the sixth table alone */
        collect_ucx(&all, self, tsrun);
        print_ucx(&all);
        return 0;
    }
    collect_all(&all, self, tsrun);
    print_tables(&all);
    return 0;
}
