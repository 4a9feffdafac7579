/* Range checks (tsr_range_*, docs/CAS.md) make pages consistent before the
 * program touches them, so the accesses that follow take no fault; a check
 * over pages already consistent does no protocol work; bytes outside the
 * shared memory are ignored. Counted with the named counters faults_taken,
 * cas_checks, cas_useful and cas_pages, under every protocol and backend.
 *
 * An array of P pages, block-homed; node k writes block k, the pages it
 * homes, after a write check over it. After a barrier every node checks
 * the whole array for reading: the pages the others wrote (P - its block,
 * when N > 1) need work, and reading the whole array then takes no fault.
 * A second check does nothing. Then a column of a matrix whose rows are a
 * page each, written by node 0, is checked with the step form and read
 * without a fault: every other node's check brings the rows it does not
 * home. */
/* tsr-test: suite */
#include <stdio.h>
#include <string.h>

#include "tessera.h"
#include "counter.h"

#define PAGE 4096
#define P 48
#define ROWS 40
#define LONGS (PAGE / sizeof(long))

static int bad;

static void expect(const char *what, uint64_t got, uint64_t lo, uint64_t hi)
{
    if (got < lo || got > hi) {
        printf("node %d: %s: %llu, expected %llu..%llu\n", tsr_node(), what,
               (unsigned long long)got, (unsigned long long)lo, (unsigned long long)hi);
        bad++;
    }
}

typedef struct counts {
    uint64_t faults, checks, useful, pages;
} counts;

static counts now(void)
{
    return (counts){counter("faults_taken"), counter("cas_checks"), counter("cas_useful"),
                    counter("cas_pages")};
}

/* The first page of node k's block, as TSR_HOME_BLOCK lays the homes out
 * (the first P % n nodes one page more): a page the node homes and another
 * wrote would be current at its home without a check, so the blocks must
 * be the homes for the counts below to hold at every node count. */
static size_t block_start(int k, int n)
{
    size_t q = P / (size_t)n, r = P % (size_t)n, kk = (size_t)k;
    return kk * q + (kk < r ? kk : r);
}

/* Writes block `me` of the array after a write check: no fault. */
static void write_block(long *a, int me, int n)
{
    size_t lo = block_start(me, n), hi = block_start(me + 1, n);
    counts c0 = now();
    tsr_range_write(a + lo * LONGS, (hi - lo) * PAGE);
    for (size_t i = lo * LONGS; i < hi * LONGS; i++)
        a[i] = (long)i * 3 + 1;
    counts c1 = now();
    expect("faults writing a checked block", c1.faults - c0.faults, 0, 0);
    /* All of them, but for home pages whose writes the kernel tracks
     * (TSR_DETECT=uffd), writable from the start. */
    expect("pages made writable by the block's check", c1.pages - c0.pages, 0, hi - lo);
}

static void read_all(const long *a, int me, int n)
{
    size_t own = block_start(me + 1, n) - block_start(me, n);
    counts c0 = now();
    tsr_range_read(a, (size_t)P * PAGE);
    counts c1 = now();
    long sum = 0;
    for (size_t i = 0; i < P * LONGS; i++) {
        if (a[i] != (long)i * 3 + 1) {
            printf("node %d: a[%zu] = %ld, expected %ld\n", me, i, a[i], (long)i * 3 + 1);
            bad++;
            break;
        }
        sum += a[i];
    }
    counts c2 = now();
    expect("faults reading the checked array", c2.faults - c1.faults, 0, 0);
    expect("useful read checks", c1.useful - c0.useful, n > 1, n > 1);
    expect("pages the read check brought", c1.pages - c0.pages, n > 1 ? P - own : 0,
           n > 1 ? P - own : 0);
    tsr_range_read(a, (size_t)P * PAGE);
    counts c3 = now();
    expect("checks made", c3.checks - c0.checks, 2, 2);
    expect("useful second checks", c3.useful - c2.useful, 0, 0);
    (void)sum;
}

/* Column 5 of a ROWS x LONGS matrix of longs, one page per row. */
/* Garbage collections of the lazy protocol so far (0 under the others). */
static uint64_t collections(void)
{
    uint64_t v = 0;
    tsr_counter_get("lrc_collections", &v);
    return v;
}

static void read_column(long (*m)[LONGS], int me, int n)
{
    if (me == 0)
        for (int r = 0; r < ROWS; r++)
            m[r][5] = r * 7;
    uint64_t gc0 = collections();
    tsr_barrier();
    /* A collection at the barrier (TSR_LRC_GC_BYTES) brings every page up
     * to date, and leaves the check nothing to do. */
    int collected = collections() != gc0;
    counts c0 = now();
    tsr_range_read_step(&m[0][5], sizeof(long), PAGE, ROWS);
    long sum = 0;
    for (int r = 0; r < ROWS; r++)
        sum += m[r][5];
    counts c1 = now();
    expect("column sum", (uint64_t)sum, 7 * ROWS * (ROWS - 1) / 2, 7 * ROWS * (ROWS - 1) / 2);
    expect("faults reading the checked column", c1.faults - c0.faults, 0, 0);
    /* Every row but those homed here, where a protocol has homes. */
    uint64_t homed = (ROWS + n - 1) / n;
    expect("column pages the step check brought", c1.pages - c0.pages,
           me && !collected ? ROWS - homed : 0,
           me ? ROWS : 0);
}

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    int me = tsr_node(), n = tsr_nodes();
    long *a = tsr_alloc((size_t)P * PAGE);
    long(*m)[LONGS] = tsr_alloc((size_t)ROWS * PAGE);
    write_block(a, me, n);
    tsr_barrier();
    read_all(a, me, n);

    char private[3 * PAGE];
    memset(private, 1, sizeof private);
    counts c0 = now();
    tsr_range_write(private, sizeof private);
    counts c1 = now();
    expect("useful checks of private memory", c1.useful - c0.useful, 0, 0);

    read_column(m, me, n);
    tsr_finalize();
    if (bad)
        return 1;
    if (me == 0)
        printf("cas_range: ok\n");
    return 0;
}
