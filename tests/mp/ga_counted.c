/* Themis, OrderCache counted: node 0 makes a fixed sequence of accesses to
 * node 1's segment and checks each value and the exact count of hits,
 * misses and write-backs: an 8-bit miss brings its whole 8-byte line, so
 * the other bytes hit; a byte written without fetching is valid alone, so
 * its neighbour misses and the fetch keeps the written byte; the barrier
 * writes the dirty line back and invalidates every line. */
/* tsr-test: ga_seq -n 2 */
#include <stdio.h>
#include <string.h>

#include "tessera_ga.h"
#include "counter.h"

static long bad;

static void expect(const char *what, uint64_t got, uint64_t want)
{
    if (got != want) {
        fprintf(stderr, "node 0: %s: %llu, not %llu\n", what, (unsigned long long)got,
                (unsigned long long)want);
        bad++;
    }
}

static const char *const names[] = {"ga_read_hits", "ga_read_misses", "ga_async_read_hits",
                                    "ga_async_read_misses", "ga_write_hits", "ga_write_misses",
                                    "ga_write_backs"};
enum { HITS, MISSES, AHITS, AMISSES, WHITS, WMISSES, WBACKS, NCOUNT };
static uint64_t base[NCOUNT];

static void expect_counts(const char *step, const uint64_t want[NCOUNT])
{
    for (int i = 0; i < NCOUNT; i++) {
        char what[96];
        snprintf(what, sizeof what, "after %s, %s", step, names[i]);
        expect(what, counter(names[i]) - base[i], want[i]);
    }
}

int main(int argc, char **argv)
{
    tsr_init(&argc, &argv);
    int me = tsr_node();
    tsr_ga_attr attr = TSR_GA_ATTR_DEFAULT;
    attr.engine = TSR_GA_ORDER_CACHE;
    tsr_ga *ga = tsr_ga_alloc(64, &attr);
    if (me == 1) /* the owner's bytes 0-7: 1, 2, ..., 8 */
        for (int i = 0; i < 8; i++)
            ((uint8_t *)tsr_ga_local(ga))[i] = (uint8_t)(i + 1);
    tsr_ga_barrier();
    for (int i = 0; i < NCOUNT; i++)
        base[i] = counter(names[i]);
    if (me == 0) {
        for (int i = 0; i < 8; i++)
            expect("byte of line 0", tsr_ga_read8(ga, 1, i), (uint64_t)i + 1);
        expect("16 bits of line 0", tsr_ga_read16(ga, 1, 2), 0x0403);
        expect("64 bits of line 0", tsr_ga_read64(ga, 1, 0), 0x0807060504030201ull);
        expect_counts("reading line 0", (const uint64_t[NCOUNT]){9, 1, 0, 0, 0, 0, 0});
        tsr_ga_write8_async(ga, 1, 8, 0x55);
        expect("the byte written", tsr_ga_read8(ga, 1, 8), 0x55);
        expect("its neighbour", tsr_ga_read8(ga, 1, 9), 0);
        expect("the byte written, after the fetch", tsr_ga_read8(ga, 1, 8), 0x55);
        expect_counts("writing line 1", (const uint64_t[NCOUNT]){11, 2, 0, 0, 0, 1, 0});
        tsr_ga_write8_async(ga, 1, 10, 0x66);
        expect_counts("writing line 1 again", (const uint64_t[NCOUNT]){11, 2, 0, 0, 1, 1, 0});
    }
    tsr_ga_barrier();
    if (me == 1) {
        const uint8_t *b = tsr_ga_local(ga);
        expect("the owner's byte 8 after the barrier", b[8], 0x55);
        expect("the owner's byte 10 after the barrier", b[10], 0x66);
    } else {
        expect_counts("the barrier", (const uint64_t[NCOUNT]){11, 2, 0, 0, 1, 1, 1});
        expect("line 1 after the barrier", tsr_ga_read32(ga, 1, 8), 0x660055);
        tsr_ga_signal sig;
        uint32_t v1 = 0, v2 = 0;
        tsr_ga_signal_init(&sig);
        tsr_ga_read32_async(ga, 1, 4, &v1, &sig);
        tsr_ga_signal_wait(&sig);
        tsr_ga_read32_async(ga, 1, 0, &v2, &sig);
        tsr_ga_signal_wait(&sig);
        expect("async read of line 0", v1, 0x08070605);
        expect("async read hit of line 0", v2, 0x04030201);
        expect_counts("the reads after it", (const uint64_t[NCOUNT]){11, 3, 1, 1, 1, 1, 1});
    }
    printf("node %d: %ld counts or values wrong %s\n", me, bad, bad ? "FAIL" : "PASS");
    tsr_finalize();
    return bad != 0;
}
