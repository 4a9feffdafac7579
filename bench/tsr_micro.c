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
 *   into a shared buffer and busy-polling a sequence number
 *   Tessera active-message round trip (comm thread to comm thread)
 *   remote page fetch (fault + request + 4 KiB reply + mprotect), one page
 *   at a time and sequentially (readahead batches the fetches)
 *   remote lock acquire, contended lock hand-off (at 4 nodes also with the
 *   lock managed by a third node); barrier at 2 and 4 nodes
 *   diff encode / decode of one 4 KiB page (one word, all, every other)
 *
 * then, in a second table with one column per transport backend
 * (TSR_TRANSPORT=tcp, shm, udp) under the hybrid and spin policies, the AM
 * round trip beside the raw figure of its own medium (raw TCP, raw shared
 * memory or raw UDP, busy-polled) and what rests on the AM: page fetch, lock hand-off
 * and barrier,
 *
 * and, in a third table with one column per access detection backend
 * (TSR_DETECT=segv, uffd; 2-node runs):
 *
 *   a read fault and a write fault with a callback that only grants the
 *   access: what detection itself costs, without any protocol work
 *   the first write to an exactly tracked home page after a release, and
 *   the release-time scan for written pages, per 1,000 home pages (uffd)
 *
 * and, in a fourth table with one column per lock hand-off
 * (TSR_LOCK_HANDOFF=direct, manager: TreadMarks' direct hand-off and its
 * ablation), a contended lock at 2 nodes (the manager takes part) and at 4
 * (a third node manages it, two others loop on it): microseconds and the
 * messages the whole job sent per acquire.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sched.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "coherence/coherence.h"
#include "coherence/diff.h"
#include "coherence/hlrc.h"
#include "detect/detect.h"
#include "memory/region.h"
#include "tessera.h"
#include "transport/transport.h"
#include "util/cpu.h"

#define ROUND_TRIPS 2000

static void report(const char *name, double seconds, long count)
{
    if (tsr_node() == 0)
        printf("M %s %.3f\n", name, seconds / (double)count * 1e6);
}

/* ---- Raw TCP between nodes 0 and 1, outside Tessera ---------------------- */

static void pingpong(int fd, int initiator, size_t len, int busy, long rounds)
{
    char buf[4096];
    memset(buf, 1, sizeof buf);
    for (long i = 0; i < rounds; i++) {
        if (initiator && send(fd, buf, len, 0) != (ssize_t)len)
            abort();
        for (size_t got = 0; got < len;) {
            ssize_t n = recv(fd, buf + got, len - got, busy ? MSG_DONTWAIT : 0);
            if (n > 0)
                got += (size_t)n;
            else if (n == 0)
                abort();
        }
        if (!initiator && send(fd, buf, len, 0) != (ssize_t)len)
            abort();
    }
}

static int raw_connect(int *port_slot)
{
    int one = 1, fd;
    if (tsr_node() == 1) {
        struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
        socklen_t len = sizeof sa;
        int lfd = socket(AF_INET, SOCK_STREAM, 0);
        bind(lfd, (struct sockaddr *)&sa, sizeof sa);
        listen(lfd, 1);
        getsockname(lfd, (struct sockaddr *)&sa, &len);
        *port_slot = ntohs(sa.sin_port);
        tsr_barrier();
        fd = accept(lfd, NULL, NULL);
        close(lfd);
    } else {
        tsr_barrier();
        struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)*port_slot),
                                 .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
        fd = socket(AF_INET, SOCK_STREAM, 0);
        if (connect(fd, (struct sockaddr *)&sa, sizeof sa))
            abort();
    }
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
}

static void bench_raw_tcp(void)
{
    int *port = tsr_alloc(sizeof(int));
    int fd = raw_connect(port);
    static const size_t sizes[] = {64, 4096};
    for (int busy = 0; busy < 2; busy++)
        for (int s = 0; s < 2; s++) {
            tsr_barrier();
            double t0 = now_s();
            pingpong(fd, tsr_node() == 0, sizes[s], busy, ROUND_TRIPS);
            char name[64];
            snprintf(name, sizeof name, "tcp_%s_%zu", busy ? "busy" : "block", sizes[s]);
            report(name, now_s() - t0, ROUND_TRIPS);
        }
    close(fd);
    tsr_barrier();
}

/* ---- Raw UDP between nodes 0 and 1, outside Tessera ---------------------- */

/* Two loopback datagram sockets connected to each other: each datagram is
 * one whole send, so pingpong() serves them as it serves TCP. */
