/* Threads of every node write interleaved bytes of the same pages while
 * the node's other threads release and acquire locks: writer w of W (every
 * thread of every node) owns the bytes i with i % W == w, and writes them
 * in slices, taking and releasing a lock between slices, so that twins,
 * diffs, protection changes and invalidations run while other threads of
 * its node write the same pages. After a thread barrier every thread of
 * every node checks every byte: a write lost to a concurrent release or
 * acquire shows as a wrong byte. Run with 2, then 4 threads per node; with
 * 4, the last thread of each node writes nothing: while its node's writers
 * write it only takes and releases the writers' locks (each grant from
 * another node invalidating pages they write), raises and waits for a
 * flag, and makes range checks that bring invalidated pages back, until
 * its node's writers are done. */
/* tsr-test: threads */
#include <stdatomic.h>
#include <stdio.h>

#include "tessera.h"
#include "thr.h"

#define PAGES 4
#define BYTES (PAGES * 4096)
#define ROUNDS 6
#define SLICES 8

static unsigned char *mem;
static int errors[THR_MAX];
static int round_no;
static atomic_int writing; /* this node's writers still writing this round */

static unsigned char value(int w, int r) { return (unsigned char)(w * 7 + r * 13 + 1); }

static void write_slices(int w, int writers)
{
    int per = (BYTES / writers + SLICES - 1) / SLICES;
    for (int s = 0; s < SLICES; s++) {
        for (int k = s * per; k < (s + 1) * per; k++) {
            long i = (long)k * writers + w;
            if (i < BYTES)
                mem[i] = value(w, round_no);
        }
        tsr_lock(w % 3);
        tsr_unlock(w % 3);
    }
}

static int check_all(int writers)
{
    int bad = 0;
    for (long i = 0; i < BYTES; i++)
        if (mem[i] != value((int)(i % writers), round_no) && bad++ < 3)
            printf("node %d: byte %ld is %u, want %u (writer %ld, round %d)\n", tsr_node(), i,
                   mem[i], value((int)(i % writers), round_no), i % writers, round_no);
    return bad;
}

/* The node's syncing thread, as long as its writers write. */
static void sync_while_written(int r)
{
    int flag = 100 + tsr_node();
    for (int k = 0; atomic_load(&writing); k++) {
        tsr_lock((r + k) % 3);
        tsr_unlock((r + k) % 3);
        tsr_flag_set(flag);
        tsr_flag_wait(flag);
        tsr_flag_clear(flag);
        tsr_range_read(mem, BYTES);
    }
}

static void worker(int i, int n)
{
    int syncer = n > 2, per_node = n - syncer, writers = per_node * tsr_nodes();
    for (int r = 0; r < ROUNDS; r++) {
        if (i == 0) {
            round_no = r; /* read by the others after the barrier below */
            atomic_store(&writing, per_node);
        }
        tsr_barrier_threads(n);
        if (i < per_node) {
            write_slices(tsr_node() * per_node + i, writers);
            atomic_fetch_sub(&writing, 1);
        } else {
            sync_while_written(r);
        }
        tsr_barrier_threads(n);
        errors[i] += check_all(writers);
        tsr_barrier_threads(n); /* every check done before the next round writes */
    }
}

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    mem = tsr_alloc(BYTES);
    int bad = thr_teams_2_4(worker, errors);
    printf("node %d: %d wrong bytes %s\n", tsr_node(), bad, bad ? "FAIL" : "PASS");
    tsr_finalize();
    return bad != 0;
}
