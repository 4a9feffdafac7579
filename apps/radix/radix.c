/*
 * radix.c - the radix sort on Tessera; node 0 checks the result and compares
 * it with the sequential sort computed with the same code (radix.h).
 *
 *   tsrun -n NODES radix KEYS RADIX_BITS KEY_BITS
 *
 * Both key arrays have block homes, so a node's block of keys, which it
 * counts and reads, lies on its home pages; the permutation writes all over
 * the destination array, which is inherent to the algorithm. Each node's
 * histogram fills whole pages of its own, homed at that node, so a node
 * writes its histogram locally and the others fetch it once per pass.
 */
#include <string.h>

#include "app.h"
#include "radix.h"
#include "tessera.h"

#define PAGE_BYTES 4096

/* Elements from one node's histogram to the next: a histogram rounded up
 * to whole pages. */
static size_t histogram_stride(int radix_bits)
{
    size_t bytes = ((size_t)1 << radix_bits) * sizeof(size_t);
    return (bytes + PAGE_BYTES - 1) / PAGE_BYTES * PAGE_BYTES / sizeof(size_t);
}

static void *alloc_private(size_t bytes)
{
    void *p = malloc(bytes);
    if (!p) {
        fprintf(stderr, "radix: out of memory\n");
        exit(2);
    }
    return p;
}

/* Node 0, after the run: the checks the sequential version makes, and the
 * sort is stable, so the parallel result must equal the sequential one. */
static int verify(const radix_key *sorted, const radix_size *size)
{
    size_t n = (size_t)size->keys;
    radix_key *keys = alloc_private(n * sizeof *keys), *tmp = alloc_private(n * sizeof *tmp);
    size_t *counts = alloc_private(((size_t)1 << size->radix_bits) * sizeof *counts);
    radix_init_keys(keys, 0, size->keys, size->key_bits);
    radix_team alone = {*size, 0, 1, counts, 0, radix_no_sync};
    radix_key *expected = radix_sort(&alone, keys, tmp);

    int same = memcmp(sorted, expected, n * sizeof *expected) == 0;
    if (!same)
        fprintf(stderr, "radix: parallel result differs from the sequential one\n");
    int ok = radix_check(sorted, size) && same;
    free(keys);
    free(tmp);
    free(counts);
    return ok;
}

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    int me = tsr_node(), nodes = tsr_nodes();
    radix_size size = radix_parse(argc, argv);
    size_t stride = histogram_stride(size.radix_bits);

    radix_key *keys = tsr_alloc((size_t)size.keys * sizeof *keys);
    radix_key *tmp = tsr_alloc((size_t)size.keys * sizeof *tmp);
    size_t *counts = tsr_alloc((size_t)nodes * stride * sizeof *counts);
    radix_init_keys(keys, radix_first_key(size.keys, me, nodes),
                    radix_first_key(size.keys, me + 1, nodes), size.key_bits);
    radix_team team = {size, me, nodes, counts, stride, tsr_barrier};
    tsr_barrier();

    double start = tsr_wtime();
    radix_key *sorted = radix_sort(&team, keys, tmp); /* ends with a barrier */
    double seconds = tsr_wtime() - start;

    int status = 0;
    if (me == 0) {
        char name[64];
        radix_size_string(&size, name, sizeof name);
        status = app_report("radix", "tessera", nodes, name, seconds, verify(sorted, &size));
    }
    tsr_finalize();
    return status;
}