static void bench_raw_udp(void)
{
    int *ports = tsr_alloc(2 * sizeof(int)), me = tsr_node();
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof sa;
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof sa) ||
        getsockname(fd, (struct sockaddr *)&sa, &len))
        abort();
    ports[me] = ntohs(sa.sin_port);
    tsr_barrier();
    sa.sin_port = htons((uint16_t)ports[!me]);
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa))
        abort();
    static const size_t sizes[] = {64, 4096};
    for (int s = 0; s < 2; s++) {
        tsr_barrier();
        double t0 = now_s();
        pingpong(fd, me == 0, sizes[s], 1, ROUND_TRIPS);
        char name[64];
        snprintf(name, sizeof name, "udp_busy_%zu", sizes[s]);
        report(name, now_s() - t0, ROUND_TRIPS);
    }
    close(fd);
    tsr_barrier();
}

/* ---- Raw shared memory between nodes 0 and 1, outside Tessera ------------- */

/* One direction of the ping-pong: the bytes, then the round they belong to. */
typedef struct shm_box {
    _Atomic long seq;
    char pad[56];
    char data[4096];
} shm_box;

/* Node 1 makes a memfd; node 0 opens it through /proc (same user). */
static shm_box *raw_shm_map(void)
{
    int *slot = tsr_alloc(2 * sizeof(int)), fd = -1;
    if (tsr_node() == 1) {
        fd = memfd_create("tsr_micro", 0);
        if (fd < 0 || ftruncate(fd, 2 * sizeof(shm_box)))
            abort();
        slot[0] = getpid();
        slot[1] = fd;
    }
    tsr_barrier();
    if (tsr_node() == 0) {
        char path[64];
        snprintf(path, sizeof path, "/proc/%d/fd/%d", slot[0], slot[1]);
        fd = open(path, O_RDWR);
    }
    shm_box *box = mmap(NULL, 2 * sizeof(shm_box), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (fd < 0 || box == MAP_FAILED)
        abort();
    tsr_barrier();
    close(fd);
    tsr_free(slot);
    return box;
}

static void shm_pingpong(shm_box *box, int initiator, size_t len, long rounds)
{
    char buf[4096];
    shm_box *mine = &box[initiator], *theirs = &box[!initiator];
    memset(buf, 1, sizeof buf);
    for (long i = 1; i <= rounds; i++) {
        if (initiator) {
            memcpy(mine->data, buf, len);
            atomic_store_explicit(&mine->seq, i, memory_order_release);
        }
        for (unsigned k = 1; atomic_load_explicit(&theirs->seq, memory_order_acquire) != i; k++)
            if (k % 64 == 0)
                sched_yield();
            else
                cpu_relax();
        memcpy(buf, theirs->data, len);
        if (!initiator) {
            memcpy(mine->data, buf, len);
            atomic_store_explicit(&mine->seq, i, memory_order_release);
        }
    }
}

static void bench_raw_shm(void)
{
    shm_box *box = raw_shm_map();
    static const size_t sizes[] = {64, 4096};
    for (int s = 0; s < 2; s++) {
        atomic_store(&box[0].seq, 0);
        atomic_store(&box[1].seq, 0);
        tsr_barrier();
        double t0 = now_s();
        shm_pingpong(box, tsr_node() == 0, sizes[s], ROUND_TRIPS);
        char name[64];
        snprintf(name, sizeof name, "shm_busy_%zu", sizes[s]);
        report(name, now_s() - t0, ROUND_TRIPS);
        tsr_barrier();
    }
    munmap(box, 2 * sizeof(shm_box));
}

/* ---- Tessera --------------------------------------------------------------- */

static void bench_am_echo(void)
{
    static char out[4096], back[4096];
    static const size_t sizes[] = {64, 4096};
    for (int s = 0; s < 2; s++) {
        tsr_barrier();
        if (tsr_node() == 0) {
            double t0 = now_s();
            for (int i = 0; i < ROUND_TRIPS; i++)
                am_echo(1, out, sizes[s], back);
            char name[32];
            snprintf(name, sizeof name, "am_echo_%zu", sizes[s]);
            report(name, now_s() - t0, ROUND_TRIPS);
        }
    }
    tsr_barrier();
}

/* Node 1 homes and rewrites the pages, so node 0's copies go stale at every
 * barrier; node 0 then times one read per page, each a fault and a fetch.
 * Visited in a scattered order (steps of 101 pages, modulo 256), every fault
 * is a single-page fetch, as readahead only follows runs and short strides;
 * visited in order, readahead batches them. */
static void bench_page_fetch(int step, const char *name)
{
    enum { PAGES = 256, ROUNDS = 8 };
    tsr_attr attr = TSR_ATTR_DEFAULT;
    attr.home = TSR_HOME_NODE;
    attr.home_node = 1;
    volatile char *a = tsr_alloc_attr(PAGES * 4096, &attr);
    double total = 0;
    for (int r = 0; r < ROUNDS; r++) {
        if (tsr_node() == 1)
            for (int p = 0; p < PAGES; p++)
                a[p * 4096] = (char)(r + 1);
        tsr_barrier();
        if (tsr_node() == 0) {
            double t0 = now_s();
            for (int i = 0; i < PAGES; i++)
                (void)a[(i * step) % PAGES * 4096];
            total += now_s() - t0;
        }
        tsr_barrier();
    }
    report(name, total, PAGES * ROUNDS);
    tsr_free((void *)a);
}

/* Uncontended: node 1 alone takes and returns a lock that node 0 manages
 * (one request/grant round trip plus the release message). Contended: both
 * nodes loop on the lock, and the manager's FIFO queue makes it alternate,
 * so each acquire waits for a hand-off from the other node. */
static void bench_lock(void)
{
    enum { ACQUIRES = 2000 };
    tsr_barrier();
    double t0 = now_s();
    if (tsr_node() == 1)
        for (int i = 0; i < ACQUIRES; i++) {
            tsr_lock(0);
            tsr_unlock(0);
        }
    double alone = now_s() - t0;
    tsr_barrier();
    t0 = now_s();
    for (int i = 0; i < ACQUIRES; i++) {
        tsr_lock(0);
        tsr_unlock(0);
    }
    tsr_barrier();
    double both = now_s() - t0;
    if (tsr_node() == 1)
        printf("M lock_remote %.3f\n", alone / ACQUIRES * 1e6);
    report("lock_handoff", both, 2 * ACQUIRES);
}

/* Contended, with a manager that takes no part (4-node run): nodes 0 and 1
 * loop on a lock that node 2 manages, so a hand-off goes through a third
 * node unless the releaser grants the next holder directly. */
static void bench_lock_third(void)
{
    enum { ACQUIRES = 2000, LOCK = 2 };
    tsr_barrier();
    double t0 = now_s();
    if (tsr_node() < 2)
        for (int i = 0; i < ACQUIRES; i++) {
            tsr_lock(LOCK);
            tsr_unlock(LOCK);
        }
    tsr_barrier();
    report("lock_handoff_3rd", now_s() - t0, 2 * ACQUIRES);
}

/* Contended lock `lock`, taken ACQUIRES times by each of nodes 0 and 1:
 * the time per acquire, the messages every node sent per acquire, and the
 * messages the lock's manager received per acquire. The loop is measured
 * from barrier to barrier (the comm threads' forwards and grants are sent
 * by then), less what one barrier costs, measured first. */
static void bench_handoff(const char *name, int lock)
{
    enum { ACQUIRES = 2000 };
    int me = tsr_node(), n = tsr_nodes();
    volatile uint64_t *sent = tsr_alloc((size_t)n * sizeof *sent), *got = tsr_alloc(sizeof *got);
    tsr_stats s0, s1, s2;
    tsr_barrier();
    tsr_stats_get(&s0);
    tsr_barrier();
    tsr_stats_get(&s1);
    double t0 = now_s();
    if (me < 2)
        for (int i = 0; i < ACQUIRES; i++) {
            tsr_lock(lock);
            tsr_unlock(lock);
        }
    tsr_barrier();
    double t = now_s() - t0;
    tsr_stats_get(&s2);
    sent[me] = s2.messages_sent - 2 * s1.messages_sent + s0.messages_sent;
    if (me == lock % n)
        *got = s2.messages_received - 2 * s1.messages_received + s0.messages_received;
    tsr_barrier();
    uint64_t total = 0;
    for (int i = 0; i < n; i++)
        total += sent[i];
    report(name, t, 2 * ACQUIRES);
    if (me == 0)
        printf("M %s_msgs %.3f\nM %s_mgr %.3f\n", name, (double)total / (2 * ACQUIRES), name,
               (double)*got / (2 * ACQUIRES));
    tsr_barrier();
    tsr_free((void *)got);
    tsr_free((void *)sent);
}

static void bench_barrier(void)
{
    enum { BARRIERS = 2000 };
    tsr_barrier();
    double t0 = now_s();
    for (int i = 0; i < BARRIERS; i++)
        tsr_barrier();
    char name[32];
    snprintf(name, sizeof name, "barrier_%d", tsr_nodes());
    report(name, now_s() - t0, BARRIERS);
}

/* ---- Diffs (local) ------------------------------------------------------- */

static void bench_diff(const char *name, int stride_words, int words_changed)
{
    enum { REPS = 20000 };
    static uint32_t twin[1024], cur[1024];
    static uint8_t diff[DIFF_MAX], page[4096];
    for (int i = 0; i < 1024; i++)
        twin[i] = cur[i] = (uint32_t)i;
    for (int i = 0, n = 0; i < 1024 && n < words_changed; i += stride_words, n++)
        cur[i] = ~cur[i];
    size_t len = 0;
    double t0 = now_s();
    for (int r = 0; r < REPS; r++)
        len = diff_encode((uint8_t *)twin, (uint8_t *)cur, diff);
    double enc = now_s() - t0;
    t0 = now_s();
    for (int r = 0; r < REPS; r++)
        diff_apply(page, diff, len);
    double dec = now_s() - t0;
    char key[64];
    snprintf(key, sizeof key, "diff_encode_%s", name);
    report(key, enc, REPS);
    snprintf(key, sizeof key, "diff_decode_%s", name);
    report(key, dec, REPS);
    if (tsr_node() == 0)
        printf("B %s %zu\n", name, len);
}

/* ---- Access detection ----------------------------------------------------- */

static int grant(void *addr, int is_write)
{
    detect_set_access(page_of(addr), 1, is_write ? ACCESS_WRITE : ACCESS_READ);
    return 0;
}

/* Node 0 times a read of pages with no access, then a write of the same
 * pages now readable, while the fault callback only grants the access. The
 * pages are homed at node 1, so that no write tracking applies to them. */
static void bench_faults(void)
{
    enum { PAGES = 256, ROUNDS = 8 };
    tsr_attr attr = TSR_ATTR_DEFAULT;
    attr.home = TSR_HOME_NODE;
    attr.home_node = 1;
    volatile char *a = tsr_alloc_attr(PAGES * 4096, &attr);
    uint32_t first = page_of((const void *)a);
    double rd = 0, wr = 0;
    if (tsr_node() == 0) {
        detect_on_fault(grant);
        for (int r = 0; r < ROUNDS; r++) {
            detect_set_access(first, PAGES, ACCESS_NONE);
            double t0 = now_s();
            for (int p = 0; p < PAGES; p++)
                (void)a[p * 4096];
            double t1 = now_s();
            for (int p = 0; p < PAGES; p++)
                a[p * 4096] = 0; /* the zero page stays what the protocol holds */
            wr += now_s() - t1;
            rd += t1 - t0;
        }
        detect_on_fault(coh_fault);
        detect_set_access(first, PAGES, ACCESS_READ); /* the protocol's READ */
    }
    report("detect_read_fault", rd, PAGES * ROUNDS);
    report("detect_write_fault", wr, PAGES * ROUNDS);
    tsr_free((void *)a);
}

static void ignore_page(uint32_t page) {}

/* Node 0's own home pages, where writes are tracked exactly (uffd): the
 * first write to each after a scan, and a scan that finds nothing written.
 * The scans here take what the next release would have announced; nobody
 * else reads these pages. */
static void bench_tracking(void)
{
    enum { PAGES = 4096, SCANS = 32 };
    tsr_attr attr = TSR_ATTR_DEFAULT;
    attr.home = TSR_HOME_NODE;
    volatile char *a = tsr_alloc_attr(PAGES * 4096, &attr);
    uint32_t first = page_of((const void *)a);
    if (tsr_node() == 0 && region.meta[first].state == HOME_EXACT) {
        for (int p = 0; p < PAGES; p++)
            a[p * 4096] = 1;
        detect_written(first, PAGES, ignore_page);
        double t0 = now_s();
        for (int p = 0; p < PAGES; p++)
            a[p * 4096] = 2;
        report("exact_first_write", now_s() - t0, PAGES);
        detect_written(first, PAGES, ignore_page);
        t0 = now_s();
        for (int s = 0; s < SCANS; s++)
            detect_written(first, PAGES, ignore_page);
        report("release_scan_1000", now_s() - t0, SCANS * PAGES / 1000);
    }
    tsr_free((void *)a);
}

static int node_run(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    if (argc > 2 && !strcmp(argv[2], "detect")) {
        bench_faults();
        bench_tracking();
    } else if (argc > 2 && !strcmp(argv[2], "handoff")) {
        bench_handoff(tsr_nodes() == 2 ? "handoff_2" : "handoff_3rd", 2 % tsr_nodes());
    } else if (tsr_nodes() == 2) {
        bench_raw_tcp();
        bench_raw_udp();
        bench_raw_shm();
        bench_am_echo();
        bench_page_fetch(101, "page_fetch");
        bench_page_fetch(1, "page_fetch_seq");
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

/* Runs `self --node-run what` under tsrun with the environment `env` and
 * gathers its figures. A failed run stops the driver unless it is optional
 * (a backend this machine may lack): its figures are then missing. */
static void collect(run *r, const char *self, const char *tsrun, int nodes, const char *env,
                    const char *what, int optional)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s %s -n %d %s --node-run %s%s", env, tsrun, nodes, self, what,
             optional ? " 2>/dev/null" : "");
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
 * shared memory or UDP). */
static void row(const char *label, const char *name, const char *base, run *runs, int nruns)
{
    printf("| %-40s |", label);
    for (int i = 0; i < nruns; i++) {
        char raw[40];
        if (base && !strncmp(base, "tcp:", 4))
            snprintf(raw, sizeof raw, "tcp_%s_%s", strcmp(runs[i].label, "block") ? "busy" : "block",
                     base + 4);
        else if (base && !strncmp(base, "raw:", 4))
            snprintf(raw, sizeof raw, "%s_busy_%s", runs[i].raw, base + 4);
        double v = get(&runs[i], name), b = base ? get(&runs[i], base[3] == ':' ? raw : base) : -1;
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

    static const char *policies[] = {"hybrid", "block", "spin"};
    static const char *backends[] = {"segv", "uffd"};
    static const char *handoffs[] = {"direct", "manager"};
    run runs[3], shm[2], udp[2], detect[2], handoff[2];
    char env[64];
    memset(runs, 0, sizeof runs);
    memset(shm, 0, sizeof shm);
    memset(udp, 0, sizeof udp);
    memset(detect, 0, sizeof detect);
    memset(handoff, 0, sizeof handoff);
    for (int i = 0; i < 3; i++) {
        runs[i].label = policies[i];
        runs[i].raw = "tcp";
        snprintf(env, sizeof env, "TSR_TRANSPORT=tcp TSR_PROGRESS=%s", policies[i]);
        collect(&runs[i], self, tsrun, 2, env, "", 0);
        collect(&runs[i], self, tsrun, 4, env, "", 0);
    }
    /* The shm and udp backends under hybrid and spin; tcp's come from the
     * runs above. */
    static const char *labels[2][2] = {{"shm hybrid", "shm spin"}, {"udp hybrid", "udp spin"}};
    for (int b = 0; b < 2; b++)
        for (int i = 0; i < 2; i++) {
            run *r = b ? &udp[i] : &shm[i];
            r->label = labels[b][i];
            r->raw = b ? "udp" : "shm";
            snprintf(env, sizeof env, "TSR_TRANSPORT=%s TSR_PROGRESS=%s", r->raw,
                     i ? "spin" : "hybrid");
            collect(r, self, tsrun, 2, env, "", 0);
            collect(r, self, tsrun, 4, env, "", 0);
        }
    run transports[6] = {runs[0], shm[0], udp[0], runs[2], shm[1], udp[1]};
    transports[0].label = "tcp hybrid";
    transports[3].label = "tcp spin";
    for (int i = 0; i < 2; i++) {
        detect[i].label = backends[i];
        snprintf(env, sizeof env, "TSR_DETECT=%s", backends[i]);
        collect(&detect[i], self, tsrun, 2, env, "detect", i > 0);
    }
    for (int i = 0; i < 2; i++) {
        handoff[i].label = handoffs[i];
        snprintf(env, sizeof env, "TSR_LOCK_HANDOFF=%s", handoffs[i]);
        collect(&handoff[i], self, tsrun, 2, env, "handoff", 0);
        collect(&handoff[i], self, tsrun, 4, env, "handoff", 0);
    }
    printf("Tessera micro-benchmarks, microseconds per operation (ratio to the figure it rests on)\n");
    printf("%ld cores; 2-node runs except barrier_4 and the third-node hand-off; columns: "
           "TSR_PROGRESS policy, over TSR_TRANSPORT=tcp\n\n",
           sysconf(_SC_NPROCESSORS_ONLN));
    header("operation", runs, 3);
    row("raw TCP round trip 64 B, blocking", "tcp_block_64", NULL, runs, 3);
    row("raw TCP round trip 64 B, busy-poll", "tcp_busy_64", NULL, runs, 3);
    row("raw TCP round trip 4 KiB, blocking", "tcp_block_4096", NULL, runs, 3);
    row("raw TCP round trip 4 KiB, busy-poll", "tcp_busy_4096", NULL, runs, 3);
    row("AM round trip 64 B (vs raw TCP)", "am_echo_64", "tcp:64", runs, 3);
    row("AM round trip 4 KiB (vs raw TCP)", "am_echo_4096", "tcp:4096", runs, 3);
    row("page fetch, one page (vs AM 4 KiB)", "page_fetch", "am_echo_4096", runs, 3);
    row("page fetch, sequential, per page", "page_fetch_seq", "am_echo_4096", runs, 3);
    row("remote lock acquire+release (vs AM 64 B)", "lock_remote", "am_echo_64", runs, 3);
    row("contended lock hand-off (vs AM 64 B)", "lock_handoff", "am_echo_64", runs, 3);
    row("hand-off, third-node manager, 4 nodes", "lock_handoff_3rd", "am_echo_64", runs, 3);
    row("barrier, 2 nodes (vs AM 64 B)", "barrier_2", "am_echo_64", runs, 3);
    row("barrier, 4 nodes (vs AM 64 B)", "barrier_4", "am_echo_64", runs, 3);
    row("diff encode, one word changed", "diff_encode_one_word", NULL, runs, 3);
    row("diff encode, every other word", "diff_encode_every_other_word", NULL, runs, 3);
    row("diff encode, all words", "diff_encode_all_words", NULL, runs, 3);
    row("diff decode, one word changed", "diff_decode_one_word", NULL, runs, 3);
    row("diff decode, every other word", "diff_decode_every_other_word", NULL, runs, 3);
    row("diff decode, all words", "diff_decode_all_words", NULL, runs, 3);
    printf("\n");
    header("transport (columns: backend, policy)", transports, 6);
    row("raw TCP round trip 64 B, busy-poll", "tcp_busy_64", NULL, transports, 6);
    row("raw UDP round trip 64 B, busy-poll", "udp_busy_64", NULL, transports, 6);
    row("raw UDP round trip 4 KiB, busy-poll", "udp_busy_4096", NULL, transports, 6);
    row("raw shm round trip 64 B, busy-poll", "shm_busy_64", NULL, transports, 6);
    row("raw shm round trip 4 KiB, busy-poll", "shm_busy_4096", NULL, transports, 6);
    row("AM round trip 64 B (vs raw same medium)", "am_echo_64", "raw:64", transports, 6);
    row("AM round trip 4 KiB (vs raw same medium)", "am_echo_4096", "raw:4096", transports, 6);
    row("page fetch, one page (vs AM 4 KiB)", "page_fetch", "am_echo_4096", transports, 6);
    row("contended lock hand-off (vs AM 64 B)", "lock_handoff", "am_echo_64", transports, 6);
    row("barrier, 2 nodes (vs AM 64 B)", "barrier_2", "am_echo_64", transports, 6);
    row("barrier, 4 nodes (vs AM 64 B)", "barrier_4", "am_echo_64", transports, 6);
    printf("\n");
    header("access detection (columns: TSR_DETECT)", detect, 2);
    row("read fault, detection only", "detect_read_fault", NULL, detect, 2);
    row("write fault, detection only", "detect_write_fault", NULL, detect, 2);
    row("first home write, exact tracking", "exact_first_write", NULL, detect, 2);
    row("release scan, per 1,000 home pages", "release_scan_1000", NULL, detect, 2);
    printf("\n");
    header("hand-off (columns: TSR_LOCK_HANDOFF)", handoff, 2);
    row("contended, 2 nodes, us per acquire", "handoff_2", NULL, handoff, 2);
    row("  messages per acquire, whole job", "handoff_2_msgs", NULL, handoff, 2);
    row("  received by the manager (node 0)", "handoff_2_mgr", NULL, handoff, 2);
    row("third-node manager, 4 nodes, us", "handoff_3rd", NULL, handoff, 2);
    row("  messages per acquire, whole job", "handoff_3rd_msgs", NULL, handoff, 2);
    row("  received by the manager (node 2)", "handoff_3rd_mgr", NULL, handoff, 2);
    return 0;
}
