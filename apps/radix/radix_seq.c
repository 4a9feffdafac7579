/*
 * radix_seq.c - the radix sort as plain sequential C: one worker with one
 * histogram that never waits.
 *
 *   radix_seq KEYS RADIX_BITS KEY_BITS
 */
#include "app.h"
#include "radix.h"

static radix_key *alloc_keys(long n)
{
    radix_key *a = malloc((size_t)n * sizeof *a);
    if (!a) {
        fprintf(stderr, "radix_seq: out of memory\n");
        exit(2);
    }
    return a;
}

int main(int argc, char **argv)
{
    radix_size size = radix_parse(argc, argv);
    radix_key *keys = alloc_keys(size.keys), *tmp = alloc_keys(size.keys);
    size_t *counts = malloc(((size_t)1 << size.radix_bits) * sizeof *counts);
    if (!counts) {
        fprintf(stderr, "radix_seq: out of memory\n");
        exit(2);
    }
    radix_init_keys(keys, 0, size.keys, size.key_bits);
    radix_team alone = {size, 0, 1, counts, 0, radix_no_sync};

    double start = app_now();
    radix_key *sorted = radix_sort(&alone, keys, tmp);
    double seconds = app_now() - start;

    char name[64];
    radix_size_string(&size, name, sizeof name);
    return app_report("radix", "seq", 1, name, seconds, radix_check(sorted, &size));
}
