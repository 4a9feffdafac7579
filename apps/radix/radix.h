/*
 * radix.h - integer radix sort (after SPLASH-2 RADIX), shared by the
 * sequential and the Tessera versions.
 *
 * The keys are split into contiguous blocks, one per worker. Each pass sorts
 * by one digit of radix_bits bits, least significant first:
 *
 *   1. every worker counts the digits of its own keys (its histogram);
 *   2. every worker reads all histograms and works out where its keys with
 *      digit d go: after all keys with a smaller digit, and after the keys
 *      with digit d of the workers before it (a prefix sum over digits, then
 *      over workers);
 *   3. every worker moves its keys, in order, to those places.
 *
 * Each pass is stable, so the sort is too, and the result does not depend on
 * the number of workers: a worker alone runs the same code with one
 * histogram and no synchronisation.
 */
#ifndef RADIX_H
#define RADIX_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "app.h"

typedef uint32_t radix_key;

/* The problem, from the command line. */
typedef struct radix_size {
    long keys;
    int radix_bits; /* bits per digit: each pass sorts by one digit */
    int key_bits;   /* keys are uniform in 0 .. 2^key_bits - 1 */
} radix_size;

/* One worker's view of a sort. */
typedef struct radix_team {
    radix_size size;
    int me, workers;
    size_t *counts;        /* the workers' histograms, stride apart */
    size_t counts_stride;  /* elements from one histogram to the next */
    void (*sync)(void);    /* waits until every worker got here */
} radix_team;

/* The sync of a worker that sorts alone. */
static void radix_no_sync(void) {}

static radix_size radix_parse(int argc, char **argv)
{
    radix_size s;
    s.keys = app_arg(argc, argv, 1, "keys", 1 << 16);
    s.radix_bits = (int)app_arg(argc, argv, 2, "radix_bits", 8);
    s.key_bits = (int)app_arg(argc, argv, 3, "key_bits", 32);
    if (s.radix_bits > 16 || s.key_bits > 32) {
        fprintf(stderr, "%s: radix_bits must be at most 16 and key_bits at most 32\n", argv[0]);
        exit(2);
    }
    return s;
}

static void radix_size_string(const radix_size *s, char *buf, size_t len)
{
    snprintf(buf, len, "%ldx%dx%d", s->keys, s->radix_bits, s->key_bits);
}

/* The first key of worker `me`: contiguous blocks whose sizes differ by at
 * most one, in worker order. */
static long radix_first_key(long keys, int me, int workers)
{
    return keys * me / workers;
}

/* Key i of the input: the top key_bits of app_mix64(i), so that any worker
 * can generate any part of the input. */
static radix_key radix_input_key(long i, int key_bits)
{
    return (radix_key)(app_mix64((uint64_t)i) >> (64 - key_bits));
}

static void radix_init_keys(radix_key *keys, long lo, long hi, int key_bits)
{
    for (long i = lo; i < hi; i++)
        keys[i] = radix_input_key(i, key_bits);
}

/* counts[d] = how many of keys[lo..hi-1] have digit d at `shift`. */
static void radix_histogram(const radix_key *keys, long lo, long hi, int shift, radix_key mask,
                            size_t *counts)
{
    for (radix_key d = 0; d <= mask; d++)
        counts[d] = 0;
    for (long i = lo; i < hi; i++)
        counts[(keys[i] >> shift) & mask]++;
}

/* dest[d] = the index of this worker's first key with digit d in the output
 * of the pass, from every worker's histogram. */
static void radix_destinations(const radix_team *t, size_t *dest)
{
    size_t digits = (size_t)1 << t->size.radix_bits, before = 0;
    for (size_t d = 0; d < digits; d++) {
        dest[d] = before;
        for (int w = 0; w < t->workers; w++) {
            size_t count = t->counts[(size_t)w * t->counts_stride + d];
            if (w < t->me)
                dest[d] += count;
            before += count;
        }
    }
}

static void radix_permute(const radix_key *src, radix_key *dst, long lo, long hi, int shift,
                          radix_key mask, size_t *dest)
{
    for (long i = lo; i < hi; i++)
        dst[dest[(src[i] >> shift) & mask]++] = src[i];
}

/* Sorts keys[0..n-1], tmp being as large; returns whichever of the two holds
 * the sorted keys once every worker returned. */
static radix_key *radix_sort(const radix_team *t, radix_key *keys, radix_key *tmp)
{
    long lo = radix_first_key(t->size.keys, t->me, t->workers);
    long hi = radix_first_key(t->size.keys, t->me + 1, t->workers);
    radix_key mask = (radix_key)((1u << t->size.radix_bits) - 1);
    size_t *dest = malloc(((size_t)mask + 1) * sizeof *dest);
    if (!dest) {
        fprintf(stderr, "radix: out of memory\n");
        exit(2);
    }
    for (int shift = 0; shift < t->size.key_bits; shift += t->size.radix_bits) {
        radix_histogram(keys, lo, hi, shift, mask, &t->counts[(size_t)t->me * t->counts_stride]);
        t->sync();
        radix_destinations(t, dest);
        radix_permute(keys, tmp, lo, hi, shift, mask, dest);
        /* tmp must be complete before anyone reads it as the next source,
         * and every histogram read before anyone recounts. */
        t->sync();
        radix_key *sorted = tmp;
        tmp = keys;
        keys = sorted;
    }
    free(dest);
    return keys;
}

/* Two order-independent sums of the keys: equal sums for input and output
 * mean (with overwhelming probability) the output is a permutation. */
typedef struct radix_sums {
    uint64_t plain, mixed;
} radix_sums;

static radix_sums radix_input_sums(const radix_size *s)
{
    radix_sums sums = {0, 0};
    for (long i = 0; i < s->keys; i++) {
        radix_key k = radix_input_key(i, s->key_bits);
        sums.plain += k;
        sums.mixed += app_mix64(k);
    }
    return sums;
}

/* The output must be in order and a permutation of the input. */
static int radix_check(const radix_key *sorted, const radix_size *s)
{
    radix_sums want = radix_input_sums(s), got = {0, 0};
    long disorder = 0;
    for (long i = 0; i < s->keys; i++) {
        got.plain += sorted[i];
        got.mixed += app_mix64(sorted[i]);
        disorder += i > 0 && sorted[i - 1] > sorted[i];
    }
    int ok = disorder == 0 && got.plain == want.plain && got.mixed == want.mixed;
    if (!ok)
        fprintf(stderr, "radix: %ld keys out of order, checksums %s\n", disorder,
                got.plain == want.plain && got.mixed == want.mixed ? "equal" : "differ");
    return ok;
}

#endif
